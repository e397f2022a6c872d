/**
 * Blokus 3D pieces and their orientations (B3-1), read from the engine's `orientations.json`
 * (written by `scripts/generate_view_data.py` from `pieces.ORIENTATIONS`, checked by a test), so a
 * legal move `{piece, orientation, x, y}` is drawn as the engine's own cubes without asking the server.
 */

import orientationsFile from "../../../src/masques/games/blokus3d/orientations.json";

export type Cube = [number, number, number];

/** A piece id of the engine (`I2` .. `Y4`). */
export type PieceId = string;

/** The pieces in the engine's (tray) order. */
export const PIECE_IDS: readonly PieceId[] = Object.keys(orientationsFile.pieces);

/** One column of an orientation seen from above: offset, lowest cube and number of cubes. */
export interface Column {
  dx: number;
  dy: number;
  zlow: number;
  height: number;
}

export interface Orientation {
  /** The engine's global index (0..103): a placement's action id is `index * 100 + square`. */
  index: number;
  piece: PieceId;
  number: number;
  cubes: Cube[];
  columns: Column[];
}

/** Every orientation in the engine's global order. */
export const ORIENTATION_LIST: readonly Orientation[] = orientationsFile.orientations.map((o) => ({
  index: o.index,
  piece: o.piece,
  number: o.number,
  cubes: o.cubes.map(([x, y, z]) => [x, y, z] as Cube),
  columns: o.columns.map(([dx, dy, zlow, height]) => ({ dx, dy, zlow, height })),
}));

/** Every orientation of every piece, in the engine's numbering (`L4:5` is `ORIENTATIONS.get("L4")[5]`). */
export const ORIENTATIONS: Map<PieceId, Orientation[]> = new Map(
  PIECE_IDS.map((piece) => [piece, ORIENTATION_LIST.filter((o) => o.piece === piece)]),
);

export function orientation(piece: string, number: number): Orientation {
  const list = ORIENTATIONS.get(piece);
  if (!list || !list[number]) throw new Error(`unknown orientation ${piece}:${number}`);
  return list[number];
}

export const COLOUR_HEX: Record<string, number> = {
  blue: 0x2f6fde,
  yellow: 0xf2c230,
  red: 0xd9413a,
  green: 0x2e9e4f,
};

export const FILES = "abcdefghij";

/** `c3` for x = 2, y = 2, as the engine names squares. */
export function squareName(x: number, y: number): string {
  return `${FILES[x]}${y + 1}`;
}
