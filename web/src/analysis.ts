/**
 * Analysis and hints in the client.  A finished match's seat asks the server to evaluate its
 * decisions (the expert bot, from that seat's information only), watches the progress, then sees its
 * chance of winning over the match and its three largest drops ("moments"), each with the move the
 * bot preferred and a link to that ply in the replay; the owner may share it
 * (`/match/{id}/analysis/{seat}` shows a shared analysis to anyone).  In a casual match against bots
 * the hint button asks for the hard bot's move and highlights it on the board.
 *
 * Every request carries the seat's token when this browser holds one (the session cookie otherwise),
 * exactly as the seat's own views are read.
 */
import "./analysis.css";
import { errorText } from "./account";
import { ApiError, api, call, seats, withSeatToken } from "./api";
import { copyText, h, redrawKeepingFocus } from "./dom";
import type { Lang, MatchSummary, Messages } from "./games/contract";
import { wordsOf } from "./games/index";
import { lineGraph } from "./graph";
import { translator } from "./i18n";
import { botLevel, seatLabel, type AppContext, type Page } from "./match";

export const MESSAGES: Messages = {
  en: {
    analyse: "Analyse",
    analyse_help: "The expert bot evaluates each of your decisions, from what you could see.",
    analysing: "Analysing… {done} of {total} decisions",
    analysing_done_one: "Analysing… {done} of {total} decisions",
    analysing_total_one: "Analysing… {done} of 1 decision",
    analysing_start: "Analysing…",
    analysis: "Analysis",
    analysis_of: "Analysis: {name}",
    chance_title: "Chance of winning of {name}, decision by decision",
    chance_title_you: "Your chance of winning, decision by decision",
    chance_point: "Decision {turn}: {chance} before, {after} after {played}",
    moments: "Three moments",
    moment: "Decision {turn}",
    moment_played: "Played: {move}",
    moment_best: "The bot preferred: {move}",
    moment_drop: "Chance of winning {chance} → {after} ({drop})",
    moment_link: "See it in the replay",
    no_points: "No decision to analyse: every move of this seat was forced.",
    no_drop: "No move lost any chance of winning.",
    still_running: "The analysis is still running; try again in a moment.",
    rate_limited: "Too many analyses asked for: try again in {n} s.",
    failed: "The analysis failed: {message}",
    share: "Share",
    shared_link: "Anyone with this link sees the analysis:",
    copy: "Copy",
    copied: "Copied",
    copy_by_hand: "Selected: press Ctrl+C",
    not_shared: "This analysis is not shared.",
    not_found: "No analysis of this seat.",
    replay: "Replay",
    match: "Match",
    back_lobby: "Back to the lobby",
    level: "Evaluated by the {level} bot.",
    hint: "Hint",
    hint_help: "Ask the hard bot for a move (casual matches against bots only).",
    hint_wait: "Thinking…",
    hint_text: "The hard bot's move: {move}.",
    hint_failed: "No hint: {message}",
  },
  fr: {
    analyse: "Analyser",
    analyse_help: "Le robot expert évalue chacune de vos décisions, d’après ce que vous pouviez voir.",
    analysing: "Analyse… {done} décisions sur {total}",
    analysing_done_one: "Analyse… {done} décision sur {total}",
    analysing_total_one: "Analyse… {done} décision sur 1",
    analysing_start: "Analyse…",
    analysis: "Analyse",
    analysis_of: "Analyse : {name}",
    chance_title: "Chances de gagner de {name}, décision par décision",
    chance_title_you: "Vos chances de gagner, décision par décision",
    chance_point: "Décision {turn} : {chance} avant, {after} après {played}",
    moments: "Trois moments",
    moment: "Décision {turn}",
    moment_played: "Joué : {move}",
    moment_best: "Le robot préférait : {move}",
    moment_drop: "Chances de gagner {chance} → {after} ({drop})",
    moment_link: "Voir dans la relecture",
    no_points: "Aucune décision à analyser : chaque coup de ce siège était forcé.",
    no_drop: "Aucun coup n’a fait perdre de chances de gagner.",
    still_running: "L’analyse tourne encore ; réessayez dans un instant.",
    rate_limited: "Trop d’analyses demandées : réessayez dans {n} s.",
    failed: "L’analyse a échoué : {message}",
    share: "Partager",
    shared_link: "Toute personne ayant ce lien voit l’analyse :",
    copy: "Copier",
    copied: "Copié",
    copy_by_hand: "Sélectionné : appuyez sur Ctrl+C",
    not_shared: "Cette analyse n’est pas partagée.",
    not_found: "Aucune analyse de ce siège.",
    replay: "Relecture",
    match: "Partie",
    back_lobby: "Retour au salon",
    level: "Évaluée par le robot {level}.",
    hint: "Indice",
    hint_help: "Demander un coup au robot fort (parties amicales contre des robots seulement).",
    hint_wait: "Réflexion…",
    hint_text: "Le coup du robot fort : {move}.",
    hint_failed: "Pas d’indice : {message}",
  },
};

