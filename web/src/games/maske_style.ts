/** The Maske view's styles, scoped under `.mk` and put inside the view's own root. */
export const MASKE_CSS = `
.mk { display: grid; grid-template-columns: minmax(0, 540px) minmax(240px, 1fr); gap: 14px; align-items: start; }
.mk-left { display: flex; flex-direction: column; gap: 6px; min-width: 0; }
.mk-plate { width: 100%; height: auto; display: block; max-height: 74vh; }
.mk-bare { fill: #efe7da; stroke: #b7a78d; stroke-width: 4; }
.mk-ribbon { fill: none; stroke-width: 9; stroke-linecap: round; }
.mk-join { stroke-width: 12; stroke-linecap: round; opacity: 0.32; }
.mk-ring { fill: none; }
.mk-ring3 { stroke: #b07c0c; stroke-width: 5; }
.mk-ring5 { stroke: #b3264a; stroke-width: 4.5; }
.mk-hole { fill: #3a2e28; }
.mk-centre circle { fill: #00000022; stroke: #0000004d; stroke-width: 2; }
.mk-centre path { stroke: #00000080; stroke-width: 3; stroke-linecap: round; }
.mk-axis { font-size: 17px; fill: #6a6257; text-anchor: middle; font-weight: 600; }
.mk-shadow { fill: #0000002e; }
.mk-stick { stroke: #fff; stroke-width: 3.5; }
.mk-stick-num { font-size: 17px; fill: #fff; font-weight: 700; text-anchor: middle; pointer-events: none; }
.mk-target { cursor: pointer; outline: none; }
.mk-hole-target { fill-opacity: 0.28; stroke-width: 3; stroke-dasharray: 6 4; }
.mk-target:hover .mk-hole-target, .mk-target:focus-visible .mk-hole-target { fill-opacity: 0.55; }
.mk-note { font-size: 15px; font-weight: 700; fill: #1d2430; paint-order: stroke; stroke: #fff; stroke-width: 4px; }
.mk-pickable { fill: none; stroke-width: 3; stroke-dasharray: 5 4; }
.mk-selected { fill: none; stroke: #1d2430; stroke-width: 4.5; }
.mk-target:focus-visible .mk-stick, .mk-target:hover .mk-stick { stroke: #1d2430; }
.mk-legend { display: flex; gap: 14px; flex-wrap: wrap; font-size: 0.85em; color: #5a5247; align-items: center; }
.mk-legend svg { width: 22px; height: 22px; vertical-align: middle; }
.mk-side { display: flex; flex-direction: column; gap: 10px; min-width: 0; }
.mk-box { border: 1px solid #dccfbd; border-radius: 10px; padding: 8px 10px; background: #fffdf8; }
.mk-box h3 { margin: 0 0 6px; font-size: 1em; }
.mk-mask-line { display: flex; gap: 10px; align-items: center; }
.mk-stack { display: inline-flex; flex-direction: column-reverse; gap: 0; margin-right: 4px; }
.mk-stack span { display: block; width: 30px; height: 5px; border-radius: 2px; background: #c5a06b; border: 1px solid #8a6a3c; margin-top: -1px; }
.mk-players { width: 100%; border-collapse: collapse; font-size: 0.92em; }
.mk-players th, .mk-players td { padding: 3px 6px; text-align: left; }
.mk-players td.num { text-align: right; font-variant-numeric: tabular-nums; }
.mk-players td.mk-points { font-weight: 700; font-size: 1.05em; }
.mk-players tr.mk-to-move { background: #fff3c4; }
.mk-swatch { display: inline-block; width: 12px; height: 12px; border-radius: 50%; margin-right: 6px; vertical-align: -1px; border: 2px solid #fff; box-shadow: 0 0 0 1px #0004; }
.mk-notes { font-size: 0.8em; color: #6a6257; }
.mk-actions { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 6px; align-items: center; }
.mk-actions button, .mk-lay button { min-height: 38px; padding: 0 12px; border-radius: 8px; border: 1px solid #a8987f; background: #fff; font: inherit; cursor: pointer; }
.mk-actions button:hover, .mk-lay button:hover { background: #fbf1de; }
.mk-actions button.mk-primary { background: #8a4b14; color: #fff; border-color: #6b3a0f; font-weight: 700; }
.mk-actions input { width: 5em; min-height: 34px; font: inherit; padding: 0 6px; }
.mk-hint { font-size: 0.88em; color: #5a5247; margin: 4px 0 0; }
.mk-cost { font-weight: 700; }
.mk-card { border-radius: 10px; padding: 10px 12px; margin: 6px 0; background: linear-gradient(135deg, #fff8e6, #f3e2bd); border: 2px solid #b48a3c; box-shadow: 0 2px 6px #0002; }
.mk-card.mk-hidden { background: repeating-linear-gradient(45deg, #6b3a0f, #6b3a0f 8px, #7d4714 8px, #7d4714 16px); color: #fff; border-color: #4d2a0a; }
.mk-card .mk-card-id { font-size: 0.75em; opacity: 0.7; }
.mk-lay { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 6px; margin-top: 6px; }
.mk-lay button { display: flex; flex-direction: column; align-items: center; padding: 4px; font-size: 0.8em; }
.mk-preview { width: 100%; max-width: 110px; height: auto; }
.mk-events { margin: 0; padding-left: 18px; font-size: 0.85em; color: #4b443b; }
.mk-events li { margin: 2px 0; }
@media (max-width: 820px) {
  .mk { grid-template-columns: 1fr; }
  .mk-lay { grid-template-columns: repeat(2, minmax(0, 1fr)); }
}
`;
