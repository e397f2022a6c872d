/**
 * `/learn/{game}`: a game's guided first game.  Each step shows a position in the game's real board
 * view with an explanation; a wrong move is answered with a hint and the position stays, the right
 * move shows the position after it and the way on.  At the end, an offer to play the easy bot (a
 * casual match created the way the lobby does).  The server gives every position, its legal moves
 * and the moves to find (`GET /api/lessons/{game}`), all computed by the engine.
 */
import { errorText } from "./account";
import { api, seats as seatKeys, session } from "./api";
import { focusTestId, h, redrawKeepingFocus } from "./dom";
import type { Lang, MatchView, Messages } from "./games/contract";
import { translator } from "./i18n";
import { seatLabel, ViewHost, type AppContext, type Page } from "./match";
import { getJson, ruleLinked, RULES_TEXT } from "./rules_page";

export const LEARN_TEXT: Messages = {
  en: {
    step: "Step {n} of {total}",
    loading: "Loading…",
    not_found: "No guided game for this game.",
    next: "Next",
    finish: "Finish",
    try_again: "Not quite.",
    right: "Right!",
    finished: "Lesson complete",
    play_easy: "Play the easy bot",
    read_rules: "Read the rules",
    restart: "Start again",
    creating: "Creating the match…",
    your_move: "Your move: play it on the board.",
  },
  fr: {
    step: "Étape {n} sur {total}",
    loading: "Chargement…",
    not_found: "Pas de partie guidée pour ce jeu.",
    next: "Suivant",
    finish: "Terminer",
    try_again: "Pas tout à fait.",
    right: "Bravo !",
    finished: "Leçon terminée",
    play_easy: "Jouer contre le robot facile",
    read_rules: "Lire la règle",
    restart: "Recommencer",
    creating: "Création de la partie…",
    your_move: "À vous : jouez sur le plateau.",
  },
};

interface LessonStep {
  text: string;
  wrong: string;
  done: string;
  state: MatchView;
  right: number[];
}

interface LessonAnswer {
  game: string;
  lang: Lang;
  title: string;
  intro: string;
  outro: string;
  steps: LessonStep[];
  play: { options: Record<string, unknown>; seats: string[] };
}

interface AfterAnswer {
  right: boolean;
  state: MatchView;
}

