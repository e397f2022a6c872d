/**
 * Blokus 3D pieces and their orientations (B3-1), numbered exactly as the engine numbers them, so a
 * legal move `{piece, orientation, x, y}` can be drawn as cubes without asking the server.
 *
 * The engine's order: each piece's distinct rotations (24 proper rotations, no reflection), each
 * normalised to min x = y = z = 0 with its cubes sorted, then sorted as tuples.  The same procedure
 * here yields the same numbers; the e2e test compares the drawn ghost with the engine's cubes.
 */

export type Cube = [number, number, number];

export const PIECE_IDS = ["I2", "I3", "V3", "I4", "O4", "T4", "L4", "S4", "SR", "SL", "Y4"] as const;
export type PieceId = (typeof PIECE_IDS)[number];

const PIECE_CUBES: Record<PieceId, Cube[]> = {
  I2: [[0, 0, 0], [1, 0, 0]],
  I3: [[0, 0, 0], [1, 0, 0], [2, 0, 0]],
  V3: [[0, 0, 0], [1, 0, 0], [0, 1, 0]],
  I4: [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]],
  O4: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]],
  T4: [[0, 0, 0], [1, 0, 0], [2, 0, 0], [1, 1, 0]],
  L4: [[0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 1, 0]],
  S4: [[0, 0, 0], [1, 0, 0], [1, 1, 0], [2, 1, 0]],
  SR: [[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]],
  SL: [[0, 0, 0], [0, 1, 0], [1, 1, 0], [1, 1, 1]],
  Y4: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]],
};

/** One column of an orientation seen from above: offset, lowest cube and number of cubes. */
export interface Column {
  dx: number;
  dy: number;
  zlow: number;
  height: number;
}

export interface Orientation {
  piece: PieceId;
  number: number;
  cubes: Cube[];
  columns: Column[];
}

type Matrix = number[][];

function rotationMatrices(): Matrix[] {
  const perms = [
    [0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0],
  ];
  const out: Matrix[] = [];
  for (const perm of perms) {
    for (let s = 0; s < 8; s++) {
      const signs = [s & 4 ? -1 : 1, s & 2 ? -1 : 1, s & 1 ? -1 : 1];
      const m = [0, 1, 2].map((r) => [0, 1, 2].map((c) => (perm[r] === c ? signs[r] : 0)));
      const det =
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
        m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
        m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
      if (det === 1) out.push(m);
    }
  }
  return out;
}

function compareCubes(a: Cube, b: Cube): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

function normalise(cubes: Cube[]): Cube[] {
  const min = [0, 1, 2].map((i) => Math.min(...cubes.map((c) => c[i])));
  return cubes.map((c) => [c[0] - min[0], c[1] - min[1], c[2] - min[2]] as Cube).sort(compareCubes);
}

function compareShapes(a: Cube[], b: Cube[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = compareCubes(a[i], b[i]);
    if (d) return d;
  }
  return a.length - b.length;
}

function columnsOf(cubes: Cube[]): Column[] {
  const byXY = new Map<string, Column>();
  for (const [x, y, z] of cubes) {
    const key = `${x},${y}`;
    const col = byXY.get(key);
    if (col) {
      col.zlow = Math.min(col.zlow, z);
      col.height += 1;
    } else {
      byXY.set(key, { dx: x, dy: y, zlow: z, height: 1 });
    }
  }
  return [...byXY.values()].sort((a, b) => a.dx - b.dx || a.dy - b.dy);
}

function buildOrientations(): Map<PieceId, Orientation[]> {
  const rotations = rotationMatrices();
  const out = new Map<PieceId, Orientation[]>();
  for (const piece of PIECE_IDS) {
    const seen = new Map<string, Cube[]>();
    for (const m of rotations) {
      const turned = PIECE_CUBES[piece].map(
        ([x, y, z]) => [0, 1, 2].map((r) => m[r][0] * x + m[r][1] * y + m[r][2] * z) as Cube,
      );
      const shape = normalise(turned);
      seen.set(JSON.stringify(shape), shape);
    }
    const shapes = [...seen.values()].sort(compareShapes);
    out.set(
      piece,
      shapes.map((cubes, number) => ({ piece, number, cubes, columns: columnsOf(cubes) })),
    );
  }
  return out;
}

/** Every orientation of every piece, in the engine's numbering (`L4:5` is `ORIENTATIONS.get("L4")[5]`). */
export const ORIENTATIONS: Map<PieceId, Orientation[]> = buildOrientations();

export function orientation(piece: string, number: number): Orientation {
  const list = ORIENTATIONS.get(piece as PieceId);
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
