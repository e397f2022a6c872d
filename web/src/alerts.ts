/**
 * Turn alerts: the tab's title and icon while it is your move, an optional tone (off by default; a
 * setting kept in localStorage, made by WebAudio, no sound file), a browser notification when the
 * player allowed them and the page is hidden, and how many matches wait for your move (polled from
 * GET /api/me/waiting while signed in, about every 20 s and when the window gets the focus).
 */
import { api, session } from "./api";
import { h } from "./dom";
import { store } from "./store";

const SOUND_KEY = "masques.sound";
const POLL_MS = 20_000;

// -- the tab: title and icon ----------------------------------------------------------------------

let plainIcon: string | null = null;

function iconLink(): HTMLLinkElement {
  let link = document.querySelector<HTMLLinkElement>("link[rel~='icon']");
  if (!link) {
    link = h("link", { rel: "icon" });
    document.head.append(link);
  }
  return link;
}

/** The mask of the usual icon with a red dot: "your move". */
function turnIcon(): string {
  const svg =
    "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'>" +
    "<ellipse cx='8' cy='8' rx='7' ry='5' fill='#d4a017'/>" +
    "<circle cx='5' cy='7' r='1.5'/><circle cx='11' cy='7' r='1.5'/>" +
    "<circle cx='12.5' cy='3.5' r='3.5' fill='#d62828' stroke='#fff' stroke-width='1'/></svg>";
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/**
 * The tab says whose move it is: `mine` puts "● Your turn – {title}" and the red-dot icon, otherwise
 * the plain title and icon come back.
 */
export function showTurn(mine: boolean, title: string, yourTurn: string): void {
  const link = iconLink();
  if (plainIcon === null) plainIcon = link.getAttribute("href") ?? "";
  document.title = mine ? `● ${yourTurn} – ${title}` : title;
  const href = mine ? turnIcon() : plainIcon;
  if (link.getAttribute("href") !== href) link.setAttribute("href", href);
  document.documentElement.dataset.turnAlert = mine ? "on" : "off";
}

// -- the tone ------------------------------------------------------------------------------------

let audio: AudioContext | null = null;

export const sound = {
  get on(): boolean {
    return store.get(SOUND_KEY) === "on";
  },
  set(on: boolean): void {
    if (on) store.set(SOUND_KEY, "on");
    else store.remove(SOUND_KEY);
    if (on) {
      context(); // made during the click, so the browser lets it play later
      tone();
    }
  },
};

function context(): AudioContext | null {
  if (audio) return audio;
  const Ctor = window.AudioContext as typeof AudioContext | undefined;
  if (!Ctor) return null;
  try {
    audio = new Ctor();
  } catch {
    audio = null;
  }
  return audio;
}

/** Two short soft notes (a rising fifth). */
function tone(): void {
  const ctx = context();
  if (!ctx) return;
  if (ctx.state === "suspended") void ctx.resume().catch(() => undefined);
  const start = ctx.currentTime + 0.02;
  [660, 990].forEach((frequency, i) => {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    const at = start + i * 0.16;
    osc.type = "sine";
    osc.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.15, at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.28);
    osc.connect(gain).connect(ctx.destination);
    osc.start(at);
    osc.stop(at + 0.3);
  });
}

// A context made before any click starts suspended: the first click anywhere wakes it.
document.addEventListener(
  "pointerdown",
  () => {
    if (audio?.state === "suspended") void audio.resume().catch(() => undefined);
  },
  { capture: true },
);

// -- notifications -------------------------------------------------------------------------------

export type NotifyState = "unsupported" | "default" | "granted" | "denied";

export const notify = {
  get state(): NotifyState {
    return "Notification" in window ? Notification.permission : "unsupported";
  },
  async ask(): Promise<NotifyState> {
    if (!("Notification" in window)) return "unsupported";
    try {
      return await Notification.requestPermission();
    } catch {
      return Notification.permission;
    }
  },
};

/**
 * It became your move in a match: the tone when the setting is on, and a notification when the page
 * is hidden and the player allowed them (one per match: a newer one replaces it).
 */
export function turnArrived(matchId: string, title: string, body: string): void {
  if (sound.on) tone();
  if (notify.state !== "granted" || !document.hidden) return;
  try {
    const note = new Notification(title, { body, tag: `masques-${matchId}`, icon: turnIcon() });
    note.onclick = () => {
      window.focus();
      note.close();
    };
  } catch {
    // some browsers allow notifications only from a service worker: the title and icon still tell
  }
}

// -- how many matches wait for your move ---------------------------------------------------------

let count: number | null = null;
let pollTimer: number | undefined;
let soonTimer: number | undefined;
const SOON_MS = 1500;
const watchers = new Set<(count: number | null) => void>();

function tell(next: number | null): void {
  if (next === count) return;
  count = next;
  for (const watcher of watchers) watcher(count);
}

async function poll(): Promise<void> {
  window.clearTimeout(pollTimer);
  if (session.current.player) {
    try {
      tell((await api.waiting()).count);
    } catch {
      tell(null); // not signed in (any more), or a server without the list
    }
    pollTimer = window.setTimeout(() => void poll(), POLL_MS);
  } else {
    tell(null);
  }
}

export const waiting = {
  /** The last count (null: unknown, or nobody signed in). */
  get count(): number | null {
    return count;
  },
  subscribe(watcher: (count: number | null) => void): () => void {
    watchers.add(watcher);
    return () => watchers.delete(watcher);
  },
  /** Ask now (on focus, when the player changes). */
  refresh(): void {
    void poll();
  },
  /** Ask in a moment (a turn changed): turns that change quickly cost one request. */
  refreshSoon(): void {
    window.clearTimeout(soonTimer);
    soonTimer = window.setTimeout(() => void poll(), SOON_MS);
  },
  /** A fresher count from elsewhere (the lobby's list of my matches). */
  set(next: number): void {
    tell(next);
  },
};

window.addEventListener("focus", () => waiting.refresh());
session.subscribe(() => waiting.refresh());

// -- the settings, where a player sees them ------------------------------------------------------

/** The turn alerts' settings: the tone (off by default) and the browser's notifications. */
export function alertSettings(t: (key: string) => string): { root: HTMLElement; draw(): void } {
  const root = h("section", { class: "alert-settings", "data-testid": "alert-settings" });
  const box = h("input", {
    type: "checkbox",
    name: "turn-sound",
    "data-testid": "sound-setting",
    onchange: (e: Event) => {
      sound.set((e.target as HTMLInputElement).checked);
    },
  });
  const boxLabel = h("span", {});
  const status = h("span", { class: "notify-state", "data-testid": "notify-state", role: "status" });
  const ask = h("button", {
    type: "button",
    "data-testid": "notify-ask",
    onclick: () => void notify.ask().then(() => draw()),
  });
  const title = h("h3", {});
  root.append(title, h("label", { class: "field check" }, box, boxLabel), h("p", { class: "notify" }, ask, status));

  function draw(): void {
    title.textContent = t("alerts");
    box.checked = sound.on;
    boxLabel.textContent = t("sound_setting");
    const state = notify.state;
    ask.hidden = state !== "default";
    ask.textContent = t("notify_ask");
    status.dataset.state = state;
    status.textContent = state === "default" ? "" : t(`notify_${state}`);
  }
  draw();
  return { root, draw };
}
