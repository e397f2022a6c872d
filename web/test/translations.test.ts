// @vitest-environment happy-dom
/**
 * Every message table of the client has the same keys in English and French, with the same
 * `{placeholders}`: a key missing in one language fails the build (scripts/build_web.sh runs these
 * tests before bundling).  Tables are found among every module's exports, so a new table is checked
 * as soon as it is exported.
 */
import { describe, expect, it } from "vitest";
import { genericModule } from "../src/games/generic";

const LANGS = ["en", "fr"] as const;

type Table = Record<string, Record<string, string>>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is Record<string, string> =>
  isRecord(v) && Object.values(v).every((s) => typeof s === "string");

/** A `Messages` table: `{en: {key: text}, fr: {key: text}}` (or one language only: a defect). */
function isMessages(v: unknown): v is Table {
  return isRecord(v) && LANGS.some((lang) => isStrings(v[lang])) && Object.keys(v).every((k) => k === "en" || k === "fr");
}

/** A table per key: `{key: {en: text, fr: text}}` (the lobby's rules, the bot levels). */
function isPerKey(v: unknown): v is Table {
  return (
    isRecord(v) &&
    Object.keys(v).length > 0 &&
    Object.values(v).every((entry) => isRecord(entry) && isStrings(entry) && Object.keys(entry).every((k) => k === "en" || k === "fr"))
  );
}

const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

// Every module but the entry point (which starts the app on import).
const modules = import.meta.glob(["../src/**/*.ts", "!../src/main.ts", "!../src/**/*.d.ts"], { eager: true });

function tables(): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = [];
  for (const [path, module] of Object.entries(modules)) {
    for (const [name, value] of Object.entries(module as Record<string, unknown>)) {
      if (isMessages(value) || isPerKey(value)) found.push([`${path}:${name}`, value]);
    }
  }
  found.push(["generic view", genericModule("any").messages]);
  return found;
}

describe("translations", () => {
  const all = tables();

  it("finds the client's tables", () => {
    const names = all.map(([name]) => name).join("\n");
    for (const expected of ["i18n.ts:SHELL", "pace.ts:PACE_MESSAGES", "masker_messages.ts:default", "maske_messages.ts:default", "mascarade_messages.ts:default", "blokus3d_messages.ts:default", "rules.ts:RULES"]) {
      expect(names).toContain(expected);
    }
  });

  it.each(all.filter(([, t]) => isMessages(t)))("%s has every key in both languages", (_, table) => {
    const t = table as Table;
    for (const lang of LANGS) expect(isStrings(t[lang]), `${lang} table`).toBe(true);
    const en = Object.keys(t.en).sort();
    const fr = Object.keys(t.fr).sort();
    expect(en.filter((k) => !fr.includes(k)), "missing in French").toEqual([]);
    expect(fr.filter((k) => !en.includes(k)), "missing in English").toEqual([]);
    for (const key of en) {
      expect(placeholders(t.fr[key]), `placeholders of ${key}`).toEqual(placeholders(t.en[key]));
      expect(t.en[key].trim() === "" && t.fr[key].trim() === "").toBe(false);
    }
  });

  it.each(all.filter(([, t]) => isPerKey(t)))("%s says each entry in both languages", (_, table) => {
    for (const [key, entry] of Object.entries(table as Table)) {
      for (const lang of LANGS) expect(typeof entry[lang], `${key}.${lang}`).toBe("string");
    }
  });

  it("would see a key missing in one language", () => {
    const broken = { en: { a: "A", b: "B {n}" }, fr: { a: "A" } };
    expect(isMessages(broken)).toBe(true);
    expect(Object.keys(broken.en).filter((k) => !(k in broken.fr))).toEqual(["b"]);
    expect(isMessages({ en: { a: "A" } })).toBe(true); // one language only is still a table, and fails above
  });
});
