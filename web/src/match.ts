/**
 * The match page: the connection (with reconnection and the seat token kept in localStorage), the
 * turn banner, seats and presence, joining a free seat, the move log, the end with scores and a
 * rematch, and the game's own view.  The replay viewer reuses the same view over the per-step views.
 */
import { api, ApiError, MatchSocket, playerName, seats, type ServerMessage } from "./api";
import { h } from "./dom";
import type { GameModule, GameView, Lang, LogEntry, MatchSummary, MatchView, ViewContext } from "./games/contract";
import { moduleFor } from "./games/index";
import { translator } from "./i18n";

export interface Page {
  setLang(lang: Lang): void;
  destroy(): void;
}

export interface AppContext {
  lang(): Lang;
  t(key: string, params?: Record<string, string | number>): string;
  navigate(path: string): void;
}

/** How the shell names a seat: "You", a player's name, "Hard bot", or "Seat 2" when open. */
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
  readonly root = h("div", { class: "game-view" });

  constructor(
    private readonly app: AppContext,
    private readonly seatName: (seat: number) => string,
    private readonly act: (actionId: number) => void,
  ) {}

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
      this.view = module.create(ctx);
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

  destroy(): void {
    this.view?.destroy();
    this.view = null;
  }
}

interface Outcome {
  scores: number[] | null;
  winners: number[];
}

/** The end of a game: the server's `result` (any game), or else what the observation tells. */
function outcome(view: MatchView): Outcome | null {
  if (view.to_move !== null) return null;
  if (view.result) return { scores: view.result.scores, winners: view.result.winners };
  const obs = (view.observation ?? {}) as Record<string, unknown>;
  const scores = (obs.scores ?? obs.points ?? null) as number[] | null;
  const winners = (obs.winners ?? []) as number[];
  return { scores: Array.isArray(scores) ? scores : null, winners: Array.isArray(winners) ? winners : [] };
}

