/** Moves in the log's words without a view on screen (the shared analysis page), as the views say them. */
import { describe, expect, it } from "vitest";
import type { Lang } from "../src/games/contract";
import { wordsOf } from "../src/games/index";
import type { WordsContext } from "../src/games/log_words";
import { translator } from "../src/i18n";

function context(game: string, lang: Lang, viewer: number | null, options: Record<string, unknown> = {}): WordsContext {
  const of = wordsOf(game)!;
  return { t: translator(of.messages, () => lang), seatName: (seat) => `P${seat}`, viewer, options };
}

const say = (game: string, seat: number, move: string, ctx: WordsContext) =>
  wordsOf(game)!.say({ version: 1, seat, move }, ctx);

describe("a move in words without a view", () => {
  it("knows every game with a view, and none other", () => {
    for (const game of ["masker", "maske", "mascarade", "blokus3d"]) expect(wordsOf(game)).not.toBeNull();
    expect(wordsOf("pips")).toBeNull();
  });

  it("says another seat's move in the third person and the viewer's own in the second", () => {
    expect(say("masker", 1, "c4", context("masker", "en", null))).toBe("steps onto c4");
    expect(say("masker", 1, "c4", context("masker", "en", 1))).toBe("step onto c4");
    expect(say("masker", 0, "take 1", context("masker", "en", null))).toBe("takes a cross from P1");
    expect(say("masker", 0, "stop", context("masker", "fr", null))).toBe("s'arrête");
  });

  it("names Maske's sticks by their owner and a drop by the auction's rule (MS-11, MS-11a)", () => {
    expect(say("maske", 0, "step 3 right", context("maske", "en", null))).toMatch(/stick 2 \(P1\)/);
    expect(say("maske", 1, "step 3 right", context("maske", "en", null))).toMatch(/^steps stick 2 /);
    expect(say("maske", 2, "drop", context("maske", "en", null, { auction: "rounds" }))).toBe("drops out");
    expect(say("maske", 2, "drop", context("maske", "en", null, { auction: "open" }))).toBe("passes");
  });

  it("says Blokus 3D's piece by name without the engine's orientation number", () => {
    const words = say("blokus3d", 0, "L4:5@c3", context("blokus3d", "en", null));
    expect(words).toContain("(L4) at c3");
    expect(words).not.toContain("5");
    expect(say("blokus3d", 0, "pass", context("blokus3d", "en", null))).toBe("pass");
  });
});
