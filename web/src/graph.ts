/**
 * Small SVG line charts drawn by hand (no chart library): a player's rating history, and any series
 * of values over an x axis of steps (a seat's chance of winning over a match, in analysis.ts).
 */
import type { RatingPoint } from "./api";
import { s } from "./dom";

const W = 600;
const H = 220;
const PAD = { left: 44, right: 12, top: 12, bottom: 28 };

/** Axis marks between `lo` and `hi`: round steps, a handful of them. */
function ticks(lo: number, hi: number): number[] {
  const span = hi - lo || 1;
  const raw = span / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((m) => m >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step, i = 0; v <= hi + 1e-9 && i < 20; v += step, i++) {
    out.push(Math.round(v * 10) / 10);
  }
  return out;
}

/** One marked point of a line graph: its index in the values, a class, a tooltip and attributes. */
export interface GraphDot {
  index: number;
  className: string;
  title: string;
  attrs?: Record<string, string | number>;
}

export interface LineGraph {
  /** The values, in order along the x axis (index 0 at the left). */
  values: number[];
  /** Names the chart for screen readers. */
  label: string;
  /** The SVG's class and test id. */
  className: string;
  testId: string;
  /** A fixed y range (e.g. 0..1 for a chance); without it the range spans the values seen. */
  range?: [number, number];
  /** A y tick's text (default: the number, one decimal when it has one). */
  tick?: (v: number) => string;
  /** The x axis' two end labels (default: the first and last index). */
  ends?: [string | number, string | number];
  /** "polyline" (one element with points) or "path" (one `M x,y L x,y...` with a point per value). */
  line?: "polyline" | "path";
  dots?: GraphDot[];
  /** Radius of the dots. */
  radius?: number;
  attrs?: Record<string, string | number>;
}

/** A line chart of `values` with its y grid, axes and marked dots. */
export function lineGraph(graph: LineGraph): SVGSVGElement {
  const { values } = graph;
  let lo: number;
  let hi: number;
  if (graph.range) {
    [lo, hi] = graph.range;
  } else {
    lo = Math.min(...values);
    hi = Math.max(...values);
    if (hi - lo < 2) {
      lo -= 1;
      hi += 1;
    }
    const margin = (hi - lo) * 0.08;
    lo -= margin;
    hi += margin;
  }
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (values.length > 1 ? (i / (values.length - 1)) * innerW : innerW / 2);
  const y = (v: number) => PAD.top + (1 - (v - lo) / (hi - lo)) * innerH;
  const tick = graph.tick ?? ((v: number) => v.toFixed(v % 1 ? 1 : 0));
  const ends = graph.ends ?? [0, values.length - 1];

  const svg = s("svg", {
    viewBox: `0 0 ${W} ${H}`,
    class: graph.className,
    role: "img",
    "aria-label": graph.label,
    "data-testid": graph.testId,
    ...graph.attrs,
  });
  svg.append(s("title", {}, graph.label));
  for (const v of ticks(lo, hi)) {
    svg.append(
      s("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: "grid" }),
      s("text", { x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end", class: "axis" }, tick(v)),
    );
  }
  const at = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`);
  svg.append(
    s("line", { x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: H - PAD.bottom, class: "axis-line" }),
    s("line", { x1: PAD.left, x2: W - PAD.right, y1: H - PAD.bottom, y2: H - PAD.bottom, class: "axis-line" }),
    s("text", { x: x(0), y: H - 8, "text-anchor": "start", class: "axis" }, ends[0]),
    s("text", { x: x(values.length - 1), y: H - 8, "text-anchor": "end", class: "axis" }, ends[1]),
    graph.line === "path"
      ? s("path", { d: at.map((p, i) => `${i === 0 ? "M" : "L"}${p}`).join(" "), class: "line" })
      : s("polyline", { points: at.join(" "), class: "line" }),
  );
  for (const dot of graph.dots ?? []) {
    svg.append(
      s(
        "circle",
        {
          cx: x(dot.index),
          cy: y(values[dot.index]),
          r: graph.radius ?? 3.5,
          class: dot.className,
          ...dot.attrs,
        },
        s("title", {}, dot.title),
      ),
    );
  }
  return svg;
}

/**
 * A player's rating history, one point per rated match, oldest first, after the starting rating:
 * `label` names it for screen readers; `point(p)` says one match in words (each point's tooltip).
 */
export function ratingGraph(history: RatingPoint[], label: string, point: (p: RatingPoint) => string): SVGSVGElement {
  // The start (before the first rated match), then the rating after each.
  const start = history.length > 0 ? history[0].rating - history[0].change : 0;
  return lineGraph({
    values: [start, ...history.map((p) => p.rating)],
    label,
    className: "rating-graph",
    testId: "rating-graph",
    attrs: { "data-points": history.length },
    radius: history.length > 60 ? 2 : 3.5,
    dots: history.map((p, i) => ({
      index: i + 1,
      className: p.change < 0 ? "dot down" : "dot up",
      title: point(p),
      attrs: (p.match === null ? {} : { "data-match": p.match }) as Record<string, string | number>, // a private match is not named
    })),
  });
}
