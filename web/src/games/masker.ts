/**
 * Masker: the grid of crosses (2D: 6x6 in SVG; 3D: 3x3 stacks of four, drawn as an isometric view),
 * the runner, the holes, each player's captured piles, the viewer's secret colour, and the legal
 * steps highlighted.  Click a highlighted cross (or Tab to it and press Enter), or use the arrow keys
 * to step the runner; S (or the button) stops the turn.
 */
import { h, s } from "../dom";
import { BoardView } from "./board_view";
import type { GameModule, LegalAction, LogEntry, MatchView, ViewContext } from "./contract";
import "./masker.css";
import messages from "./masker_messages";
import { sayMasker, wordsContext } from "./log_words";
import { animate, oneMoveApart } from "./motion";

/** The engine's observation (masker/game.py, `observation`). */
interface MaskerObservation {
  seat: number | null;
  variant: "2d" | "3d";
  players: number;
  your_colour: string | null;
  partner: number | null;
  rows: number;
  cols: number;
  stacks: string[][];
  runner: number;
  colours_on_board: Record<string, number>;
  piles: string[][];
  capacity: number;
  eliminated: number[];
  eliminations: { seat: number; colour: string; move: number }[];
  to_move: number | null;
  phase: "step" | "complete";
  steps_this_turn: number;
  free_step: boolean;
  to_fill: number;
  terminal: boolean;
  /** Every action so far (the board steps are the cells' numbers). */
  moves: number[];
  last_move: string | null;
  tokens: string[] | null;
  winners?: number[];
  scores?: number[];
}

export const COLOURS = ["red", "yellow", "green", "blue", "black"] as const;
const FILL: Record<string, string> = {
  red: "#d64541",
  yellow: "#f2c230",
  green: "#2e9e5b",
  blue: "#2f7fd1",
  black: "#2f3337",
  white: "#f7f5ef",
  runner: "url(#mk-runner)",
};
const EDGE: Record<string, string> = {
  red: "#8e2421",
  yellow: "#a47f10",
  green: "#1c6139",
  blue: "#1d5088",
  black: "#0d0f10",
  white: "#9b968a",
  runner: "#5c6770",
};
const MAX_STEPS = 3;

/** The plus-shaped outline of a cross inside a unit cell. */
function crossPoints(margin = 0.12, arm = 0.16): [number, number][] {
  const a = 0.5 - arm;
  const b = 0.5 + arm;
  const m = margin;
  const n = 1 - margin;
  return [
    [a, m], [b, m], [b, a], [n, a], [n, b], [b, b], [b, n], [a, n], [a, b], [m, b], [m, a], [a, a],
  ];
}

const CROSS = crossPoints();
/** In 3D, fuller crosses (the stacks stand apart on their tiles anyway). */
const ISO_CROSS = crossPoints(0.1, 0.19);
const SIDE_LIGHT = "rgba(0,0,0,0.15)";
const SIDE_DARK = "rgba(0,0,0,0.38)";

export function squareName(cell: number, cols: number): string {
  return `${"abcdef"[cell % cols]}${Math.floor(cell / cols) + 1}`;
}

function defs(): SVGDefsElement {
  return s(
    "defs",
    {},
    s(
      "linearGradient",
      { id: "mk-runner", x1: 0, y1: 0, x2: 1, y2: 1 },
      s("stop", { offset: "0%", "stop-color": "#eef2f4" }),
      s("stop", { offset: "55%", "stop-color": "#aab4bb" }),
      s("stop", { offset: "100%", "stop-color": "#77838c" }),
    ),
    s(
      "radialGradient",
      { id: "mk-hole" },
      s("stop", { offset: "0%", "stop-color": "#2a1d14" }),
      s("stop", { offset: "100%", "stop-color": "#6b4f37" }),
    ),
  );
}

interface Target {
  action: LegalAction;
  cell: number;
}


