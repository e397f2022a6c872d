/**
 * A Mascarade card drawn as a face from its five features (face shape, hair, eyes, nose, mouth),
 * in SVG.  Each value has its own shape, and face shapes and hair styles also have their own colour,
 * so two cards that share a feature look alike in that feature at a glance.
 */
import { s } from "../dom";
import data from "../../../src/masques/games/mascarade/cards.json";
import type { Lang } from "./contract";

export const FEATURES = ["face", "hair", "eyes", "nose", "mouth"] as const;
export type Feature = (typeof FEATURES)[number];

export interface Card {
  id: number;
  face: string;
  hair: string;
  eyes: string;
  nose: string;
  mouth: string;
}

interface FeatureInfo {
  names: Record<string, string>;
  values: ({ key: string } & Record<string, string>)[];
}

const INFO = data.features as unknown as Record<Feature, FeatureInfo>;
export const CARDS: Card[] = data.cards;

/** The name of a feature ("eyes") or of one of its values ("almond") in a language. */
export function featureName(feature: Feature, lang: Lang): string {
  return INFO[feature].names[lang] ?? feature;
}

export function valueName(feature: Feature, key: string, lang: Lang): string {
  return INFO[feature].values.find((v) => v.key === key)?.[lang] ?? key;
}

/** "round face, curly hair, ..." in words. */
export function describeCard(card: Card, lang: Lang): string {
  return FEATURES.map((f) =>
    lang === "fr"
      ? `${featureName(f, lang)} ${valueName(f, card[f], lang)}`
      : `${valueName(f, card[f], lang)} ${featureName(f, lang)}`,
  ).join(", ");
}

/** The features two cards share. */
export function shared(a: Card, b: Card): Feature[] {
  return FEATURES.filter((f) => a[f] === b[f]);
}

const SKIN: Record<string, string> = { round: "#f6c89f", oval: "#a9d3ee", square: "#c6b4e8", heart: "#f5a9b8" };
const SKIN_EDGE: Record<string, string> = { round: "#b77b4b", oval: "#4d86ab", square: "#7b63ad", heart: "#c0586f" };
const HAIR: Record<string, string> = {
  curly: "#7b4a21",
  straight: "#1f1f1f",
  spiky: "#e0742b",
  bald: "#00000000",
  braids: "#d9a81e",
};
const INK = "#2b2420";

/** The face outline, in a 100x100 card. */
function faceShape(face: string): SVGElement {
  const attrs = { fill: SKIN[face], stroke: SKIN_EDGE[face], "stroke-width": 3 };
  switch (face) {
    case "round":
      return s("circle", { cx: 50, cy: 55, r: 34, ...attrs });
    case "oval":
      return s("ellipse", { cx: 50, cy: 55, rx: 27, ry: 38, ...attrs });
    case "square":
      return s("rect", { x: 17, y: 22, width: 66, height: 66, rx: 9, ...attrs });
    default: // heart: wide at the brow, pointed chin
      return s("path", { d: "M50 92 C 24 74, 12 58, 14 40 C 16 22, 40 18, 50 32 C 60 18, 84 22, 86 40 C 88 58, 76 74, 50 92 Z", ...attrs });
  }
}

function hair(style: string): SVGElement {
  const colour = HAIR[style];
  const g = s("g", { class: `mc-hair mc-hair-${style}` });
  switch (style) {
    case "curly":
      for (let i = 0; i < 7; i++) g.append(s("circle", { cx: 22 + i * 9.3, cy: 22 + Math.abs(3 - i) * 2.4, r: 7.5, fill: colour }));
      break;
    case "straight":
      g.append(s("path", { d: "M18 36 Q18 12 50 12 Q82 12 82 36 L74 36 L72 24 L60 34 L58 24 L44 34 L42 24 L30 34 L28 24 L26 36 Z", fill: colour }));
      break;
    case "spiky":
      g.append(s("path", { d: "M20 32 L24 10 L33 27 L40 6 L47 26 L54 5 L60 26 L68 8 L72 28 L82 12 L80 34 Z", fill: colour }));
      break;
    case "braids":
      g.append(s("path", { d: "M20 36 Q22 14 50 14 Q78 14 80 36 Q66 24 50 26 Q34 24 20 36 Z", fill: colour }));
      for (const x of [13, 87]) {
        for (let k = 0; k < 4; k++) g.append(s("ellipse", { cx: x, cy: 40 + k * 11, rx: 5.5, ry: 6.5, fill: colour, stroke: "#9a7410", "stroke-width": 1.2 }));
      }
      break;
    default: // bald: a shine on the head
      g.append(s("path", { d: "M36 26 Q44 20 54 22", fill: "none", stroke: "#ffffffcc", "stroke-width": 3, "stroke-linecap": "round" }));
  }
  return g;
}

function star(cx: number, cy: number, r: number): SVGElement {
  const pts: string[] = [];
  for (let i = 0; i < 10; i++) {
    const a = (Math.PI / 5) * i - Math.PI / 2;
    const rr = i % 2 === 0 ? r : r * 0.45;
    pts.push(`${(cx + rr * Math.cos(a)).toFixed(1)},${(cy + rr * Math.sin(a)).toFixed(1)}`);
  }
  return s("polygon", { points: pts.join(" "), fill: "#f2c230", stroke: INK, "stroke-width": 1.2 });
}

