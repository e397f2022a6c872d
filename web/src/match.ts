/**
 * The match page: the connection (with reconnection; the session cookie gives the player's seat, a
 * stored seat token still wins), the turn banner, seats and presence, joining a free seat (with a
 * private match's invite code), the invite link, resign / abort / an abandoned seat's fate, the move
 * log, the end with its reason, scores and the one shared rematch offer, and the game's own view.
 * The replay viewer reuses the same view over the per-step views.
 */
import { errorText, type AuthMode } from "./account";
import { alertSettings, showTurn, turnArrived, waiting } from "./alerts";
import { analysisPanel, hintControl, viewerFor } from "./analysis";
import { api, ApiError, MatchSocket, playerName, seats, session, type ServerMessage } from "./api";
import { CHAT_CODES, chatPanel } from "./chat";
import { clockOffset, deadlineText, formatSeconds, hoursLeft, secondsLeft, timeControl } from "./clock";
import { copyText, focusTestId, h, keepFocus, redrawKeepingFocus, replaceKeeping } from "./dom";
import type {
  GameModule,
  GameView,
  Lang,
  LogEntry,
  MatchSummary,
  MatchView,
  Rating,
  SeatSummary,
  ViewContext,
} from "./games/contract";
import { moduleFor } from "./games/index";
import { translator } from "./i18n";
import { Pacer, pace, paceControl } from "./pace";
import { ruleLinked, RULES_TEXT } from "./rules_page";

export interface Page {
  setLang(lang: Lang): void;
  destroy(): void;
}

export interface AppContext {
  lang(): Lang;
  t(key: string, params?: Record<string, string | number>): string;
  navigate(path: string): void;
  /** Open the log-in, sign-up or change-password form of the top bar. */
  openAuth(mode: AuthMode): void;
}

/** How the shell names a seat: "You", a player's name, "Hard bot", or "Seat 2" when open. */
/** "{name} to move", with French's "de" elided before a vowel ("Au tour d'Anna"). */
export function turnOf(t: (key: string, params?: Record<string, string | number>) => string, name: string): string {
  return t(/^[aeiouyàâäéèêëîïôöùûüÿœæ]/i.test(name) ? "turn_of_vowel" : "turn_of", { name });
}

export function seatLabel(app: AppContext, summary: MatchSummary | null, seat: number, mine: number | null): string {
  if (mine !== null && seat === mine) return app.t("you");
  const info = summary?.seats[seat];
  if (!info) return app.t("seat", { n: seat + 1 });
  if (info.kind !== "human") {
    const name = app.t("bot", { level: botLevel(app, info.kind) });
    const twins = summary!.seats.filter((other) => other.kind === info.kind).length;
    return twins > 1 ? `${name} ${seat + 1}` : name;
  }
  return info.name ?? app.t("seat", { n: seat + 1 });
}

const LEVELS: Record<string, Record<Lang, string>> = {
  random: { en: "Random", fr: "hasard" },
  greedy: { en: "Greedy", fr: "glouton" },
  easy: { en: "Easy", fr: "facile" },
  medium: { en: "Medium", fr: "moyen" },
  hard: { en: "Hard", fr: "fort" },
  expert: { en: "Expert", fr: "expert" },
};

export function botLevel(app: AppContext, kind: string): string {
  return LEVELS[kind]?.[app.lang()] ?? kind;
}

/** A game view mounted in `root`, with its own translator; remounted when the game changes. */
export class ViewHost {
  private module: GameModule | null = null;
  private view: GameView | null = null;
  /** Focusable by script only: where a keyboard user's place is kept when a redraw takes their move away. */
  readonly root = h("div", { class: "game-view", tabindex: -1 });
  /** Whether the focus was last given to something of the board (and not since to, or a click on,
   * anything else). */
  private focusInBoard = false;
  private readonly followAttention = (event: Event): void => {
    this.focusInBoard = event.target instanceof Node && this.root.contains(event.target);
  };
  // A view redraws its moves on each update and selection, which drops the focus on the page's body:
  // it is put back on the board, from where Tab reaches the moves drawn now.
  private readonly redrawn = new MutationObserver(() => {
    const active = document.activeElement;
    if (this.focusInBoard && (active === null || active === document.body) && this.root.isConnected) {
      this.root.focus({ preventScroll: true });
    }
  });

  constructor(
    private readonly app: AppContext,
    private readonly seatName: (seat: number) => string,
    private readonly act: (actionId: number) => void,
    /** Called once a newly mounted view's code has loaded (the log and end table may say more). */
    private readonly ready: () => void = () => {},
  ) {
    document.addEventListener("focusin", this.followAttention);
    document.addEventListener("pointerdown", this.followAttention); // a click elsewhere, even on nothing focusable
    this.redrawn.observe(this.root, { childList: true, subtree: true });
  }

