/**
 * Maske match view: the plate under the top mask drawn as a face, sticks by seat colour, the mask
 * stack, points and what the top mask pays each seat now; the decision of the moment as a panel
 * (lay a mask, pass / move / draw, the auction, a bought card's choices).
 *
 * Every control is one of `view.legal`: a move is a stick clicked, then a neighbouring hole per step
 * (its cost shown on the hole); the auction's bids are the legal `bid N` ids.  Keys: arrows step the
 * selected stick, 1/2 select a stick, P pass, D draw, Enter done (in the auction: bid), X drop, +/- change
 * the bid.
 */

import { h } from "../dom";
import type { GameModule, GameView, Lang, LogEntry, MatchView, ViewContext } from "./contract";
import {
  CARDS,
  type Choices,
  DIRECTION_NAMES,
  MASKS,
  type MaskeObservation,
  choicesOf,
  holeName,
  lastOnPlate,
  maskValues,
  neighbour,
  steppingSticks,
} from "./maske_data";
import { type HoleTarget, SEAT_COLOURS, type StickTarget, drawPlate, facePreview } from "./maske_plate";
import { MASKE_CSS } from "./maske_style";
import messages from "./maske_messages";
import { sayMaske, wordsContext, youKey } from "./log_words";
import { animate, oneMoveApart } from "./motion";

/** A cup drawn in SVG: the emoji shows as a box where the font lacks it. */
function trophy(): SVGSVGElement {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("class", "ms-trophy");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("data-testid", "trophy");
  svg.innerHTML =
    '<path d="M4 2h8v3a4 4 0 0 1-8 0z" fill="#d4a017" stroke="#8a6a0a"/>' +
    '<path d="M4 3H2a2 2 0 0 0 2 3M12 3h2a2 2 0 0 1-2 3" fill="none" stroke="#8a6a0a"/>' +
    '<path d="M7 9h2v3H7zM5 12h6v2H5z" fill="#b8860b"/>';
  return svg;
}

const MASK_NAMES_FR = [
  "Bouffon ricanant",
  "Baron boudeur",
  "Sorcière qui cligne",
  "Marin édenté",
  "Juge véreux",
  "Géant endormi",
  "Loup hurlant",
  "Renard rusé",
  "Poisson bouche bée",
  "Vieille chouette",
  "Chapelier fou",
  "Prince boudeur",
  "Diable rieur",
  "Hibou surpris",
  "Marchand avide",
  "Clown en pleurs",
  "Moine ronfleur",
  "Gobelin ricaneur",
];


const EVENTS = 8;

class MaskeView implements GameView {
  private ctx: ViewContext;
  private root: HTMLElement;
  private lang: Lang;
  private view: MatchView | null = null;
  private obs: MaskeObservation | null = null;
  private choices: Choices = choicesOf([]);
  private selected: number | null = null;
  private bidValue: number | null = null;
  private sent = false;
  private left: HTMLElement;
  private side: HTMLElement;
  private onKey = (e: KeyboardEvent): void => this.key(e);

  constructor(ctx: ViewContext) {
    this.ctx = ctx;
    this.root = ctx.root;
    this.lang = ctx.lang;
    this.left = h("div", { class: "ms-left" });
    this.side = h("div", { class: "ms-side" });
    this.root.replaceChildren(h("style", {}, MASKE_CSS), h("div", { class: "mk" }, this.left, this.side));
    document.addEventListener("keydown", this.onKey);
  }

  private t(key: string, params?: Record<string, string | number>): string {
    return this.ctx.t(key, params);
  }

  update(view: MatchView): void {
    const before = this.view;
    if (view.version !== this.view?.version || view.your_turn !== this.view?.your_turn) this.sent = false;
    this.view = view;
    this.obs = view.observation as MaskeObservation;
    this.choices = choicesOf(view.your_turn ? view.legal : []);
    const movable = steppingSticks(this.choices);
    if (this.selected !== null && !movable.has(this.selected)) this.selected = null;
    if (this.selected === null && movable.size === 1) this.selected = [...movable][0];
    const bids = [...this.choices.bids.keys()];
    if (!bids.length) this.bidValue = null;
    else if (this.bidValue === null || !this.choices.bids.has(this.bidValue)) this.bidValue = Math.min(...bids);
    this.draw();
    if (oneMoveApart(before, view)) this.animateMove(view);
  }

