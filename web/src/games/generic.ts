/**
 * The view of a game without a module of its own, so any game the server knows can be played whole:
 * the seat's observation drawn as labelled fields (lists, grids and nested records as such, the raw
 * JSON one click away), the legal moves as buttons named by the engine's text (`action_to_str`), a
 * field that plays a move typed in that notation, and at the end the server's result.  Everything
 * comes from the server's `state` message; nothing here knows a rule.
 *
 * Hooks for tests (see `docs/web-generic-view.md`): `data-testid` `generic-view`, `generic-moves`,
 * `generic-move` (each move button, with `data-action` = id and `data-move` = its text),
 * `generic-move-input`, `generic-play`, `generic-observation`, `generic-json`, `generic-result`.
 */
import { h } from "../dom";
import type { GameModule, GameView, MatchView, ViewContext } from "./contract";

/** Nested records deeper than this are shown as JSON text. */
const MAX_DEPTH = 4;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isScalar = (v: Json): v is null | boolean | number | string => v === null || typeof v !== "object";

/** `pieces_left` -> `pieces left`. */
const words = (key: string): string => key.replace(/_/g, " ");

export function genericModule(name: string): GameModule {
  return {
    name,
    messages: {
      en: {
        moves: "Legal moves",
        observation: "What you see",
        none: "Nothing to play now.",
        over: "The game is over.",
        moveInput: "Move",
        moveHint: "Type a move as written on its button; Enter plays it.",
        play: "Play",
        noSuchMove: "“{move}” is not a legal move now.",
        json: "As JSON",
        yes: "yes",
        no: "no",
        empty: "(none)",
        result: "Result",
        score: "Score",
        winner: "winner",
      },
      fr: {
        moves: "Coups possibles",
        observation: "Ce que vous voyez",
        none: "Rien à jouer pour l'instant.",
        over: "La partie est finie.",
        moveInput: "Coup",
        moveHint: "Tapez un coup tel qu'écrit sur son bouton ; Entrée le joue.",
        play: "Jouer",
        noSuchMove: "« {move} » n'est pas un coup possible maintenant.",
        json: "En JSON",
        yes: "oui",
        no: "non",
        empty: "(aucun)",
        result: "Résultat",
        score: "Score",
        winner: "gagnant",
      },
    },
    create(ctx: ViewContext): GameView {
      return new GenericView(ctx);
    },
  };
}

class GenericView implements GameView {
  private last: MatchView | null = null;
  private problem = "";
  private readonly moves = h("section", { class: "generic-moves", "data-testid": "generic-moves", tabindex: -1 });
  private readonly resultBox = h("section", { class: "generic-result", "data-testid": "generic-result", hidden: true });
  private readonly observation = h("section", { class: "generic-observation", "data-testid": "generic-observation" });
  private readonly input = h("input", {
    type: "text",
    name: "move",
    autocomplete: "off",
    spellcheck: "false",
    "data-testid": "generic-move-input",
    onkeydown: (e: KeyboardEvent) => {
      if (e.key === "Enter") {
        e.preventDefault();
        this.playTyped();
      }
    },
  });
  private readonly datalist = h("datalist", { id: "generic-move-list" });

  constructor(private readonly ctx: ViewContext) {
    this.input.setAttribute("list", "generic-move-list");
    ctx.root.append(
      h("div", { class: "generic-view", "data-testid": "generic-view" }, this.moves, this.resultBox, this.observation),
    );
  }

  update(view: MatchView): void {
    if (this.last?.version !== view.version) this.problem = "";
    this.last = view;
    this.draw();
  }

  setLang(): void {
    this.draw();
  }

  destroy(): void {
    this.ctx.root.replaceChildren();
  }

  private draw(): void {
    const view = this.last;
    if (!view) return;
    this.drawMoves(view);
    this.drawResult(view);
    this.drawObservation(view);
  }

  private drawMoves(view: MatchView): void {
    const t = this.ctx.t;
    const typing = document.activeElement === this.input;
    const focused = !typing && this.moves.contains(document.activeElement);
    this.moves.replaceChildren(h("h3", {}, t("moves")));
    if (view.legal.length === 0) {
      this.moves.append(h("p", { class: "generic-idle" }, view.to_move === null ? t("over") : t("none")));
      if (focused || typing) this.moves.focus();
      return;
    }
    this.datalist.replaceChildren(...view.legal.map((a) => h("option", { value: a.label })));
    this.input.setAttribute("aria-label", t("moveInput"));
    this.input.placeholder = view.legal[0].label;
    this.moves.append(
      h(
        "div",
        { class: "move-buttons" },
        ...view.legal.map((action) =>
          h(
            "button",
            {
              type: "button",
              "data-testid": "generic-move",
              "data-action": action.id,
              "data-move": action.label,
              onclick: () => this.ctx.act(action.id),
            },
            action.label,
          ),
        ),
      ),
      h(
        "div",
        { class: "generic-type" },
        h("label", {}, h("span", {}, t("moveInput")), this.input, this.datalist),
        h("button", { type: "button", "data-testid": "generic-play", onclick: () => this.playTyped() }, t("play")),
        h("small", { class: "hint" }, t("moveHint")),
      ),
    );
    if (this.problem) this.moves.append(h("p", { class: "error", role: "alert" }, this.problem));
    // Keep the keyboard here across redraws: the move field, or else the first move's button.
    if (typing) this.input.focus();
    else if (focused) this.moves.querySelector<HTMLElement>("[data-testid=generic-move]")?.focus();
  }