  update(game: string, view: MatchView): void {
    if (!this.module || this.module.name !== game) {
      this.view?.destroy();
      this.root.replaceChildren();
      this.root.dataset.game = game;
      const module = moduleFor(game);
      this.module = module;
      const app = this.app;
      const ctx: ViewContext = {
        root: this.root,
        get lang() {
          return app.lang(); // follows the language switch
        },
        t: translator(module.messages, () => this.app.lang()),
        seatName: (seat) => this.seatName(seat),
        act: (id) => this.act(id),
      };
      const created = module.create(ctx);
      this.view = created;
      void created.whenReady?.().then(() => {
        if (this.view === created) this.ready();
      });
    }
    this.view?.update(view);
  }

  setLang(lang: Lang): void {
    this.view?.setLang?.(lang);
  }

  /** The end table's column, as the game's view tells it (or null for the observation's scores). */
  result(view: MatchView): { title: string; values: (number | string)[] } | null {
    return this.view?.result?.(view) ?? null;
  }

  /** A log entry in words, as the game's view tells it (or the engine's text). */
  describe(entry: LogEntry): string {
    return this.view?.describe?.(entry) ?? entry.move;
  }

  /** A move of ``seat`` not yet in the log (a hint, an analysis' moment), in the log's words. */
  readonly words = (seat: number, move: string): string => this.describe({ version: 0, seat, move });

  destroy(): void {
    document.removeEventListener("focusin", this.followAttention);
    document.removeEventListener("pointerdown", this.followAttention);
    this.redrawn.disconnect();
    this.view?.destroy();
    this.view = null;
  }
}

interface Outcome {
  scores: number[] | null;
  winners: number[];
  reason: string | null;
}

/** Whether the match is over: the game reached its end, or the match ended (resigned, aborted...). */
function isOver(view: MatchView | null, summary: MatchSummary | null): boolean {
  return (view !== null && view.to_move === null) || summary?.status === "finished" || summary?.status === "expired";
}

/** The end of a match: the server's `result` and `end` (any game), or else what the observation tells. */
function outcome(view: MatchView, summary: MatchSummary): Outcome | null {
  if (!isOver(view, summary) || summary.status === "expired") return null;
  const end = summary.end ?? null;
  if (view.result) {
    return {
      scores: view.result.scores ?? null,
      winners: end?.winners ?? view.result.winners,
      reason: end?.reason ?? view.result.reason ?? null,
    };
  }
  const obs = (view.observation ?? {}) as Record<string, unknown>;
  const scores = (obs.scores ?? obs.points ?? null) as number[] | null;
  const winners = end?.winners ?? ((obs.winners ?? []) as number[]);
  return {
    scores: Array.isArray(scores) ? scores : null,
    winners: Array.isArray(winners) ? winners : [],
    reason: end?.reason ?? null,
  };
}

/** A human seat away longer than the grace period, by the server's flag or by its clock since. */
function abandoned(info: SeatSummary, grace: number | undefined, now: number): boolean {
  if (info.abandoned) return true;
  return info.kind === "human" && info.away_since != null && grace !== undefined && now - info.away_since >= grace;
}

/** A seat's rating change at the end of a rated match: "27.3 → 28.9 (+1.6)". */
export function ratingChangeText(before: Rating, after: Rating, change: number): string {
  const sign = change > 0 ? "+" : change < 0 ? "−" : "±";
  return `${before.rating.toFixed(1)} → ${after.rating.toFixed(1)} (${sign}${Math.abs(change).toFixed(1)})`;
}

/** The invite link of a private match. */
export function inviteLink(matchId: string, code: string): string {
  return `${location.origin}/match/${matchId}?invite=${encodeURIComponent(code)}`;
}

/** How long a page waits to connect again once told its session or seat changed (a log-in's new
 * cookie arrives with its answer, just after the old session's connections are told). */
const RECONNECT_AFTER_MS = 500;