class MaskerView extends BoardView<MaskerObservation> {
  private readonly prompt = h("p", { class: "mk-prompt", "aria-live": "polite" });
  private readonly actions = h("div", { class: "mk-actions" });
  private readonly boardWrap = h("div", { class: "mk-board" });
  private readonly side = h("div", { class: "mk-side" });

  constructor(ctx: ViewContext) {
    super(ctx);
    ctx.root.append(
      h(
        "div",
        { class: "mk" },
        h("div", { class: "mk-main" }, this.boardWrap, this.prompt, this.actions, h("p", { class: "mk-keys" })),
        this.side,
      ),
    );
  }

  update(view: MatchView): void {
    const focused = (document.activeElement as HTMLElement | null)?.dataset?.square;
    const before = this.view;
    this.view = view;
    this.draw();
    const from = before ? (before.observation as MaskerObservation).runner : null;
    if (from !== null && oneMoveApart(before, view) && from !== this.obs.runner) this.animateStep(from);
    if (focused) {
      const again = this.boardWrap.querySelector<SVGGElement>(`[data-square="${focused}"][tabindex]`);
      again?.focus();
    }
  }

  /** The cell of the runner's last step (a stop or a take is not on the board), or null. */
  private lastStep(): number | null {
    const cells = this.obs.rows * this.obs.cols;
    const moves = this.obs.moves ?? [];
    for (let i = moves.length - 1; i >= 0; i--) if (moves[i] < cells) return moves[i];
    return null;
  }

