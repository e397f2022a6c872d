/**
 * Blokus 3D match view: the board in three.js (or an isometric SVG when WebGL is missing), the
 * scores as seen from above (B3-6), a tray of remaining pieces per colour, and a ghost of the
 * selected piece that only ever stands on a legal placement from `view.legal`.
 *
 * Choosing a move: pick a piece in the tray (or keys 1-9, 0, -), point at a square (pointer or
 * arrows), turn it through the orientations that fit there (R, or the turn buttons), place with a
 * click or Enter.  The camera: drag to orbit, Q/E turn the turntable, W/S tilt, T looks from above.
 */

import { h } from "../dom";
import type { GameModule, GameView, Lang, LogEntry, MatchView, ViewContext } from "./contract";
import type { BoardRenderer, SceneData } from "./blokus3d_board";
import { IsoBoard, pieceIcon } from "./blokus3d_iso";
import { PIECE_IDS, type PieceId, squareName } from "./blokus3d_pieces";
import {
  type B3Observation,
  type Placement,
  byPiece,
  candidatesAt,
  heightsOf,
  key,
  placementLabel,
  placementsOf,
  playedCubes,
  spotOf,
} from "./blokus3d_play";
import { ThreeBoard, webglAvailable } from "./blokus3d_scene";
import { BLOKUS3D_CSS } from "./blokus3d_style";
import messages from "./blokus3d_messages";
import { sayBlokus3d, wordsContext } from "./log_words";
import { oneMoveApart } from "./motion";

const PIECE_KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "-"];
const RENDER_PREF = "masques.blokus3d.render";


class Blokus3DView implements GameView {
  private ctx: ViewContext;
  private root: HTMLElement;
  private board: BoardRenderer;
  private view: MatchView | null = null;
  private obs: B3Observation | null = null;
  private heights: number[][] = [];
  private options = new Map<PieceId, Placement[]>();
  private piece: PieceId | null = null;
  private spot: [number, number] | null = null;
  private candidates: Placement[] = [];
  private current: Placement | null = null;
  private sent = false;
  /** The state shown last placed one piece: it drops in on the next drawing. */
  private drop = false;
  private stage: HTMLElement;
  private info: HTMLElement;
  private bar: HTMLElement;
  private side: HTMLElement;
  private notice: string | null = null;
  private onKey = (e: KeyboardEvent): void => this.key(e);

  constructor(ctx: ViewContext) {
    this.ctx = ctx;
    this.root = ctx.root;
    this.stage = h("div", { class: "b3-stage", tabindex: 0, role: "application" });
    this.info = h("div", { class: "b3-info", "aria-live": "polite" });
    this.bar = h("div", { class: "b3-bar" });
    this.side = h("aside", { class: "b3-side" });
    this.root.replaceChildren(
      h("style", {}, BLOKUS3D_CSS),
      h("div", { class: "b3" }, h("div", { class: "b3-main" }, this.stage, this.bar), this.side),
    );
    const wanted = localStorage.getItem(RENDER_PREF) === "2d" ? "2d" : "3d";
    this.board = this.makeBoard(wanted);
    document.addEventListener("keydown", this.onKey);
  }

  private makeBoard(kind: "2d" | "3d"): BoardRenderer {
    let board: BoardRenderer | null = null;
    if (kind === "3d") {
      if (webglAvailable()) {
        try {
          board = new ThreeBoard();
        } catch {
          board = null;
        }
      }
      if (!board) this.notice = "noWebgl";
    }
    board ??= new IsoBoard();
    board.onHover = (square) => {
      if (square) this.point(square[0], square[1]);
    };
    board.onPick = (square) => this.pick(square);
    this.stage.replaceChildren(board.element, this.info, this.cameraButtons(board));
    return board;
  }

  private t(k: string, params?: Record<string, string | number>): string {
    return this.ctx.t(k, params);
  }

  private colourName(colour: string): string {
    return this.t(colour);
  }

  private cameraButtons(board: BoardRenderer): HTMLElement {
    const button = (label: string, title: string, fn: () => void, cls = ""): HTMLButtonElement =>
      h("button", { type: "button", class: cls, title, "aria-label": title, onclick: fn }, label);
    const buttons = [button("⟲", this.t("rotateLeft"), () => board.turn(-1)), button("⟳", this.t("rotateRight"), () => board.turn(1))];
    if (board.kind === "3d") {
      buttons.push(
        button("▲", this.t("tiltUp"), () => board.tilt(1)),
        button("▼", this.t("tiltDown"), () => board.tilt(-1)),
        button("⊤", this.t("topView"), () => board.topView()),
      );
    }
    const other = board.kind === "3d" ? "2d" : "3d";
    buttons.push(
      button(other.toUpperCase(), this.t(other === "2d" ? "view2d" : "view3d"), () => this.switchBoard(other), "b3-switch"),
    );
    return h("div", { class: "b3-camera" }, ...buttons);
  }

