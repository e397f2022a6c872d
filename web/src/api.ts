/** The server's REST API and the match WebSocket (with reconnection). */
import type { MatchSummary, MatchView } from "./games/contract";

export interface OptionInfo {
  name: string;
  type: string;
  default: unknown;
  allowed: unknown[];
  help: string;
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
  ) {
    super(message);
  }
}

async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return undefined as T;
  const data: unknown = await response.json().catch(() => ({}));
  if (!response.ok) {
    const err = data as { code?: string; message?: string };
    throw new ApiError(response.status, err.code ?? "error", err.message ?? response.statusText);
  }
  return data as T;
}

export const api = {
  games: () => call<GameInfo[]>("GET", "/api/games"),
  matches: (status = "all") => call<MatchSummary[]>("GET", `/api/matches?status=${status}`),
  match: (id: string) => call<MatchSummary>("GET", `/api/matches/${id}`),
  create: (game: string, options: Record<string, unknown>, seats: string[], turnSeconds = 0) =>
    call<MatchSummary>("POST", "/api/matches", {
      game,
      options,
      seats: seats.map((kind) => ({ kind })),
      turn_seconds: turnSeconds,
    }),
  join: (id: string, name: string, seat?: number) => joinOnce(id, name, seat),
  rematch: (id: string) => call<MatchSummary>("POST", `/api/matches/${id}/rematch`),
  // Seat tokens travel in a header (or the WebSocket's first message), never in a URL: URLs land in logs.
  replay: (id: string, token: string | null) =>
    call<MatchView[]>("GET", `/api/matches/${id}/replay`, undefined, token ? { "x-seat-token": token } : {}),
};

/** Seat tokens are kept in localStorage per match, so a reload (or a new tab) plays on. */
export interface SeatKey {
  seat: number;
  token: string;
}

export const seats = {
  get(matchId: string): SeatKey | null {
    const raw = localStorage.getItem(`masques.seat.${matchId}`);
    if (!raw) return null;
    try {
      const key = JSON.parse(raw) as SeatKey;
      return typeof key.token === "string" && typeof key.seat === "number" ? key : null;
    } catch {
      return null;
    }
  },
  set(matchId: string, key: SeatKey): void {
    localStorage.setItem(`masques.seat.${matchId}`, JSON.stringify(key));
  },
  forget(matchId: string): void {
    localStorage.removeItem(`masques.seat.${matchId}`);
  },
};

export const playerName = {
  get: () => localStorage.getItem("masques.name") ?? "",
  set: (name: string) => localStorage.setItem("masques.name", name),
};

export interface ServerMessage {
  type: "state" | "presence" | "error";
  match?: MatchSummary;
  code?: string;
  message?: string;
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

  send(payload: unknown): void {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(payload));
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
async function joinOnce(id: string, name: string, seat?: number): Promise<{ match: string; seat: number; token: string }> {
  const headers = { "idempotency-key": idempotencyKey() };
  for (let attempt = 0; ; attempt++) {
    try {
      return await call<{ match: string; seat: number; token: string }>(
        "POST",
        `/api/matches/${id}/join`,
        { name, seat },
        headers,
      );
    } catch (err) {
      if (err instanceof ApiError || attempt >= 2) throw err;
      await new Promise((resolve) => setTimeout(resolve, 500 * (attempt + 1)));
    }
  }
}
