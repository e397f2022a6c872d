/**
 * Clocks in words and numbers: a match's time control ("5+3", "3 days a move"), each seat's time left
 * (a Fischer clock counts down for the running seat), a correspondence move's deadline.  Time left is
 * read on the server's clock: `offset` (server minus browser seconds, from the summary's `now`)
 * corrects a browser whose clock is wrong.
 */
import type { Lang, MatchClock, MatchSummary } from "./games/contract";

type T = (key: string, params?: Record<string, string | number>) => string;

/** Live presets (minutes + increment seconds), as offered in the lobby. */
export const FISCHER_PRESETS: [number, number][] = [
  [3, 2],
  [5, 3],
  [10, 5],
  [15, 10],
];
export const CORRESPONDENCE_DAYS = [1, 3, 7];

/** Server minus browser epoch seconds, as told by a summary's clock (0 without one). */
export function clockOffset(clock: MatchClock | null | undefined): number {
  return clock && Number.isFinite(clock.now) ? clock.now - Date.now() / 1000 : 0;
}

/** A match's time control in a few words, or "" when it has none. */
export function timeControl(t: T, summary: Pick<MatchSummary, "clock" | "turn_seconds">): string {
  const clock = summary.clock;
  if (clock?.kind === "fischer") return fischerText(clock.base ?? 0, clock.increment ?? 0);
  if (clock?.kind === "correspondence") return t("tc_days", { n: clock.days ?? 0 });
  const seconds = clock?.kind === "turn" ? (clock.seconds ?? 0) : summary.turn_seconds;
  return seconds ? t("tc_turn", { n: seconds }) : "";
}

/** "5+3": minutes and increment seconds (a base that is no whole minute shows as m:ss). */
export function fischerText(base: number, increment: number): string {
  const minutes = base % 60 === 0 ? String(base / 60) : `${Math.floor(base / 60)}:${pad(base % 60)}`;
  return `${minutes}+${increment}`;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** Seconds as a clock shows them: "4:07", "1:02:03"; tenths under ten seconds ("9.4"). */
export function formatSeconds(seconds: number): string {
  const s = Math.max(0, seconds);
  if (s < 10) return (Math.floor(s * 10) / 10).toFixed(1);
  const whole = Math.floor(s);
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(whole % 60)}` : `${minutes}:${pad(whole % 60)}`;
}

/** A seat's seconds left now: the running seat's from the deadline, the others' as the turn began. */
export function secondsLeft(clock: MatchClock, seat: number, offset: number): number | null {
  if (clock.running === seat && clock.deadline !== null) return clock.deadline - (Date.now() / 1000 + offset);
  return clock.remaining?.[seat] ?? null;
}

/** A date and time in the page's language, for a correspondence move's deadline. */
export function deadlineText(lang: Lang, epoch: number): string {
  return new Date(epoch * 1000).toLocaleString(lang === "fr" ? "fr-FR" : "en-GB", {
    weekday: "short",
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
  });
}

/** "47 h left", "25 min left": a correspondence move's time left, rounded down. */
export function hoursLeft(t: T, seconds: number): string {
  const s = Math.max(0, seconds);
  return s >= 3600 ? t("hours_left", { n: Math.floor(s / 3600) }) : t("minutes_left", { n: Math.floor(s / 60) });
}
