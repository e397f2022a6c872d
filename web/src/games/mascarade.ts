/**
 * Mascarade: the 10x10 board with each placed card drawn as a face, the viewer's hand, and the
 * squares where the selected card may go highlighted.  Pick a card (click, or keys 1-9), then a
 * highlighted square (click, or Tab to it and Enter).  Scores show in the scoring variant.
 */
import { fill, h, s } from "../dom";
import { BoardView } from "./board_view";
import type { GameModule, LegalAction, LogEntry, MatchView, ViewContext } from "./contract";
import { CARDS, cardFace, cardSvg, describeCard, FEATURES, featureName, shared, valueName } from "./mascarade_face";
import "./mascarade.css";
import messages from "./mascarade_messages";
import { sayMascarade, wordsContext } from "./log_words";
import { animate, oneMoveApart } from "./motion";

/** The engine's observation (mascarade/game.py, `observation`). */
interface MascaradeObservation {
  seat: number | null;
  players: number;
  scoring: boolean;
  hand: number[] | null;
  hand_sizes: number[];
  pool_size: number;
  placed: { card: number; square: number; seat: number }[];
  scores: number[];
  draws: number[];
  to_move: number | null;
  drew_this_turn: boolean;
  terminal: boolean;
  hands: number[][] | null;
  winners?: number[];
}

const SIZE = 10;
const START = 4 * SIZE + 4;
const FILES = "abcdefghij";

function squareName(square: number): string {
  return `${FILES[square % SIZE]}${Math.floor(square / SIZE) + 1}`;
}

function squareIndex(name: string): number {
  return (Number(name.slice(1)) - 1) * SIZE + FILES.indexOf(name[0]);
}


class MascaradeView extends BoardView<MascaradeObservation> {
  private selected: number | null = null;
  /** The state shown last added one card to the board (it is animated once). */
  private laid = false;
  private readonly boardWrap = h("div", { class: "mc-board" });
  private readonly prompt = h("p", { class: "mc-prompt", "aria-live": "polite" });
  private readonly handEl = h("section", { class: "mc-hand", "data-testid": "mc-hand" });
  private readonly side = h("div", { class: "mc-side" });

  constructor(ctx: ViewContext) {
    super(ctx);
    ctx.root.append(
      h("div", { class: "mc" }, h("div", { class: "mc-main" }, this.boardWrap), h("div", { class: "mc-panel" }, this.prompt, this.handEl, this.side)),
    );
  }

  update(view: MatchView): void {
    const before = this.view;
    this.laid =
      oneMoveApart(before, view) &&
      (view.observation as MascaradeObservation).placed.length ===
        (before!.observation as MascaradeObservation).placed.length + 1;
    const active = document.activeElement as HTMLElement | null;
    const focusedSquare = active?.dataset?.square;
    const focusedCard = active?.dataset?.card;
    this.view = view;
    const hand = this.obs.hand ?? [];
    if (this.selected !== null && !hand.includes(this.selected)) this.selected = null;
    if (view.your_turn && (this.selected === null || this.placements(this.selected).length === 0)) {
      this.selected = hand.find((card) => this.placements(card).length > 0) ?? this.selected;
    }
    this.draw();
    const again =
      (focusedSquare && this.boardWrap.querySelector<SVGGElement>(`[data-square="${focusedSquare}"][tabindex]`)) ||
      (focusedCard && this.handEl.querySelector<HTMLButtonElement>(`button[data-card="${focusedCard}"]`));
    if (again) again.focus();
  }

  /** Without the scoring variant the fewest cards in hand wins: the end table shows cards left. */
  result(view: MatchView): { title: string; values: number[] } | null {
    const obs = view.observation as MascaradeObservation;
    return obs.scoring ? null : { title: this.ctx.t("cards_left"), values: obs.hand_sizes };
  }

  describe(entry: LogEntry): string {
    return sayMascarade(entry, wordsContext(this.ctx, this.view));
  }

  /** The legal placements of one card of the hand. */
  private placements(card: number): LegalAction[] {
    return (this.view?.legal ?? []).filter((a) => (a.move as { card?: number }).card === card);
  }

  private cardLabel(card: number): string {
    return `${this.ctx.t("card_n", { n: card })}: ${describeCard(CARDS[card], this.ctx.lang)}`;
  }