  /** The move just made, in motion: a stick's step slides, a stick put in drops, a mask laid or turned. */
  private animateMove(view: MatchView): void {
    const last = lastOnPlate(view.log, this.obs!.sticks.flat());
    if (!last || last.version !== view.version) return;
    const plate = this.left.querySelector(".ms-plate");
    if (!plate) return;
    if (last.mask) {
      const face = plate.querySelector<SVGGElement>(".ms-face");
      if (!face) return;
      face.style.transformOrigin = "240px 240px";
      const word = view.log.at(-1)?.move ?? "";
      const from = last.mask === "lay" ? "scale(1.15)" : `rotate(${word === "turn ccw" ? 90 : -90}deg)`;
      animate(face, [{ transform: from, opacity: last.mask === "lay" ? 0.3 : 1 }, { transform: "none", opacity: 1 }]);
      return;
    }
    const stick = last.stick === null ? null : plate.querySelector(`[data-stick="${last.stick}"]`);
    if (!stick) return;
    if (last.holes.length >= 2) {
      // One step: 60 units between holes.
      const [a, b] = last.holes.slice(-2);
      const dx = ((a % 7) - (b % 7)) * 60;
      const dy = (Math.floor(a / 7) - Math.floor(b / 7)) * 60;
      animate(stick, [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0px, 0px)" }]);
    } else {
      animate(stick, [{ transform: "translate(0px, -40px)", opacity: 0.2 }, { transform: "translate(0px, 0px)", opacity: 1 }]);
    }
  }

  /** One move of the shell's log in words (the shell puts the player's name first). */
  describe(entry: LogEntry): string {
    return sayMaske(entry, wordsContext(this.ctx, this.view));
  }

  setLang(lang: Lang): void {
    this.lang = lang;
    this.draw();
  }

  private act(id: number | undefined): void {
    if (id === undefined || this.sent) return;
    this.sent = true;
    this.ctx.act(id);
  }

  // -- names ------------------------------------------------------------------------------------
  private name(seat: number): string {
    return this.ctx.seatName(seat);
  }

  private stickName(g: number): string {
    return this.t("stickOf", { name: this.name(Math.floor(g / 2)), n: (g % 2) + 1 });
  }

  private maskName(id: number): string {
    return this.lang === "fr" ? MASK_NAMES_FR[id] ?? MASKS[id].name : MASKS[id].name;
  }

  private cardText(id: number): string {
    const text = CARDS[id].text;
    return text[this.lang] ?? text.en;
  }

  // -- keyboard ---------------------------------------------------------------------------------
  /** Keys act when the view or nothing in particular (the page body) has the focus. */
  private key(e: KeyboardEvent): void {
    const target = e.target as HTMLElement;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (target !== document.body && !this.root.contains(target)) return;
    const inInput = !!target.closest("input, select, textarea");
    const k = e.key;
    const named = this.choices.named;
    let handled = true;
    if (k.startsWith("Arrow") && !inInput && this.selected !== null) {
      const d = ["ArrowUp", "ArrowRight", "ArrowDown", "ArrowLeft"].indexOf(k);
      this.act(this.choices.steps.get(`${this.selected},${d}`));
    } else if ((k === "1" || k === "2") && !inInput) {
      const seat = this.obs?.to_move ?? -1;
      const g = 2 * seat + Number(k) - 1;
      if (steppingSticks(this.choices).has(g)) {
        this.selected = g;
        this.draw();
      }
    } else if ((k === "p" || k === "P") && !inInput) this.act(named.get("pass"));
    else if ((k === "d" || k === "D") && !inInput) this.act(named.get("draw"));
    else if ((k === "x" || k === "X") && !inInput) this.act(named.get("drop"));
    else if (k === "Enter" && target.tagName !== "BUTTON" && !target.closest("[role=button]")) {
      if (this.bidValue !== null && this.choices.bids.size > 0) {
        // In the auction Enter bids: the amount typed (read now: "change" comes after this key) or shown.
        if (inInput && target instanceof HTMLInputElement) this.bidValue = this.clampBid(Number(target.value));
        this.act(this.choices.bids.get(this.bidValue));
      } else this.act(named.get("done"));
    } else if ((k === "+" || k === "-") && !inInput && this.bidValue !== null) this.nudgeBid(k === "+" ? 1 : -1);
    else if (k === "Escape" && this.selected !== null) {
      this.selected = null;
      this.draw();
    } else handled = false;
    if (handled) e.preventDefault();
  }

  /** A typed amount as the nearest bid allowed now. */
  private clampBid(value: number): number {
    const bids = [...this.choices.bids.keys()];
    const v = Number.isFinite(value) ? Math.round(value) : Math.min(...bids);
    return Math.max(Math.min(...bids), Math.min(Math.max(...bids), v));
  }

  private nudgeBid(step: number): void {
    const bids = [...this.choices.bids.keys()];
    if (this.bidValue === null || !bids.length) return;
    this.bidValue = Math.max(Math.min(...bids), Math.min(Math.max(...bids), this.bidValue + step));
    this.draw();
  }

  // -- drawing ----------------------------------------------------------------------------------
  private draw(): void {
    const obs = this.obs;
    if (!obs) return;
    const focus = document.activeElement;
    const focusKey = focus && this.root.contains(focus) ? focusKeyOf(focus) : null;
    this.left.replaceChildren(this.plate(obs), this.legend());
    this.side.replaceChildren(this.maskBox(obs), this.playersBox(obs), this.decisionBox(obs), this.eventsBox(obs));
    if (focusKey) {
      // Keep the keyboard in the view: the same control, else the selected stick, else the panel.
      const again = this.root.querySelector(focusKey) ?? this.root.querySelector(`[data-stick="${this.selected}"][role=button]`);
      ((again ?? this.side.querySelector(".ms-decision")) as HTMLElement | null)?.focus();
    }
  }

  private plate(obs: MaskeObservation): SVGSVGElement {
    const mine = this.view?.your_turn && !this.sent;
    const holes = new Map<number, HoleTarget>();
    const stickTargets = new Map<number, StickTarget>();
    const seat = obs.to_move ?? 0;
    const colour = SEAT_COLOURS[seat % SEAT_COLOURS.length];
    const sticks = obs.sticks.flat();
    if (mine) {
      const effect = obs.effect;
      for (const [hole, id] of this.choices.holes) {
        const jumping = obs.phase === "effect" && effect?.stick != null;
        const label = jumping
          ? this.t("jumpTo", { stick: this.stickName(effect!.stick!), hole: holeName(hole) })
          : this.t("putStick", { n: sticks.indexOf(-1) % 2 + 1, hole: holeName(hole) });
        holes.set(hole, { label, act: () => this.act(id), action: id, colour });
      }
      for (const [g, id] of this.choices.sticks) {
        stickTargets.set(g, { label: this.t("chooseStick", { stick: this.stickName(g) }), act: () => this.act(id), action: id, selected: null });
      }
      const free = obs.phase === "effect";
      for (const g of steppingSticks(this.choices)) {
        stickTargets.set(g, {
          label: this.t("selectStick", { stick: this.stickName(g) }),
          act: () => {
            this.selected = g;
            this.draw();
          },
          selected: g === this.selected,
        });
      }
      if (this.selected !== null) {
        for (let d = 0; d < 4; d++) {
          const id = this.choices.steps.get(`${this.selected},${d}`);
          if (id === undefined) continue;
          const target = neighbour(sticks[this.selected], d);
          const cost = free ? this.t("costFree") : this.t("cost1");
          holes.set(target, {
            label: this.t("stepTo", { stick: this.stickName(this.selected), dir: this.t(`dir_${DIRECTION_NAMES[d]}`), hole: holeName(target), cost }),
            act: () => this.act(id),
            action: id,
            note: free ? "0" : "−1",
            colour: SEAT_COLOURS[Math.floor(this.selected / 2) % SEAT_COLOURS.length],
          });
        }
      }
    }
    const top = obs.top_mask;
    return drawPlate({
      maskId: top ? top.mask : null,
      orientation: top ? top.orientation : 0,
      sticks,
      stickLabel: (g) => `${this.stickName(g)} · ${holeName(sticks[g])}`,
      holeLabel: (hole, value) => this.t("holeLabel", { hole: holeName(hole), value }),
      holes,
      stickTargets,
      title: this.t("plate"),
      last: lastOnPlate(this.view?.log ?? [], sticks),
    });
  }

  private legend(): HTMLElement {
    const ring = (double: boolean): SVGSVGElement => {
      const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
      svg.setAttribute("viewBox", "0 0 60 60");
      svg.innerHTML = `<circle cx="30" cy="30" r="24" class="ms-ring ${double ? "ms-ring5" : "ms-ring3"}"/>${double ? '<circle cx="30" cy="30" r="16" class="ms-ring ms-ring5"/>' : ""}<circle cx="30" cy="30" r="9" class="ms-hole"/>`;
      return svg;
    };
    return h(
      "div",
      { class: "ms-legend" },
      h("span", {}, ring(false), " ", this.t("legendSingle")),
      h("span", {}, ring(true), " ", this.t("legendDouble")),
      h("span", {}, "× ", this.t("legendCentre")),
      h("span", { class: "ms-notes" }, this.t("keys")),
    );
  }

  /** Whether the game is over: played to its end, or stopped before it (a resignation, a time-out),
   * when the match names nobody to move though the observation still does. */
  private over(obs: MaskeObservation): boolean {
    return obs.terminal || this.view?.to_move === null;
  }

  private maskBox(obs: MaskeObservation): HTMLElement {
    const top = obs.top_mask;
    let round: string;
    if (obs.terminal) round = this.t("overRound");
    else if (obs.phase === "setup") round = this.t("setupRound");
    else round = this.t("round", { round: obs.round + 1, total: obs.masks_total });
    const stack = h("span", { class: "ms-stack", "aria-hidden": "true" }, ...Array.from({ length: Math.min(obs.masks_left, 18) }, () => h("span")));
    return h(
      "section",
      { class: "ms-box" },
      h("h3", { class: "ms-round" }, round),
      h(
        "div",
        { class: "ms-mask-line" },
        stack,
        h(
          "div",
          {},
          h("div", { class: "ms-masks-left", "data-left": obs.masks_left }, this.t("masks", { left: obs.masks_left, total: obs.masks_total })),
          h(
            "div",
            {},
            top
              ? `${this.t("topMask", { name: this.maskName(top.mask) })} · ${this.t("lies", { turn: this.t(`turn${top.orientation}`) })}`
              : this.t("noMask"),
          ),
          h("div", { class: "ms-notes" }, this.t("deck", { n: obs.deck.length })),
          obs.deck[0] != null ? h("div", { class: "ms-notes" }, this.t("topCard", { card: this.cardText(obs.deck[0]) })) : null,
          obs.unmasking ? h("div", { class: "ms-notes" }, this.t("unmasking")) : null,
        ),
      ),
    );
  }

  private paydayNow(obs: MaskeObservation, seat: number): number | null {
    if (!obs.top_mask) return null;
    const values = maskValues(obs.top_mask.mask, obs.top_mask.orientation);
    const earned = obs.sticks[seat].reduce((sum, hole) => sum + (hole >= 0 ? values[hole] : 0), 0);
    return earned * (obs.double_payday[seat] ? 2 : 1);
  }

  private playersBox(obs: MaskeObservation): HTMLElement {
    const rows = [];
    for (let seat = 0; seat < obs.players; seat++) {
      const notes: string[] = [];
      if (!obs.terminal && obs.phase !== "setup" && seat === obs.placer) notes.push(this.t("placer"));
      if (obs.double_payday[seat]) notes.push(this.t("paysDouble"));
      if (obs.skip[seat]) notes.push(this.t("skips"));
      const auction = obs.auction;
      if (auction) {
        if (seat === auction.drawer) notes.push(this.t("drawer"));
        if (seat === auction.high) notes.push(this.t("highBid", { bid: auction.bid }));
        notes.push(auction.active.includes(seat) ? this.t("bidding") : this.t("outOfAuction"));
      }
      const won = obs.terminal && obs.winners.includes(seat);
      if (won) notes.push(this.t("winner"));
      const pay = this.paydayNow(obs, seat);
      rows.push(
        h(
          "tr",
          { class: seat === this.view?.to_move ? "ms-to-move" : "", "data-seat": seat },
          h("td", { class: seat === obs.seat ? "ms-me" : "" }, h("span", { class: "ms-swatch", style: `background: ${SEAT_COLOURS[seat % SEAT_COLOURS.length]}` }), this.name(seat), h("div", { class: "ms-notes" }, won ? trophy() : null, notes.join(" · "))),
          h("td", { class: "num ms-points" }, String(obs.points[seat])),
          h("td", { class: "num", title: this.t("paydayHelp") }, pay === null || obs.terminal ? "—" : `+${pay}`),
        ),
      );
    }
    return h(
      "section",
      { class: "ms-box" },
      h(
        "table",
        { class: "ms-players" },
        h("thead", {}, h("tr", {}, h("th", {}, this.t("player")), h("th", { class: "num" }, this.t("points")), h("th", { class: "num", title: this.t("paydayHelp") }, this.t("payday")))),
        h("tbody", {}, ...rows),
      ),
    );
  }

  private button(label: string, id: number | undefined, cls = "", key?: string): HTMLButtonElement | null {
    if (id === undefined) return null;
    return h("button", { type: "button", class: cls, "data-key": key ?? label, "data-action": id, onclick: () => this.act(id) }, label);
  }

  private decisionBox(obs: MaskeObservation): HTMLElement {
    const box = h("section", { class: "ms-box ms-decision", "aria-live": "polite", "data-phase": obs.phase, "data-mine": String(!!this.view?.your_turn), "data-key": "decision", tabindex: -1 });
    const mine = !!this.view?.your_turn;
    const mover = obs.to_move;
    const moverName = mover === null ? "" : this.name(mover);
    const named = this.choices.named;
    if (this.over(obs)) {
      box.append(h("h3", {}, this.t("over")));
      return box;
    }
    switch (obs.phase) {
      case "setup": {
        const n = (obs.sticks.flat().indexOf(-1) % 2) + 1;
        box.append(hint(mine ? this.t("setupYou", { n }) : this.t("setupOther", { name: moverName })));
        break;
      }
      case "lay": {
        const maskId = obs.mask_to_lay;
        if (maskId === null) break;
        box.append(hint(mine ? this.t("layYou", { name: moverName }) : this.t("layOther", { name: moverName, mask: this.maskName(maskId) })));
        const grid = h("div", { class: "ms-lay" });
        for (let o = 0; o < 4; o++) {
          const values = maskValues(maskId, o);
          const pays = mover === null ? 0 : obs.sticks[mover].reduce((sum, hole) => sum + (hole >= 0 ? values[hole] : 0), 0);
          const turn = this.t(`turn${o}`);
          const id = this.choices.lays.get(o);
          const label = this.t("layOption", { turn, pays });
          const preview = facePreview(maskId, o, `${this.maskName(maskId)}, ${turn}`);
          grid.append(
            mine && id !== undefined
              ? h("button", { type: "button", "data-key": `lay${o}`, "data-action": id, "aria-label": label, onclick: () => this.act(id) }, preview, label)
              : h("div", { class: "ms-lay-option" }, preview, turn),
          );
        }
        box.append(h("h3", {}, this.maskName(maskId)), grid);
        break;
      }
      case "action":
      case "moving": {
        const moving = obs.phase === "moving";
        if (!mine) {
          box.append(hint(moving ? this.t("movingOther", { name: moverName, steps: obs.steps_this_move }) : this.t("actionOther", { name: moverName })));
          break;
        }
        const points = mover === null ? 0 : obs.points[mover];
        const canStep = this.choices.steps.size > 0;
        if (moving) {
          box.append(h("p", { class: "ms-cost" }, this.t("movingYou", { steps: obs.steps_this_move, paid: obs.steps_this_move, points })));
        } else {
          box.append(hint(obs.extra_action ? this.t("actionExtra") : this.t("actionYou")));
        }
        box.append(hint(canStep ? this.t("clickStick") : points > 0 ? this.t("blocked") : this.t("noPoints")));
        box.append(
          h(
            "div",
            { class: "ms-actions" },
            this.button(this.t("pass"), named.get("pass"), "", "pass"),
            this.button(this.t("draw"), named.get("draw"), "ms-primary", "draw"),
            this.button(this.t("done"), named.get("done"), "ms-primary", "done"),
          ),
        );
        break;
      }
      case "auction":
        this.auctionPanel(box, obs, mine);
        break;
      case "effect":
        this.effectPanel(box, obs, mine);
        break;
      default:
        break;
    }
    return box;
  }

  private cardFace(card: number | null, caption: string): HTMLElement {
    if (card === null) return h("div", { class: "ms-card ms-hidden", "data-card": "hidden" }, caption);
    return h(
      "div",
      { class: "ms-card", "data-card": card },
      h("div", { class: "ms-card-id" }, caption),
      h("strong", { class: "ms-card-text" }, this.cardText(card)),
    );
  }

  private auctionPanel(box: HTMLElement, obs: MaskeObservation, mine: boolean): void {
    const a = obs.auction;
    if (!a) return;
    const drawer = this.name(a.drawer);
    box.append(h("h3", {}, this.t("auction", { name: drawer })));
    if (a.card === null) box.append(this.cardFace(null, this.t("hiddenCard", { name: drawer })));
    else box.append(this.cardFace(a.card, obs.seat === a.drawer ? this.t("yourCard") : this.t("knownCard")));
    box.append(
      h("p", { class: "ms-bid" }, a.high === null ? this.t("noBid") : this.t("currentBid", { bid: a.bid, name: this.name(a.high) })),
      h("p", { class: "ms-hint" }, this.t("stillIn", { names: a.active.map((s) => this.name(s)).join(", ") || "—" })),
    );
    const open = obs.auction_rule === "open"; // MS-11a: passing does not shut a player out
    if (open) box.append(hint(this.t("auctionOpen")));
    if (!mine) {
      box.append(hint(this.t("auctionOther", { name: this.name(a.turn) })), hint(this.t("auctionRule")));
      return;
    }
    const bids = [...this.choices.bids.keys()].sort((x, y) => x - y);
    const opening = a.turn === a.drawer && a.high === null;
    if (!bids.length) box.append(hint(this.t(open ? "canOnlyPass" : "canOnlyDrop", { bid: a.bid })));
    else if (opening) box.append(hint(this.t("opens")));
    const row = h("div", { class: "ms-actions" });
    if (bids.length && this.bidValue !== null) {
      const input = h("input", {
        type: "number",
        min: bids[0],
        max: bids[bids.length - 1],
        step: 1,
        value: this.bidValue,
        "aria-label": this.t("bidAmount"),
        "data-key": "bid-input",
      });
      input.addEventListener("change", () => {
        const v = Math.round(Number(input.value));
        this.bidValue = Math.max(bids[0], Math.min(bids[bids.length - 1], Number.isFinite(v) ? v : bids[0]));
        this.draw();
      });
      if (bids[0] !== this.bidValue) row.append(this.button(this.t("raise", { n: bids[0] }), this.choices.bids.get(bids[0]), "", "raise")!);
      row.append(
        input,
        this.button(this.t("bid", { n: this.bidValue }), this.choices.bids.get(this.bidValue), "ms-primary", "bid")!,
      );
    }
    const dropLabel = opening ? this.t("decline") : open ? this.t("passBid") : this.t("drop");
    const drop = this.button(dropLabel, this.choices.named.get("drop"), "", "drop");
    if (drop) row.append(drop);
    box.append(row, hint(this.t("auctionRule")));
  }

  private effectPanel(box: HTMLElement, obs: MaskeObservation, mine: boolean): void {
    const e = obs.effect;
    if (!e) return;
    box.append(h("h3", {}, this.t(youKey(messages, "effect", e.holder === this.view?.seat), { name: this.name(e.holder) })), this.cardFace(e.card, `#${e.card}`));
    if (!mine) {
      box.append(hint(this.t("effectOther", { name: this.name(e.decider) })));
      return;
    }
    const op = CARDS[e.card].effect[Math.min(e.op, CARDS[e.card].effect.length - 1)];
    const row = h("div", { class: "ms-actions" });
    switch (e.stage) {
      case "choose_player":
        box.append(hint(this.t("choosePlayer", { amount: Number(op.amount) })));
        for (const [p, id] of this.choices.players) row.append(this.button(this.t("takeFrom", { name: this.name(p) }), id, "", `player${p}`)!);
        break;
      case "turn":
        box.append(hint(this.t("turnMask")));
        row.append(
          this.button(this.t("turnCw"), this.choices.named.get("turn cw"), "", "cw")!,
          this.button(this.t("turnCcw"), this.choices.named.get("turn ccw"), "", "ccw")!,
        );
        break;
      case "pick":
        box.append(hint(op.whose === "own" ? this.t("pickOwn") : this.t("pickOpponent")));
        break;
      case "place":
        box.append(hint(this.t("placeJump")));
        if (e.left > 1) box.append(hint(this.t("jumpsLeft", { n: e.left })));
        break;
      case "pick_own":
        box.append(hint(this.t("pickSwapOwn")));
        break;
      case "pick_other":
        box.append(hint(this.t("pickSwapOther")));
        break;
      case "steps":
        box.append(hint(op.whose === "everyone" ? this.t("freeStepsOne") : this.t("freeSteps", { left: e.left })));
        break;
      default:
        break;
    }
    // Sticks to choose are also offered as buttons, so the keyboard reaches them in one place.
    for (const [g, id] of this.choices.sticks) row.append(this.button(this.t("chooseStick", { stick: this.stickName(g) }), id, "", `stick${g}`)!);
    const done = this.button(this.t("done"), this.choices.named.get("done"), "ms-primary", "done");
    if (done) row.append(done);
    if (row.childElementCount) box.append(row);
  }

  private eventsBox(obs: MaskeObservation): HTMLElement {
    const items = obs.log.slice(-EVENTS).reverse().map((line) => h("li", {}, this.event(line)));
    return h("section", { class: "ms-box" }, h("h3", {}, this.t("events")), h("ol", { class: "ms-events" }, ...items));
  }

  /** One line of the engine's public log, in the reader's language with seat names. */
  private event(line: string): string {
    const seat = (n: string): string => this.name(Number(n));
    const party = (p: string): string => (p === "the bank" ? this.t("ev_bank") : seat(p.replace("seat ", "")));
    let m: RegExpMatchArray | null;
    if ((m = line.match(/^seat (\d+) lays (.+), turned (\d)$/))) {
      const id = MASKS.findIndex((mask) => mask.name === m![2]);
      return this.t("ev_lays", { name: seat(m[1]), mask: id >= 0 ? `${this.maskName(id)} (${this.t(`turn${m[3]}`)})` : m[2] });
    }
    if ((m = line.match(/^seat (\d+) passes$/))) return this.t("ev_passes", { name: seat(m[1]) });
    if ((m = line.match(/^seat (\d+) draws a card$/))) return this.t("ev_draws", { name: seat(m[1]) });
    if ((m = line.match(/^seat (\d+) moved (\d+) steps? for/))) {
      return this.t(m[2] === "1" ? "ev_moved_one" : "ev_moved", { name: seat(m[1]), steps: m[2] });
    }
    if ((m = line.match(/^nobody bought seat (\d+)'s card$/))) return this.t("ev_unsold", { name: seat(m[1]) });
    if ((m = line.match(/^seat (\d+) bought card (\d+) for (\d+)$/))) {
      return this.t("ev_bought", { name: seat(m[1]), bid: m[3], card: this.cardText(Number(m[2])) });
    }
    if ((m = line.match(/^(the bank|seat \d+) pays (the bank|seat \d+) (\d+)$/))) {
      return this.t("ev_pays", { payer: party(m[1]), payee: party(m[2]), amount: m[3] });
    }
    if ((m = line.match(/^payday: (.*)$/))) {
      const list = m[1].split(", ").map((part) => part.replace(/^seat (\d+) /, (_, n: string) => `${seat(n)} `));
      return this.t("ev_payday", { list: list.join(", ") });
    }
    if ((m = line.match(/^stick (\d+) jumps to ([a-g][1-7])$/))) return this.t("ev_jumps", { stick: this.stickName(Number(m[1])), hole: m[2] });
    if ((m = line.match(/^sticks (\d+) and (\d+) swap places$/))) {
      return this.t("ev_swap", { a: this.stickName(Number(m[1])), b: this.stickName(Number(m[2])) });
    }
    if ((m = line.match(/^stick (\d+) steps to ([a-g][1-7]) \(free\)$/))) return this.t("ev_steps", { stick: this.stickName(Number(m[1])), hole: m[2] });
    if ((m = line.match(/^seat (\d+) skips \(card\)$/))) return this.t("ev_skips", { name: seat(m[1]) });
    if ((m = line.match(/^the mask turns a quarter (clockwise|anticlockwise)$/))) return this.t(m[1] === "clockwise" ? "ev_turns_cw" : "ev_turns_ccw");
    return line;
  }

  destroy(): void {
    document.removeEventListener("keydown", this.onKey);
    this.root.replaceChildren();
  }
}

function hint(text: string): HTMLElement {
  return h("p", { class: "ms-hint" }, text);
}

/** A selector that finds the same control after a redraw, so keyboard focus survives updates. */
function focusKeyOf(el: Element): string | null {
  for (const attr of ["data-key", "data-hole", "data-stick"]) {
    const value = el.getAttribute(attr);
    if (value !== null) return `[${attr}="${value}"]`;
  }
  return null;
}

const maske: GameModule = {
  name: "maske",
  messages,
  create: (ctx) => new MaskeView(ctx),
};

export default maske;