export function matchPage(root: HTMLElement, matchId: string, app: AppContext): Page {
  let key = seats.get(matchId);
  const urlInvite = new URLSearchParams(location.search).get("invite");
  let summary: MatchSummary | null = null;
  let current: MatchView | null = null;
  let socket: MatchSocket | null = null;
  let connection: "connecting" | "open" | "lost" | "refused" = "connecting";
  let deadlineTimer: number | undefined;
  let awayTimer: number | undefined;
  let clockTimer: number | undefined;
  /** Server minus browser seconds, from the last summary's clock. */
  let offset = 0;
  /** Whether it was my move at the last view (null before the first): an alert on the change only. */
  let wasMine: boolean | null = null;
  let notice = "";
  let confirmResign = false;
  // A request of the page is under way: its buttons say so with aria-disabled, not disabled (a disabled
  // button cannot keep the focus through the redraw), and act and join ignore a second press.
  let busy = false;
  let copied: "" | "copied" | "select" = "";
  /** Whether this page saw the match before its rematch existed: then it follows the players there. */
  let rematchPending = false;
  let destroyed = false;

  const mine = () => (current ? current.seat : (key?.seat ?? null));
  /** The seat this page's person holds: their own, or one a bot plays or played for them (they
   * watch it as a spectator does, and still answer the rematch offer and follow the players). */
  const holder = () => mine() ?? current?.held_seat ?? null;
  const seatName = (seat: number) => seatLabel(app, summary, seat, mine());
  const host = new ViewHost(app, seatName, (id) => {
    if (!current || !current.your_turn) return;
    if (!current.legal.some((a) => a.id === id)) return;
    socket?.send({ type: "action", action: id, version: current.version });
  }, () => drawAll());

  const title = h("h2", { class: "match-title" });
  const banner = h("div", { class: "banner", role: "status", "aria-live": "polite", "data-testid": "banner" });
  const seatList = h("ul", { class: "seats", "aria-label": "seats" });
  const joinPanel = h("div", { class: "join-panel" });
  const invitePanel = h("div", { class: "invite-panel", "data-testid": "invite", hidden: true });
  const lifecycle = h("div", { class: "lifecycle", "data-testid": "lifecycle" });
  const nameInput = h("input", { type: "text", value: playerName.get(), maxlength: 40, name: "player-name" });
  const inviteInput = h("input", { type: "text", readonly: true, class: "invite-link", "data-testid": "invite-link" });
  const endPanel = h("section", { class: "end-panel", hidden: true, "data-testid": "end" });
  const logList = h("ol", { class: "log", "data-testid": "log" });
  const logTitle = h("h3", {});
  const links = h("nav", { class: "match-links" });
  const chat = chatPanel(app, matchId, (text) => socket?.send({ type: "chat", text }) ?? false);
  const settings = alertSettings(app.t);
  const analysis = analysisPanel(app, matchId, undefined, host.words);
  const hints = hintControl(app, matchId, host.root, host.words);
  const paceSetting = paceControl(app.lang, () => pacer.flush());
  const pacer = new Pacer(showState, () => pace.seconds * 1000, undefined, (n) => paceSetting.setWaiting(n));
  const head = h("div", { class: "match-head" }, title, banner, seatList, joinPanel, invitePanel, lifecycle, hints.root);
  const pageEl = h(
    "div",
    { class: "match-page", "data-turn": "connecting" },
    head,
    h(
      "div",
      { class: "match-body" },
      h("main", { class: "board-area" }, host.root, analysis.root),
      h(
        "aside",
        { class: "side" },
        endPanel,
        chat.root,
        h("section", { class: "log-panel" }, logTitle, logList),
        settings.root,
        paceSetting.root,
        links,
      ),
    ),
  );
  root.append(pageEl);

  function connect(): void {
    socket?.close();
    chat.reset(); // the new connection sends the histories this seat (or spectator) may read
    connection = "connecting";
    socket = new MatchSocket(matchId, key?.token ?? null, onMessage, (status) => {
      if (status === "refused" && key) {
        // The token no longer holds a seat here (another database?): the session's seat, or watch.
        seats.forget(matchId);
        key = null;
        connect();
        return;
      }
      if (status === "refused") notice = app.t("not_found");
      connection = status;
      drawHead();
    });
  }

  /** Show one state (the pacer decides when): the view, the head, the log and the end. */
  function showState(view: MatchView): void {
    current = view;
    notice = "";
    host.update(view.match.game, view);
    setSummary(view.match);
    drawAll();
  }

  function onMessage(message: MatchView | ServerMessage): void {
    if (message.type === "state") {
      pacer.push(message as MatchView);
    } else if (message.type === "presence" && message.match) {
      setSummary(message.match);
      drawHead();
      drawEnd();
    } else if (message.type === "chat" && message.channel) {
      chat.receive(message.channel, message.lines ?? [], message.history === true);
    } else if (message.type === "error" && (message.code === "signed_out" || message.code === "seat_changed")) {
      // signed_out: the session ended (a log-out, perhaps in another tab, which forgot the stored
      // seat tokens; or a log-in, whose new cookie comes a moment later). seat_changed: the seat
      // changed hands, or is now this player's. Either way, connect again a moment later as what
      // this browser holds then: the stored token if any (one the server has ended is refused
      // and forgotten on the way), else the session.
      key = seats.get(matchId);
      window.setTimeout(() => {
        if (!destroyed) connect();
      }, RECONNECT_AFTER_MS);
    } else if (message.type === "error" && isChatRefusal(message.code ?? "")) {
      chat.refused(message.code ?? "", message.message ?? "");
    } else if (message.type === "error") {
      const refusal = new ApiError(0, message.code ?? "", message.message ?? "", message.retry_after ?? null);
      notice = app.t("error", { message: errorText(app, refusal) });
      drawHead();
      if (message.code === "stale_version") socket?.send({ type: "sync" });
    }
  }

  /** A refusal of the chat line just sent (a rate limit is the chat's only while one is pending). */
  function isChatRefusal(code: string): boolean {
    return CHAT_CODES.has(code) && (chat.pending() || code !== "rate_limited");
  }

  /** A newer summary (a state, a presence message, an action's answer); follows a rematch once all accepted. */
  function setSummary(next: MatchSummary): void {
    summary = next;
    if (next.clock) offset = clockOffset(next.clock);
    const rematch = next.rematch ?? null;
    if (!rematch?.match) {
      rematchPending = true;
      return;
    }
    if (rematchPending && holder() !== null && !destroyed) {
      rematchPending = false;
      window.setTimeout(() => app.navigate(`/match/${rematch.match}`), 0);
    }
  }

  function drawAll(): void {
    drawHead();
    drawLog();
    drawEnd();
    drawLinks();
  }

  function bannerText(): string {
    if (connection === "refused") return app.t("not_found");
    if (connection === "lost") return app.t("reconnecting");
    if (!current || !summary) return app.t("connecting");
    if (summary.status === "expired") return app.t("expired");
    if (summary.status === "open") return app.t("waiting_players");
    if (isOver(current, summary)) return app.t("game_over");
    if (current.your_turn) return app.t("your_turn");
    if (current.to_move === null) return app.t("game_over");
    return turnOf(app.t, seatName(current.to_move));
  }

  /** What the page shows, for people (the banner) and for tests (data-turn, data-version). */
  function turnState(): string {
    if (!current || !summary || connection === "lost") return "connecting";
    if (isOver(current, summary)) return "over";
    if (summary.status === "open") return "open";
    return current.your_turn ? "mine" : "waiting";
  }

  function drawHead(): void {
    const restoreFocus = keepFocus(head);
    pageEl.dataset.turn = turnState();
    pageEl.dataset.version = current ? String(current.version) : "";
    pageEl.dataset.seat = current?.seat === null || current === null ? "" : String(current.seat);
    pageEl.dataset.status = summary?.status ?? "";
    title.textContent = summary ? summary.title : "";
    if (summary?.private) title.append(" ", h("span", { class: "private-tag" }, app.t("private")));
    if (summary?.rated) title.append(" ", h("span", { class: "rated-tag", "data-testid": "rated-tag" }, app.t("rated")));
    const control = summary ? timeControl(app.t, summary) : "";
    if (control) {
      const atZero = summary?.clock && summary.clock.kind !== "turn" ? app.t(`at_zero_${summary.clock.at_zero}`) : "";
      title.append(
        " ",
        h("span", { class: "tc-tag", "data-testid": "time-control", title: atZero || null }, control),
      );
    }
    alertTurn();
    chat.setRole(current ? (current.seat !== null ? "players" : "spectators") : null, !!session.current.player);
    banner.replaceChildren(h("span", {}, bannerText()));
    banner.classList.toggle("mine", Boolean(current?.your_turn));
    if (current && current.seat === null && summary?.status !== "open") {
      banner.append(h("span", { class: "role" }, app.t("spectating")));
    }
    window.clearTimeout(deadlineTimer);
    if (summary?.turn_deadline && current?.to_move !== null && !isOver(current, summary)) {
      const left = Math.max(0, Math.round(summary.turn_deadline - (Date.now() / 1000 + offset)));
      banner.append(h("span", { class: "clock" }, `${left} s`));
      deadlineTimer = window.setTimeout(drawHead, 1000);
    }
    if (notice && connection !== "refused")
      banner.append(h("span", { class: "notice", "data-testid": "notice" }, ...ruleLinked(notice)));
    const now = Date.now() / 1000;
    seatList.replaceChildren(
      ...(summary?.seats ?? []).map((info) => {
        const gone = summary?.status === "running" && abandoned(info, summary.grace_seconds, now);
        const away = info.kind === "human" && info.taken && !info.connected && summary?.status !== "finished";
        return h(
          "li",
          {
            class: [
              "seat",
              `seat-${info.seat}`,
              info.connected || info.kind !== "human" ? "online" : "offline",
              current?.to_move === info.seat && !isOver(current, summary) ? "to-move" : "",
              gone ? "abandoned" : "",
            ].join(" "),
            "data-seat": info.seat,
            "data-abandoned": gone ? "true" : null,
          },
          h("span", { class: "seat-dot", "aria-hidden": "true" }),
          info.kind === "human" && !info.taken ? app.t("open_seat") : seatName(info.seat),
          away ? h("small", { class: "away" }, gone ? app.t("seat_left") : app.t("seat_away")) : null,
          seatClock(info.seat),
        );
      }),
    );
    drawClocks();
    drawJoin();
    drawInvite();
    drawLifecycle();
    hints.update(summary, current, isOver(current, summary));
    restoreFocus();
  }

  /** A seat's clock (Fischer and correspondence): filled and kept running by drawClocks. */
  function seatClock(seat: number): HTMLElement | null {
    const clock = summary?.clock;
    if (!clock || (clock.kind !== "fischer" && clock.kind !== "correspondence")) return null;
    if (clock.remaining?.[seat] == null && clock.running !== seat) return null;
    return h("span", { class: "seat-clock", "data-testid": "seat-clock", "data-seat": seat });
  }

  /** Each seat's time: the running seat's counts down (on the server's clock); a correspondence move
   * shows its deadline and the hours left. */
  function drawClocks(): void {
    window.clearTimeout(clockTimer);
    const clock = summary?.clock;
    if (!clock || !summary) return;
    const running = summary.status === "running" && !isOver(current, summary) ? clock.running : null;
    let next = 1000;
    for (const el of seatList.querySelectorAll<HTMLElement>(".seat-clock")) {
      const seat = Number(el.dataset.seat);
      const left = running === seat ? secondsLeft(clock, seat, offset) : (clock.remaining?.[seat] ?? null);
      el.dataset.running = running === seat ? "true" : "false";
      if (left === null) {
        el.textContent = "";
        continue;
      }
      el.dataset.left = String(Math.max(0, Math.round(left * 10) / 10));
      if (clock.kind === "correspondence") {
        const deadline = clock.deadline;
        el.textContent =
          running === seat && deadline !== null
            ? app.t("due", { date: deadlineText(app.lang(), deadline), left: hoursLeft(app.t, left) })
            : "";
        next = 30_000;
      } else {
        el.textContent = formatSeconds(left);
        el.classList.toggle("low", left < 20);
        if (running === seat) next = left < 10 ? 100 : Math.min(next, 250);
      }
    }
    if (running !== null) clockTimer = window.setTimeout(drawClocks, next);
  }

  /** The tab's title and icon follow the turn; the tone and a notification when it becomes mine. */
  function alertTurn(): void {
    if (!summary || !current) return;
    const base = `${summary.title} — ${app.t("title")}`;
    const mineNow = turnState() === "mine";
    showTurn(mineNow, base, app.t("your_turn"));
    if (wasMine !== null && mineNow !== wasMine) {
      if (mineNow) turnArrived(matchId, `${app.t("your_turn")} – ${app.t("title")}`, summary.title);
      waiting.refreshSoon();
    }
    wasMine = mineNow;
  }

  /** The invite code: in the views of seated players (presence messages leave it out), or in the link
   * this page was opened with. */
  function inviteCode(): string | null {
    return current?.invite ?? current?.match.invite ?? summary?.invite ?? urlInvite;
  }

  /** The join panel, redrawn in place: the name field is never taken out of the page while someone
   * types in it (a presence message or a clock tick redraws the head at any moment). */
  function drawJoin(): void {
    replaceKeeping(joinPanel, joinParts());
  }

  function joinParts(): Node[] {
    if (!summary || summary.status !== "open") return [];
    if (mine() !== null) {
      if (summary.private) return [];
      return [h("p", { class: "share" }, app.t("share"), " ", h("code", {}, location.origin + location.pathname))];
    }
    const free = summary.seats.filter((info) => info.kind === "human" && !info.taken);
    if (free.length === 0) return [];
    if (summary.private && !urlInvite) {
      return [h("p", { class: "share", "data-testid": "invite-required" }, app.t("invite_required"))];
    }
    const parts: Node[] = [];
    const player = session.current.player;
    if (!player || player.kind === "guest") {
      const name = nameInput; // kept across redraws, so what a person types survives updates
      if (!name.value && player) name.value = player.name;
      name.setAttribute("aria-label", app.t("your_name"));
      name.placeholder = app.t("your_name");
      parts.push(name);
    }
    for (const info of free) {
      parts.push(
        h(
          "button",
          {
            type: "button",
            class: "primary",
            "data-seat": info.seat,
            "aria-disabled": busy ? "true" : null,
            onclick: () => void join(nameInput.value.trim(), info.seat),
          },
          app.t("join_as", { n: info.seat + 1 }),
        ),
      );
    }
    return parts;
  }

  async function join(typed: string, seat: number): Promise<void> {
    if (busy) return;
    busy = true;
    try {
      const name = typed || app.t("seat", { n: seat + 1 });
      if (typed) playerName.set(typed);
      // A guest already named keeps the name when none is typed (it does not become the seat's number).
      const player = await session.ensure(session.current.player?.kind === "account" ? "" : typed, app.lang());
      const invite = urlInvite ?? undefined;
      // With a session the seat is the player's, under the player's name; without one, the typed name.
      const joined = await api.join(matchId, player ? { seat, invite } : { name, seat, invite });
      if (joined.token) {
        key = { seat: joined.seat, token: joined.token };
        seats.set(matchId, key);
      }
      connect();
    } catch (err) {
      notice = app.t("error", { message: errorText(app, err) });
    } finally {
      busy = false;
      drawHead();
    }
  }

  function drawInvite(): void {
    const code = inviteCode();
    const show = Boolean(
      summary?.private && code && mine() !== null && summary.status !== "finished" && summary.status !== "expired",
    );
    invitePanel.hidden = !show;
    if (!show || !code) {
      invitePanel.replaceChildren();
      return;
    }
    const link = inviteLink(matchId, code);
    if (inviteInput.value !== link) inviteInput.value = link;
    inviteInput.setAttribute("aria-label", app.t("invite_link"));
    invitePanel.replaceChildren(
      h("span", { class: "share" }, app.t("invite_share")),
      inviteInput,
      h(
        "button",
        { type: "button", "data-testid": "copy-invite", onclick: () => void copyInvite(link) },
        app.t("copy"),
      ),
      copied
        ? h(
            "span",
            { class: "copied", role: "status", "data-testid": "invite-copied", "data-how": copied },
            app.t(copied === "copied" ? "copied" : "copy_by_hand"),
          )
        : "",
    );
  }

  /** Copy the invite link: the clipboard API where the page may use it, else the text selected for Ctrl+C. */
  async function copyInvite(link: string): Promise<void> {
    const how = await copyText(link, inviteInput);
    copied = how === "select" ? "select" : "copied";
    drawInvite();
    if (how !== "clipboard") {
      // Left selected: what was copied shows, and Ctrl+C copies it where the browser would not.
      inviteInput.focus();
      inviteInput.select();
    }
  }

  /** Whether the match may still be aborted: running, and some human seat has not moved yet. */
  function canAbort(): boolean {
    if (!summary || summary.status !== "running" || !current) return false;
    if (typeof summary.can_abort === "boolean") return summary.can_abort;
    const humans = summary.seats.filter((info) => info.kind === "human").map((info) => info.seat);
    const log = current.log;
    if (current.version === 0) return true;
    // The log tells who moved only when it holds every move; otherwise offer it and let the server decide.
    if (log.length === 0 || log[0].version !== 1) return true;
    return humans.some((seat) => !log.some((entry) => entry.seat === seat));
  }

  function drawLifecycle(): void {
    lifecycle.replaceChildren();
    window.clearTimeout(awayTimer);
    const me = mine();
    if (!summary || !current || me === null || summary.status !== "running" || isOver(current, summary)) {
      confirmResign = false;
      return;
    }
    const myInfo = summary.seats.find((info) => info.seat === me);
    if (myInfo?.out) {
      // Out of the game already (a Masker colour gone): nothing to resign, the others play on.
      confirmResign = false;
      lifecycle.append(h("span", { class: "hint", "data-testid": "out-of-game" }, app.t("err_already_out")));
    } else if (confirmResign) {
      lifecycle.append(
        h(
          "div",
          { class: "confirm", role: "alertdialog", "data-testid": "resign-dialog" },
          h("span", {}, app.t("resign_confirm")),
          h(
            "button",
            {
              type: "button",
              class: "primary",
              "data-testid": "resign-confirm",
              "aria-disabled": busy ? "true" : null,
              onclick: () => void act(() => api.resign(matchId)),
            },
            app.t("resign_yes"),
          ),
          h(
            "button",
            {
              type: "button",
              "data-testid": "resign-cancel",
              onclick: () => {
                confirmResign = false;
                drawLifecycle();
                focusTestId(lifecycle, "resign");
              },
            },
            app.t("cancel"),
          ),
        ),
      );
    } else {
      lifecycle.append(
        h(
          "button",
          {
            type: "button",
            "data-testid": "resign",
            onclick: () => {
              confirmResign = true;
              drawLifecycle();
              focusTestId(lifecycle, "resign-cancel"); // the answer that changes nothing comes first
            },
          },
          app.t("resign"),
        ),
      );
      if (canAbort()) {
        lifecycle.append(
          h(
            "button",
            {
              type: "button",
              "data-testid": "abort",
              title: app.t("abort_help"),
              "aria-disabled": busy ? "true" : null,
              onclick: () => void act(() => api.abort(matchId)),
            },
            app.t("abort"),
          ),
        );
      }
    }
    // Other humans away: after the grace period their seat can go to a bot, or the match be claimed.
    const now = Date.now() / 1000;
    const grace = summary.grace_seconds;
    const others = summary.seats.filter((info) => info.seat !== me && info.kind === "human" && info.taken && !info.out);
    const gone = others.filter((info) => abandoned(info, grace, now));
    // A claim needs an absent opponent (an absent partner's seat can only go to a bot), and a
    // claimant still in the game: a seat already out has lost either way.
    const myTeam = myInfo?.team ?? me;
    const opponentsGone = gone.filter((info) => (info.team ?? info.seat) !== myTeam);
    for (const info of gone) {
      lifecycle.append(
        h(
          "div",
          { class: "abandoned", "data-testid": "abandoned", "data-seat": info.seat },
          h("span", {}, app.t("left_match", { name: seatName(info.seat) })),
          h(
            "button",
            {
              type: "button",
              "data-testid": "seat-bot",
              "data-seat": info.seat,
              "aria-disabled": busy ? "true" : null,
              onclick: () => void act(() => api.seatToBot(matchId, info.seat)),
            },
            app.t("seat_to_bot"),
          ),
        ),
      );
    }
    if (opponentsGone.length > 0 && !myInfo?.out) {
      lifecycle.append(
        h(
          "button",
          { type: "button", "data-testid": "claim", "aria-disabled": busy ? "true" : null, onclick: () => void act(() => api.claim(matchId)) },
          app.t("claim"),
        ),
      );
    }
    // The others away but not gone yet: the seconds left, redrawn each second until the grace is over.
    if (grace === undefined) return;
    const left = others
      .filter((info) => info.away_since != null && !abandoned(info, grace, now))
      .map((info) => ({ seat: info.seat, seconds: info.away_since! + grace - now }));
    for (const { seat, seconds } of left) {
      lifecycle.append(
        h(
          "span",
          { class: "away-note", "data-testid": "away", "data-seat": seat },
          app.t("away_for", { name: seatName(seat), n: Math.max(0, Math.ceil(seconds)) }),
        ),
      );
    }
    if (left.length > 0) {
      const next = Math.min(...left.map((l) => l.seconds)) * 1000;
      awayTimer = window.setTimeout(drawHead, Math.min(1000, Math.max(50, next + 50)));
    }
  }

  /** A lifecycle action (resign, abort, a seat to a bot, claim, a rematch answer): its answer is the summary. */
  async function act(request: () => Promise<MatchSummary>): Promise<void> {
    if (busy) return;
    busy = true;
    notice = "";
    drawHead();
    try {
      const next = await request();
      confirmResign = false;
      if (!destroyed && next && typeof next === "object" && "seats" in next) setSummary(next);
    } catch (err) {
      notice = app.t("error", { message: errorText(app, err) });
    } finally {
      busy = false;
      if (!destroyed) {
        drawHead();
        drawEnd();
      }
    }
  }

  function drawLog(): void {
    logTitle.textContent = app.t("log");
    const entries = current?.log ?? [];
    if (entries.length === 0) {
      logList.replaceChildren(h("li", { class: "empty" }, app.t("no_log")));
      return;
    }
    logList.replaceChildren(
      ...entries.map((entry) =>
        h(
          "li",
          { class: `seat-${entry.seat}`, value: entry.version },
          h("strong", {}, seatName(entry.seat)),
          " ",
          host.describe(entry),
        ),
      ),
    );
    logList.scrollTop = logList.scrollHeight;
  }

  /** How the match ended, in words: who resigned or left, or that it was aborted. */
  function reasonText(reason: string | null): string {
    const seats = summary?.end?.seats ?? [];
    const me = mine();
    const who = seats.map(seatName).join(", ");
    // Who lost by it: me (alone, or with my team), one other player, or several.
    const form =
      me !== null && seats.includes(me) ? (seats.length > 1 ? "_team" : "_you") : seats.length > 1 ? "_many" : "";
    switch (reason) {
      case "resigned":
        return app.t(`end_resigned${form}`, { names: who });
      case "aborted":
        return app.t("end_aborted");
      case "claimed":
        return app.t(`end_claimed${form}`, { names: who });
      case "timeout":
        return app.t("end_timeout");
      case "time":
        return app.t(`end_time${form}`, { names: who });
      case "played":
        return app.t("end_played");
      default:
        return "";
    }
  }

  function drawEnd(): void {
    redrawKeepingFocus(endPanel, drawEndPanel);
  }

  function drawEndPanel(): void {
    // The seat's own analysis, once the match is finished (never for a spectator).
    analysis.update(viewerFor(matchId, current?.seat ?? null), summary?.status === "finished", summary);
    const result = current && summary ? outcome(current, summary) : null;
    endPanel.hidden = result === null;
    if (!result || !summary) return;
    const names = result.winners.map(seatName);
    const column =
      result.reason === null || result.reason === "played" || result.scores
        ? (host.result(current!) ?? (result.scores ? { title: app.t("score"), values: result.scores } : null))
        : null;
    const rows = summary.seats.map((info) =>
      h(
        "tr",
        { class: result.winners.includes(info.seat) ? "winner" : "", "data-seat": info.seat },
        h("th", { scope: "row" }, seatName(info.seat)),
        h("td", {}, column ? String(column.values[info.seat] ?? "") : ""),
      ),
    );
    const winners =
      result.reason === "aborted"
        ? app.t("no_result")
        : names.length === 0 || names.length === summary.seats.length
          ? app.t("draw")
          : app.t(names.length > 1 ? "winners" : "winner", { names: names.join(", ") });
    endPanel.dataset.reason = result.reason ?? "";
    endPanel.replaceChildren(
      h("h3", {}, app.t("game_over")),
      result.reason
        ? h(
            "p",
            { class: "end-reason", "data-testid": "end-reason", "data-reason": result.reason },
            reasonText(result.reason),
          )
        : "",
      h("p", { class: "winners", "data-testid": "winners" }, winners),
      column
        ? h(
            "table",
            { class: "scores" },
            h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", { scope: "col" }, column.title))),
            h("tbody", {}, ...rows),
          )
        : "",
      ratingChanges() ?? "",
      rematchPanel() ?? "",
      h(
        "div",
        { class: "end-actions" },
        h(
          "a",
          { href: `/match/${matchId}/replay`, "data-link": true, class: "button", "data-testid": "replay-link" },
          app.t("replay"),
        ),
      ),
    );
  }

  /** A rated match's end: each seat's rating before and after ("27.3 → 28.9 (+1.6)"). */
  function ratingChanges(): HTMLElement | null {
    const ratings = summary?.ratings;
    if (!summary || !ratings || ratings.length === 0) return null;
    return h(
      "div",
      { class: "rating-changes", "data-testid": "rating-changes" },
      h("h4", {}, app.t("rating")),
      h(
        "ul",
        {},
        ...ratings.map((rating, seat) =>
          h(
            "li",
            { "data-seat": seat },
            h("span", { class: "who" }, seatName(seat)),
            " ",
            h(
              "span",
              {
                class: `rating-change ${rating.change < 0 ? "down" : "up"}`,
                "data-testid": "rating-change",
                "data-seat": seat,
                "data-change": String(rating.change),
              },
              ratingChangeText(rating.before, rating.after, rating.change),
            ),
            rating.after.provisional
              ? h(
                  "small",
                  { class: "provisional", title: app.t("provisional_help", { n: 10 }) },
                  ` ${app.t("provisional")}`,
                )
              : null,
          ),
        ),
      ),
    );
  }

  /** The one rematch offer: who accepted or declined, and my answer (players only, never spectators). */
  function rematchPanel(): HTMLElement | null {
    if (!summary || summary.status !== "finished") return null;
    const offer = summary.rematch ?? null;
    const me = holder();
    const panel = h("div", { class: "rematch", "data-testid": "rematch-panel" });
    if (offer?.match) {
      panel.dataset.state = "created";
      panel.append(
        h(
          "a",
          { href: `/match/${offer.match}`, "data-link": true, class: "button primary", "data-testid": "rematch-link" },
          app.t("rematch_go"),
        ),
      );
      return panel;
    }
    const humans = summary.seats.filter((info) => info.person ?? (info.kind === "human" && info.taken));
    if (offer) {
      panel.dataset.state = offer.declined ? "declined" : "offered";
      panel.append(
        h(
          "p",
          { class: "rematch-status", "data-testid": "rematch-status" },
          offer.declined ? app.t("rematch_declined") : app.t("rematch_offered"),
        ),
        h(
          "ul",
          { class: "rematch-answers" },
          ...humans.map((info) => {
            const answer = offer.answers[String(info.seat)];
            const state = answer === true ? "accepted" : answer === false ? "declined" : "waiting";
            return h(
              "li",
              { "data-seat": info.seat, "data-answer": state, class: state },
              app.t("rematch_answer", {
                name: seatName(info.seat),
                answer: app.t(state === "declined" ? "rematch_declined_one" : `rematch_${state}`),
              }),
            );
          }),
        ),
      );
    } else {
      panel.dataset.state = "none";
    }
    const answered = offer ? String(me) in offer.answers : false;
    if (me !== null && !offer?.declined && !answered && humans.some((info) => info.seat === me)) {
      panel.append(
        h(
          "div",
          { class: "end-actions" },
          h(
            "button",
            {
              type: "button",
              class: "primary",
              "data-testid": "rematch-accept",
              "aria-disabled": busy ? "true" : null,
              onclick: () => void act(() => api.rematch(matchId, true)),
            },
            app.t(offer ? "rematch_accept" : "rematch"),
          ),
          offer
            ? h(
                "button",
                {
                  type: "button",
                  "data-testid": "rematch-decline",
                  "aria-disabled": busy ? "true" : null,
                  onclick: () => void act(() => api.rematch(matchId, false)),
                },
                app.t("rematch_decline"),
              )
            : null,
        ),
      );
    }
    return panel;
  }

  function drawLinks(): void {
    const rules = summary
      ? [
          h(
            "a",
            { href: `/rules/${summary.game}`, "data-link": true, "data-testid": "match-rules" },
            RULES_TEXT[app.lang()].rules,
          ),
        ]
      : [];
    links.replaceChildren(
      h("a", { href: "/", "data-link": true }, app.t("back_lobby")),
      h("a", { href: "/leaderboard", "data-link": true }, app.t("leaderboard")),
      ...rules,
    );
  }

  drawAll();
  chat.draw();
  connect();

  return {
    setLang(lang) {
      host.setLang(lang);
      drawAll();
      chat.draw();
      settings.draw();
      analysis.draw();
      hints.draw();
      paceSetting.draw();
    },
    destroy() {
      destroyed = true;
      pacer.destroy();
      window.clearTimeout(deadlineTimer);
      window.clearTimeout(awayTimer);
      window.clearTimeout(clockTimer);
      showTurn(false, app.t("title"), "");
      socket?.close();
      analysis.destroy();
      hints.destroy();
      host.destroy();
    },
  };
}
