/**
 * The replay viewer: every step of a match as this seat (the stored token's, else the session
 * player's) or a spectator could see it, drawn by the game's own view; step with the buttons, the
 * arrow keys, Home and End.  `?step=N` opens it at step N (an analysis' moment links there), and
 * the seat's analysis panel shows below the board once the match is finished.
 */
import { errorText } from "./account";
import { analysisPanel, viewerFor } from "./analysis";
import { api, seats } from "./api";
import { chatLineItem } from "./chat";
import { h, keepFocus } from "./dom";
import type { MatchView } from "./games/contract";
import { seatLabel, ViewHost, type AppContext, type Page } from "./match";

export function replayPage(root: HTMLElement, matchId: string, app: AppContext): Page {
  const key = seats.get(matchId);
  let steps: MatchView[] = [];
  let index = 0;
  let failure: unknown = null; // the refusal, put in words at each drawing (the language may change)
  const asked = new URLSearchParams(location.search).get("step");
  /** The step to open at, from the address (null: the last). */
  let wanted: number | null = asked !== null && /^\d+$/.test(asked) ? Number(asked) : null;
  const analysis = analysisPanel(app, matchId, (ply) => {
    go(stepAt(ply));
    history.replaceState(null, "", `/match/${matchId}/replay?step=${ply}`);
    host.root.scrollIntoView({ block: "nearest" });
  }, (seat, move) => host.words(seat, move));

  // Whose eyes: the views say (the token's seat, or the session player's); "You" names that seat.
  const seatName = (seat: number) =>
    seatLabel(app, steps[index]?.match ?? null, seat, steps[index]?.seat ?? key?.seat ?? null);
  const host = new ViewHost(app, seatName, () => undefined, () => draw());
  const title = h("h2", { class: "match-title" });
  const position = h("span", { class: "replay-position", "data-testid": "replay-position", "aria-live": "polite" });
  const slider = h("input", {
    type: "range",
    min: 0,
    value: 0,
    "aria-label": app.t("replay_slider"),
    oninput: (e: Event) => go(Number((e.target as HTMLInputElement).value)),
  });
  const move = h("p", { class: "replay-move" });
  const buttons = h("div", { class: "replay-buttons" });
  const links = h("nav", { class: "match-links" });
  const chatTitle = h("h3", {});
  const chatList = h("ol", { class: "chat-lines", "data-testid": "replay-chat", "aria-live": "polite" });
  const chatEl = h("section", { class: "chat-panel replay-chat", hidden: true }, chatTitle, chatList);
  root.append(
    h(
      "div",
      { class: "match-page replay" },
      h("div", { class: "match-head" }, title, h("div", { class: "replay-controls" }, buttons, slider, position), move),
      h(
        "div",
        { class: "match-body" },
        h("main", { class: "board-area" }, host.root, analysis.root),
        h("aside", { class: "side" }, chatEl, links),
      ),
    ),
  );

  /** The index of the step at a version (a ply: the number of actions played before it). */
  function stepAt(ply: number): number {
    const found = steps.findIndex((step) => step.version === ply);
    return found >= 0 ? found : Math.max(0, Math.min(steps.length - 1, ply));
  }

  function go(next: number): void {
    if (steps.length === 0) return;
    index = Math.max(0, Math.min(steps.length - 1, next));
    draw();
  }

  function onKey(event: KeyboardEvent): void {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    const moves: Record<string, number> = {
      ArrowLeft: index - 1,
      ArrowRight: index + 1,
      Home: 0,
      End: steps.length - 1,
    };
    if (event.key in moves) {
      event.preventDefault();
      go(moves[event.key]);
    }
  }
  document.addEventListener("keydown", onKey);

  function draw(): void {
    const view = steps[index];
    title.textContent = view ? `${view.match.title} — ${app.t("replay")}` : app.t("replay");
    const restoreFocus = keepFocus(buttons); // Enter on "Next", again and again, steps on
    buttons.replaceChildren(
      // |◀ and ▶|, from the same triangles as ◀ ▶: every font has them (⏮ ⏭ need an emoji font).
      h("button", { type: "button", "data-testid": "replay-first", onclick: () => go(0) }, `|◀ ${app.t("first")}`),
      h("button", { type: "button", "data-testid": "replay-prev", onclick: () => go(index - 1) }, `◀ ${app.t("prev")}`),
      h("button", { type: "button", "data-testid": "replay-next", onclick: () => go(index + 1) }, `${app.t("next")} ▶`),
      h(
        "button",
        { type: "button", "data-testid": "replay-last", onclick: () => go(steps.length - 1) },
        `${app.t("last")} ▶|`,
      ),
    );
    restoreFocus();
    slider.setAttribute("aria-label", app.t("replay_slider"));
    slider.max = String(Math.max(0, steps.length - 1));
    slider.value = String(index);
    const error = failure === null ? "" : errorText(app, failure);
    position.textContent = error || app.t("step", { n: index, total: Math.max(0, steps.length - 1) });
    if (view) host.update(view.match.game, view);
    const last = view?.log.at(-1);
    move.textContent = last && last.version === view.version ? `${seatName(last.seat)} ${host.describe(last)}` : "";
    drawChat();
    const end = steps.at(-1);
    analysis.update(viewerFor(matchId, view?.seat ?? null), end?.match.status === "finished", end?.match ?? null);
    // "Back to the live match" while it is played (or waits for players); after its end, "the match".
    const live = end?.match.status === "running" || end?.match.status === "open";
    links.replaceChildren(
      h("a", { href: `/match/${matchId}`, "data-link": true }, app.t(live ? "live" : "back_match")),
      h("a", { href: "/", "data-link": true }, app.t("back_lobby")),
    );
  }

  /** The players' chat up to this step; the lines said at this step are marked. */
  function drawChat(): void {
    const said = steps.slice(0, index + 1).flatMap((step, i) => (step.chat ?? []).map((line) => ({ line, i })));
    chatEl.hidden = !steps.some((step) => (step.chat ?? []).length > 0);
    chatTitle.textContent = app.t("replay_chat");
    chatList.replaceChildren(
      ...said.map(({ line, i }) => chatLineItem(app, line, i === index ? "now" : "")),
    );
    chatList.scrollTop = chatList.scrollHeight;
  }

  void api
    .replay(matchId, key?.token ?? null)
    .then(async (list) => {
      steps = list;
      index = wanted === null ? Math.max(0, list.length - 1) : stepAt(wanted);
      wanted = null;
      draw();
      // Steps without their lines: the chat is read apart, each line at the version it was said at.
      if (list.some((step) => step.chat !== undefined)) return;
      const chat = await api.chat(matchId, key?.token ?? null).catch(() => null);
      if (!chat || steps !== list) return;
      for (const line of chat.players) {
        const step = list[Math.max(0, Math.min(list.length - 1, line.version))];
        step.chat = [...(step.chat ?? []), line];
      }
      draw();
    })
    .catch((err: unknown) => {
      failure = err;
      draw();
    });
  draw();

  return {
    setLang(lang) {
      host.setLang(lang);
      draw();
      analysis.draw();
    },
    destroy() {
      document.removeEventListener("keydown", onKey);
      analysis.destroy();
      host.destroy();
    },
  };
}
