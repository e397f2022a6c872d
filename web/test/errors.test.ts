// @vitest-environment happy-dom
/// <reference types="node" />
/**
 * The server's refusals in the player's language: every code a player can meet in the browser has
 * a text in English and in French (errorText in account.ts shows it instead of the server's English
 * message), and every code the server can send is either such a code or one listed here as a client's
 * bug (those show the server's message).  When the server's sources are next to the client (not in
 * the Docker build's client stage), they are read to find every code, so a new one must be sorted here.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { errorKey, errorText } from "../src/account";
import { ApiError } from "../src/api";
import type { Lang } from "../src/games/contract";
import maske from "../src/games/maske_messages";
import { SHELL, translator } from "../src/i18n";
import type { AppContext } from "../src/match";

/** Codes a player can meet in the pages (from the REST API or the match WebSocket). */
const PLAYER_CODES = [
  // accounts and sessions
  "account_disabled", "account_required", "already_account", "bad_credentials", "bad_session", "bad_token",
  "bad_username", "csrf", "no_session", "not_an_account", "not_signed_in", "signed_out", "too_many_attempts",
  "name_taken", "username_taken", "weak_password", "password_changed",
  // limits and the server's state
  "flooded", "rate_limited", "server_error", "stopping", "too_large", "unavailable", "too_many_bot_matches", "too_many_spectators",
  // pages
  "no_game", "no_lesson", "no_match", "no_player", "no_rules",
  // creating, joining and leaving
  "already_seated", "bad_clock", "bad_invite", "bad_options", "bad_seats", "expired", "invite_required",
  "no_free_seat", "seat_taken", "seed_not_allowed", "chosen_deal", "rematch_unavailable", "started",
  // playing
  "already_out", "cannot_abort", "illegal_action", "not_abandoned", "not_running", "not_seated", "not_your_turn",
  "out_of_time", "rules_changed", "seat_changed", "seat_is_bot", "spectator", "stale_version",
  // after the end: rematch, hints and analysis
  "already_answered", "analysis_failed", "hint_failed", "hints_not_allowed", "match_not_finished",
  "match_not_running", "no_analysis", "not_finished", "not_shared", "not_your_seat", "rematch_declined",
  // chat
  "chat_bad_text", "chat_empty", "chat_too_long", "sign_in_to_chat",
];

/** Codes only a faulty client (or a hand-made request) gets: the server's message is shown as it is. */
const CLIENT_BUG_CODES = [
  "bad_action", "bad_hello", "bad_http", "bad_json", "bad_message", "bad_record", "bad_request", "bad_seat",
  "bad_version", "hidden_for_good", "key_reused", "method_not_allowed", "no_figure", "no_seat", "no_step", "not_found",
];

const LANGS: Lang[] = ["en", "fr"];

function appIn(lang: Lang): AppContext {
  return { t: translator(SHELL, () => lang), lang: () => lang } as unknown as AppContext;
}

/** The server's sources, when they are there (none otherwise). */
function serverSources(): string[] {
  // paths, not URLs: under happy-dom, URL is the page's class, which node:fs does not take
  const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "masques", "server");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".py"))
    .map((name) => readFileSync(join(dir, name), "utf-8"));
}

describe("the server's refusals", () => {
  it.each(PLAYER_CODES)("%s has a text in both languages", (code) => {
    for (const lang of LANGS) {
      const text = SHELL[lang][errorKey(code)];
      expect(text, `${lang} ${errorKey(code)}`).toBeTruthy();
      // errorText passes `seconds` only: any other placeholder would show as it is written
      const names = [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(names.filter((name) => name !== "seconds"), `${lang} ${code} placeholders`).toEqual([]);
    }
  });

  it("shows them in the page's language", () => {
    const full = new ApiError(429, "too_many_bot_matches", "one client may have 3 matches with bots open", 30);
    expect(errorText(appIn("en"), full)).toContain("My matches");
    expect(errorText(appIn("fr"), full)).toContain("Mes parties");
    expect(errorText(appIn("fr"), new ApiError(409, "not_your_turn", "it is not your turn"))).toBe(
      "Ce n'est pas votre tour : attendez-le.",
    );
  });

  it("says how long to wait when the server says it", () => {
    const limited = new ApiError(429, "rate_limited", "too many create requests", 12);
    expect(errorText(appIn("en"), limited)).toBe("Too many requests at once: try again in 12 s.");
    expect(errorText(appIn("fr"), limited)).toBe("Trop de demandes à la fois : réessayez dans 12 s.");
    // the chat's own text for the same code stays the chat's
    expect(SHELL.en.err_rate_limited).toContain("message");
  });

  it("shows the server's message for a code it has no text for", () => {
    expect(errorText(appIn("fr"), new ApiError(400, "bad_action", "'action' must be an integer action id"))).toBe(
      "'action' must be an integer action id",
    );
  });

  it("puts a space before a colon in French", () => {
    for (const code of PLAYER_CODES) {
      const text = SHELL.fr[errorKey(code)];
      expect(text, code).not.toMatch(/\S[:;?!]/);
    }
  });

  const found = new Set<string>();
  for (const source of serverSources()) {
    for (const m of source.matchAll(/ServerError\(\s*\d+,\s*"(\w+)"/g)) found.add(m[1]);
    for (const m of source.matchAll(/"code":\s*"(\w+)"/g)) found.add(m[1]);
  }

  it.skipIf(found.size === 0)("sorts every code the server sends", () => {
    const sorted = new Set([...PLAYER_CODES, ...CLIENT_BUG_CODES]);
    expect([...found].filter((code) => !sorted.has(code)).sort()).toEqual([]);
    expect(found.has("too_many_bot_matches")).toBe(true); // the sources were read
  });
});

describe("Maske's auction", () => {
  it("does not call dropping out of a bid resigning the match", () => {
    for (const lang of LANGS) {
      expect(maske[lang].drop).not.toBe(SHELL[lang].resign);
      expect(maske[lang].keys).not.toContain(SHELL[lang].resign.toLowerCase());
    }
    expect(maske.fr.drop).toBe("Se retirer");
  });
});

describe("rematch answers", () => {
  it("read right after any name, yours included", () => {
    const fr = translator(SHELL, () => "fr");
    for (const key of ["rematch_accepted", "rematch_declined_one", "rematch_waiting"]) {
      expect(fr("rematch_answer", { name: fr("you"), answer: fr(key) })).toMatch(/^Vous : [a-zé]/);
    }
    expect(fr("rematch_answer", { name: "Ada", answer: fr("rematch_waiting") })).toBe("Ada : pas encore de réponse");
  });
});
