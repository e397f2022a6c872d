/**
 * An isometric SVG drawing of the Blokus 3D board: the fallback when WebGL is missing (and a
 * lighter choice on small devices), and the tray's piece icons.
 *
 * True isometric projection: each unit along x, y and z has the same length on screen.  The viewer
 * looks from the corner nearest square (0, 0) after the turntable's quarter turns, so each cube
 * shows its top and the two faces towards that corner.  Cubes are drawn far to near by
 * `x + y - z`, which is exact for unit cubes on a grid (equal keys never overlap).
 */

import { s } from "../dom";
import type { BoardRenderer, SceneData } from "./blokus3d_board";
import { snapAxis, turnXY } from "./blokus3d_board";
import { type Cube, FILES, orientation } from "./blokus3d_pieces";
import { LETTER_COLOUR } from "./blokus3d_play";
import { animate } from "./motion";

const C = Math.cos(Math.PI / 6);
const S = 0.5;
const L = 26;

export const COLOUR_CSS: Record<string, [string, string, string]> = {
  blue: ["#5b93f0", "#2f6fde", "#1f4fa6"],
  yellow: ["#ffe07a", "#f2c230", "#c49512"],
  red: ["#f07a73", "#d9413a", "#a52a25"],
  green: ["#5fca80", "#2e9e4f", "#1f7237"],
};

function project(u: number, v: number, z: number): [number, number] {
  return [(u - v) * C * L, (-(u + v) * S - z) * L];
}

function points(corners: Array<[number, number, number]>): string {
  return corners.map(([u, v, z]) => project(u, v, z).map((n) => n.toFixed(1)).join(",")).join(" ");
}

interface Item {
  depth: number;
  node: SVGElement;
}

/** The three visible faces of the unit cube whose near corner is (u, v, z), as one SVG group. */
function cubeFaces(u: number, v: number, z: number, colour: string, extra: Record<string, string | number> = {}): SVGGElement {
  const [top, left, right] = COLOUR_CSS[colour] ?? ["#ccc", "#999", "#777"];
  return s(
    "g",
    { class: "b3-cube", ...extra },
    s("polygon", { points: points([[u, v, z + 1], [u + 1, v, z + 1], [u + 1, v + 1, z + 1], [u, v + 1, z + 1]]), fill: top }),
    s("polygon", { points: points([[u, v, z], [u, v + 1, z], [u, v + 1, z + 1], [u, v, z + 1]]), fill: left }),
    s("polygon", { points: points([[u, v, z], [u + 1, v, z], [u + 1, v, z + 1], [u, v, z + 1]]), fill: right }),
  );
}

/** A small isometric drawing of a piece (its orientation 0) for the tray. */
export function pieceIcon(piece: string, colour: string): SVGSVGElement {
  const cubes = orientation(piece, 0).cubes;
  const sorted = [...cubes].sort((a, b) => b[0] + b[1] - b[2] - (a[0] + a[1] - a[2]));
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [x, y, z] of cubes) {
    for (const [dx, dy, dz] of [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 1], [0, 0, 1], [1, 0, 1], [0, 1, 1]]) {
      const [px, py] = project(x + dx, y + dy, z + dz);
      xs.push(px);
      ys.push(py);
    }
  }
  const minX = Math.min(...xs);
  const minY = Math.min(...ys);
  const svg = s("svg", {
    class: "b3-icon",
    viewBox: `${(minX - 2).toFixed(1)} ${(minY - 2).toFixed(1)} ${(Math.max(...xs) - minX + 4).toFixed(1)} ${(Math.max(...ys) - minY + 4).toFixed(1)}`,
    "aria-hidden": "true",
  });
  for (const [x, y, z] of sorted) svg.append(cubeFaces(x, y, z, colour, { stroke: "#1d2430", "stroke-width": 0.8 }));
  return svg;
}

export class IsoBoard implements BoardRenderer {
  readonly element: HTMLElement;
  readonly kind = "2d" as const;
  onHover: (square: [number, number] | null) => void = () => {};
  onPick: (square: [number, number]) => void = () => {};
  private svg: SVGSVGElement;
  private quarter = 0;
  private data: SceneData | null = null;

  constructor() {
    this.element = document.createElement("div");
    this.element.className = "b3-scene b3-iso";
    this.svg = s("svg", { class: "b3-iso-svg", role: "img" });
    this.element.append(this.svg);
    this.svg.addEventListener("pointerover", (e) => this.onHover(this.squareOf(e)));
    this.svg.addEventListener("pointerleave", () => this.onHover(null));
    this.svg.addEventListener("click", (e) => {
      const square = this.squareOf(e);
      if (square) this.onPick(square);
    });
  }

  private squareOf(event: Event): [number, number] | null {
    const el = (event.target as Element).closest("[data-x]");
    if (!el) return null;
    return [Number(el.getAttribute("data-x")), Number(el.getAttribute("data-y"))];
  }

