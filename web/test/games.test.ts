/** Pure helpers of the game views: Maske's plate and log, the log's person, Blokus 3D's turns, the registry. */
import { describe, expect, it } from "vitest";
import type { LogEntry } from "../src/games/contract";
import { snapAxis, turnXY } from "../src/games/blokus3d_board";
import { GAMES_WITH_VIEWS, moduleFor } from "../src/games/index";
import { youKey } from "../src/games/log_words";
import { CENTRE, holeIndex, holeName, lastOnPlate, neighbour } from "../src/games/maske_data";
import maskeMessages from "../src/games/maske_messages";
import { oneMoveApart } from "../src/games/motion";
import { format, translator } from "../src/i18n";

const log = (...moves: Array<[number, string]>): LogEntry[] => moves.map(([seat, move], i) => ({ version: i + 1, seat, move }));

describe("Maske's plate", () => {
  it("names holes both ways", () => {
    for (const hole of [0, 6, 24, 48]) expect(holeIndex(holeName(hole))).toBe(hole);
    expect(holeIndex("h1")).toBe(-1);
    expect(neighbour(CENTRE - 1, 1)).toBe(-1); // never onto the centre (MS-10)
  });

  it("marks a stick put into a hole", () => {
    const sticks = [holeIndex("c2"), -1];
    expect(lastOnPlate(log([0, "c2"]), sticks)).toEqual({ version: 1, stick: 0, holes: [holeIndex("c2")], mask: null });
  });

  it("marks a stick's steps in a row, from where it started, past the bids and the end of the move", () => {
    // Stick 1 went a1 -> b1 -> b2, then "done"; stick 0 stands on g7.
    const sticks = [holeIndex("g7"), holeIndex("b2")];
    const moves = log([1, "bid 2"], [0, "step 1 right"], [0, "step 1 down"], [0, "done"], [1, "pass"]);
    expect(lastOnPlate(moves, sticks)).toEqual({
      version: 3,
      stick: 1,
      holes: [holeIndex("a1"), holeIndex("b1"), holeIndex("b2")],
      mask: null,
    });
  });

  it("marks the mask when it was laid or turned last", () => {
    expect(lastOnPlate(log([0, "c2"], [1, "lay 2"]), [])?.mask).toBe("lay");
    expect(lastOnPlate(log([1, "turn cw"], [0, "draw"]), [])?.mask).toBe("turn");
    expect(lastOnPlate(log([0, "pass"]), [])).toBeNull();
  });
});

describe("the log speaks to the viewer", () => {
  it("uses the second person for the viewer's own moves, where a form exists", () => {
    expect(youKey(maskeMessages, "log_draw", true)).toBe("log_draw_you");
    expect(youKey(maskeMessages, "log_draw", false)).toBe("log_draw");
    expect(youKey(maskeMessages, "no_such_key", true)).toBe("no_such_key");
    const t = translator(maskeMessages, () => "fr");
    expect(`Vous ${t(youKey(maskeMessages, "log_draw", true))}`).toBe("Vous piochez une carte");
  });

  it("fills placeholders and leaves unknown ones", () => {
    expect(format("{a} and {b}", { a: 1 })).toBe("1 and {b}");
  });
});

describe("Blokus 3D's turntable", () => {
  it("turns a square four quarters back to itself", () => {
    let at: [number, number] = [2, 7];
    for (let q = 0; q < 4; q++) at = turnXY(at[0], at[1], 1);
    expect(at).toEqual([2, 7]);
    expect(turnXY(0, 0, 2)).toEqual([9, 9]);
    expect(snapAxis(0.2, -0.9)).toEqual([0, -1]);
  });
});

describe("the view registry", () => {
  it("knows each game's strings without loading its view, and the generic view for others", () => {
    expect(GAMES_WITH_VIEWS.sort()).toEqual(["blokus3d", "mascarade", "maske", "masker"]);
    expect(moduleFor("maske").messages).toBe(maskeMessages);
    expect(moduleFor("chess").name).toBe("chess");
    expect(Object.keys(moduleFor("chess").messages.en)).toContain("moves");
  });

  it("animates only a single move", () => {
    expect(oneMoveApart({ version: 3 }, { version: 4 })).toBe(true);
    expect(oneMoveApart({ version: 3 }, { version: 5 })).toBe(false);
    expect(oneMoveApart(null, { version: 1 })).toBe(false);
  });
});