export function learnPage(root: HTMLElement, game: string, app: AppContext): Page {
  const t = translator(LEARN_TEXT, () => app.lang());
  const tr = translator(RULES_TEXT, () => app.lang());
  let lesson: LessonAnswer | null = null;
  let index = 0;
  /** "ask": waiting for the move; "done": the right move was played; "end": every step is done. */
  let phase: "ask" | "done" | "end" = "ask";
  /**
   * The answer to the last move: which step's `wrong` or `done` text, looked up at each drawing, so that
   * a language switch (which loads the lesson again in the new language) says it in that language.
   */
  let feedback: { kind: "wrong" | "right"; step: number } | null = null;
  let shown: MatchView | null = null;
  let busy = false;
  let failure: unknown = null; // a refused "play", put in words at each drawing
  let destroyed = false;

  const host = new ViewHost(
    app,
    (seat) => seatLabel(app, shown?.match ?? null, seat, shown?.seat ?? null),
    (id) => void onMove(id),
  );
  const title = h("h2", { class: "learn-title" });
  const intro = h("p", { class: "learn-intro" });
  const panel = h("section", { class: "learn-panel", "data-testid": "learn-panel" });
  const feedbackEl = h("div", { class: "learn-feedback", "data-testid": "learn-feedback", "aria-live": "polite" });
  const actions = h("div", { class: "learn-actions" });
  const pageEl = h(
    "div",
    { class: "learn-page", "data-game": game, "data-step": "", "data-phase": "loading" },
    h("div", { class: "learn-head" }, title, intro),
    h(
      "div",
      { class: "match-body learn-body" },
      h("main", { class: "board-area" }, host.root),
      h("aside", { class: "side learn-side" }, panel, feedbackEl, actions),
    ),
  );
  root.append(pageEl);

  function show(view: MatchView): void {
    shown = view;
    host.update(view.match.game, view);
  }

  async function load(): Promise<void> {
    const lang = app.lang();
    let loaded: LessonAnswer;
    try {
      loaded = await getJson<LessonAnswer>(`/api/lessons/${encodeURIComponent(game)}?lang=${lang}`);
    } catch {
      if (destroyed || lang !== app.lang()) return;
      pageEl.dataset.phase = "missing";
      panel.replaceChildren(h("p", {}, t("not_found")));
      return;
    }
    // A switch back and forth loads twice: the lesson in the language now chosen is the one kept.
    if (destroyed || lang !== app.lang()) return;
    lesson = loaded;
    document.title = `${lesson.title} · Masques`;
    if (phase === "ask" && shown === null) show(lesson.steps[index].state);
    draw();
  }

  async function onMove(id: number): Promise<void> {
    if (!lesson || phase !== "ask" || busy) return;
    const step = lesson.steps[index];
    if (!step.state.legal.some((a) => a.id === id)) return;
    if (!step.right.includes(id)) {
      feedback = { kind: "wrong", step: index };
      // The same position again: a view that sent a move waits for a new view before it takes
      // another, so it sees the turn pass and come back.
      show({ ...step.state, your_turn: false, legal: [] });
      show(step.state);
      draw();
      return;
    }
    busy = true;
    try {
      const after = await getJson<AfterAnswer>(
        `/api/lessons/${encodeURIComponent(game)}/${index}/after?action=${id}`,
      );
      if (destroyed) return;
      show(after.state);
    } catch {
      // The position after is a picture only: without it, the lesson goes on.
    } finally {
      busy = false;
    }
    phase = "done";
    feedback = { kind: "right", step: index };
    draw();
    focusTestId(actions, "learn-next"); // the guided way on: Enter goes to the next step
  }

  function next(): void {
    if (!lesson) return;
    feedback = null;
    if (index + 1 < lesson.steps.length) {
      index += 1;
      phase = "ask";
      show(lesson.steps[index].state);
    } else {
      phase = "end";
    }
    draw();
    followWithFocus();
  }

  /** After "Next" or "Start again" (gone with the redraw): the board to play on, or the offer to play. */
  function followWithFocus(): void {
    if (phase === "end") focusTestId(actions, "learn-play-easy");
    else host.root.focus({ preventScroll: true });
  }

  function restart(): void {
    if (!lesson) return;
    index = 0;
    phase = "ask";
    feedback = null;
    show(lesson.steps[0].state);
    draw();
    followWithFocus();
  }

  async function playEasy(): Promise<void> {
    if (!lesson || busy) return;
    busy = true;
    failure = null;
    draw();
    try {
      const player = await session.ensure("", app.lang());
      const match = await api.create(game, lesson.play.options, lesson.play.seats, {});
      const who = app.t("seat", { n: 1 });
      const joined = await api.join(match.id, player ? { seat: 0 } : { name: who, seat: 0 });
      if (joined.token) seatKeys.set(match.id, { seat: joined.seat, token: joined.token });
      app.navigate(`/match/${match.id}`);
    } catch (err) {
      failure = err;
      busy = false;
      draw();
    }
  }

  /** Drawn again at each step and answer: what has the focus keeps it (a refused "play" included). */
  function draw(): void {
    redrawKeepingFocus(pageEl, drawLesson);
  }

  function drawLesson(): void {
    if (!lesson) {
      panel.replaceChildren(h("p", {}, t("loading")));
      return;
    }
    const total = lesson.steps.length;
    pageEl.dataset.step = String(index);
    pageEl.dataset.phase = phase;
    title.textContent = lesson.title;
    intro.textContent = lesson.intro;
    if (phase === "end") {
      panel.replaceChildren(h("h3", {}, t("finished")), h("p", { "data-testid": "learn-outro" }, lesson.outro));
    } else {
      const step = lesson.steps[index];
      panel.replaceChildren(
        h("h3", { "data-testid": "learn-step" }, t("step", { n: index + 1, total })),
        h("p", { class: "learn-text", "data-testid": "learn-text" }, ...ruleLinked(step.text)),
        h("p", { class: "learn-hint", hidden: phase !== "ask" }, t("your_move")),
      );
    }
    // The step's answer in the lesson as loaded now: in the language chosen since the move, if it changed.
    const answered = feedback === null ? undefined : lesson.steps[feedback.step];
    const said = feedback === null || !answered ? null : feedback.kind === "wrong" ? answered.wrong : answered.done;
    feedbackEl.dataset.kind = said === null ? "" : feedback!.kind;
    feedbackEl.replaceChildren(
      ...(said === null
        ? []
        : [h("strong", {}, feedback!.kind === "wrong" ? t("try_again") : t("right")), " ", ...ruleLinked(said)]),
    );
    const rulesLink = h("a", { href: `/rules/${game}`, "data-link": true, "data-testid": "learn-rules" }, tr("read_rules"));
    if (phase === "done") {
      const last = index + 1 >= total;
      actions.replaceChildren(
        h(
          "button",
          { type: "button", class: "primary", "data-testid": "learn-next", onclick: next },
          last ? t("finish") : t("next"),
        ),
        rulesLink,
      );
    } else if (phase === "end") {
      actions.replaceChildren(
        h(
          "button",
          {
            type: "button",
            class: "primary",
            "data-testid": "learn-play-easy",
            "aria-disabled": busy ? "true" : null, // not disabled: it keeps the focus if the match is refused
            onclick: () => void playEasy(),
          },
          busy ? t("creating") : t("play_easy"),
        ),
        h("button", { type: "button", "data-testid": "learn-restart", onclick: restart }, t("restart")),
        rulesLink,
        h("p", { class: "error", role: "alert", hidden: failure === null }, failure === null ? "" : errorText(app, failure)),
      );
    } else {
      actions.replaceChildren(rulesLink);
    }
  }

  draw();
  void load();
  return {
    setLang(lang) {
      host.setLang(lang);
      void load(); // the lesson's texts in the new language; the step and its position stay
    },
    destroy() {
      destroyed = true;
      host.destroy();
    },
  };
}
