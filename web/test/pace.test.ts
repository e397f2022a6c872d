/** The pacing of bot moves in the live view (pace.ts): who moved, how long a state waits, the queue. */
import { describe, expect, it } from "vitest";
import type { MatchView } from "../src/games/contract";
import { type Clock, DEFAULT_PACE, Pacer, actorOf, isBotMove, parsePace, waitFor } from "../src/pace";

/** A 2-seat match: seat 0 a person (the viewer), seat 1 a bot. */
function state(version: number, toMove: number | null, log: Array<[number, number]> = [], seat: number | null = 0): MatchView {
  return {
    type: "state",
    match: {
      id: "m",
      game: "masker",
      title: "",
      options: {},
      status: "running",
      version,
      rematch_of: null,
      turn_seconds: 0,
      turn_deadline: null,
      seats: [
        { seat: 0, kind: "human", name: "Ada", taken: true, connected: true },
        { seat: 1, kind: "random", name: null, taken: true, connected: true },
      ],
      spectators: 0,
    },
    version,
    seat,
    to_move: toMove,
    your_turn: toMove === seat,
    observation: {},
    legal: [],
    log: log.map(([v, s]) => ({ version: v, seat: s, move: "x" })),
    result: null,
  };
}

class FakeClock implements Clock {
  t = 0;
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private next = 1;
  now(): number {
    return this.t;
  }
  later(fn: () => void, ms: number): number {
    const id = this.next++;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  }
  cancel(id: number): void {
    this.timers = this.timers.filter((x) => x.id !== id);
  }
  /** Move time on, running the timers that fall due, in order (bounded by the timers set). */
  advance(ms: number): void {
    const end = this.t + ms;
    for (let guard = 0; guard < 1000; guard++) {
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = end;
  }
}

describe("the pace setting", () => {
  it("reads a stored choice, else the default", () => {
    expect(parsePace("0")).toBe(0);
    expect(parsePace("1.2")).toBe(1.2);
    expect(parsePace(null)).toBe(DEFAULT_PACE);
    expect(parsePace("7")).toBe(DEFAULT_PACE);
    expect(parsePace("fast")).toBe(DEFAULT_PACE);
  });
});

describe("who moved", () => {
  it("is the log's entry for the new version, else the seat that was to move", () => {
    expect(actorOf(state(3, 1), state(4, 0, [[4, 1]]))).toBe(1);
    expect(actorOf(state(3, 1), state(4, 0))).toBe(1);
    expect(actorOf(state(3, 1), state(5, 0))).toBeNull(); // a jump: not one move
  });

  it("paces a bot's move only", () => {
    expect(isBotMove(state(3, 1), state(4, 1, [[4, 1]]))).toBe(true);
    expect(isBotMove(state(3, 0), state(4, 1, [[4, 0]]))).toBe(false); // the viewer's own move
    expect(isBotMove(null, state(4, 1, [[4, 1]]))).toBe(false); // the first state
    expect(waitFor(state(3, 1), state(4, 1, [[4, 1]]), 1000, 1200, 600)).toBe(400);
    expect(waitFor(state(3, 1), state(4, 1, [[4, 1]]), 1000, 1700, 600)).toBe(0);
    expect(waitFor(state(3, 0), state(4, 1, [[4, 0]]), 1000, 1000, 600)).toBe(0);
    expect(waitFor(state(3, 1), state(4, 1, [[4, 1]]), 1000, 1000, 0)).toBe(0);
  });
});

describe("the queue", () => {
  function setup(paceMs = 600) {
    const clock = new FakeClock();
    const shown: number[] = [];
    const pacer = new Pacer((v) => shown.push(v.version), () => paceMs, clock);
    return { clock, shown, pacer };
  }

  it("shows the bot's moves one by one, the pace apart, in order", () => {
    const { clock, shown, pacer } = setup();
    pacer.push(state(3, 1));
    expect(shown).toEqual([3]);
    pacer.push(state(4, 1, [[4, 1]]));
    pacer.push(state(5, 1, [[4, 1], [5, 1]]));
    pacer.push(state(6, 0, [[4, 1], [5, 1], [6, 1]]));
    expect(shown).toEqual([3]);
    expect(pacer.waiting).toBe(3);
    clock.advance(599);
    expect(shown).toEqual([3]);
    clock.advance(1);
    expect(shown).toEqual([3, 4]);
    clock.advance(600);
    expect(shown).toEqual([3, 4, 5]);
    clock.advance(600);
    expect(shown).toEqual([3, 4, 5, 6]);
    expect(pacer.waiting).toBe(0);
  });

  it("never delays the viewer's own move", () => {
    const { shown, pacer } = setup();
    pacer.push(state(3, 0));
    pacer.push(state(4, 1, [[4, 0]]));
    expect(shown).toEqual([3, 4]);
  });

  it("keeps a newer picture of a waiting version, and shows all at once on demand", () => {
    const { clock, shown, pacer } = setup();
    pacer.push(state(3, 1));
    pacer.push(state(4, 1, [[4, 1]]));
    pacer.push(state(4, 0, [[4, 1]]));
    expect(pacer.waiting).toBe(1);
    pacer.push(state(5, 0, [[4, 1], [5, 1]]));
    pacer.flush();
    expect(shown).toEqual([3, 5]);
    clock.advance(5000);
    expect(shown).toEqual([3, 5]);
  });

  it("shows at once when the pace is zero", () => {
    const { shown, pacer } = setup(0);
    pacer.push(state(3, 1));
    pacer.push(state(4, 1, [[4, 1]]));
    expect(shown).toEqual([3, 4]);
  });
});