// -- the server's answers (see the API notes of issue 21) -----------------------------------------

/** A move as the analysis names it: the action id, the engine's text and its structured form. */
export interface AnalysedMove {
  id: number;
  label: string;
  move: unknown;
}

/** One decision of the seat: its chance of winning before it (best move) and after the move played. */
export interface AnalysisPoint {
  /** Index of the decision in the match's actions: the replay's step before it. */
  ply: number;
  /** 1-based count of this seat's decisions. */
  turn: number;
  chance: number;
  after: number;
  played: AnalysedMove;
  best: AnalysedMove;
}

export interface AnalysisDrop extends AnalysisPoint {
  drop: number;
}

export interface Analysis {
  match: string;
  seat: number;
  game: string;
  status: "done";
  shared: boolean;
  level: string;
  points: AnalysisPoint[];
  drops: AnalysisDrop[];
}

export interface AnalysisRunning {
  status: "running";
  done: number;
  total: number;
}

/** A seat's analysis nobody asked for yet (told to its own player only). */
export interface AnalysisNone {
  status: "none";
}

export type AnalysisAnswer = Analysis | AnalysisRunning;

export interface Hint {
  version: number;
  action: AnalysedMove;
  level: string;
}

/** A summary as the issue-21 server sends it: whether hints are allowed in this match. */
export type HintSummary = MatchSummary & { hints?: boolean };

/** Whose eyes: a seat and, when this browser holds one, its token. */
export interface Viewer {
  seat: number | null;
  token: string | null;
}

const tokenHeader = (token: string | null): Record<string, string> => (token ? { "x-seat-token": token } : {});

export const analysisApi = {
  start: (id: string, seat: number, token: string | null) =>
    withSeatToken(id, token, (t) =>
      call<AnalysisAnswer>("POST", `/api/matches/${id}/analysis?seat=${seat}`, undefined, tokenHeader(t)),
    ),
  get: (id: string, seat: number, token: string | null) =>
    withSeatToken(id, token, (t) =>
      call<AnalysisAnswer | AnalysisNone>(
        "GET",
        `/api/matches/${id}/analysis?seat=${seat}`,
        undefined,
        tokenHeader(t),
      ),
    ),
  share: (id: string, seat: number, token: string | null) =>
    withSeatToken(id, token, (t) =>
      call<{ shared: boolean; url: string }>(
        "POST",
        `/api/matches/${id}/analysis/share?seat=${seat}`,
        undefined,
        tokenHeader(t),
      ),
    ),
  hint: (id: string, seat: number, token: string | null) =>
    withSeatToken(id, token, (t) =>
      call<Hint>("POST", `/api/matches/${id}/hint?seat=${seat}`, undefined, tokenHeader(t)),
    ),
};

// -- pure logic --------------------------------------------------------------------------------------

/** A chance (0..1) as a whole percentage: "62%" in English, "62 %" (a narrow no-break space) in French. */
export function percent(value: number, lang: Lang): string {
  const n = Math.round(Math.max(0, Math.min(1, value)) * 100);
  return lang === "fr" ? `${n}\u202f%` : `${n}%`;
}

/** A drop as a signed percentage: "−21%". */
export function dropText(drop: number, lang: Lang): string {
  return `−${percent(Math.max(0, drop), lang)}`;
}