function eyes(style: string): SVGElement {
  const g = s("g", { class: `mc-eyes mc-eyes-${style}` });
  for (const [i, x] of [36, 64].entries()) {
    const y = 48;
    switch (style) {
      case "round":
        g.append(s("circle", { cx: x, cy: y, r: 6.5, fill: "#fff", stroke: INK, "stroke-width": 2 }), s("circle", { cx: x, cy: y, r: 3, fill: INK }));
        break;
      case "almond":
        g.append(
          s("path", { d: `M${x - 9} ${y} Q${x} ${y - 8} ${x + 9} ${y} Q${x} ${y + 8} ${x - 9} ${y} Z`, fill: "#fff", stroke: INK, "stroke-width": 2 }),
          s("circle", { cx: x, cy: y, r: 2.8, fill: "#3c7d4a" }),
        );
        break;
      case "sleepy":
        g.append(
          s("path", { d: `M${x - 8} ${y} Q${x} ${y + 6} ${x + 8} ${y}`, fill: "none", stroke: INK, "stroke-width": 2.5, "stroke-linecap": "round" }),
          s("path", { d: `M${x - 8} ${y - 1} L${x + 8} ${y - 1}`, stroke: INK, "stroke-width": 1.5 }),
        );
        break;
      case "starry":
        g.append(star(x, y, 8));
        break;
      default: // winking: the left eye open, the right one shut
        if (i === 0) g.append(s("circle", { cx: x, cy: y, r: 6, fill: "#fff", stroke: INK, "stroke-width": 2 }), s("circle", { cx: x, cy: y, r: 2.8, fill: INK }));
        else g.append(s("path", { d: `M${x - 8} ${y + 2} L${x} ${y - 3} L${x + 8} ${y + 2}`, fill: "none", stroke: INK, "stroke-width": 2.5, "stroke-linecap": "round", "stroke-linejoin": "round" }));
    }
  }
  return g;
}

function nose(style: string): SVGElement {
  const colour = "#c26a4a";
  switch (style) {
    case "button":
      return s("circle", { cx: 50, cy: 60, r: 3.5, fill: colour, class: "mc-nose" });
    case "long":
      return s("path", { d: "M50 50 L50 70 L45 70", fill: "none", stroke: colour, "stroke-width": 3, "stroke-linecap": "round", "stroke-linejoin": "round", class: "mc-nose" });
    case "hooked":
      return s("path", { d: "M48 50 Q62 58 54 68 Q50 70 46 66", fill: "none", stroke: colour, "stroke-width": 3, "stroke-linecap": "round", class: "mc-nose" });
    case "round":
      return s("circle", { cx: 50, cy: 61, r: 7, fill: "#e06c5a", stroke: "#9c3b2e", "stroke-width": 1.5, class: "mc-nose" });
    default: // pointed
      return s("path", { d: "M50 50 L57 67 L45 67 Z", fill: colour, class: "mc-nose" });
  }
}

function mouth(style: string): SVGElement {
  const g = s("g", { class: `mc-mouth mc-mouth-${style}` });
  const red = "#b03a3a";
  switch (style) {
    case "smile":
      g.append(s("path", { d: "M37 74 Q50 85 63 74", fill: "none", stroke: red, "stroke-width": 3.2, "stroke-linecap": "round" }));
      break;
    case "frown":
      g.append(s("path", { d: "M38 81 Q50 71 62 81", fill: "none", stroke: red, "stroke-width": 3.2, "stroke-linecap": "round" }));
      break;
    case "open":
      g.append(s("ellipse", { cx: 50, cy: 78, rx: 7, ry: 6, fill: "#5a1f1f", stroke: red, "stroke-width": 2 }));
      break;
    case "teeth":
      g.append(
        s("rect", { x: 38, y: 72, width: 24, height: 10, rx: 3, fill: "#fff", stroke: red, "stroke-width": 2 }),
        s("path", { d: "M44 72 V82 M50 72 V82 M56 72 V82 M38 77 H62", stroke: "#999", "stroke-width": 1 }),
      );
      break;
    default: // moustache (with a small mouth under it)
      g.append(
        s("path", { d: "M50 71 Q40 66 33 72 Q30 76 26 73 Q30 81 40 77 Q46 75 50 73 Q54 75 60 77 Q70 81 74 73 Q70 76 67 72 Q60 66 50 71 Z", fill: "#3a2a1d" }),
        s("path", { d: "M44 82 Q50 85 56 82", fill: "none", stroke: red, "stroke-width": 2, "stroke-linecap": "round" }),
      );
  }
  return g;
}

/** The whole card as an SVG group in a 100x100 box at (x, y), scaled to `size`. */
export function cardFace(card: Card, x = 0, y = 0, size = 100): SVGGElement {
  const g = s("g", { class: "mc-card", transform: `translate(${x} ${y}) scale(${size / 100})`, "data-card": card.id });
  g.append(
    s("rect", { x: 2, y: 2, width: 96, height: 96, rx: 10, class: "mc-card-bg" }),
    faceShape(card.face),
    hair(card.hair),
    eyes(card.eyes),
    nose(card.nose),
    mouth(card.mouth),
  );
  return g;
}

/** A card on its own, as an <svg> element. */
export function cardSvg(card: Card, size: number, label: string): SVGSVGElement {
  const svg = s("svg", { viewBox: "0 0 100 100", width: size, height: size, role: "img", "aria-label": label, class: "mc-card-svg" });
  svg.append(s("title", {}, label), cardFace(card));
  return svg;
}