  /** The runner slides from the cell it left to where it stands (the step just made). */
  private animateStep(from: number): void {
    const obs = this.obs;
    const runner = this.boardWrap.querySelector(".mk-svg .mk-runner");
    if (!runner) return;
    const n = obs.cols;
    const [dc, dr] = [(from % n) - (obs.runner % n), Math.floor(from / n) - Math.floor(obs.runner / n)];
    // Flat: 64 units a cell; isometric: half a tile across and down per column/row.
    const [dx, dy] = obs.variant === "3d" ? [((dc - dr) * 168) / 2, ((dc + dr) * 84) / 2] : [dc * 64, dr * 64];
    animate(runner, [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0px, 0px)" }]);
  }

  /** Masker's scores count each seat's colour still on the board (the tie-break of MK-12). */
  result(view: MatchView): { title: string; values: number[] } | null {
    const scores = (view.observation as MaskerObservation).scores;
    return scores ? { title: this.ctx.t("result_title"), values: scores } : null;
  }

  describe(entry: LogEntry): string {
    return sayMasker(entry, wordsContext(this.ctx, this.view));
  }

  private colourName(code: string): string {
    return code === "runner" ? this.ctx.t("runner") : this.ctx.t(code);
  }

  private targets(): Target[] {
    const cells = this.obs.rows * this.obs.cols;
    return (this.view?.legal ?? [])
      .filter((a) => a.id < cells)
      .map((action) => ({ action, cell: action.id }));
  }

  protected draw(): void {
    const obs = this.obs;
    const t = this.ctx.t;
    const targets = this.targets();
    const board = obs.variant === "3d" ? this.drawIso(targets) : this.drawFlat(targets);
    this.boardWrap.replaceChildren(board);
    if (obs.variant === "3d") {
      this.boardWrap.append(
        h("div", { class: "mk-iso-legend" }, this.drawTopView(), h("p", { class: "mk-note" }, t("iso_note"))),
      );
    }
    this.drawPrompt(targets);
    (this.ctx.root.querySelector(".mk-keys") as HTMLElement).textContent = this.view!.your_turn ? t("keys") : "";
    this.drawSide();
  }

  private targetAttrs(target: Target | undefined, square: string, code: string) {
    if (!target) return {};
    return {
      class: "mk-target",
      tabindex: 0,
      role: "button",
      "data-action": target.action.id,
      "aria-label": this.ctx.t("step_to", { square, colour: this.colourName(code) }),
      onclick: () => this.ctx.act(target.action.id),
      onkeydown: (event: KeyboardEvent) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          this.ctx.act(target.action.id);
        }
      },
    };
  }

  /** 2D: a square grid of cells; each holds a cross, the runner, or a hole. */
  private drawFlat(targets: Target[]): SVGSVGElement {
    const obs = this.obs;
    const S = 64;
    const pad = 22;
    const width = obs.cols * S + pad * 2;
    const byCell = new Map(targets.map((x) => [x.cell, x]));
    const last = this.lastStep();
    const svg = s("svg", {
      viewBox: `0 0 ${width} ${width}`,
      class: "mk-svg",
      role: "group",
      "aria-label": this.ctx.t("board"),
    });
    svg.append(defs(), s("rect", { x: 4, y: 4, width: width - 8, height: width - 8, rx: 14, class: "mk-tray" }));
    for (let c = 0; c < obs.cols; c++) {
      svg.append(s("text", { x: pad + c * S + S / 2, y: 16, class: "mk-coord" }, "abcdef"[c]));
    }
    for (let r = 0; r < obs.rows; r++) {
      svg.append(s("text", { x: 11, y: pad + r * S + S / 2 + 4, class: "mk-coord" }, r + 1));
    }
    obs.stacks.forEach((stack, cell) => {
      const r = Math.floor(cell / obs.cols);
      const c = cell % obs.cols;
      const x = pad + c * S;
      const y = pad + r * S;
      const square = squareName(cell, obs.cols);
      const code = stack.at(-1);
      const target = byCell.get(cell);
      const g = s("g", { "data-square": square, transform: `translate(${x} ${y})`, ...this.targetAttrs(target, square, code ?? "") });
      g.append(s("rect", { x: 2, y: 2, width: S - 4, height: S - 4, rx: 8, class: "mk-cell" }));
      if (cell === last) {
        g.classList.add("last-move");
        g.append(s("rect", { x: 5, y: 5, width: S - 10, height: S - 10, rx: 6, class: "mk-last" }));
      }
      if (code === undefined) {
        g.append(s("circle", { cx: S / 2, cy: S / 2, r: S * 0.16, fill: "url(#mk-hole)", class: "mk-hole" }));
        g.append(s("title", {}, `${square}: ${this.ctx.t("hole")}`));
      } else {
        g.append(this.cross(code, S, 0, 0));
        g.append(s("title", {}, `${square}: ${this.colourName(code)}`));
      }
      if (target) g.append(s("rect", { x: 3, y: 3, width: S - 6, height: S - 6, rx: 9, class: "mk-ring" }));
      svg.append(g);
    });
    return svg;
  }

  private cross(code: string, size: number, x: number, y: number): SVGGElement {
    const points = CROSS.map(([u, v]) => `${x + u * size},${y + v * size}`).join(" ");
    const g = s("g", { class: `mk-cross mk-${code}` });
    g.append(
      s("polygon", { points, fill: FILL[code], stroke: EDGE[code], "stroke-width": 2, "stroke-linejoin": "round" }),
    );
    if (code === "runner") {
      g.append(s("circle", { cx: x + size / 2, cy: y + size / 2, r: size * 0.09, fill: "#fff", stroke: EDGE.runner, "stroke-width": 2 }));
    }
    return g;
  }

  /** 3D: an isometric view of the 3x3 stacks, back to front, each cross a thick slab. */
  private drawIso(targets: Target[]): SVGSVGElement {
    const obs = this.obs;
    const W = 168; // tile width on screen
    const H = W / 2; // tile depth on screen
    const T = 19; // slab thickness
    const byCell = new Map(targets.map((x) => [x.cell, x]));
    const last = this.lastStep();
    const n = obs.rows;
    const originX = (n * W) / 2 + 24;
    const originY = 4 * T + 34;
    const project = (col: number, row: number, z: number): [number, number] => [
      originX + ((col - row) * W) / 2,
      originY + ((col + row) * H) / 2 - z * T,
    ];
    const points = (list: [number, number][]) => list.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ");
    const width = n * W + 48;
    const height = n * H + 4 * T + 70;
    const svg = s("svg", {
      viewBox: `0 0 ${width} ${height}`,
      class: "mk-svg mk-iso",
      role: "group",
      "aria-label": this.ctx.t("board"),
    });
    svg.append(defs());
    svg.append(
      s("polygon", {
        points: points([project(-0.08, -0.08, 0), project(n + 0.08, -0.08, 0), project(n + 0.08, n + 0.08, 0), project(-0.08, n + 0.08, 0)]),
        class: "mk-iso-base",
      }),
    );
    for (let row = 0; row < n; row++) {
      for (let col = 0; col < n; col++) {
        const tile = [project(col, row, 0), project(col + 1, row, 0), project(col + 1, row + 1, 0), project(col, row + 1, 0)];
        svg.append(s("polygon", { points: points(tile), class: "mk-iso-tile" }));
      }
    }
    for (let i = 0; i < n; i++) {
      const [fx, fy] = project(i + 0.5, n + 0.3, 0);
      svg.append(s("text", { x: fx - 8, y: fy + 10, class: "mk-coord" }, "abc"[i]));
      const [rx, ry] = project(n + 0.3, i + 0.5, 0);
      svg.append(s("text", { x: rx + 8, y: ry + 10, class: "mk-coord" }, i + 1));
    }
    const shape = ISO_CROSS;
    // Painter's order: farther cells (smaller row + col) first.
    const order = obs.stacks.map((_, cell) => cell).sort((a, b) => {
      const ka = Math.floor(a / n) + (a % n);
      const kb = Math.floor(b / n) + (b % n);
      return ka - kb || a - b;
    });
    for (const cell of order) {
      const stack = obs.stacks[cell];
      const row = Math.floor(cell / n);
      const col = cell % n;
      const square = squareName(cell, n);
      const target = byCell.get(cell);
      const top = stack.at(-1);
      const g = s("g", { "data-square": square, ...this.targetAttrs(target, square, top ?? "") });
      if (stack.length === 0) {
        const [cx, cy] = project(col + 0.5, row + 0.5, 0);
        g.append(s("ellipse", { cx, cy, rx: W * 0.13, ry: H * 0.13, fill: "url(#mk-hole)", class: "mk-hole" }));
      }
      stack.forEach((code, z) => {
        const at = (u: number, v: number, lift: number) => project(col + u, row + v, lift);
        const slab = s("g", { class: `mk-slab mk-${code}` });
        // Side faces that face the viewer (outward normal towards +col or +row), back ones first.
        const sides: { depth: number; pts: [number, number][]; shade: string }[] = [];
        shape.forEach(([u1, v1], i) => {
          const [u2, v2] = shape[(i + 1) % shape.length];
          // The outline turns clockwise on screen (v down): edge (du, dv) faces outwards along (dv, -du).
          const nu = v2 - v1;
          const nv = -(u2 - u1);
          if (nu <= 0 && nv <= 0) return;
          sides.push({
            depth: (u1 + u2 + v1 + v2) / 2,
            pts: [at(u1, v1, z + 1), at(u2, v2, z + 1), at(u2, v2, z), at(u1, v1, z)],
            shade: nu > 0 ? SIDE_LIGHT : SIDE_DARK,
          });
        });
        sides.sort((a, b) => a.depth - b.depth);
        for (const side of sides) {
          slab.append(s("polygon", { points: points(side.pts), fill: EDGE[code], stroke: EDGE[code], "stroke-width": 0.8 }));
          slab.append(s("polygon", { points: points(side.pts), fill: side.shade }));
        }
        slab.append(
          s("polygon", {
            points: points(shape.map(([u, v]) => at(u, v, z + 1))),
            fill: FILL[code],
            stroke: EDGE[code],
            "stroke-width": 1.5,
            "stroke-linejoin": "round",
          }),
        );
        if (code === "runner") {
          const [cx, cy] = at(0.5, 0.5, z + 1);
          slab.append(s("ellipse", { cx, cy, rx: W * 0.06, ry: H * 0.06, fill: "#fff", stroke: EDGE.runner, "stroke-width": 2 }));
        }
        g.append(slab);
      });
      if (cell === last) {
        g.classList.add("last-move");
        const [cx, cy] = project(col + 0.5, row + 0.5, stack.length);
        g.append(s("ellipse", { cx, cy, rx: W * 0.36, ry: H * 0.36, class: "mk-last" }));
      }
      if (target) {
        g.append(s("polygon", { points: points(shape.map(([u, v]) => project(col + u, row + v, stack.length))), class: "mk-ring" }));
      }
      const label = stack.length ? stack.map((c) => this.colourName(c)).join(", ") : this.ctx.t("hole");
      g.append(s("title", {}, `${square} (${this.ctx.t("height", { n: stack.length })}): ${label}`));
      svg.append(g);
    }
    return svg;
  }

  /** 3D: the tops seen from above, with each stack's height: the position at a glance. */
  private drawTopView(): SVGSVGElement {
    const obs = this.obs;
    const S = 40;
    const svg = s("svg", { viewBox: `0 0 ${obs.cols * S} ${obs.rows * S}`, class: "mk-topview", "aria-hidden": "true" });
    svg.append(defs());
    obs.stacks.forEach((stack, cell) => {
      const x = (cell % obs.cols) * S;
      const y = Math.floor(cell / obs.cols) * S;
      svg.append(s("rect", { x: x + 1, y: y + 1, width: S - 2, height: S - 2, rx: 5, class: "mk-cell" }));
      const top = stack.at(-1);
      if (top) svg.append(this.cross(top, S, x, y));
      svg.append(s("text", { x: x + S - 4, y: y + S - 4, class: "mk-topview-h" }, stack.length));
    });
    return svg;
  }

  private drawPrompt(targets: Target[]): void {
    const obs = this.obs;
    const view = this.view!;
    const t = this.ctx.t;
    this.actions.replaceChildren();
    if (!view.your_turn) {
      this.prompt.textContent = "";
      return;
    }
    if (obs.phase === "complete") {
      this.prompt.textContent = t("complete", { n: obs.to_fill });
      for (const action of view.legal) {
        const move = action.move as { take_from?: number };
        if (move.take_from === undefined) continue;
        const seat = move.take_from;
        this.actions.append(
          h(
            "button",
            { type: "button", class: "primary", "data-action": action.id, "data-testid": `mk-take-${seat}`, onclick: () => this.ctx.act(action.id) },
            t("take_from", { name: this.ctx.seatName(seat), n: obs.piles[seat].length }),
          ),
        );
      }
      return;
    }
    const free = obs.free_step && targets.length > 0;
    this.prompt.textContent = free
      ? t("free_step")
      : obs.steps_this_turn === 0
        ? t("first_step")
        : t("step_prompt", { n: obs.steps_this_turn + 1, max: MAX_STEPS });
    const stop = view.legal.find((a) => (a.move as { stop?: boolean }).stop);
    if (stop) {
      this.actions.append(
        h(
          "button",
          { type: "button", "data-action": stop.id, "data-testid": "mk-stop", "aria-keyshortcuts": "S", onclick: () => this.ctx.act(stop.id) },
          t("stop"),
          h("kbd", {}, t("stop_hint")),
        ),
      );
    }
  }

  private drawSide(): void {
    const obs = this.obs;
    const t = this.ctx.t;
    const secret = h("section", { class: "mk-secret", "data-testid": "mk-secret" });
    if (obs.your_colour) {
      secret.append(
        h("h4", {}, obs.partner !== null ? t("team_colour", { partner: this.ctx.seatName(obs.partner) }) : t("your_colour")),
        h(
          "div",
          { class: "mk-secret-colour" },
          this.swatch(obs.your_colour, 40),
          h("strong", {}, this.colourName(obs.your_colour)),
        ),
        h("p", {}, t("keep_secret")),
      );
    } else {
      secret.append(h("p", {}, t("watching")));
    }
    const eliminatedColours = new Set(obs.eliminations.map((e) => e.colour));
    const counts = h(
      "section",
      { class: "mk-counts" },
      h("h4", {}, t("colours_left")),
      h(
        "ul",
        {},
        ...[...COLOURS, "white"].map((colour) =>
          h(
            "li",
            { class: eliminatedColours.has(colour) ? "gone" : "" },
            this.swatch(colour, 18),
            h("span", { class: "mk-count-name" }, this.colourName(colour)),
            h(
              "span",
              { class: "mk-bar", "aria-hidden": "true" },
              h("span", { style: `width:${((obs.colours_on_board[colour] ?? 0) / 6) * 100}%;background:${FILL[colour]}` }),
            ),
            h("span", { class: "mk-count" }, obs.colours_on_board[colour] ?? 0),
          ),
        ),
      ),
    );
    const players = h(
      "section",
      { class: "mk-players" },
      h("h4", {}, t("players")),
      ...obs.piles.map((pile, seat) => this.playerRow(seat, pile)),
    );
    this.side.replaceChildren(secret, counts, players);
  }

  private playerRow(seat: number, pile: string[]): HTMLElement {
    const obs = this.obs;
    const t = this.ctx.t;
    const out = obs.eliminations.find((e) => e.seat === seat);
    const status = out
      ? t("out", { colour: this.colourName(out.colour) })
      : pile.length >= obs.capacity
        ? t("full")
        : "";
    const piles = h("div", { class: "mk-piles" });
    for (let i = 0; i < pile.length; i += 3) {
      piles.append(h("span", { class: "mk-pile" }, ...pile.slice(i, i + 3).map((code) => this.swatch(code, 16))));
    }
    const revealed = obs.tokens ? obs.tokens[obs.players === 4 ? seat % 2 : seat] : null;
    return h(
      "div",
      { class: `mk-player seat-${seat}${this.view?.to_move === seat ? " to-move" : ""}${out ? " out" : ""}`, "data-seat": seat },
      h(
        "div",
        { class: "mk-player-head" },
        h("strong", {}, this.ctx.seatName(seat)),
        h("span", { class: "mk-held" }, t("held", { n: pile.length, capacity: obs.capacity })),
        status ? h("span", { class: "mk-status" }, status) : null,
        revealed ? h("span", { class: "mk-revealed" }, this.swatch(revealed, 14), t("colour_was", { colour: this.colourName(revealed) })) : null,
      ),
      piles,
    );
  }

  private swatch(code: string, size: number): SVGSVGElement {
    const svg = s("svg", { viewBox: "0 0 40 40", width: size, height: size, class: "mk-swatch", "aria-hidden": "true" });
    svg.append(defs(), this.cross(code, 40, 0, 0));
    return svg;
  }

  /** Arrow keys step the runner to the neighbour in that direction, when that step is legal; S stops. */
  protected key(event: KeyboardEvent): void {
    const view = this.view!;
    if (!view.your_turn) return;
    const obs = this.obs;
    if (event.key === "s" || event.key === "S") {
      const stop = view.legal.find((a) => (a.move as { stop?: boolean }).stop);
      if (stop) {
        event.preventDefault();
        this.ctx.act(stop.id);
      }
      return;
    }
    const delta: Record<string, [number, number]> = {
      ArrowUp: [-1, 0],
      ArrowDown: [1, 0],
      ArrowLeft: [0, -1],
      ArrowRight: [0, 1],
    };
    const d = delta[event.key];
    if (!d) return;
    const row = Math.floor(obs.runner / obs.cols) + d[0];
    const col = (obs.runner % obs.cols) + d[1];
    if (row < 0 || col < 0 || row >= obs.rows || col >= obs.cols) return;
    const cell = row * obs.cols + col;
    const step = this.targets().find((x) => x.cell === cell);
    if (step) {
      event.preventDefault();
      this.ctx.act(step.action.id);
    }
  }
}

const masker: GameModule = {
  name: "masker",
  messages,
  create: (ctx) => new MaskerView(ctx),
};

export default masker;