  private switchBoard(kind: "2d" | "3d"): void {
    this.board.destroy();
    this.notice = null;
    localStorage.setItem(RENDER_PREF, kind);
    this.board = this.makeBoard(kind);
    this.draw();
  }

  update(view: MatchView): void {
    const fresh = view.version !== this.view?.version || view.your_turn !== this.view?.your_turn;
    const placedBefore = this.obs?.moves.length ?? -1;
    this.drop =
      oneMoveApart(this.view, view) && (view.observation as B3Observation).moves.length === placedBefore + 1;
    this.view = view;
    this.obs = view.observation as B3Observation;
    this.heights = heightsOf(this.obs);
    if (fresh) this.sent = false;
    const placements = view.your_turn ? placementsOf(view.legal, this.heights) : [];
    this.options = byPiece(placements);
    if (!this.piece || !this.options.has(this.piece)) {
      this.piece = this.options.keys().next().value ?? null;
      this.spot = null;
    }
    this.choose(this.current?.number);
    this.draw();
  }

  /** One move of the shell's log in words: `L4:5@c3` -> "places L (L4) at c3". */
  describe(entry: LogEntry): string {
    return sayBlokus3d(entry, wordsContext(this.ctx, this.view));
  }

  setLang(_lang: Lang): void {
    this.stage.querySelector(".b3-camera")?.replaceWith(this.cameraButtons(this.board));
    this.draw();
  }

  /** Recompute the candidates at the spot and pick one, keeping the orientation if it fits. */
  private choose(number?: number): void {
    const list = this.piece ? this.options.get(this.piece) ?? [] : [];
    if (!list.length) {
      this.candidates = [];
      this.current = null;
      return;
    }
    if (!this.spot) this.spot = spotOf(list[0]);
    this.candidates = candidatesAt(list, this.spot[0], this.spot[1]);
    this.current = this.candidates.find((p) => p.number === number) ?? this.candidates[0] ?? null;
  }

  private point(x: number, y: number): void {
    if (this.spot && this.spot[0] === x && this.spot[1] === y) return;
    if (!this.current) return;
    this.spot = [x, y];
    this.choose(this.current.number);
    this.draw();
  }

  private pick([x, y]: [number, number]): void {
    if (this.current?.squares.has(key(x, y))) {
      this.place();
      return;
    }
    if (!this.current) return;
    this.spot = [x, y];
    this.choose(this.current.number);
    this.draw();
  }

  private selectPiece(piece: PieceId): void {
    if (!this.options.has(piece)) return;
    const keep = this.spot;
    this.piece = piece;
    this.spot = keep;
    this.choose();
    this.draw();
  }

  private cyclePiece(step: number): void {
    const list = [...this.options.keys()];
    if (!list.length) return;
    const at = this.piece ? list.indexOf(this.piece) : -1;
    this.selectPiece(list[(at + step + list.length) % list.length]);
  }

  private turnPiece(step: number): void {
    if (!this.current || !this.candidates.length) return;
    const at = this.candidates.indexOf(this.current);
    this.current = this.candidates[(at + step + this.candidates.length) % this.candidates.length];
    this.draw();
  }

  private nextPlacement(step: number): void {
    const list = this.piece ? this.options.get(this.piece) ?? [] : [];
    if (!list.length) return;
    const sorted = [...list].sort((a, b) => a.id - b.id);
    const at = this.current ? sorted.indexOf(this.current) : -1;
    const next = sorted[(at + step + sorted.length) % sorted.length];
    this.spot = spotOf(next);
    this.candidates = candidatesAt(list, this.spot[0], this.spot[1]);
    this.current = next;
    this.draw();
  }

  private move(dx: number, dy: number): void {
    if (!this.spot || !this.current) return;
    const x = Math.max(0, Math.min(9, this.spot[0] + dx));
    const y = Math.max(0, Math.min(9, this.spot[1] + dy));
    this.spot = [x, y];
    this.choose(this.current.number);
    this.draw();
  }

  private place(): void {
    if (!this.current || this.sent || !this.view?.your_turn) return;
    this.sent = true;
    this.ctx.act(this.current.id);
    this.draw();
  }

