// @vitest-environment happy-dom
/**
 * Counts in words: one analysis step or one waiting match is not written as many, in either
 * language, and a progress whose total is not known yet says so instead of "0 of 0".
 */
import { describe, expect, it } from "vitest";
import { MESSAGES, progressText } from "../src/analysis";
import { SHELL, translator } from "../src/i18n";
import { turnOf } from "../src/match";
import type { Lang } from "../src/games/contract";

const say = (lang: Lang) => translator(MESSAGES, () => lang);

describe("an analysis's progress", () => {
  it("waits for its total before it counts", () => {
    expect(progressText(say("en"), 0, 0)).toBe("Analysing…");
    expect(progressText(say("fr"), 0, 0)).toBe("Analyse…");
  });

  it("agrees its noun as each language does", () => {
    expect(progressText(say("en"), 0, 12)).toBe("Analysing… 0 of 12 decisions");
    expect(progressText(say("en"), 1, 12)).toBe("Analysing… 1 of 12 decisions");
    expect(progressText(say("en"), 0, 1)).toBe("Analysing… 0 of 1 decision");
    expect(progressText(say("fr"), 1, 12)).toBe("Analyse… 1 décision sur 12");
    expect(progressText(say("fr"), 5, 12)).toBe("Analyse… 5 décisions sur 12");
    expect(progressText(say("fr"), 0, 1)).toBe("Analyse… 0 décision sur 1");
  });
});

describe("the top bar's waiting matches", () => {
  it("has a singular for one match", () => {
    expect(SHELL.en.waiting_title_one).toBe("1 match waits for your move");
    expect(SHELL.fr.waiting_title_one).toBe("1 partie attend votre coup");
  });
});

describe("whose turn it is, in French", () => {
  it("elides de before a vowel", () => {
    const fr = translator(SHELL, () => "fr");
    expect(turnOf(fr, "Anna")).toBe("Au tour d'Anna");
    expect(turnOf(fr, "Émile")).toBe("Au tour d'Émile");
    expect(turnOf(fr, "Bea")).toBe("Au tour de Bea");
    expect(turnOf(translator(SHELL, () => "en"), "Anna")).toBe("Anna to move");
  });
});
