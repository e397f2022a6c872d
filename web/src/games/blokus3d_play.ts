/**
 * Blokus 3D placements as the view handles them: the server's legal moves turned into cubes in
 * space, and the choice of one of them from a pointed square.  Pure functions, no drawing.
 */

import type { LegalAction } from "./contract";
import { type Cube, ORIENTATION_LIST, PIECE_IDS, type PieceId, orientation, squareName } from "./blokus3d_pieces";

/** What the engine's `observation(seat)` holds for Blokus 3D (see `Blokus3DState.observation`). */
export interface ColourInfo {
  colour: string;
  seat: number;
  status: "playing" | "out" | "done";
  pieces_left: string[];
  score: number;
}

export interface B3Observation {
  seat: number | null;
  your_colours: string[];
  structure: { key: string; name: string; max_heights: number[][] };
  stacks: string[][];
  colours: ColourInfo[];
  to_move: { colour: string; seat: number } | null;
  moves: number[];
  last_move: string | null;
  terminal: boolean;
  scores: number[];
  winners?: number[];
}

export const LETTER_COLOUR: Record<string, string> = { b: "blue", y: "yellow", r: "red", g: "green" };

/** One legal placement, with its cubes where they would stand (z follows from the height map). */
export interface Placement {
  id: number;
  piece: PieceId;
  number: number;
  x: number;
  y: number;
  cubes: Cube[];
  /** Board squares the piece covers seen from above, as `x,y` keys. */
  squares: Set<string>;
}

export const key = (x: number, y: number): string => `${x},${y}`;

/** Column heights `[y][x]` from the observation's stacks. */
export function heightsOf(obs: B3Observation): number[][] {
  return obs.stacks.map((row) => row.map((stack) => stack.length));
}

/** The cubes of orientation `piece:number` with its anchor on (x, y), resting on the height map. */
export function restingCubes(piece: string, number: number, x: number, y: number, heights: number[][]): Cube[] {
  const o = orientation(piece, number);
  const c0 = o.columns[0];
  const z = heights[y + c0.dy][x + c0.dx] - c0.zlow;
  return o.cubes.map(([dx, dy, dz]) => [x + dx, y + dy, z + dz] as Cube);
}

interface MoveJson {
  piece: string;
  orientation: number;
  x: number;
  y: number;
}

function isMove(move: unknown): move is MoveJson {
  const m = move as MoveJson | null;
  return !!m && typeof m.piece === "string" && typeof m.orientation === "number";
}

/** Every legal action as a placement; entries whose `move` is not a placement are left out. */
export function placementsOf(legal: LegalAction[], heights: number[][]): Placement[] {
  const out: Placement[] = [];
  for (const action of legal) {
    if (!isMove(action.move)) continue;
    const { piece, orientation: number, x, y } = action.move;
    const cubes = restingCubes(piece, number, x, y, heights);
    out.push({
      id: action.id,
      piece: piece as PieceId,
      number,
      x,
      y,
      cubes,
      squares: new Set(cubes.map(([cx, cy]) => key(cx, cy))),
    });
  }
  return out;
}

/** Placements grouped per piece, in tray order. */
export function byPiece(placements: Placement[]): Map<PieceId, Placement[]> {
  const out = new Map<PieceId, Placement[]>();
  for (const p of placements) {
    const list = out.get(p.piece) ?? [];
    list.push(p);
    out.set(p.piece, list);
  }
  return new Map(PIECE_IDS.filter((id) => out.has(id)).map((id) => [id, out.get(id)!]));
}

function centre(p: Placement): [number, number] {
  let sx = 0;
  let sy = 0;
  for (const [x, y] of p.cubes) {
    sx += x;
    sy += y;
  }
  return [sx / p.cubes.length, sy / p.cubes.length];
}

/**
 * The placements to offer at a pointed square: those covering it, or else the nearest ones, so the
 * ghost always snaps to a legal placement.  Ordered by orientation, then anchor, for a stable cycle.
 */
export function candidatesAt(placements: Placement[], x: number, y: number): Placement[] {
  let out = placements.filter((p) => p.squares.has(key(x, y)));
  if (!out.length && placements.length) {
    const dist = (p: Placement): number => {
      const [cx, cy] = centre(p);
      return Math.round(((cx - x) ** 2 + (cy - y) ** 2) * 100);
    };
    const best = Math.min(...placements.map(dist));
    out = placements.filter((p) => dist(p) === best);
  }
  return out.sort((a, b) => a.number - b.number || a.y - b.y || a.x - b.x);
}

/** The square a placement is "at" for the pointer: the centre of its footprint, rounded. */
export function spotOf(p: Placement): [number, number] {
  const [cx, cy] = centre(p);
  let best: [number, number] = [p.cubes[0][0], p.cubes[0][1]];
  let bestD = Infinity;
  for (const [x, y] of p.cubes) {
    const d = (x - cx) ** 2 + (y - cy) ** 2;
    if (d < bestD) {
      bestD = d;
      best = [x, y];
    }
  }
  return best;
}

/** `L4:5@c3` as the engine writes it. */
export function placementLabel(p: Placement): string {
  return `${p.piece}:${p.number}@${squareName(p.x, p.y)}`;
}

/** Cubes of a move already played (an action id), read back from the current stacks: a piece
 * placed last is on top of every column it uses. */
export function playedCubes(action: number, heights: number[][]): Cube[] {
  const o = ORIENTATION_LIST[Math.floor(action / 100)];
  if (!o) return [];
  const square = action % 100;
  const x = square % 10;
  const y = Math.floor(square / 10);
  const out: Cube[] = [];
  for (const col of o.columns) {
    const top = heights[y + col.dy]?.[x + col.dx] ?? 0;
    const base = top - col.height;
    for (const [dx, dy, dz] of o.cubes) {
      if (dx === col.dx && dy === col.dy) out.push([x + dx, y + dy, base + dz - col.zlow]);
    }
  }
  return out;
}
