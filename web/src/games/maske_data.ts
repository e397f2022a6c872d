/**
 * Maske's public data, read from the files the engine ships (`masks.json`, `cards.json`, and
 * `mask_values.json` written from the engine's `MASK_VALUES`), so the view never computes or drifts
 * from the rules' data; and the legal moves indexed by what they do.
 */

import cardsFile from "../../../src/masques/games/maske/cards.json";
import masksFile from "../../../src/masques/games/maske/masks.json";
import maskValuesFile from "../../../src/masques/games/maske/mask_values.json";
import type { LegalAction } from "./contract";

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
