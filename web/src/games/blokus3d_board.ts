/** What a Blokus 3D board drawing needs, shared by the three.js scene and the isometric fallback. */

import type { Cube } from "./blokus3d_pieces";

export interface SceneData {
  /** Height limit of each column, `[y][x]` (0 = outside the structure). */
  limits: number[][];
  /** Colour letters of each column's cubes, bottom to top, `[y][x]`. */
  stacks: string[][];
  /** The selected piece where it would go, in the colour to move. */
  ghost: { cubes: Cube[]; colour: string } | null;
  /** Columns where the selected piece has some legal placement. */
  spots: Array<[number, number]>;
  /** Cubes of the last placed piece (drawn brighter). */
  last: Cube[];
  /** Colour of the spot tint (the colour to move). */
  spotColour: string | null;
  /** The last piece was placed just now: it drops into place (once; never under reduced motion). */
  drop?: boolean;
}

export interface BoardRenderer {
  readonly element: HTMLElement;
  /** "3d" (three.js) or "2d" (isometric SVG). */
  readonly kind: "3d" | "2d";
  render(data: SceneData): void;
  /** Turn the turntable by quarter turns (positive: anticlockwise seen from above). */
  turn(quarters: number): void;
  /** Tilt the view up or down (steps). */
  tilt(steps: number): void;
  /** Look straight down: the view that scores (B3-6). */
  topView(): void;
  /** Board directions that point "up" and "right" on screen now, for the arrow keys. */
  screenAxes(): { up: [number, number]; right: [number, number] };
  /** Called with the pointed column, or null when the pointer leaves the board. */
  onHover: (square: [number, number] | null) => void;
  /** Called when a column is clicked or tapped (not at the end of a drag). */
  onPick: (square: [number, number]) => void;
  destroy(): void;
}

/** Board (x, y) turned by `quarters` quarter turns about the board centre (4.5, 4.5). */
export function turnXY(x: number, y: number, quarters: number): [number, number] {
  const u = x - 4.5;
  const v = y - 4.5;
  switch (((quarters % 4) + 4) % 4) {
    case 1:
      return [-v + 4.5, u + 4.5];
    case 2:
      return [-u + 4.5, -v + 4.5];
    case 3:
      return [v + 4.5, -u + 4.5];
    default:
      return [x, y];
  }
}

/** Snap a board-space direction to the nearest axis step. */
export function snapAxis(dx: number, dy: number): [number, number] {
  return Math.abs(dx) >= Math.abs(dy) ? [Math.sign(dx), 0] : [0, Math.sign(dy)];
}
