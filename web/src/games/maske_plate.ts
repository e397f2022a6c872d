/**
 * Maske's plate in SVG: the 7x7 holes (the centre is none, MS-1) under the top mask drawn as a face.
 * The mask's single rings (pay 3) and double rings (pay 5) are its eyes, nostrils and mouth; rings
 * next to each other are joined like lips or brows, and the face outline turns with the mask
 * (MS-3), its crest showing which way is up.  Sticks stand in the holes in their seat's colour.
 */

import { s } from "../dom";
import { CENTRE, FILES, SIZE, type PlateMove, maskValues } from "./maske_data";

export const SEAT_COLOURS = ["#d9413a", "#2f6fde", "#2e9e4f", "#e0a81c", "#9b3fc2", "#1fa3b3"];

const CELL = 60;
const PAD = 60;
const SPAN = PAD * 2 + CELL * (SIZE - 1); // 480
/** Where the drawing starts, above and left of the plate: room for the coordinates. */
const AXIS_GAP = -64;

function centreOf(hole: number): [number, number] {
  return [PAD + (hole % SIZE) * CELL, PAD + Math.floor(hole / SIZE) * CELL];
}

function maskHue(id: number): number {
  return (id * 47 + 20) % 360;
}

/** A clickable, keyboard-usable SVG group (role button, Enter/Space act). */
export function svgButton(label: string, act: () => void, attrs: Record<string, string | number>, ...children: SVGElement[]): SVGGElement {
  const g = s("g", { role: "button", tabindex: 0, "aria-label": label, class: "ms-target", ...attrs }, s("title", {}, label), ...children);
  g.addEventListener("click", act);
  g.addEventListener("keydown", (e: KeyboardEvent) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      e.stopPropagation();
      act();
    }
  });
  return g;
}

/** The face of mask `id` turned `orientation`, without holes or sticks: outline, joins, rings. */
export function faceLayer(id: number | null, orientation: number): SVGGElement {
  const g = s("g", { class: "ms-face" });
  const mid = SPAN / 2;
  if (id === null) {
    g.append(s("rect", { x: 12, y: 12, width: SPAN - 24, height: SPAN - 24, rx: 36, class: "ms-bare" }));
    return g;
  }
  const hue = maskHue(id);
  const outline = s("g", { transform: `rotate(${orientation * 90} ${mid} ${mid})` });
  // A rounded face with a crest on the forehead and ribbons at the temples.
  outline.append(
    s("path", {
      d: "M 20 150 C 20 60 80 14 240 14 C 400 14 460 60 460 150 L 462 300 C 462 400 380 468 240 468 C 100 468 18 400 18 300 Z",
      fill: `hsl(${hue} 52% 84%)`,
      stroke: `hsl(${hue} 42% 40%)`,
      "stroke-width": 5,
    }),
    s("path", {
      d: "M 170 16 L 200 -24 L 225 10 L 240 -34 L 255 10 L 280 -24 L 310 16 Z",
      fill: `hsl(${(hue + 40) % 360} 62% 58%)`,
      stroke: `hsl(${hue} 42% 34%)`,
      "stroke-width": 3,
    }),
    s("path", { d: "M 18 210 C -10 220 -18 250 -26 280", class: "ms-ribbon", stroke: `hsl(${(hue + 40) % 360} 62% 52%)` }),
    s("path", { d: "M 462 210 C 490 220 498 250 506 280", class: "ms-ribbon", stroke: `hsl(${(hue + 40) % 360} 62% 52%)` }),
  );
  g.append(outline);
  const values = maskValues(id, orientation);
  const feature = `hsl(${hue} 45% 30%)`;
  for (let hole = 0; hole < SIZE * SIZE; hole++) {
    if (!values[hole]) continue;
    const [x, y] = centreOf(hole);
    for (const next of [hole + 1, hole + SIZE]) {
      const sameRow = next === hole + 1 && next % SIZE !== 0;
      if (next < SIZE * SIZE && values[next] && (sameRow || next === hole + SIZE)) {
        const [x2, y2] = centreOf(next);
        g.append(s("line", { x1: x, y1: y, x2, y2, stroke: feature, class: "ms-join" }));
      }
    }
  }
  for (let hole = 0; hole < SIZE * SIZE; hole++) {
    const value = values[hole];
    if (!value) continue;
    const [x, y] = centreOf(hole);
    g.append(s("circle", { cx: x, cy: y, r: 24, class: value === 5 ? "ms-ring ms-ring5" : "ms-ring ms-ring3" }));
    if (value === 5) g.append(s("circle", { cx: x, cy: y, r: 16, class: "ms-ring ms-ring5" }));
  }
  return g;
}

export interface HoleTarget {
  label: string;
  act: () => void;
  /** The legal action id the click sends (for tests and tools reading the page). */
  action: number;
  /** Shown beside the hole (e.g. the step's cost). */
  note?: string;
  colour: string;
}

export interface StickTarget {
  label: string;
  act: () => void;
  /** The legal action id a click sends, when the click sends one (not for selecting a stick). */
  action?: number;
  /** For a stick that is selected to be moved (a toggle), whether it is; null for a plain choice. */
  selected: boolean | null;
}