export function matchPage(root: HTMLElement, matchId: string, app: AppContext): Page {
  let key = seats.get(matchId);
  let summary: MatchSummary | null = null;
  let current: MatchView | null = null;
  let socket: MatchSocket | null = null;
  let connection: "connecting" | "open" | "lost" | "refused" = "connecting";
  let deadlineTimer: number | undefined;
  let notice = "";

  const mine = () => (current ? current.seat : (key?.seat ?? null));
  const seatName = (seat: number) => seatLabel(app, summary, seat, mine());
  const host = new ViewHost(app, seatName, (id) => {
    if (!current || !current.your_turn) return;
    if (!current.legal.some((a) => a.id === id)) return;
    socket?.send({ type: "action", action: id, version: current.version });
  });

  const title = h("h2", { class: "match-title" });
  const banner = h("div", { class: "banner", role: "status", "aria-live": "polite", "data-testid": "banner" });
  const seatList = h("ul", { class: "seats", "aria-label": "seats" });
  const joinPanel = h("div", { class: "join-panel" });
  const nameInput = h("input", { type: "text", value: playerName.get(), maxlength: 40, name: "player-name" });
  const endPanel = h("section", { class: "end-panel", hidden: true, "data-testid": "end" });
  const logList = h("ol", { class: "log", "data-testid": "log" });
  const logTitle = h("h3", {});
  const links = h("nav", { class: "match-links" });
  const pageEl = h(
    "div",
    { class: "match-page", "data-turn": "connecting" },
      h("div", { class: "match-head" }, title, banner, seatList, joinPanel),
      h(
        "div",
        { class: "match-body" },
        h("main", { class: "board-area" }, host.root),
        h("aside", { class: "side" }, endPanel, h("section", { class: "log-panel" }, logTitle, logList), links),
      ),
  );
  root.append(pageEl);

  function connect(): void {
    socket?.close();
    connection = "connecting";
    socket = new MatchSocket(matchId, key?.token ?? null, onMessage, (status) => {
      if (status === "refused" && key) {
        // The token no longer holds a seat here (another database?): watch instead.
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

  function onMessage(message: MatchView | ServerMessage): void {
    if (message.type === "state") {
      const view = message as MatchView;
      current = view;
      summary = view.match;
      notice = "";
      host.update(view.match.game, view);
      drawAll();
    } else if (message.type === "presence" && message.match) {
      summary = message.match;
      drawHead();
    } else if (message.type === "error") {
      notice = app.t("error", { message: message.message ?? message.code ?? "" });
      drawHead();
      if (message.code === "stale_version") socket?.send({ type: "sync" });
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
    if (summary.status === "open") return app.t("waiting_players");
    if (current.to_move === null) return app.t("game_over");
    if (current.your_turn) return app.t("your_turn");
    return app.t("turn_of", { name: seatName(current.to_move) });
  }

  /** What the page shows, for people (the banner) and for tests (data-turn, data-version). */
  function turnState(): string {
    if (!current || !summary || connection === "lost") return "connecting";
    if (current.to_move === null) return "over";
    if (summary.status === "open") return "open";
    return current.your_turn ? "mine" : "waiting";
  }

  function drawHead(): void {
    pageEl.dataset.turn = turnState();
    pageEl.dataset.version = current ? String(current.version) : "";
    pageEl.dataset.seat = current?.seat === null || current === null ? "" : String(current.seat);
    title.textContent = summary ? summary.title : "";
    document.title = summary ? `${summary.title} — ${app.t("title")}` : app.t("title");
    banner.replaceChildren(h("span", {}, bannerText()));
    banner.classList.toggle("mine", Boolean(current?.your_turn));
    if (current && current.seat === null && summary?.status !== "open") {
      banner.append(h("span", { class: "role" }, app.t("spectating")));
    }
    if (summary?.turn_deadline && current?.to_move !== null) {
      const left = Math.max(0, Math.round(summary.turn_deadline - Date.now() / 1000));
      banner.append(h("span", { class: "clock" }, `${left} s`));
      window.clearTimeout(deadlineTimer);
      deadlineTimer = window.setTimeout(drawHead, 1000);
    }
    if (notice && connection !== "refused") banner.append(h("span", { class: "notice" }, notice));
    seatList.replaceChildren(
      ...(summary?.seats ?? []).map((info) =>
        h(
          "li",
          {
            class: [
              "seat",
              `seat-${info.seat}`,
              info.connected || info.kind !== "human" ? "online" : "offline",
              current?.to_move === info.seat ? "to-move" : "",
            ].join(" "),
          },
          h("span", { class: "seat-dot", "aria-hidden": "true" }),
          info.kind === "human" && !info.taken ? app.t("open_seat") : seatName(info.seat),
        ),
      ),
    );
    drawJoin();
  }

  function drawJoin(): void {
    joinPanel.replaceChildren();
    if (!summary || summary.status !== "open") return;
    if (key) {
      joinPanel.append(h("p", { class: "share" }, app.t("share"), " ", h("code", {}, location.href)));
      return;
    }
    const free = summary.seats.filter((info) => info.kind === "human" && !info.taken);
    if (free.length === 0) return;
    const name = nameInput; // kept across redraws, so what a person types survives updates
    name.setAttribute("aria-label", app.t("your_name"));
    name.placeholder = app.t("your_name");
    joinPanel.append(name);
    for (const info of free) {
      joinPanel.append(
        h(
          "button",
          {
            type: "button",
            class: "primary",
            "data-seat": info.seat,
            onclick: () => void join(name.value.trim() || app.t("seat", { n: info.seat + 1 }), info.seat),
          },
          app.t("join_as", { n: info.seat + 1 }),
        ),
      );
    }
  }

  async function join(name: string, seat: number): Promise<void> {
    try {
      playerName.set(name);
      const joined = await api.join(matchId, name, seat);
      key = { seat: joined.seat, token: joined.token };
      seats.set(matchId, key);
      connect();
    } catch (err) {
      notice = app.t("error", { message: err instanceof ApiError ? err.message : String(err) });
      drawHead();
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

  function drawEnd(): void {
    const result = current ? outcome(current) : null;
    endPanel.hidden = result === null;
    if (!result || !summary) return;
    const names = result.winners.map(seatName);
    const column = host.result(current!) ?? (result.scores ? { title: app.t("score"), values: result.scores } : null);
    const rows = summary.seats.map((info) =>
      h(
        "tr",
        { class: result.winners.includes(info.seat) ? "winner" : "" },
        h("th", { scope: "row" }, seatName(info.seat)),
        h("td", {}, column ? String(column.values[info.seat]) : ""),
      ),
    );
    endPanel.replaceChildren(
      h("h3", {}, app.t("game_over")),
      h(
        "p",
        { class: "winners" },
        names.length === 0 || names.length === summary.seats.length
          ? app.t("draw")
          : app.t(names.length > 1 ? "winners" : "winner", { names: names.join(", ") }),
      ),
      column
        ? h(
            "table",
            { class: "scores" },
            h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", { scope: "col" }, column.title))),
            h("tbody", {}, ...rows),
          )
        : "",
      h(
        "div",
        { class: "end-actions" },
        h("button", { type: "button", class: "primary", "data-testid": "rematch", onclick: () => void rematch() }, app.t("rematch")),
        h("a", { href: `/match/${matchId}/replay`, "data-link": true, class: "button" }, app.t("replay")),
      ),
    );
  }

  async function rematch(): Promise<void> {
    try {
      const next = await api.rematch(matchId);
      if (key) {
        const mySeat = key.seat;
        const joined = await api.join(next.id, playerName.get() || app.t("seat", { n: mySeat + 1 }), mySeat);
        seats.set(next.id, { seat: joined.seat, token: joined.token });
      }
      app.navigate(`/match/${next.id}`);
    } catch (err) {
      notice = app.t("error", { message: err instanceof ApiError ? err.message : String(err) });
      drawHead();
    }
  }

  function drawLinks(): void {
    links.replaceChildren(h("a", { href: "/", "data-link": true }, app.t("back_lobby")));
  }

  drawAll();
  connect();

  return {
    setLang(lang) {
      host.setLang(lang);
      drawAll();
    },
    destroy() {
      window.clearTimeout(deadlineTimer);
      socket?.close();
      host.destroy();
    },
  };
}