  render(data: SceneData): void {
    this.data = data;
    const q = this.quarter;
    const uv = (x: number, y: number): [number, number] => turnXY(x, y, q);
    const items: Item[] = [];
    const under: SVGElement[] = [];
    const over: SVGElement[] = [];
    const last = new Set(data.last.map((c) => c.join(",")));
    // The 10x10 base, then the structure's floor tiles with their height limits.
    under.push(s("polygon", { class: "b3-base", points: points([[-0.4, -0.4, 0], [10.4, -0.4, 0], [10.4, 10.4, 0], [-0.4, 10.4, 0]]) }));
    const top = Math.max(1, ...data.limits.flat());
    for (let y = 0; y < 10; y++) {
      for (let x = 0; x < 10; x++) {
        const limit = data.limits[y][x];
        const [u, v] = uv(x, y);
        if (!limit) continue;
        const shade = Math.round(236 - (70 * limit) / top);
        under.push(
          s("polygon", {
            class: "b3-tile",
            "data-x": x,
            "data-y": y,
            fill: `rgb(${shade},${shade},${Math.min(255, shade + 8)})`,
            points: points([[u, v, 0], [u + 1, v, 0], [u + 1, v + 1, 0], [u, v + 1, 0]]),
          }),
        );
        const [tx, ty] = project(u + 0.5, v + 0.5, 0);
        under.push(s("text", { class: "b3-limit", x: tx.toFixed(1), y: (ty + 4).toFixed(1), "data-x": x, "data-y": y }, String(limit)));
        // The ceiling: the limit's outline where the neighbour's limit differs.
        for (const [nx, ny] of [[x, y - 1], [x, y + 1], [x - 1, y], [x + 1, y]]) {
          if ((data.limits[ny]?.[nx] ?? 0) === limit) continue;
          const [nu, nv] = uv(nx, ny);
          const a = project(nu > u ? u + 1 : u, nv > v ? v + 1 : v, limit);
          const b = project(nu !== u ? (nu > u ? u + 1 : u) : u + 1, nv !== v ? (nv > v ? v + 1 : v) : v + 1, limit);
          over.push(s("line", { class: "b3-ceiling", x1: a[0].toFixed(1), y1: a[1].toFixed(1), x2: b[0].toFixed(1), y2: b[1].toFixed(1) }));
        }
      }
    }
    for (let i = 0; i < 10; i++) {
      const [fx, fy] = project(...uv(i, -1).map((n) => n + 0.5) as [number, number], 0);
      const [rx, ry] = project(...uv(-1, i).map((n) => n + 0.5) as [number, number], 0);
      under.push(s("text", { class: "b3-axis", x: fx.toFixed(1), y: (fy + 4).toFixed(1) }, FILES[i]));
      under.push(s("text", { class: "b3-axis", x: rx.toFixed(1), y: (ry + 4).toFixed(1) }, String(i + 1)));
    }
    for (let y = 0; y < 10; y++) {
      for (let x = 0; x < 10; x++) {
        const stack = data.stacks[y][x];
        const [u, v] = uv(x, y);
        for (let z = 0; z < stack.length; z++) {
          const colour = LETTER_COLOUR[stack[z]] ?? "grey";
          const cls = last.has(`${x},${y},${z}`) ? "b3-cube b3-last last-move" : "b3-cube";
          items.push({ depth: u + v - z, node: cubeFaces(u, v, z, colour, { class: cls, "data-x": x, "data-y": y }) });
        }
      }
    }
    if (data.spotColour) {
      const fillColour = COLOUR_CSS[data.spotColour]?.[1] ?? "#888";
      for (const [x, y] of data.spots) {
        const h = data.stacks[y][x].length;
        const [u, v] = uv(x, y);
        const node = s("polygon", {
          class: "b3-spot",
          fill: fillColour,
          "data-x": x,
          "data-y": y,
          points: points([[u + 0.2, v + 0.2, h], [u + 0.8, v + 0.2, h], [u + 0.8, v + 0.8, h], [u + 0.2, v + 0.8, h]]),
        });
        items.push({ depth: u + v - h + 1 - 0.001, node });
      }
    }
    if (data.ghost) {
      for (const [x, y, z] of data.ghost.cubes) {
        const [u, v] = uv(x, y);
        items.push({ depth: u + v - z - 0.0005, node: cubeFaces(u, v, z, data.ghost.colour, { class: "b3-cube b3-ghost" }) });
      }
    }
    items.sort((a, b) => b.depth - a.depth);
    this.svg.replaceChildren(...under, ...items.map((i) => i.node), ...over);
    if (data.drop) {
      for (const cube of this.svg.querySelectorAll(".b3-last")) {
        animate(cube, [{ transform: "translate(0px, -60px)", opacity: 0.3 }, { transform: "translate(0px, 0px)", opacity: 1 }], {
          easing: "cubic-bezier(0.5, 0, 0.75, 1)",
        });
      }
    }
    const corners: Array<[number, number]> = [];
    const maxH = Math.max(4, ...data.limits.flat());
    for (const [u, v] of [[-1.2, -1.2], [11.2, -1.2], [11.2, 11.2], [-1.2, 11.2]]) {
      corners.push(project(u, v, 0), project(u, v, maxH));
    }
    const xs = corners.map((c) => c[0]);
    const ys = corners.map((c) => c[1]);
    const minX = Math.min(...xs);
    const minY = Math.min(...ys);
    this.svg.setAttribute("viewBox", `${minX.toFixed(0)} ${minY.toFixed(0)} ${(Math.max(...xs) - minX).toFixed(0)} ${(Math.max(...ys) - minY).toFixed(0)}`);
  }

  turn(quarters: number): void {
    this.quarter = (((this.quarter + quarters) % 4) + 4) % 4;
    if (this.data) this.render(this.data);
  }

  tilt(): void {}

  topView(): void {}

  screenAxes(): { up: [number, number]; right: [number, number] } {
    // Screen up-left is +v and up-right is +u; turn those back into board x, y.
    const back = (du: number, dv: number): [number, number] => {
      const [x0, y0] = turnXY(0, 0, -this.quarter);
      const [x1, y1] = turnXY(du, dv, -this.quarter);
      return snapAxis(x1 - x0, y1 - y0);
    };
    return { up: back(0, 1), right: back(1, 0) };
  }

  destroy(): void {
    this.element.remove();
  }
}

export type { Cube };
