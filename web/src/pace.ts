/**
 * Bot moves at a pace a person can follow: the live match page queues incoming states and shows a
 * bot's move no sooner than the pace after the state before it (default 0.6 s, a setting kept like
 * the language).  A person's moves (yours or another player's) and jumps of several versions (a
 * reconnection) are shown at once, in order; replays never go through here.
 */
import { h } from "./dom";
import type { Lang, Messages, MatchView } from "./games/contract";
import { translator } from "./i18n";
import { store } from "./store";

export const PACE_KEY = "masques.pace";
/** Seconds between consecutive bot moves shown: the choices offered and the default. */
export const PACE_CHOICES = [0, 0.3, 0.6, 1.2] as const;
export const DEFAULT_PACE = 0.6;

export const PACE_MESSAGES: Messages = {
  en: {
    pace: "Bot moves",
    pace_0: "at once",
    "pace_0.3": "fast (0.3 s)",
    "pace_0.6": "normal (0.6 s)",
    "pace_1.2": "slow (1.2 s)",
    skip: "Show now",
    skip_help: "Show the moves still waiting at once",
  },
  fr: {
    pace: "Coups des bots",
    pace_0: "aussitôt",
    "pace_0.3": "rapides (0,3 s)",
    "pace_0.6": "normaux (0,6 s)",
    "pace_1.2": "lents (1,2 s)",
    skip: "Tout montrer",
    skip_help: "Montrer tout de suite les coups en attente",
  },
};

/** A stored pace in seconds: one of the choices, else the default. */
export function parsePace(raw: string | null): number {
  const value = raw === null ? NaN : Number(raw);
  return (PACE_CHOICES as readonly number[]).includes(value) ? value : DEFAULT_PACE;
}

export const pace = {
  get seconds(): number {
    return parsePace(store.get(PACE_KEY));
  },
  set(seconds: number): void {
    store.set(PACE_KEY, String(parsePace(String(seconds))));
  },
};

/** Who made the move from `prev` to `next` (one version apart): the log says, else `prev`'s mover. */
export function actorOf(prev: MatchView, next: MatchView): number | null {
  if (next.version !== prev.version + 1) return null;
  const entry = next.log.find((e) => e.version === next.version);
  if (entry) return entry.seat;
  return prev.to_move;
}

/** Whether `next` shows one bot's move after `prev` (then it waits for the pace). */
export function isBotMove(prev: MatchView | null, next: MatchView): boolean {
  if (!prev) return false;
  const actor = actorOf(prev, next);
  if (actor === null || actor === next.seat) return false;
  const info = next.match.seats[actor];
  return info !== undefined && info.kind !== "human";
}

/** How long `next` still waits (ms) when `prev` was shown at `shownAt` and it is `now`. */
export function waitFor(prev: MatchView | null, next: MatchView, shownAt: number, now: number, paceMs: number): number {
  if (paceMs <= 0 || !isBotMove(prev, next)) return 0;
  return Math.max(0, shownAt + paceMs - now);
}

export interface Clock {
  now(): number;
  later(fn: () => void, ms: number): number;
  cancel(id: number): void;
}

const browserClock: Clock = {
  now: () => performance.now(),
  later: (fn, ms) => window.setTimeout(fn, ms),
  cancel: (id) => window.clearTimeout(id),
};

/** The queue of states between the socket and the page: each is shown once its wait is over. */
export class Pacer {
  private queue: MatchView[] = [];
  private shown: MatchView | null = null;
  private shownAt = 0;
  private timer: number | null = null;

  constructor(
    private readonly show: (view: MatchView) => void,
    private readonly paceMs: () => number,
    private readonly clock: Clock = browserClock,
    /** Told when the number of waiting states changes (the page shows a "show now" button). */
    private readonly changed: (waiting: number) => void = () => {},
  ) {}

  get waiting(): number {
    return this.queue.length;
  }

  push(view: MatchView): void {
    const tail = this.queue.at(-1);
    // A newer picture of the same version (e.g. the summary changed) replaces the one waiting.
    if (tail && tail.version === view.version) this.queue[this.queue.length - 1] = view;
    else this.queue.push(view);
    this.pump();
    this.changed(this.queue.length);
  }

  /** Show everything waiting now (the newest state only: each state is the whole picture). */
  flush(): void {
    if (this.timer !== null) this.clock.cancel(this.timer);
    this.timer = null;
    const last = this.queue.at(-1);
    this.queue = [];
    if (last) this.display(last);
    this.changed(0);
  }

  destroy(): void {
    if (this.timer !== null) this.clock.cancel(this.timer);
    this.timer = null;
    this.queue = [];
  }

  private display(view: MatchView): void {
    this.shown = view;
    this.show(view);
    this.shownAt = this.clock.now(); // the pace counts from when it stands drawn
  }

  private pump(): void {
    if (this.timer !== null) return;
    let shownAny = false;
    while (this.queue.length > 0) {
      const next = this.queue[0];
      const wait = waitFor(this.shown, next, this.shownAt, this.clock.now(), this.paceMs());
      if (wait > 0) {
        this.timer = this.clock.later(() => {
          this.timer = null;
          this.pump();
        }, wait);
        break;
      }
      this.queue.shift();
      this.display(next);
      shownAny = true;
    }
    if (shownAny) this.changed(this.queue.length);
  }
}

/** The match page's control: the pace of bot moves, and "show now" while moves wait. */
export function paceControl(lang: () => Lang, skip: () => void) {
  const t = translator(PACE_MESSAGES, lang);
  const root = h("div", { class: "pace-setting", "data-testid": "pace" });
  let waiting = 0;
  function draw(): void {
    const current = pace.seconds;
    const select = h(
      "select",
      {
        "data-testid": "pace-select",
        onchange: (event: Event) => pace.set(Number((event.target as HTMLSelectElement).value)),
      },
      ...PACE_CHOICES.map((choice) =>
        h("option", { value: String(choice), selected: choice === current }, t(`pace_${choice}`)),
      ),
    );
    root.replaceChildren(
      h("label", {}, `${t("pace")} `, select),
      waiting > 0
        ? h(
            "button",
            { type: "button", class: "pace-skip", "data-testid": "pace-skip", title: t("skip_help"), onclick: skip },
            t("skip"),
          )
        : "",
    );
  }
  draw();
  return {
    root,
    draw,
    setWaiting(n: number): void {
      if ((n > 0) !== (waiting > 0)) {
        waiting = n;
        draw();
      }
      waiting = n;
    },
  };
}
