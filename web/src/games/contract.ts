/**
 * The contract between the match page (shell) and each game's view.
 *
 * The shell owns the WebSocket, the lobby, the turn banner, the move log, the end screen, the replay
 * controls and the language switch.  A game view only draws one `MatchView` (exactly what the server
 * sent this seat; never more) and reports the action a person chose through `ctx.act`.  Views never
 * talk to the server themselves, so the same view renders live play, spectating and replays.
 */

/** One legal action as the server lists it for the seat to move (empty when it is not your turn). */
export interface LegalAction {
  id: number;
  /** The engine's short text for the move (`action_to_str`). */
  label: string;
  /** The engine's structured form of the move (`action_to_json`), game specific. */
  move: unknown;
}

/** Who holds a seat (an account or a guest); null for bots, open seats and token-only seats. */
export interface SeatPlayer {
  id: string;
  name: string;
  kind: "guest" | "account";
}

export interface SeatSummary {
  seat: number;
  kind: string; // "human" or a bot level
  name: string | null;
  taken: boolean;
  connected: boolean;
  player?: SeatPlayer | null;
  /** Epoch seconds since a human seat has had nobody connected (null while someone is). */
  away_since?: number | null;
  /** Away longer than the grace period: the others may give the seat to a bot or claim the match. */
  abandoned?: boolean;
  /** A person holds the seat (even if a bot plays it for them now): they answer the rematch. */
  person?: boolean;
  /** The seat's team: partners (Masker with 4 players) win and lose together. */
  team?: number;
  /** Lost already while the others play on (a Masker colour gone from the board). */
  out?: boolean;
}

/** How a finished match ended: the losing (resigned, abandoned, out of time) seats and the winners. */
export interface MatchEnd {
  reason: "played" | "resigned" | "aborted" | "claimed" | "timeout" | "time" | string;
  seats: number[];
  winners: number[];
}

/** The one rematch offer of a finished match: each human seat's answer, and the new match once all accept. */
export interface RematchOffer {
  answers: Record<string, boolean>;
  match: string | null;
  declined: boolean;
}

/** A rating as players see it: `rating` is mu rounded to one decimal; leaderboards rank by `ordinal`. */
export interface Rating {
  rating: number;
  mu: number;
  sigma: number;
  ordinal: number;
  games: number;
  provisional: boolean;
}

/** A seat's rating before and after a rated match (change = after.rating - before.rating). */
export interface RatingChange {
  before: Rating;
  after: Rating;
  change: number;
}

/**
 * A match's clock: per turn (today's), Fischer (a total per player plus an increment per move) or
 * correspondence (days per move).  `remaining` holds each seat's seconds at the start of the current
 * turn; the running seat's live time is `deadline - now` on the server's clock (`now` says when the
 * summary was made, so that a client corrects its own clock's skew).
 */
export interface MatchClock {
  kind: "turn" | "fischer" | "correspondence";
  seconds?: number;
  base?: number;
  increment?: number;
  days?: number;
  at_zero: "lose" | "bot";
  /** Null before the match starts (the time control alone). */
  remaining: (number | null)[] | null;
  running: number | null;
  deadline: number | null;
  now: number;
}

/** One chat line; `text` is plain text (drawn as text, never as HTML). */
export interface ChatLine {
  id: number;
  seat: number | null;
  name: string;
  player: string | null;
  text: string;
  at: string;
  version: number;
}

export interface MatchSummary {
  id: string;
  game: string;
  title: string;
  options: Record<string, unknown>;
  status: "open" | "running" | "finished" | "expired";
  version: number;
  rematch_of: string | null;
  turn_seconds: number;
  turn_deadline: number | null;
  /** The creator chose the seed (practice against bots): they may know the deal. */
  seeded?: boolean;
  seats: SeatSummary[];
  spectators: number;
  /** ISO dates of the creation and of the end (null before it). */
  created?: string;
  finished?: string | null;
  /** Not listed in the lobby; joined with the invite code. */
  private?: boolean;
  /** The invite code, in the views of seated players (and the creation's answer) of a private match. */
  invite?: string;
  end?: MatchEnd | null;
  grace_seconds?: number;
  rematch?: RematchOffer | null;
  /** Whether the match may still be aborted (running, some human has not moved), when the server says. */
  can_abort?: boolean;
  /** A rated match (accounts and bots only): its end moves the seats' ratings. */
  rated?: boolean;
  clock?: MatchClock | null;
  /** After a rated match ended: each seat's rating before and after. */
  ratings?: RatingChange[] | null;
}

export interface LogEntry {
  version: number;
  seat: number;
  move: string;
}

/** A `state` message from the server: one seat's (or a spectator's, seat = null) whole picture. */
export interface MatchView {
  type: "state";
  match: MatchSummary;
  version: number;
  seat: number | null;
  to_move: number | null;
  your_turn: boolean;
  /** The engine's `observation(seat)`, game specific (see each game's `observation` docstring). */
  observation: unknown;
  legal: LegalAction[];
  log: LogEntry[];
  /** Once the match is over: the engine's `scores()` per seat (null when the game did not reach its
   * end: resigned, aborted, claimed), the winners and how it ended; null before. */
  result: { scores: number[] | null; winners: number[]; reason?: string } | null;
  /** A private match's invite code, for its seated players. */
  invite?: string;
  /** Watching as a spectator (seat = null), the seat this person holds, which a bot plays or played
   * to the end: what it saw was the bot's, not theirs; they may still answer the rematch offer. */
  held_seat?: number | null;
  /** In a replay's steps: the players' chat lines said while the match stood at this step. */
  chat?: ChatLine[];
}

export type Lang = "en" | "fr";

/** Strings of one game's view, per language; keys are the view's own. `{name}` placeholders allowed. */
export type Messages = Record<Lang, Record<string, string>>;

export interface ViewContext {
  /** The element the view owns entirely (the shell never touches its children). */
  root: HTMLElement;
  lang: Lang;
  /** Translate one of this view's own message keys, filling `{name}` placeholders. */
  t(key: string, params?: Record<string, string | number>): string;
  /** Names to show for seats ("You", a player's name, "Hard bot"...), already translated. */
  seatName(seat: number): string;
  /** Play an action: the shell sends it with the current version. Only ids from `view.legal` are valid. */
  act(actionId: number): void;
}

export interface GameView {
  /** Draw this view (called on every new state, and on every replay step). */
  update(view: MatchView): void;
  /**
   * Optional: one move of the log in words, without the player's name (the shell puts it first),
   * e.g. "steps onto c4 and captures a red cross".  Without it the log shows the engine's text.
   */
  describe?(entry: LogEntry): string;
  /**
   * Optional: what the end table shows per seat, with its column title, when the observation's
   * `scores` (or `points`) are not the measure of the game (e.g. cards left in hand).
   */
  result?(view: MatchView): { title: string; values: (number | string)[] } | null;
  /** Called when the language changes; redraw texts. */
  setLang?(lang: Lang): void;
  /** Remove listeners, animation loops and WebGL contexts. */
  destroy(): void;
  /** Optional: settles once the view can describe moves (its code loaded); the shell then redraws. */
  whenReady?(): Promise<void>;
}

export interface GameModule {
  name: string; // the engine's game name: "masker", "maske", "mascarade", "blokus3d"
  messages: Messages;
  create(ctx: ViewContext): GameView;
}
