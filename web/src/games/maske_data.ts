/**
 * Maske's public data, read from the files the engine ships (`masks.json`, `cards.json`, and
 * `mask_values.json` written from the engine's `MASK_VALUES`), so the view never computes or drifts
 * from the rules' data; and the legal moves indexed by what they do.
 */

import cardsFile from "../../../src/masques/games/maske/cards.json";
import masksFile from "../../../src/masques/games/maske/masks.json";
import maskValuesFile from "../../../src/masques/games/maske/mask_values.json";
import type { LegalAction, LogEntry } from "./contract";

export const SIZE = 7;
export const CENTRE = 3 * SIZE + 3;
export const FILES = "abcdefg";
export const DIRECTIONS: Array<[number, number]> = [[-1, 0], [0, 1], [1, 0], [0, -1]]; // up right down left
export const DIRECTION_NAMES = ["up", "right", "down", "left"];

export interface Mask {
  id: number;
  name: string;
  rows: string[];
}

export interface Card {
  id: number;
  effect: Array<Record<string, unknown>>;
  text: Record<string, string>;
}

export const MASKS: Mask[] = masksFile.masks;
export const CARDS: Card[] = cardsFile.cards as Card[];

const VALUES: number[][][] = maskValuesFile.masks.map((m) => m.values);

/** What each of the 49 positions pays with mask `id` turned `orientation` quarter turns clockwise
 * (MS-3): the engine's `MASK_VALUES`, read from `mask_values.json`. */
export function maskValues(id: number, orientation: number): number[] {
  return VALUES[id][((orientation % 4) + 4) % 4];
}

/** `a1` is the top-left hole, as the engine's `hole_name`. */
export function holeName(hole: number): string {
  return `${FILES[hole % SIZE]}${Math.floor(hole / SIZE) + 1}`;
}

/** The hole one step away, or -1 off the plate or onto the centre (MS-10). */
export function neighbour(hole: number, direction: number): number {
  const r = Math.floor(hole / SIZE) + DIRECTIONS[direction][0];
  const c = (hole % SIZE) + DIRECTIONS[direction][1];
  if (r < 0 || r >= SIZE || c < 0 || c >= SIZE || r * SIZE + c === CENTRE) return -1;
  return r * SIZE + c;
}

/** What Maske's observation holds (see `MaskeState.observation`). */
export interface MaskeObservation {
  seat: number | null;
  players: number;
  points: number[];
  sticks: number[][];
  masks_laid: Array<{ mask: number; orientation: number }>;
  top_mask: { mask: number; orientation: number } | null;
  masks_left: number;
  masks_total: number;
  unmasking: boolean;
  auction_rule?: "rounds" | "open"; // MS-11, or MS-11a: a pass is not for good
  round: number;
  placer: number;
  round_pos: number;
  phase: "setup" | "lay" | "action" | "moving" | "auction" | "effect" | "over";
  actor: number;
  to_move: number | null;
  extra_actions: number[];
  extra_action: boolean;
  steps_this_move: number;
  mask_to_lay: number | null;
  skip: boolean[];
  double_payday: boolean[];
  auction: {
    card: number | null;
    drawer: number;
    bid: number;
    high: number | null;
    turn: number;
    active: number[];
  } | null;
  effect: {
    card: number;
    holder: number;
    op: number;
    stage: string;
    decider: number;
    stick: number | null;
    left: number;
    queue: number[];
  } | null;
  deck: Array<number | null>;
  log: string[];
  terminal: boolean;
  winners: number[];
}

/** The legal actions of this decision, by what they do (parsed from the engine's notation). */
export interface Choices {
  holes: Map<number, number>;
  steps: Map<string, number>; // "stick,direction" -> id
  named: Map<string, number>; // pass, draw, done, drop, turn cw, turn ccw
  lays: Map<number, number>;
  sticks: Map<number, number>;
  players: Map<number, number>;
  bids: Map<number, number>;
}

export function choicesOf(legal: LegalAction[]): Choices {
  const out: Choices = {
    holes: new Map(),
    steps: new Map(),
    named: new Map(),
    lays: new Map(),
    sticks: new Map(),
    players: new Map(),
    bids: new Map(),
  };
  for (const { id, label } of legal) {
    const words = label.split(" ");
    if (/^[a-g][1-7]$/.test(label)) {
      out.holes.set((Number(label[1]) - 1) * SIZE + FILES.indexOf(label[0]), id);
    } else if (words[0] === "step") {
      out.steps.set(`${words[1]},${DIRECTION_NAMES.indexOf(words[2])}`, id);
    } else if (words[0] === "lay") {
      out.lays.set(Number(words[1]), id);
    } else if (words[0] === "stick") {
      out.sticks.set(Number(words[1]), id);
    } else if (words[0] === "player") {
      out.players.set(Number(words[1]), id);
    } else if (words[0] === "bid") {
      out.bids.set(Number(words[1]), id);
    } else {
      out.named.set(label, id);
    }
  }
  return out;
}

/** Sticks that have a legal step now. */
export function steppingSticks(choices: Choices): Set<number> {
  return new Set([...choices.steps.keys()].map((k) => Number(k.split(",")[0])));
}

/** The hole named `a1`..`g7`, or -1. */
export function holeIndex(name: string): number {
  const m = /^([a-g])([1-7])$/.exec(name);
  return m ? (Number(m[2]) - 1) * SIZE + FILES.indexOf(m[1]) : -1;
}

/** What the last move on the plate touched: a stick put into (or jumping to) a hole, or a stick's
 * steps in a row (`holes` from where it started to where it stands), or the mask laid or turned. */
export interface PlateMove {
  version: number;
  stick: number | null;
  holes: number[];
  mask: "lay" | "turn" | null;
}

/** The last move on the plate, read from the log (the bids, passes and cards change nothing there). */
export function lastOnPlate(log: LogEntry[], sticks: number[]): PlateMove | null {
  for (let i = log.length - 1; i >= 0; i--) {
    const move = log[i].move;
    const version = log[i].version;
    const hole = holeIndex(move);
    if (hole >= 0) {
      const stick = sticks.indexOf(hole);
      return { version, stick: stick >= 0 ? stick : null, holes: [hole], mask: null };
    }
    if (move.startsWith("lay ")) return { version, stick: null, holes: [], mask: "lay" };
    if (move.startsWith("turn ")) return { version, stick: null, holes: [], mask: "turn" };
    const step = /^step (\d+) (\w+)$/.exec(move);
    if (!step) continue;
    const stick = Number(step[1]);
    // Walk back over this stick's steps in a row, from where it stands now.
    let at = sticks[stick] ?? -1;
    const holes = [at];
    for (let j = i; j >= 0 && at >= 0; j--) {
      const back = /^step (\d+) (\w+)$/.exec(log[j].move);
      if (!back || Number(back[1]) !== stick) break;
      const d = DIRECTION_NAMES.indexOf(back[2]);
      if (d < 0) break;
      at = neighbour(at, (d + 2) % 4);
      if (at >= 0) holes.unshift(at);
    }
    return { version, stick, holes, mask: null };
  }
  return null;
}