  private select(card: number): void {
    this.selected = card;
    this.draw();
    const first = this.boardWrap.querySelector<SVGGElement>("[tabindex]");
    if (first && this.placements(card).length > 0) first.focus();
  }

  protected draw(): void {
    this.drawBoard();
    this.drawHand();
    this.drawSide();
  }

  private drawBoard(): void {
    const obs = this.obs;
    const t = this.ctx.t;
    const S = 60;
    const pad = 20;
    const width = SIZE * S + pad * 2;
    const placedAt = new Map(obs.placed.map((p) => [p.square, p]));
    const last = obs.placed.at(-1)?.square;
    const laid = this.laid;
    this.laid = false;
    const targets = new Map(
      (this.selected === null ? [] : this.placements(this.selected)).map((a) => [squareIndex((a.move as { square: string }).square), a]),
    );
    const svg = s("svg", { viewBox: `0 0 ${width} ${width}`, class: "mc-svg", role: "group", "aria-label": t("board") });
    svg.append(s("rect", { x: 2, y: 2, width: width - 4, height: width - 4, rx: 12, class: "mc-felt" }));
    for (let i = 0; i < SIZE; i++) {
      svg.append(s("text", { x: pad + i * S + S / 2, y: 14, class: "mc-coord" }, FILES[i]));
      svg.append(s("text", { x: 10, y: pad + i * S + S / 2 + 4, class: "mc-coord" }, i + 1));
    }
    for (let square = 0; square < SIZE * SIZE; square++) {
      const x = pad + (square % SIZE) * S;
      const y = pad + Math.floor(square / SIZE) * S;
      const name = squareName(square);
      const placed = placedAt.get(square);
      const target = targets.get(square);
      const g = s("g", { "data-square": name, transform: `translate(${x} ${y})` });
      g.append(s("rect", { x: 1.5, y: 1.5, width: S - 3, height: S - 3, rx: 6, class: square === START ? "mc-sq mc-start" : "mc-sq" }));
      if (placed) {
        const face = s("g", { class: "mc-laid" }, cardFace(CARDS[placed.card], 1, 1, S - 2));
        g.append(face);
        if (square === last) {
          g.classList.add("last-move");
          g.append(s("rect", { x: 1, y: 1, width: S - 2, height: S - 2, rx: 7, class: "mc-last" }));
          if (laid) {
            // A card laid: it comes down onto its square.
            face.style.transformBox = "fill-box";
            face.style.transformOrigin = "center";
            animate(face, [
              { transform: "translate(0px, -18px) scale(1.25)", opacity: 0.2 },
              { transform: "translate(0px, 0px) scale(1)", opacity: 1 },
            ]);
          }
        }
        g.append(s("title", {}, t("placed_by", { square: name, card: this.cardLabel(placed.card), name: this.ctx.seatName(placed.seat) })));
      } else if (square === START && obs.placed.length === 0) {
        g.append(s("text", { x: S / 2, y: S / 2 + 4, class: "mc-start-label" }, t("start")));
      }
      if (target) {
        const act = () => this.ctx.act(target.id);
        g.setAttribute("class", "mc-target");
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("data-action", String(target.id));
        g.setAttribute("aria-label", t("place_on", { square: name }));
        g.addEventListener("click", act);
        g.addEventListener("keydown", (event) => {
          if (event.key === "Enter" || event.key === " ") {
            event.preventDefault();
            act();
          }
        });
        g.append(s("rect", { x: 3, y: 3, width: S - 6, height: S - 6, rx: 6, class: "mc-ring" }));
        g.append(s("title", {}, t("place_on", { square: name })));
      }
      svg.append(g);
    }
    this.boardWrap.replaceChildren(svg);
  }

