/** The Maske view's styles, scoped under `.mk` and put inside the view's own root. */
export const MASKE_CSS = `
.mk { display: grid; grid-template-columns: minmax(0, 540px) minmax(240px, 1fr); gap: 14px; align-items: start; }
.ms-left { display: flex; flex-direction: column; gap: 6px; min-width: 0; }
.ms-plate { width: 100%; height: auto; display: block; max-height: 74vh; }
.ms-bare { fill: #efe7da; stroke: #b7a78d; stroke-width: 4; }
.ms-ribbon { fill: none; stroke-width: 9; stroke-linecap: round; }
.ms-join { stroke-width: 12; stroke-linecap: round; opacity: 0.32; }
.ms-ring { fill: none; }
.ms-ring3 { stroke: #b07c0c; stroke-width: 5; }
.ms-ring5 { stroke: #b3264a; stroke-width: 4.5; }
.ms-hole { fill: #3a2e28; }
.ms-centre circle { fill: #00000022; stroke: #0000004d; stroke-width: 2; }
.ms-centre path { stroke: #00000080; stroke-width: 3; stroke-linecap: round; }
.ms-axis { font-size: 17px; fill: #6a6257; text-anchor: middle; font-weight: 600; }
.ms-trophy { width: 1em; height: 1em; vertical-align: -0.15em; margin-right: 0.25em; }
.ms-last { fill: none; stroke: #1d2430; stroke-width: 3; stroke-dasharray: 5 4; pointer-events: none; }
.ms-trail { fill: #1d243040; stroke: none; }
.ms-face.last-move > g > path:first-child { stroke-width: 9; }
.ms-shadow { fill: #0000002e; }
.ms-stick { stroke: #fff; stroke-width: 3.5; }
.ms-stick-num { font-size: 17px; fill: #fff; font-weight: 700; text-anchor: middle; pointer-events: none; }
.ms-target { cursor: pointer; outline: none; }
.ms-hole-target { fill-opacity: 0.28; stroke-width: 3; stroke-dasharray: 6 4; }
.ms-target:hover .ms-hole-target, .ms-target:focus-visible .ms-hole-target { fill-opacity: 0.55; }
.ms-note { font-size: 15px; font-weight: 700; fill: #1d2430; paint-order: stroke; stroke: #fff; stroke-width: 4px; }
.ms-pickable { fill: none; stroke-width: 3; stroke-dasharray: 5 4; }
.ms-selected { fill: none; stroke: #1d2430; stroke-width: 4.5; }
.ms-target:focus-visible .ms-stick, .ms-target:hover .ms-stick { stroke: #1d2430; }
.ms-legend { display: flex; gap: 14px; flex-wrap: wrap; font-size: 0.85em; color: #5a5247; align-items: center; }
.ms-legend svg { width: 22px; height: 22px; vertical-align: middle; }
.ms-side { display: flex; flex-direction: column; gap: 10px; min-width: 0; }
.ms-box { border: 1px solid #dccfbd; border-radius: 10px; padding: 8px 10px; background: #fffdf8; }
.ms-box h3 { margin: 0 0 6px; font-size: 1em; }
.ms-mask-line { display: flex; gap: 10px; align-items: center; }
.ms-stack { display: inline-flex; flex-direction: column-reverse; gap: 0; margin-right: 4px; }
.ms-stack span { display: block; width: 30px; height: 5px; border-radius: 2px; background: #c5a06b; border: 1px solid #8a6a3c; margin-top: -1px; }
.ms-players { width: 100%; border-collapse: collapse; font-size: 0.92em; }
.ms-players th, .ms-players td { padding: 3px 6px; text-align: left; }
.ms-players td.num { text-align: right; font-variant-numeric: tabular-nums; }
.ms-players td.ms-me { font-weight: 700; }
.ms-players td.ms-points { font-weight: 700; font-size: 1.05em; }
.ms-players tr.ms-to-move { background: #fff3c4; }
.ms-swatch { display: inline-block; width: 12px; height: 12px; border-radius: 50%; margin-right: 6px; vertical-align: -1px; border: 2px solid #fff; box-shadow: 0 0 0 1px #0004; }
.ms-notes { font-size: 0.8em; color: #6a6257; font-weight: 400; }
.ms-actions { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 6px; align-items: center; }
.ms-actions button, .ms-lay button { min-height: 38px; padding: 0 12px; border-radius: 8px; border: 1px solid #a8987f; background: #fff; font: inherit; cursor: pointer; }
.ms-actions button:hover, .ms-lay button:hover { background: #fbf1de; }
.ms-actions button.ms-primary { background: #8a4b14; color: #fff; border-color: #6b3a0f; font-weight: 700; }
.ms-actions input { width: 5em; min-height: 34px; font: inherit; padding: 0 6px; }
.ms-hint { font-size: 0.88em; color: #5a5247; margin: 4px 0 0; }
.ms-cost { font-weight: 700; }
.ms-card { border-radius: 10px; padding: 10px 12px; margin: 6px 0; background: linear-gradient(135deg, #fff8e6, #f3e2bd); border: 2px solid #b48a3c; box-shadow: 0 2px 6px #0002; }
.ms-card.ms-hidden { background: repeating-linear-gradient(45deg, #6b3a0f, #6b3a0f 8px, #7d4714 8px, #7d4714 16px); color: #fff; border-color: #4d2a0a; }
.ms-card .ms-card-id { font-size: 0.75em; opacity: 0.7; }
.ms-lay { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 6px; margin-top: 6px; }
.ms-lay button { display: flex; flex-direction: column; align-items: center; padding: 4px; font-size: 0.8em; }
.ms-preview { width: 100%; max-width: 110px; height: auto; }
.ms-events { margin: 0; padding-left: 18px; font-size: 0.85em; color: #4b443b; }
.ms-events li { margin: 2px 0; }
@media (max-width: 820px) {
  .mk { grid-template-columns: 1fr; }
  .ms-lay { grid-template-columns: repeat(2, minmax(0, 1fr)); }
}
`;
