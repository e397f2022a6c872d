/**
 * The fallback view for a game without a module of its own: the observation as readable JSON and the
 * legal moves as a list of buttons (reachable with Tab, played with Enter or Space).
 */
import { h } from "../dom";
import type { GameModule, GameView, MatchView, ViewContext } from "./contract";

export function genericModule(name: string): GameModule {
  return {
    name,
    messages: {
      en: { moves: "Legal moves", observation: "What you see", none: "Nothing to play now." },
      fr: { moves: "Coups possibles", observation: "Ce que vous voyez", none: "Rien à jouer pour l'instant." },
    },
    create(ctx: ViewContext): GameView {
      const moves = h("div", { class: "generic-moves" });
      const observation = h("pre", { class: "generic-observation" });
      ctx.root.append(moves, h("details", { open: true }, h("summary", {}, ctx.t("observation")), observation));
      let last: MatchView | null = null;
      const draw = (view: MatchView) => {
        last = view;
        moves.replaceChildren(h("h3", {}, ctx.t("moves")));
        if (view.legal.length === 0) moves.append(h("p", {}, ctx.t("none")));
        const list = h("div", { class: "move-buttons" });
        for (const action of view.legal) {
          list.append(
            h("button", { type: "button", "data-action": action.id, onclick: () => ctx.act(action.id) }, action.label),
          );
        }
        moves.append(list);
        observation.textContent = JSON.stringify(view.observation, null, 1);
      };
      return {
        update: draw,
        setLang: () => {
          if (last) draw(last);
        },
        destroy: () => ctx.root.replaceChildren(),
      };
    },
  };
}