  /** Keys act when the view or nothing in particular (the page body) has the focus. */
  private key(e: KeyboardEvent): void {
    const target = e.target as HTMLElement;
    if (target !== document.body && !this.root.contains(target)) return;
    if (target.closest("input, select, textarea")) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const onButton = target.tagName === "BUTTON";
    const k = e.key;
    let handled = true;
    const pieceIndex = PIECE_KEYS.indexOf(k);
    const choosing = !!this.current;
    const placing = ["[", "]", "r", "R", "n", "N", " ", "Enter"].includes(k) || k.startsWith("Arrow");
    if (!choosing && (pieceIndex >= 0 || placing)) return;
    if (pieceIndex >= 0) this.selectPiece(PIECE_IDS[pieceIndex]);
    else if (k === "[" || k === "]") this.cyclePiece(k === "]" ? 1 : -1);
    else if (k.startsWith("Arrow")) {
      const { up, right } = this.board.screenAxes();
      const [dx, dy] = { ArrowUp: up, ArrowDown: [-up[0], -up[1]], ArrowRight: right, ArrowLeft: [-right[0], -right[1]] }[k] ?? [0, 0];
      this.move(dx, dy);
    } else if (k === "r" || k === "R") this.turnPiece(e.shiftKey ? -1 : 1);
    else if (k === "n" || k === "N") this.nextPlacement(e.shiftKey ? -1 : 1);
    else if ((k === "Enter" || k === " ") && !onButton) this.place();
    else if (k === "q" || k === "Q") this.board.turn(-1);
    else if (k === "e" || k === "E") this.board.turn(1);
    else if (k === "w" || k === "W") this.board.tilt(1);
    else if (k === "s" || k === "S") this.board.tilt(-1);
    else if (k === "t" || k === "T") this.board.topView();
    else handled = false;
    if (handled) e.preventDefault();
  }

  // -- drawing ------------------------------------------------------------------------------------
  private draw(): void {
    const obs = this.obs;
    if (!obs) return;
    const mover = this.moverColour(obs);
    const myTurn = !!this.view?.your_turn && !this.sent;
    const last = obs.moves.length ? playedCubes(obs.moves[obs.moves.length - 1], this.heights) : [];
    const spots: Array<[number, number]> = [];
    if (myTurn && this.piece) {
      const seen = new Set<string>();
      for (const p of this.options.get(this.piece) ?? []) {
        for (const [x, y] of p.cubes) {
          if (!seen.has(key(x, y))) {
            seen.add(key(x, y));
            spots.push([x, y]);
          }
        }
      }
    }
    const data: SceneData = {
      limits: obs.structure.max_heights,
      stacks: obs.stacks,
      ghost: myTurn && this.current && mover ? { cubes: this.current.cubes, colour: mover } : null,
      spots,
      last,
      spotColour: myTurn ? mover : null,
      drop: this.drop,
    };
    this.drop = false;
    // The last piece's squares, for tests and tools (the 3D board is a canvas).
    this.stage.dataset.lastMove = [...new Set(last.map(([x, y]) => squareName(x, y)))].sort().join(" ");
    const focused = document.activeElement?.getAttribute("data-focus");
    this.board.render(data);
    this.drawInfo(obs);
    this.drawBar(myTurn);
    this.drawSide(obs, myTurn);
    // Keep the keyboard focus on the same control across redraws.
    if (focused) (this.root.querySelector(`[data-focus="${focused}"]`) as HTMLElement | null)?.focus();
  }

  private choiceText(): string {
    const p = this.current;
    if (!p) return this.t("noChoice");
    const low = Math.min(...p.cubes.map((c) => c[2]));
    return this.t("choice", {
      piece: p.piece,
      pieceName: this.t(`piece_${p.piece}`),
      turn: this.candidates.indexOf(p) + 1,
      turns: this.candidates.length,
      square: squareName(p.x, p.y),
      level: low,
    });
  }

  private structureName(obs: B3Observation): string {
    return "ABCD".includes(obs.structure.key) ? this.t(`struct_${obs.structure.key}`) : obs.structure.name;
  }

  private drawInfo(obs: B3Observation): void {
    const lines: Array<HTMLElement | string> = [];
    const limits = obs.structure.max_heights.flat();
    const size = limits.filter((n) => n > 0).length;
    lines.push(h("div", {}, this.t("structure", { name: this.structureName(obs), size, height: Math.max(...limits) })));
    if (obs.terminal || this.view?.to_move === null) lines.push(h("strong", {}, this.t("over"))); // or stopped
    else if (obs.to_move) {
      const colour = this.colourName(obs.to_move.colour);
      const text = this.view?.your_turn
        ? this.t("yourTurn", { colour })
        : this.t("waiting", { name: this.ctx.seatName(obs.to_move.seat), colour });
      lines.push(h("strong", {}, text));
    }
    if (this.notice) lines.push(h("div", {}, this.t(this.notice)));
    this.info.replaceChildren(...lines);
    this.stage.setAttribute("aria-label", this.t("boardLabel", { choice: this.view?.your_turn ? this.choiceText() : "" }));
  }

