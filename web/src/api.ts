/**
 * The server's REST API and the match WebSocket (with reconnection), and who the player is: the
 * session (a cookie the server sets; `GET /api/me` tells its player and CSRF token) and the seat
 * tokens of API-style seats kept in localStorage when there is one.
 */
import type { ChatLine, Lang, MatchEnd, MatchSummary, MatchView, Rating } from "./games/contract";
import { store } from "./store";

export interface OptionInfo {
  name: string;
  type: string;
  default: unknown;
  allowed: unknown[];
  help: string;
  /** The option means something only while another one has this value (a form hides it otherwise). */
  only_with?: { option: string; value: unknown } | null;
}

export interface GameInfo {
  name: string;
  title: string;
  rules_version: string | number;
  options: OptionInfo[];
  /** Players with the default options (the seats when no `players` option says otherwise). */
  players?: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds to wait, from a 429's Retry-After. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

/** The player behind the session: a guest (a name and a cookie) or an account (a username). */
export interface Player {
  id: string;
  name: string;
  kind: "guest" | "account";
  username: string | null;
}

export interface Me {
  player: Player | null;
  /** Sent back as X-CSRF-Token on every request that changes something. */
  csrf: string | null;
}

/** One of my matches (open or running), with my seat and whether it waits for my move. */
export type MyMatch = MatchSummary & { my_seat: number; my_turn: boolean };

export interface HistoryEntry {
  id: string;
  game: string;
  title: string;
  options: Record<string, unknown>;
  created: string;
  finished: string | null;
  seat: number;
  opponents: { seat: number; name: string | null; kind: string; player: string | null }[];
  result: "won" | "lost" | "draw" | "aborted";
  end: MatchEnd | null;
}

export type Family = "two-player" | "multi-player";

/** A player's rating in one game and family. */
export type GameRating = Rating & { game: string; family: Family };

export interface PlayerPage {
  id: string;
  name: string;
  kind: "guest" | "account";
  created: string;
  matches: HistoryEntry[];
  ratings?: GameRating[];
}

export interface LeaderboardRow extends Rating {
  rank: number;
  /** A bot level's id is `bot:<level>`. */
  player: { id: string; name: string; kind: "account" | "bot" };
}

export interface Leaderboard {
  game: string;
  family: Family;
  min_games: number;
  rows: LeaderboardRow[];
}

/** One rated match of a player's history: the rating after it, and its change. */
export interface RatingPoint {
  match: string | null; // null: a private match, named to its player alone
  at: string;
  rating: number;
  mu: number;
  sigma: number;
  change: number;
}

export interface RatingHistory {
  game: string;
  family: Family;
  history: RatingPoint[];
}

/** The clock chosen at creation (the server adds what it keeps: remaining, running, deadline). */
export type ClockChoice =
  | { kind: "turn"; seconds: number }
  | { kind: "fischer"; base: number; increment: number }
  | { kind: "correspondence"; days: number };

export interface CreateOptions {
  isPrivate?: boolean;
  rated?: boolean;
  clock?: ClockChoice | null;
  atZero?: "lose" | "bot" | null;
}

export interface Joined {
  match: string;
  seat: number;
  token: string;
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

let me: Me = { player: null, csrf: null };
const listeners = new Set<(me: Me) => void>();

export async function call<T>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  retried = false,
): Promise<T> {
  const sent: Record<string, string> = { ...headers };
  if (body !== undefined) sent["content-type"] = "application/json";
  const csrf = me.csrf;
  if (!SAFE.has(method) && csrf) sent["x-csrf-token"] = csrf;
  const response = await fetch(path, {
    method,
    headers: sent,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return undefined as T;
  const data: unknown = await response.json().catch(() => ({}));
  if (!response.ok) {
    const err = data as { code?: string; message?: string };
    const code = err.code ?? "error";
    if (code === "csrf" && !retried) {
      // The session changed behind this page (a log-in in another tab): read its token, try once more.
      await session.load();
      if (me.csrf && me.csrf !== csrf) return call<T>(method, path, body, headers, true);
    }
    const wait = Number(response.headers.get("retry-after"));
    throw new ApiError(
      response.status,
      code,
      err.message ?? response.statusText,
      Number.isFinite(wait) && wait > 0 ? wait : null,
    );
  }
  return data as T;
}

/** The session: who plays in this browser, told to whoever listens (the top bar, the pages). */
export const session = {
  get current(): Me {
    return me;
  },
  set(next: Me): void {
    me = { player: next.player ?? null, csrf: next.csrf ?? null };
    for (const listener of listeners) listener(me);
  },
  subscribe(listener: (me: Me) => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  /** Ask the server who this browser is (at start, and when the session may have changed). */
  async load(): Promise<Me> {
    try {
      session.set(await call<Me>("GET", "/api/me"));
    } catch {
      // Unreachable, or a server without accounts: play on as nobody (seat tokens still work).
    }
    return me;
  },
  /**
   * A player for this browser before it creates or joins a match: a guest with the typed name when
   * there is no session (without one, the server names the guest in the page's language); a guest's
   * name is updated when another one is typed.
   */
  async ensure(name: string, lang: Lang): Promise<Player | null> {
    const player = me.player;
    if (player && (player.kind === "account" || !name || name === player.name)) return player;
    try {
      session.set(await call<Me>("POST", "/api/guest", name ? { name } : { lang }));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null; // a server without accounts
      throw err;
    }
    return me.player;
  },
};

export const api = {
  games: () => call<GameInfo[]>("GET", "/api/games"),
  matches: (status = "all") => call<MatchSummary[]>("GET", `/api/matches?status=${status}`),
  match: (id: string) => call<MatchSummary>("GET", `/api/matches/${id}`),
  /** A new match; only the fields that differ from the server's defaults are sent. */
  create: (game: string, options: Record<string, unknown>, seats: string[], how: CreateOptions = {}) =>
    call<MatchSummary>("POST", "/api/matches", {
      game,
      options,
      seats: seats.map((kind) => ({ kind })),
      ...(how.isPrivate ? { private: true } : {}),
      ...(how.rated ? { rated: true } : {}),
      // The per-turn clock keeps its old field, which every server version reads.
      ...(how.clock?.kind === "turn" ? { turn_seconds: how.clock.seconds } : how.clock ? { clock: how.clock } : {}),
      ...(how.atZero && how.clock && how.clock.kind !== "turn" ? { at_zero: how.atZero } : {}),
    }),
  join: (id: string, body: { name?: string; seat?: number; invite?: string }) => joinOnce(id, body),
  // Seat tokens travel in a header (or the WebSocket's first message), never in a URL: URLs land in logs.
  replay: (id: string, token: string | null) =>
    withSeatToken(id, token, (t) =>
      call<MatchView[]>("GET", `/api/matches/${id}/replay`, undefined, t ? { "x-seat-token": t } : {}),
    ),
  /** The match's chat as this seat (or spectator) may read it (spectators: null while a player may not). */
  chat: (id: string, token: string | null) =>
    withSeatToken(id, token, (t) =>
      call<{ players: ChatLine[]; spectators: ChatLine[] | null }>(
        "GET",
        `/api/matches/${id}/chat`,
        undefined,
        t ? { "x-seat-token": t } : {},
      ),
    ),
  resign: (id: string) => call<MatchSummary>("POST", `/api/matches/${id}/resign`),
  abort: (id: string) => call<MatchSummary>("POST", `/api/matches/${id}/abort`),
  seatToBot: (id: string, seat: number) => call<MatchSummary>("POST", `/api/matches/${id}/seats/${seat}/bot`),
  claim: (id: string) => call<MatchSummary>("POST", `/api/matches/${id}/claim`),
  rematch: (id: string, accept: boolean) => call<MatchSummary>("POST", `/api/matches/${id}/rematch`, { accept }),
  myMatches: () => call<MyMatch[]>("GET", "/api/me/matches"),
  player: (id: string) => call<PlayerPage>("GET", `/api/players/${id}`),
  ratings: (id: string, game: string, family: Family) =>
    call<RatingHistory>(
      "GET",
      `/api/players/${id}/ratings?game=${encodeURIComponent(game)}&family=${encodeURIComponent(family)}`,
    ),
  leaderboard: (game: string, family: Family) =>
    call<Leaderboard>("GET", `/api/leaderboard?game=${encodeURIComponent(game)}&family=${encodeURIComponent(family)}`),
  /** Running matches waiting for the signed-in player's move. */
  waiting: () => call<{ count: number; matches: string[] }>("GET", "/api/me/waiting"),
  signup: async (username: string, password: string) =>
    session.set(await call<Me>("POST", "/api/signup", { username, password })),
  login: async (username: string, password: string) =>
    session.set(await call<Me>("POST", "/api/login", { username, password })),
  logout: async () => {
    try {
      await call<undefined>("POST", "/api/logout");
    } finally {
      seats.forgetAll(); // a shared computer: the seats stay with the player, not with the browser
      session.set({ player: null, csrf: null });
    }
  },
  /** A new password: every session ends, this browser's too, which is given a new one. */
  password: async (oldPassword: string, newPassword: string) =>
    session.set(await call<Me>("POST", "/api/password", { old_password: oldPassword, new_password: newPassword })),
};

/** Seat tokens (when a join answered one) are kept per match where storage works; the session
 * cookie gives the seat back anyway, so a browser without storage, or another device, plays on. */
export interface SeatKey {
  seat: number;
  token: string;
}

const SEAT_PREFIX = "masques.seat.";

export const seats = {
  get(matchId: string): SeatKey | null {
    const raw = store.get(SEAT_PREFIX + matchId);
    if (!raw) return null;
    try {
      const key = JSON.parse(raw) as SeatKey;
      return typeof key.token === "string" && typeof key.seat === "number" ? key : null;
    } catch {
      return null;
    }
  },
  set(matchId: string, key: SeatKey): void {
    store.set(SEAT_PREFIX + matchId, JSON.stringify(key));
  },
  forget(matchId: string): void {
    store.remove(SEAT_PREFIX + matchId);
  },
  forgetAll(): void {
    for (const key of store.keys(SEAT_PREFIX)) store.remove(key);
  },
};

/** A request that carries this browser's seat token for the match: a token the server has ended
 * (its account's password changed) is forgotten, and the request made again with the session. */
export async function withSeatToken<T>(
  matchId: string,
  token: string | null,
  request: (token: string | null) => Promise<T>,
): Promise<T> {
  try {
    return await request(token);
  } catch (err) {
    if (!token || !(err instanceof ApiError) || err.status !== 403 || err.code !== "bad_token") throw err;
    seats.forget(matchId);
    return request(null);
  }
}

/** The name last typed, to fill the name fields (the session's player name comes first). */
export const playerName = {
  get: () => me.player?.name ?? store.get("masques.name") ?? "",
  set: (name: string) => store.set("masques.name", name),
};

export type ChatChannel = "players" | "spectators";

export interface ServerMessage {
  type: "state" | "presence" | "error" | "chat";
  match?: MatchSummary;
  code?: string;
  message?: string;
  /** error: seconds to wait before trying again (a refusal for too many messages). */
  retry_after?: number;
  /** chat: the channel, its lines, and whether they are its whole history (on connect, at the end). */
  channel?: ChatChannel;
  lines?: ChatLine[];
  history?: boolean;
}

/**
 * A match connection that reconnects after a drop (1 s, then up to 5 s apart).  Its first message is
 * always a hello, with the seat token when there is one (the server sends nothing before it).
 */
export class MatchSocket {
  private ws: WebSocket | null = null;
  private closed = false;
  private retry = 0;
  private timer: number | undefined;

  constructor(
    private readonly matchId: string,
    private readonly token: string | null,
    private readonly onMessage: (message: MatchView | ServerMessage) => void,
    private readonly onStatus: (status: "open" | "lost" | "refused") => void,
  ) {
    this.open();
  }

  private open(): void {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/matches/${this.matchId}`);
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify(this.token ? { type: "hello", token: this.token } : { type: "hello" }));
      this.retry = 0;
      this.onStatus("open");
    };
    ws.onmessage = (event) => {
      this.onMessage(JSON.parse(String(event.data)) as MatchView | ServerMessage);
    };
    ws.onclose = (event) => {
      if (this.closed) return;
      if (event.code === 4403 || event.code === 4404) {
        this.onStatus("refused");
        return;
      }
      this.onStatus("lost");
      this.retry += 1;
      this.timer = window.setTimeout(() => this.open(), Math.min(5000, 1000 * this.retry));
    };
  }

  /** Send a message now; false when the connection is not open (nothing is queued). */
  send(payload: unknown): boolean {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(payload));
    return true;
  }

  close(): void {
    this.closed = true;
    window.clearTimeout(this.timer);
    this.ws?.close();
  }
}

/** A random key for a request that may be sent again (getRandomValues works on plain HTTP too). */
function idempotencyKey(): string {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Join with an Idempotency-Key, sent again when the answer is lost (the network failed): the server
 * gives a retried join the same seat and token, so a lost answer never costs the seat. */
async function joinOnce(id: string, body: { name?: string; seat?: number; invite?: string }): Promise<Joined> {
  const headers = { "idempotency-key": idempotencyKey() };
  for (let attempt = 0; ; attempt++) {
    try {
      return await call<Joined>("POST", `/api/matches/${id}/join`, body, headers);
    } catch (err) {
      if (err instanceof ApiError || attempt >= 2) throw err;
      await new Promise((resolve) => setTimeout(resolve, 500 * (attempt + 1)));
    }
  }
}