  /** Play the move whose text was typed (spaces and case aside), or say it is not legal. */
  private playTyped(): void {
    const view = this.last;
    const typed = this.input.value.trim();
    if (!view || !typed) return;
    const norm = (s: string) => s.replace(/\s+/g, " ").toLowerCase();
    const action = view.legal.find((a) => a.label === typed) ?? view.legal.find((a) => norm(a.label) === norm(typed));
    if (!action) {
      this.problem = this.ctx.t("noSuchMove", { move: typed });
      this.drawMoves(view);
      return;
    }
    this.problem = "";
    this.input.value = "";
    this.ctx.act(action.id);
  }

  /** The server's result at the end: every seat's score, winners marked. */
  private drawResult(view: MatchView): void {
    const t = this.ctx.t;
    this.resultBox.hidden = view.result === null || view.result === undefined;
    if (!view.result) {
      this.resultBox.replaceChildren();
      return;
    }
    const { winners } = view.result;
    // No scores when the game did not reach its end (resigned, aborted, claimed): a dash per seat.
    const scores = view.result.scores ?? view.match.seats.map(() => "—");
    this.resultBox.replaceChildren(
      h("h3", {}, t("result")),
      h(
        "table",
        { class: "scores" },
        h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", { scope: "col" }, t("score")), h("th", {}, ""))),
        h(
          "tbody",
          {},
          ...scores.map((score, seat) =>
            h(
              "tr",
              { class: winners.includes(seat) ? "winner" : "", "data-seat": seat },
              h("th", { scope: "row" }, this.ctx.seatName(seat)),
              h("td", {}, String(score)),
              h("td", {}, winners.includes(seat) ? t("winner") : ""),
            ),
          ),
        ),
      ),
    );
  }

  private drawObservation(view: MatchView): void {
    const t = this.ctx.t;
    const open = this.observation.querySelector("details")?.open ?? false;
    const obs = (view.observation ?? null) as Json;
    this.observation.replaceChildren(
      h("h3", {}, t("observation")),
      this.value(obs, 0),
      h(
        "details",
        { open },
        h("summary", {}, t("json")),
        h("pre", { "data-testid": "generic-json" }, JSON.stringify(view.observation, null, 1)),
      ),
    );
  }

  /** One value of the observation, drawn by its shape. */
  private value(v: Json, depth: number): HTMLElement {
    const t = this.ctx.t;
    if (isScalar(v)) {
      const text = v === null ? "—" : typeof v === "boolean" ? (v ? t("yes") : t("no")) : String(v);
      return h("span", { class: "generic-scalar" }, text);
    }
    if (depth >= MAX_DEPTH) return h("code", { class: "generic-deep" }, JSON.stringify(v));
    if (Array.isArray(v)) {
      if (v.length === 0) return h("span", { class: "generic-empty" }, t("empty"));
      if (v.every(isScalar)) {
        return h("span", { class: "generic-list" }, v.map((x) => (this.value(x, depth + 1).textContent ?? "")).join(", "));
      }
      const grid = v.every((row) => Array.isArray(row) && row.every(isScalar));
      if (grid) {
        return h(
          "table",
          { class: "generic-grid" },
          h(
            "tbody",
            {},
            ...(v as Json[][]).map((row) => h("tr", {}, ...row.map((cell) => h("td", {}, this.value(cell, depth + 1))))),
          ),
        );
      }
      return h("ol", { class: "generic-items", start: 0 }, ...v.map((item) => h("li", {}, this.value(item, depth + 1))));
    }
    const entries = Object.entries(v);
    if (entries.length === 0) return h("span", { class: "generic-empty" }, t("empty"));
    return h(
      "dl",
      { class: "generic-fields" },
      ...entries.flatMap(([key, item]) => [
        h("dt", {}, words(key)),
        h("dd", { "data-key": key }, this.value(item, depth + 1)),
      ]),
    );
  }
}
