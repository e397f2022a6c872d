/**
 * Moves in the log's words, for each game: the views' log and the pages that show a move without a
 * board (hints, analyses).  The viewer's own moves take the "you" form of the verb: the shell writes
 * "You" / "Vous" first, so that the verb agrees.
 */
import blokus3dMessages from "./blokus3d_messages";
import type { LogEntry, MatchView, Messages, ViewContext } from "./contract";
import mascaradeMessages from "./mascarade_messages";
import maskeMessages from "./maske_messages";
import maskerMessages from "./masker_messages";

/** `key`, or its `_you` form ("You step", "Vous avancez") when the viewer made the move and it exists. */
export function youKey(messages: Messages, key: string, mine: boolean): string {
  return mine && messages.en[`${key}_you`] !== undefined ? `${key}_you` : key;
}

/** What saying a move in words needs, with or without a view on screen (the shared analysis page
 * has none): the game's translator, the seats' names, whose eyes, and the match's options. */
export interface WordsContext {
  t(key: string, params?: Record<string, string | number>): string;
  seatName(seat: number): string;
  /** The seat whose eyes (its own moves take the "you" form of the verb), or null. */
  viewer: number | null;
  /** The match's options (a Maske drop is a pass under the open auction). */
  options: Record<string, unknown>;
}

/** A view's words context: its translator and seats' names, the seat it shows, the match's options. */
export function wordsContext(ctx: ViewContext, view: MatchView | null): WordsContext {
  return { t: ctx.t, seatName: ctx.seatName, viewer: view?.seat ?? null, options: view?.match.options ?? {} };
}

/** One log entry in words, without the player's name (the shell puts it first). */
export type SayMove = (entry: LogEntry, ctx: WordsContext) => string;

function sayer(messages: Messages, entry: LogEntry, ctx: WordsContext) {
  const mine = entry.seat === ctx.viewer;
  return (key: string, params?: Record<string, string | number>): string => ctx.t(youKey(messages, key, mine), params);
}

/** Masker: `c4` -> "steps onto c4", `take 1` -> "takes a cross from Bea", `stop` -> "stops". */
export const sayMasker: SayMove = (entry, ctx) => {
  const say = sayer(maskerMessages, entry, ctx);
  if (entry.move === "stop") return say("log_stop");
  const take = /^take (\d)$/.exec(entry.move);
  if (take) return say("log_take", { name: ctx.seatName(Number(take[1])) });
  return say("log_step", { square: entry.move });
};

/** Mascarade: `card@square` -> "places card 3 on b2", `pass`. */
export const sayMascarade: SayMove = (entry, ctx) => {
  const say = sayer(mascaradeMessages, entry, ctx);
  if (entry.move === "pass") return say("log_pass");
  const [card, square] = entry.move.split("@");
  return say("log_place", { card, square });
};

/** Blokus 3D: `L4:5@c3` -> "places L (L4) at c3" (the orientation's number is the engine's own). */
export const sayBlokus3d: SayMove = (entry, ctx) => {
  const m = /^([A-Z][A-Z0-9]):(\d+)@([a-j]\d+)$/.exec(entry.move);
  if (!m) return entry.move;
  return sayer(blokus3dMessages, entry, ctx)("logPlace", {
    piece: m[1],
    pieceName: ctx.t(`piece_${m[1]}`),
    turn: m[2],
    square: m[3],
  });
};

/** Maske: a hole, a stick's step, a pass or drop, a laid mask's turn, a bid, a chosen stick or player. */
export const sayMaske: SayMove = (entry, ctx) => {
  const say = sayer(maskeMessages, entry, ctx);
  const stickName = (g: number) => ctx.t("stickOf", { name: ctx.seatName(Math.floor(g / 2)), n: (g % 2) + 1 });
  const words = entry.move.split(" ");
  const n = Number(words[1]);
  if (/^[a-g][1-7]$/.test(entry.move)) return say("log_hole", { hole: entry.move });
  switch (words[0]) {
    case "step":
      if (Math.floor(n / 2) === entry.seat) return say("log_step_own", { n: (n % 2) + 1, dir: ctx.t(`dir_${words[2]}`) });
      return say("log_step", { stick: stickName(n), dir: ctx.t(`dir_${words[2]}`) });
    case "drop":
      return say(ctx.options.auction === "open" ? "log_pass" : "log_drop"); // MS-11a: a pass
    case "pass":
    case "draw":
    case "done":
      return say(`log_${words[0]}`);
    case "lay":
      return say("log_lay", { turn: ctx.t(`turn${n}`) });
    case "turn":
      return say(words[1] === "cw" ? "log_cw" : "log_ccw");
    case "stick":
      return say("log_stick", { stick: stickName(n) });
    case "player":
      return say("log_player", { name: ctx.seatName(n) });
    case "bid":
      return say("log_bid", { n });
    default:
      return entry.move;
  }
};