export interface PlateDrawing {
  maskId: number | null;
  orientation: number;
  /** Hole of stick g (seat g // 2) at index g; -1 before set-up. */
  sticks: number[];
  stickLabel: (g: number) => string;
  holeLabel: (hole: number, value: number) => string;
  holes: Map<number, HoleTarget>;
  stickTargets: Map<number, StickTarget>;
  title: string;
  /** The last move on the plate, marked (class `last-move`). */
  last?: PlateMove | null;
}

export function drawPlate(d: PlateDrawing): SVGSVGElement {
  // The coordinates stand outside everything the mask draws, whichever way it is turned (its crest
  // and ribbons reach 34 units beyond the plate).
  const svg = s("svg", {
    class: "ms-plate",
    viewBox: `${AXIS_GAP} ${AXIS_GAP} ${SPAN + 40 - AXIS_GAP} ${SPAN + 40 - AXIS_GAP}`,
    role: "group",
    "aria-label": d.title,
  });
  const face = faceLayer(d.maskId, d.orientation);
  if (d.last?.mask) face.classList.add("last-move");
  svg.append(face);
  const values = d.maskId === null ? new Array<number>(SIZE * SIZE).fill(0) : maskValues(d.maskId, d.orientation);
  for (let i = 0; i < SIZE; i++) {
    svg.append(
      s("text", { x: PAD + i * CELL, y: AXIS_GAP + 20, class: "ms-axis", "data-axis": FILES[i] }, FILES[i]),
      s("text", { x: AXIS_GAP + 12, y: PAD + i * CELL + 6, class: "ms-axis", "data-axis": String(i + 1) }, String(i + 1)),
    );
  }
  const trail = d.last?.holes ?? [];
  trail.forEach((hole, i) => {
    const [x, y] = centreOf(hole);
    const end = i === trail.length - 1;
    svg.append(s("circle", { cx: x, cy: y, r: end ? 27 : 12, class: end ? "ms-last last-move" : "ms-last ms-trail" }));
  });
  for (let hole = 0; hole < SIZE * SIZE; hole++) {
    const [x, y] = centreOf(hole);
    if (hole === CENTRE) {
      svg.append(
        s("g", { class: "ms-centre" }, s("title", {}, "×"), s("circle", { cx: x, cy: y, r: 13 }), s("path", { d: `M ${x - 6} ${y - 6} L ${x + 6} ${y + 6} M ${x + 6} ${y - 6} L ${x - 6} ${y + 6}` })),
      );
      continue;
    }
    const target = d.holes.get(hole);
    const plain = s("circle", { cx: x, cy: y, r: 9, class: "ms-hole" }, s("title", {}, d.holeLabel(hole, values[hole])));
    if (target) {
      const parts: SVGElement[] = [
        s("circle", { cx: x, cy: y, r: 26, class: "ms-hole-target", fill: target.colour, stroke: target.colour }),
        s("circle", { cx: x, cy: y, r: 9, class: "ms-hole" }),
      ];
      if (target.note) parts.push(s("text", { x: x + 17, y: y - 16, class: "ms-note" }, target.note));
      svg.append(svgButton(target.label, target.act, { "data-hole": hole, "data-action": target.action }, ...parts));
    } else {
      svg.append(plain);
    }
  }
  d.sticks.forEach((hole, g) => {
    if (hole < 0) return;
    const [x, y] = centreOf(hole);
    const colour = SEAT_COLOURS[Math.floor(g / 2) % SEAT_COLOURS.length];
    const peg: SVGElement[] = [
      s("circle", { cx: x + 2, cy: y + 4, r: 17, class: "ms-shadow" }),
      s("circle", { cx: x, cy: y, r: 17, fill: colour, class: "ms-stick" }),
      s("text", { x, y: y + 5, class: "ms-stick-num" }, String((g % 2) + 1)),
    ];
    const target = d.stickTargets.get(g);
    if (target) {
      if (target.selected) peg.unshift(s("circle", { cx: x, cy: y, r: 25, class: "ms-selected" }));
      else peg.unshift(s("circle", { cx: x, cy: y, r: 23, class: "ms-pickable", stroke: colour }));
      const pressed: Record<string, string | number> = target.selected === null ? {} : { "aria-pressed": String(target.selected) };
      if (target.action !== undefined) pressed["data-action"] = target.action;
      svg.append(svgButton(target.label, target.act, { "data-stick": g, ...pressed }, ...peg));
    } else {
      svg.append(s("g", { "data-stick": g }, s("title", {}, d.stickLabel(g)), ...peg));
    }
    if (d.last?.stick === g) svg.lastElementChild?.classList.add("last-moved");
  });
  return svg;
}

/** A small face preview (for the lay choices and the mask stack). */
export function facePreview(id: number, orientation: number, label: string): SVGSVGElement {
  const svg = s("svg", { class: "ms-preview", viewBox: `-36 -40 ${SPAN + 72} ${SPAN + 76}`, role: "img", "aria-label": label });
  svg.append(faceLayer(id, orientation));
  for (let hole = 0; hole < SIZE * SIZE; hole++) {
    if (hole === CENTRE) continue;
    const [x, y] = centreOf(hole);
    svg.append(s("circle", { cx: x, cy: y, r: 7, class: "ms-hole" }));
  }
  return svg;
}