/** The three largest drops, largest first: the server's list, or else computed from the points. */
/** The progress of an analysis in words: none yet before its total is known, and the noun's
 * number as each language agrees it (French with the count done, English with the total). */
export function progressText(
  t: (key: string, params?: Record<string, string | number>) => string,
  done: number,
  total: number,
): string {
  if (total <= 0) return t("analysing_start");
  const key = total === 1 ? "analysing_total_one" : done <= 1 ? "analysing_done_one" : "analysing";
  return t(key, { done, total });
}

export function moments(analysis: Analysis, n = 3): AnalysisDrop[] {
  if (Array.isArray(analysis.drops)) return analysis.drops.slice(0, n);
  return analysis.points
    .map((p) => ({ ...p, drop: p.chance - p.after }))
    .filter((p) => p.drop > 0)
    .sort((a, b) => b.drop - a.drop || a.ply - b.ply)
    .slice(0, n);
}

/** The replay's address at a ply. */
export function replayHref(matchId: string, ply: number): string {
  return `/match/${matchId}/replay?step=${ply}`;
}

/** The seat in a `?seat=` or a token-bearing viewer: a stored seat token counts only for its own seat. */
export function viewerFor(matchId: string, seat: number | null): Viewer {
  const key = seats.get(matchId);
  if (seat === null) return { seat: null, token: null };
  return { seat, token: key && key.seat === seat ? key.token : null };
}

const POLL_MS = 1000;
/** Polls of a running analysis before the page stops asking (the button asks again). */
const MAX_POLLS = 600;


// -- drawing one analysis ----------------------------------------------------------------------------

interface DrawOptions {
  app: AppContext;
  t: (key: string, params?: Record<string, string | number>) => string;
  matchId: string;
  seatName: string;
  /** The viewer holds the seat ("your chance"). */
  own: boolean;
  /** Go to a ply: on the replay page the replay steps there without a page change. */
  jump?: (ply: number) => void;
  /** A move of the analysed seat in words, as the game's view says it (else the engine's text). */
  words?: MoveWords;
}

/** A move's engine text in words, as the game's view puts it in the log, for the given seat. */
export type MoveWords = (seat: number, move: string) => string;

