/** The Blokus 3D view's styles, scoped under `.b3` and put inside the view's own root. */
export const BLOKUS3D_CSS = `
.b3 { display: grid; grid-template-columns: minmax(0, 1fr) minmax(220px, 300px); gap: 12px; align-items: start; }
.b3-main { display: flex; flex-direction: column; gap: 8px; min-width: 0; }
.b3-stage { position: relative; border-radius: 10px; background: linear-gradient(#f4f6fa, #dfe5ee); height: min(62vh, 560px); min-height: 300px; overflow: hidden; outline: none; }
.b3-stage:focus-visible { box-shadow: 0 0 0 3px #2f6fde88; }
.b3-scene { position: absolute; inset: 0; }
.b3-scene canvas { width: 100%; height: 100%; display: block; touch-action: none; cursor: crosshair; }
.b3-iso-svg { width: 100%; height: 100%; display: block; cursor: crosshair; }
.b3-camera { position: absolute; top: 8px; right: 8px; display: flex; gap: 4px; flex-wrap: wrap; justify-content: flex-end; max-width: 60%; }
.b3-camera button, .b3-bar button { min-width: 36px; min-height: 36px; border-radius: 8px; border: 1px solid #9aa6b8; background: #fffffff0; font: inherit; cursor: pointer; }
.b3-camera button:hover, .b3-bar button:hover { background: #eef3ff; }
.b3-info { position: absolute; left: 10px; top: 8px; font-size: 0.9em; background: #ffffffd8; padding: 4px 8px; border-radius: 6px; max-width: 55%; }
.b3-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; }
.b3-bar .b3-place { font-weight: 700; background: #2f6fde; color: #fff; border-color: #1f4fa6; padding: 0 14px; }
.b3-bar .b3-place:hover:not(:disabled), .b3-bar .b3-place:focus-visible:not(:disabled) { background: #2559b8; color: #fff; }
.b3-bar .b3-place:disabled { background: #b8c2d2; border-color: #9aa6b8; color: #1d2430; }
.b3-bar button:disabled { opacity: 0.45; cursor: default; }
.b3-choice { flex: 1 1 220px; font-size: 0.95em; }
.b3-keys { font-size: 0.8em; color: #5a6577; }
.b3-side { display: flex; flex-direction: column; gap: 10px; }
.b3-scores { width: 100%; border-collapse: collapse; font-size: 0.92em; }
.b3-scores th, .b3-scores td { padding: 3px 6px; text-align: left; }
.b3-scores td.num { text-align: right; font-variant-numeric: tabular-nums; font-weight: 700; }
.b3-scores td.b3-mine { font-weight: 700; }
.b3-scores tr.b3-to-move { background: #fff6cc; }
.b3-swatch { display: inline-block; width: 12px; height: 12px; border-radius: 3px; margin-right: 6px; vertical-align: -1px; border: 1px solid #0003; }
.b3-tray { border: 1px solid #d5dbe5; border-radius: 8px; padding: 6px; }
.b3-tray h4 { margin: 0 0 4px; font-size: 0.9em; font-weight: 600; }
.b3-tray.b3-active { border-color: #2f6fde; box-shadow: 0 0 0 2px #2f6fde33; }
.b3-pieces { display: grid; grid-template-columns: repeat(auto-fill, minmax(44px, 1fr)); gap: 4px; }
.b3-piece { position: relative; padding: 2px 2px 12px; min-height: 50px; border: 1px solid #c8d0dc; border-radius: 6px; background: #fff; cursor: pointer; }
.b3-piece:disabled { cursor: default; opacity: 0.55; }
.b3-piece[aria-pressed="true"] { border: 2px solid #1d2430; background: #eef3ff; }
.b3-piece .b3-key { position: absolute; left: 3px; top: 1px; font-size: 10px; color: #5a6577; }
.b3-piece .b3-name { position: absolute; left: 0; right: 0; bottom: 1px; font-size: 10px; line-height: 11px; color: #5a6577; text-align: center; }
.b3-icon { width: 100%; height: 32px; }
.b3-tray .b3-none { font-size: 0.85em; color: #5a6577; }
.b3-base { fill: #d8c8a8; stroke: #b39f7a; }
.b3-tile { stroke: #a9b2c0; stroke-width: 0.6; }
.b3-limit { font-size: 9px; fill: #7b8597; text-anchor: middle; pointer-events: none; }
.b3-axis { font-size: 11px; fill: #5a6577; text-anchor: middle; font-weight: 600; }
.b3-cube polygon { stroke: #1d2430; stroke-width: 0.7; stroke-linejoin: round; }
.b3-last polygon { stroke: #fff6c8; stroke-width: 1.4; }
.b3-ghost { opacity: 0.62; pointer-events: none; }
.b3-ghost polygon { stroke: #fff; stroke-width: 1.5; }
.b3-spot { opacity: 0.4; }
.b3-ceiling { stroke: #5872a8; stroke-width: 1; stroke-dasharray: 3 2; opacity: 0.7; pointer-events: none; }
@media (max-width: 760px) {
  .b3 { grid-template-columns: 1fr; }
  .b3-stage { height: 58vh; min-height: 260px; }
  .b3-camera { max-width: 70%; }
  .b3-info { max-width: 90%; top: auto; bottom: 8px; }
}
`;