  private drawBar(myTurn: boolean): void {
    if (!myTurn) {
      this.bar.replaceChildren(h("span", { class: "b3-keys" }, this.t("keys")));
      return;
    }
    const p = this.current;
    const button = (label: string, title: string, fn: () => void, disabled: boolean, cls = ""): HTMLButtonElement =>
      h("button", { type: "button", class: cls, title, "aria-label": title, disabled, onclick: fn, "data-focus": title }, label);
    const few = this.candidates.length < 2;
    const cubes = p
      ? p.cubes.map(([x, y, z]) => `${squareName(x, y)}:${z}`).join(" ")
      : "";
    this.bar.replaceChildren(
      button("↶", this.t("turnPrev"), () => this.turnPiece(-1), !p || few),
      button("↷ R", this.t("turnNext"), () => this.turnPiece(1), !p || few),
      button("◀", this.t("prevPlacement"), () => this.nextPlacement(-1), !p),
      button("▶ N", this.t("nextPlacement"), () => this.nextPlacement(1), !p),
      h(
        "span",
        {
          class: "b3-choice",
          "aria-live": "polite",
          "data-action": p ? p.id : null,
          "data-label": p ? placementLabel(p) : "",
          "data-cubes": cubes,
        },
        this.choiceText(),
      ),
      button(this.t("place"), this.t("place"), () => this.place(), !p, "b3-place"),
      h("div", { class: "b3-keys", style: "flex-basis: 100%" }, this.t("keys")),
    );
  }

  /** The colour to move, or null: at the end, and once the match has stopped (a resignation, a
   * time-out), when the match names nobody to move though the observation still does. */
  private moverColour(obs: B3Observation): string | null {
    return this.view?.to_move === null ? null : (obs.to_move?.colour ?? null);
  }

  private drawSide(obs: B3Observation, myTurn: boolean): void {
    const mover = this.moverColour(obs);
    const mine = new Set(obs.your_colours);
    const rows = obs.colours.map((c) =>
      h(
        "tr",
        { class: c.colour === mover ? "b3-to-move" : "", "data-colour": c.colour },
        h("td", {}, h("span", { class: "b3-swatch", style: `background: var(--b3-${c.colour}, ${SWATCH[c.colour]})` }), this.colourName(c.colour)),
        h("td", { class: mine.has(c.colour) ? "b3-mine" : "" }, this.ctx.seatName(c.seat)),
        h("td", { class: "b3-status" }, this.t(`status_${c.status}`)),
        h("td", { class: "num b3-score" }, String(c.score)),
      ),
    );
    const table = h(
      "table",
      { class: "b3-scores", title: this.t("scoreHelp") },
      h("thead", {}, h("tr", {}, h("th", {}, this.t("colour")), h("th", {}, this.t("player")), h("th", {}, ""), h("th", {}, this.t("score")))),
      h("tbody", {}, ...rows),
    );
    const trays = obs.colours.map((c) => {
      const active = myTurn && c.colour === mover;
      const buttons = c.pieces_left.map((piece) => {
        const index = PIECE_IDS.indexOf(piece as PieceId);
        const count = active ? this.options.get(piece as PieceId)?.length ?? 0 : 0;
        const pieceName = this.t(`piece_${piece}`);
        const label = active
          ? count
            ? this.t("pieceButton", { piece, pieceName, count })
            : this.t("pieceNone", { piece, pieceName })
          : this.t("pieceLeft", { piece, pieceName });
        return h(
          "button",
          {
            type: "button",
            class: "b3-piece",
            "data-piece": piece,
            "data-focus": `${c.colour}-${piece}`,
            title: label,
            "aria-label": label,
            "aria-pressed": active ? String(piece === this.piece) : null,
            disabled: !active || !count,
            onclick: () => this.selectPiece(piece as PieceId),
          },
          active ? h("span", { class: "b3-key" }, PIECE_KEYS[index]) : null,
          pieceIcon(piece, c.colour),
          h("span", { class: "b3-name" }, piece),
        );
      });
      return h(
        "section",
        { class: `b3-tray${active ? " b3-active" : ""}`, "data-colour": c.colour },
        h("h4", {}, this.t("tray", { colour: this.colourName(c.colour), count: c.pieces_left.length })),
        buttons.length ? h("div", { class: "b3-pieces" }, ...buttons) : h("div", { class: "b3-none" }, this.t("trayNone")),
      );
    });
    this.side.replaceChildren(h("div", { class: "b3-score-card" }, table, h("p", { class: "b3-keys" }, this.t("scoreHelp"))), ...trays);
  }

  destroy(): void {
    document.removeEventListener("keydown", this.onKey);
    this.board.destroy();
    this.root.replaceChildren();
  }
}

const SWATCH: Record<string, string> = { blue: "#2f6fde", yellow: "#f2c230", red: "#d9413a", green: "#2e9e4f" };

const blokus3d: GameModule = {
  name: "blokus3d",
  messages,
  create: (ctx) => new Blokus3DView(ctx),
};

export default blokus3d;