/** The graph of the seat's chance over its decisions, and its three moments. */
export function drawAnalysis(analysis: Analysis, o: DrawOptions): HTMLElement {
  const say = (move: string): string => o.words?.(analysis.seat, move) ?? move;
  const { t } = o;
  const root = h("div", {
    class: "analysis-body",
    "data-testid": "analysis",
    "data-seat": analysis.seat,
    "data-points": analysis.points.length,
  });
  if (analysis.points.length === 0) {
    root.append(h("p", { class: "analysis-empty", "data-testid": "analysis-empty" }, t("no_points")));
    return root;
  }
  const points = analysis.points;
  const worst = moments(analysis);
  const label = o.own ? t("chance_title_you") : t("chance_title", { name: o.seatName });
  const lang = o.app.lang();
  root.append(
    h("p", { class: "analysis-caption" }, label),
    lineGraph({
      values: points.map((p) => p.chance),
      label,
      className: "chance-graph",
      testId: "chance-graph",
      range: [0, 1],
      tick: (v) => percent(v, lang),
      ends: [points[0].turn, points[points.length - 1].turn],
      line: "path",
      attrs: { "data-points": points.length },
      radius: points.length > 60 ? 2.5 : 4,
      dots: points
        .map((p, index) => ({ p, index }))
        .filter(({ p }) => worst.some((d) => d.ply === p.ply))
        .map(({ p, index }) => ({
          index,
          className: "dot drop",
          title: t("chance_point", {
            turn: p.turn,
            chance: percent(p.chance, lang),
            after: percent(p.after, lang),
            played: say(p.played.label),
          }),
          attrs: { "data-ply": p.ply },
        })),
    }),
    h("p", { class: "analysis-level" }, t("level", { level: botLevel(o.app, analysis.level) })),
    h("h4", {}, t("moments")),
  );
  if (worst.length === 0) {
    root.append(h("p", { class: "analysis-empty" }, t("no_drop")));
    return root;
  }
  root.append(
    h(
      "ol",
      { class: "moments", "data-testid": "moments" },
      ...worst.map((d) =>
        h(
          "li",
          { class: "moment", "data-testid": "moment", "data-ply": d.ply, "data-drop": d.drop.toFixed(4) },
          h("strong", {}, t("moment", { turn: d.turn })),
          " ",
          h(
            "span",
            { class: "moment-drop" },
            t("moment_drop", {
              chance: percent(d.chance, lang),
              after: percent(d.after, lang),
              drop: dropText(d.drop, lang),
            }),
          ),
          h("span", { class: "moment-played", "data-move": d.played.id }, t("moment_played", { move: say(d.played.label) })),
          h("span", { class: "moment-best", "data-move": d.best.id }, t("moment_best", { move: say(d.best.label) })),
          h(
            "a",
            {
              href: replayHref(o.matchId, d.ply),
              "data-link": true,
              class: "moment-link",
              "data-testid": "moment-link",
              "data-ply": d.ply,
              onclick: (event: MouseEvent) => {
                if (!o.jump || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
                // Stepped in place: the document's link handler would draw the replay page anew.
                event.preventDefault();
                event.stopPropagation();
                o.jump(d.ply);
              },
            },
            t("moment_link"),
          ),
        ),
      ),
    ),
  );
  return root;
}

// -- the panel of a finished match (match page, replay page) -------------------------------------------

export interface AnalysisPanel {
  root: HTMLElement;
  /** Show or hide the panel for this viewer; `over` says whether the match is finished. */
  update(viewer: Viewer, over: boolean, summary: MatchSummary | null): void;
  draw(): void;
  destroy(): void;
}

/**
 * The Analyse button, its progress, the drawn analysis and the Share button, for the seat the viewer
 * holds once the match is over (hidden for spectators).
 */
export function analysisPanel(
  app: AppContext,
  matchId: string,
  jump?: (ply: number) => void,
  words?: MoveWords,
): AnalysisPanel {
  const t = translator(MESSAGES, () => app.lang());
  const root = h("section", { class: "analysis-panel", "data-testid": "analysis-panel", hidden: true });
  let viewer: Viewer = { seat: null, token: null };
  let summary: MatchSummary | null = null;
  let state: "idle" | "running" | "done" | "error" = "idle";
  let progress: AnalysisRunning | null = null;
  let analysis: Analysis | null = null;
  let error = "";
  let shareUrl = "";
  let copied: "" | "copied" | "select" = "";
  let timer: number | undefined;
  /** Bumped on every new request and on destroy: a late answer of an old one is dropped. */
  let generation = 0;
  const shareInput = h("input", { type: "text", readonly: true, class: "share-link", "data-testid": "share-link" });

  function seatName(): string {
    return viewer.seat === null ? "" : seatLabel(app, summary, viewer.seat, viewer.seat);
  }

  function take(answer: AnalysisAnswer | AnalysisNone, polls: number, mine: number): void {
    if (mine !== generation) return;
    if (answer.status === "none") {
      // Never asked for, or its run was lost (a server restarted): the Analyse button asks.
      state = "idle";
      progress = null;
      draw();
      return;
    }
    if (answer.status === "running") {
      state = "running";
      progress = answer;
      draw();
      if (polls >= MAX_POLLS) {
        state = "error";
        error = t("still_running");
        draw();
        return;
      }
      timer = window.setTimeout(() => void poll(polls + 1, mine), POLL_MS);
      return;
    }
    state = "done";
    analysis = answer;
    if (answer.shared) shareUrl = `${location.origin}/match/${matchId}/analysis/${answer.seat}`;
    draw();
  }

  function fail(err: unknown, mine: number): void {
    if (mine !== generation) return;
    state = "error";
    error =
      err instanceof ApiError && err.status === 429
        ? t("rate_limited", { n: err.retryAfter ?? 1 })
        : t("failed", { message: errorText(app, err) });
    draw();
  }

  async function poll(polls: number, mine: number): Promise<void> {
    if (mine !== generation || viewer.seat === null) return;
    try {
      take(await analysisApi.get(matchId, viewer.seat, viewer.token), polls, mine);
    } catch (err) {
      if (err instanceof ApiError && err.status === 429 && polls < MAX_POLLS && mine === generation) {
        timer = window.setTimeout(() => void poll(polls + 1, mine), 1000 * (err.retryAfter ?? 1));
        return;
      }
      fail(err, mine);
    }
  }

  /** An analysis asked for before (on this page or another) shows at once; none: the button. */
  async function look(): Promise<void> {
    if (viewer.seat === null) return;
    const mine = generation;
    try {
      take(await analysisApi.get(matchId, viewer.seat, viewer.token), 0, mine);
    } catch {
      // Not readable now: the Analyse button asks.
    }
  }

  async function start(): Promise<void> {
    if (viewer.seat === null || state === "running") return;
    window.clearTimeout(timer);
    const mine = ++generation;
    state = "running";
    progress = null;
    error = "";
    draw();
    try {
      take(await analysisApi.start(matchId, viewer.seat, viewer.token), 0, mine);
    } catch (err) {
      fail(err, mine);
    }
  }

  async function share(): Promise<void> {
    if (viewer.seat === null) return;
    const mine = generation;
    try {
      const answer = await analysisApi.share(matchId, viewer.seat, viewer.token);
      if (mine !== generation) return;
      shareUrl = new URL(answer.url, location.origin).href;
      copied = "";
      if (analysis) analysis.shared = true;
    } catch (err) {
      error = t("failed", { message: errorText(app, err) });
    }
    draw();
  }

  /** Copy the link: the clipboard where the page may use it, else the text selected for Ctrl+C. */
  async function copy(): Promise<void> {
    copied = (await copyText(shareUrl, shareInput)) === "select" ? "select" : "copied";
    draw();
    if (copied === "select") {
      shareInput.focus();
      shareInput.select();
    }
  }

  /** Drawn again on each poll and each update of the match page: what has the focus keeps it. */
  function draw(): void {
    redrawKeepingFocus(root, drawPanel);
  }

  function drawPanel(): void {
    root.dataset.state = state;
    const parts: (HTMLElement | string)[] = [h("h3", {}, t("analysis"))];
    if (state !== "done") {
      parts.push(
        h(
          "button",
          {
            type: "button",
            class: "primary",
            "data-testid": "analyse",
            title: t("analyse_help"),
            disabled: state === "running",
            onclick: () => void start(),
          },
          t("analyse"),
        ),
      );
    }
    if (state === "running") {
      const total = progress?.total ?? 0;
      const done = progress?.done ?? 0;
      parts.push(
        h(
          "div",
          { class: "analysis-progress", "data-testid": "analysis-progress", "data-done": done, "data-total": total },
          h("progress", { max: Math.max(1, total), value: done, "aria-label": t("analysing_start") }),
          h(
            "span",
            { role: "status", "aria-live": "polite" },
            progressText(t, done, total),
          ),
        ),
      );
    }
    if (error) parts.push(h("p", { class: "analysis-error", role: "alert", "data-testid": "analysis-error" }, error));
    if (state === "done" && analysis) {
      parts.push(drawAnalysis(analysis, { app, t, matchId, seatName: seatName(), own: true, jump, words }));
      const box = h("div", { class: "analysis-share" });
      if (shareUrl) {
        if (shareInput.value !== shareUrl) shareInput.value = shareUrl;
        shareInput.setAttribute("aria-label", t("shared_link"));
        box.append(
          h("span", {}, t("shared_link")),
          shareInput,
          h("button", { type: "button", "data-testid": "copy-share", onclick: () => void copy() }, t("copy")),
          copied
            ? h(
                "span",
                { class: "copied", role: "status", "data-testid": "share-copied", "data-how": copied },
                t(copied === "copied" ? "copied" : "copy_by_hand"),
              )
            : "",
        );
      } else {
        box.append(h("button", { type: "button", "data-testid": "share", onclick: () => void share() }, t("share")));
      }
      parts.push(box);
    }
    root.replaceChildren(...parts);
  }

  return {
    root,
    update(next, over, nextSummary) {
      summary = nextSummary;
      const changed = next.seat !== viewer.seat || next.token !== viewer.token;
      viewer = next;
      root.hidden = !over || next.seat === null;
      if (changed) {
        // Another seat (a log-in): nothing of the last one stays.
        generation++;
        window.clearTimeout(timer);
        state = "idle";
        analysis = null;
        progress = null;
        error = "";
        shareUrl = "";
      }
      if (!root.hidden && (changed || root.childElementCount === 0)) {
        draw();
        if (state === "idle") void look();
      }
    },
    draw() {
      if (!root.hidden) draw();
    },
    destroy() {
      generation++;
      window.clearTimeout(timer);
    },
  };
}

// -- the shared analysis page ------------------------------------------------------------------------

/** `/match/{id}/analysis/{seat}`: an analysis its owner shared (or the owner's own), for anyone. */
export function analysisPage(root: HTMLElement, matchId: string, seat: number, app: AppContext): Page {
  const t = translator(MESSAGES, () => app.lang());
  const viewer = viewerFor(matchId, seat);
  let summary: MatchSummary | null = null;
  let answer: AnalysisAnswer | null = null;
  let error = "";
  let timer: number | undefined;
  let destroyed = false;
  const title = h("h2", { class: "match-title" });
  const body = h("div", { class: "analysis-panel analysis-page-body", "data-testid": "analysis-page" });
  const links = h("nav", { class: "match-links" });
  root.append(h("div", { class: "analysis-page" }, title, body, links));

  function seatName(): string {
    return seatLabel(app, summary, seat, null);
  }

  /** A move in the log's words (no board here: the game's words alone), once the match is known. */
  function words(mover: number, move: string): string {
    const match = summary;
    const of = match ? wordsOf(match.game) : null;
    if (!match || !of) return move;
    return of.say(
      { version: 0, seat: mover, move },
      {
        t: translator(of.messages, () => app.lang()),
        seatName: (other) => seatLabel(app, match, other, null),
        viewer: null,
        options: match.options,
      },
    );
  }

  function draw(): void {
    title.textContent = t("analysis_of", { name: summary ? `${summary.title} — ${seatName()}` : seatName() });
    body.dataset.state = error ? "error" : (answer?.status ?? "loading");
    if (error) {
      body.replaceChildren(h("p", { class: "analysis-error", role: "alert", "data-testid": "analysis-error" }, error));
    } else if (answer?.status === "running") {
      body.replaceChildren(
        h(
          "div",
          {
            class: "analysis-progress",
            "data-testid": "analysis-progress",
            "data-done": answer.done,
            "data-total": answer.total,
          },
          h("progress", { max: Math.max(1, answer.total), value: answer.done, "aria-label": t("analysing_start") }),
          h("span", { role: "status" }, progressText(t, answer.done, answer.total)),
        ),
      );
    } else if (answer) {
      body.replaceChildren(drawAnalysis(answer, { app, t, matchId, seatName: seatName(), own: false, words }));
    } else {
      body.replaceChildren(h("p", {}, t("analysing_start")));
    }
    links.replaceChildren(
      h("a", { href: `/match/${matchId}/replay`, "data-link": true, "data-testid": "analysis-replay" }, t("replay")),
      h("a", { href: `/match/${matchId}`, "data-link": true }, t("match")),
      h("a", { href: "/", "data-link": true }, t("back_lobby")),
    );
  }

  async function load(polls: number): Promise<void> {
    try {
      const got = await analysisApi.get(matchId, seat, viewer.token);
      answer = got.status === "none" ? null : got;
      error = got.status === "none" ? t("not_found") : "";
    } catch (err) {
      error =
        err instanceof ApiError && err.status === 403
          ? t("not_shared")
          : err instanceof ApiError && err.status === 404
            ? t("not_found")
            : t("failed", { message: errorText(app, err) });
    }
    if (destroyed) return;
    draw();
    if (answer?.status === "running" && polls < MAX_POLLS) {
      timer = window.setTimeout(() => void load(polls + 1), POLL_MS);
    }
  }

  void api
    .match(matchId)
    .then((next) => {
      summary = next;
      if (!destroyed) draw();
    })
    .catch(() => undefined);
  void load(0);
  draw();

  return {
    setLang() {
      draw();
    },
    destroy() {
      destroyed = true;
      window.clearTimeout(timer);
    },
  };
}

// -- the hint button (live match page) --------------------------------------------------------------

/** What the hint button reads of the view on screen. */
export interface HintView {
  version: number;
  your_turn: boolean;
  seat: number | null;
}

export interface HintControl {
  root: HTMLElement;
  /** The match as it stands: the button shows only when hints are allowed and it is my turn. */
  update(summary: MatchSummary | null, view: HintView | null, over: boolean): void;
  draw(): void;
  destroy(): void;
}

/**
 * The hint button: asks the hard bot's move for my current decision, then marks every element of the
 * board that plays it (the views mark their moves with `data-action`) and says it in words.  The mark
 * is put back when the view redraws, and dropped at the next version.
 */
export function hintControl(app: AppContext, matchId: string, board: HTMLElement, words?: MoveWords): HintControl {
  const t = translator(MESSAGES, () => app.lang());
  const root = h("div", { class: "hint-control", "data-testid": "hint-control", hidden: true });
  let version = -1;
  let seat: number | null = null;
  let allowed = false;
  let busy = false;
  let hint: Hint | null = null;
  let error = "";
  let destroyed = false;

  function mark(): void {
    for (const el of board.querySelectorAll(".hinted")) {
      if (!hint || el.getAttribute("data-action") !== String(hint.action.id)) el.classList.remove("hinted");
    }
    if (!hint) return;
    for (const el of board.querySelectorAll(`[data-action="${hint.action.id}"]`)) el.classList.add("hinted");
  }
  // Views redraw their moves on each update and selection: the mark follows (class changes are not watched).
  const observer = new MutationObserver(() => mark());
  observer.observe(board, { childList: true, subtree: true });

  async function ask(): Promise<void> {
    if (busy || seat === null) return;
    busy = true;
    error = "";
    draw();
    const asked = version;
    try {
      const answer = await analysisApi.hint(matchId, seat, viewerFor(matchId, seat).token);
      if (destroyed) return;
      // A hint for a position already gone is dropped.
      if (asked === version) hint = answer;
    } catch (err) {
      error = t("hint_failed", { message: errorText(app, err) });
    } finally {
      busy = false;
    }
    if (destroyed) return;
    mark();
    draw();
  }

  /** Drawn again while asking and when the answer comes: the button keeps the keyboard's focus. */
  function draw(): void {
    redrawKeepingFocus(root, drawControl);
  }

  function drawControl(): void {
    root.hidden = !allowed && !hint;
    root.replaceChildren();
    if (root.hidden) return;
    if (allowed) {
      root.append(
        h(
          "button",
          // aria-disabled, not disabled, while asking: a disabled button could not keep the focus
          {
            type: "button",
            "data-testid": "hint",
            title: t("hint_help"),
            "aria-disabled": busy ? "true" : null,
            onclick: () => void ask(),
          },
          t("hint"),
        ),
      );
    }
    if (busy) root.append(h("span", { class: "hint-text" }, t("hint_wait")));
    else if (hint)
      root.append(
        h(
          "span",
          { class: "hint-text", role: "status", "data-testid": "hint-text", "data-action": hint.action.id },
          t("hint_text", { move: seat === null ? hint.action.label : (words?.(seat, hint.action.label) ?? hint.action.label) }),
        ),
      );
    if (error) root.append(h("span", { class: "hint-error", role: "alert", "data-testid": "hint-error" }, error));
  }

  return {
    root,
    update(summary, view, over) {
      const next = view?.version ?? -1;
      if (next !== version) {
        hint = null;
        error = "";
        version = next;
        mark();
      }
      seat = view?.seat ?? null;
      allowed = Boolean((summary as HintSummary | null)?.hints) && !over && seat !== null && Boolean(view?.your_turn);
      draw();
    },
    draw,
    destroy() {
      destroyed = true;
      observer.disconnect();
    },
  };
}
