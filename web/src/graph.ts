/**
 * A player's rating history as a small SVG line chart, drawn by hand (no chart library): one point
 * per rated match, oldest first, after the starting rating; the y axis spans the ratings seen.
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

/**
 * The chart: `label` names it for screen readers; `point(p)` says one match in words (each point's
 * tooltip).
 */
export function ratingGraph(history: RatingPoint[], label: string, point: (p: RatingPoint) => string): SVGSVGElement {
  // The start (before the first rated match), then the rating after each.
  const start = history.length > 0 ? history[0].rating - history[0].change : 0;
  const values = [start, ...history.map((p) => p.rating)];
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi - lo < 2) {
    lo -= 1;
    hi += 1;
  }
  const margin = (hi - lo) * 0.08;
  lo -= margin;
  hi += margin;
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (values.length > 1 ? (i / (values.length - 1)) * innerW : innerW / 2);
  const y = (v: number) => PAD.top + (1 - (v - lo) / (hi - lo)) * innerH;

  const svg = s("svg", {
    viewBox: `0 0 ${W} ${H}`,
    class: "rating-graph",
    role: "img",
    "aria-label": label,
    "data-testid": "rating-graph",
    "data-points": history.length,
  });
  svg.append(s("title", {}, label));
  for (const v of ticks(lo, hi)) {
    svg.append(
      s("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: "grid" }),
      s("text", { x: PAD.left - 6, y: y(v) + 4, "text-anchor": "end", class: "axis" }, v.toFixed(v % 1 ? 1 : 0)),
    );
  }
  svg.append(
    s("line", { x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: H - PAD.bottom, class: "axis-line" }),
    s("line", { x1: PAD.left, x2: W - PAD.right, y1: H - PAD.bottom, y2: H - PAD.bottom, class: "axis-line" }),
    s("text", { x: x(0), y: H - 8, "text-anchor": "start", class: "axis" }, "0"),
    s("text", { x: x(values.length - 1), y: H - 8, "text-anchor": "end", class: "axis" }, values.length - 1),
    s("polyline", {
      points: values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "),
      class: "line",
    }),
  );
  history.forEach((p, i) => {
    svg.append(
      s(
        "circle",
        {
          cx: x(i + 1),
          cy: y(p.rating),
          r: history.length > 60 ? 2 : 3.5,
          class: p.change < 0 ? "dot down" : "dot up",
          "data-match": p.match,
        },
        s("title", {}, point(p)),
      ),
    );
  });
  return svg;
}