  private drawHand(): void {
    const obs = this.obs;
    const view = this.view!;
    const t = this.ctx.t;
    const hand = obs.hand;
    if (hand === null) {
      this.prompt.textContent = "";
      this.handEl.replaceChildren(h("p", { class: "mc-note" }, t("no_hand")));
      return;
    }
    const pass = view.legal.find((a) => (a.move as { pass?: boolean }).pass);
    if (!view.your_turn) this.prompt.textContent = t("rule");
    else if (pass) this.prompt.textContent = t("must_pass");
    else if (this.selected !== null && this.placements(this.selected).length > 0) {
      this.prompt.textContent = t("pick_square", { card: t("card_n", { n: this.selected }) });
    } else this.prompt.textContent = t("pick_card", { n: Math.min(9, hand.length) });
    const cards = hand.map((card, i) => {
      const fits = this.placements(card).length > 0;
      return h(
        "button",
        {
          type: "button",
          class: `mc-hand-card${card === this.selected ? " selected" : ""}${view.your_turn && !fits ? " nofit" : ""}`,
          "data-card": card,
          "aria-pressed": card === this.selected ? "true" : "false",
          "aria-keyshortcuts": i < 9 ? String(i + 1) : null,
          title: view.your_turn && !fits ? `${this.cardLabel(card)} — ${t("no_fit")}` : this.cardLabel(card),
          onclick: () => this.select(card),
        },
        cardSvg(CARDS[card], 64, this.cardLabel(card)),
        i < 9 ? h("kbd", {}, i + 1) : null,
      );
    });
    const chosen = this.selected !== null ? CARDS[this.selected] : null;
    fill(
      this.handEl,
      h("h4", {}, t("hand")),
      h("div", { class: "mc-hand-cards" }, ...cards),
      chosen
        ? h(
            "dl",
            { class: "mc-features" },
            ...FEATURES.flatMap((f) => [h("dt", {}, featureName(f, this.ctx.lang)), h("dd", {}, valueName(f, chosen[f], this.ctx.lang))]),
          )
        : null,
      obs.drew_this_turn && view.your_turn ? h("p", { class: "mc-note" }, t("drew")) : null,
      pass
        ? h("button", { type: "button", class: "primary", "data-action": pass.id, "data-testid": "mc-pass", onclick: () => this.ctx.act(pass.id) }, t("pass"))
        : null,
    );
  }

  private drawSide(): void {
    const obs = this.obs;
    const t = this.ctx.t;
    const rows = obs.hand_sizes.map((n, seat) =>
      h(
        "li",
        { class: `mc-player seat-${seat}${this.view?.to_move === seat ? " to-move" : ""}`, "data-seat": seat },
        h("strong", {}, this.ctx.seatName(seat)),
        h("span", {}, t("cards_in_hand", { n })),
        obs.scoring ? h("span", { class: "mc-score", "data-testid": `mc-score-${seat}` }, t("points", { n: obs.scores[seat] })) : null,
        obs.draws[seat] ? h("span", { class: "mc-draws" }, t("draws", { n: obs.draws[seat] })) : null,
        obs.hands && obs.hands[seat].length
          ? h(
              "span",
              { class: "mc-left", title: t("left_in_hand") },
              ...obs.hands[seat].map((card) => cardSvg(CARDS[card], 28, this.cardLabel(card))),
            )
          : null,
      ),
    );
    fill(
      this.side,
      h("h4", {}, t("players")),
      h("ul", { class: "mc-players" }, ...rows),
      h("p", { class: "mc-pool" }, t("pool", { n: obs.pool_size })),
      this.neighbourHint(),
    );
  }

  /** For the selected card: how many features it shares with the cards around each target (scoring). */
  private neighbourHint(): HTMLElement | null {
    if (!this.obs.scoring || this.selected === null || !this.view?.your_turn) return null;
    const card = CARDS[this.selected];
    const placed = new Map(this.obs.placed.map((p) => [p.square, p.card]));
    let best = 0;
    for (const a of this.placements(this.selected)) {
      const sq = squareIndex((a.move as { square: string }).square);
      const around = [sq - SIZE, sq + SIZE, sq % SIZE ? sq - 1 : -1, sq % SIZE < SIZE - 1 ? sq + 1 : -1];
      const total = around.reduce((sum, n) => sum + (placed.has(n) ? shared(card, CARDS[placed.get(n)!]).length : 0), 0);
      best = Math.max(best, total);
    }
    return h("p", { class: "mc-note" }, this.ctx.t("shares", { card: this.selected, n: best }));
  }

  /** Keys 1-9 pick a card of the hand. */
  protected key(event: KeyboardEvent): void {
    const hand = this.obs.hand ?? [];
    const index = Number(event.key) - 1;
    if (Number.isInteger(index) && index >= 0 && index < Math.min(9, hand.length)) {
      event.preventDefault();
      this.select(hand[index]);
    }
  }
}

const mascarade: GameModule = {
  name: "mascarade",
  messages,
  create: (ctx) => new MascaradeView(ctx),
};

export default mascarade;
