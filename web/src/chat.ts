/**
 * A match's chats on its page: the players' chat, and the spectators' chat where the server sends it
 * (to spectators; to everyone once the match is over).  The connection writes to its own channel (a
 * seat's to the players', a spectator's to the spectators').  Lines are drawn as text, never as HTML.
 * Each chat can be muted, per match and channel (kept in localStorage).
 */
import type { ChatChannel } from "./api";
import { h, keepFocus } from "./dom";
import type { ChatLine } from "./games/contract";
import type { AppContext } from "./match";
import { store } from "./store";

export const CHAT_MAX = 500;
/** The server's refusals of a chat line (an `error` message with one of these codes). */
export const CHAT_CODES = new Set([
  "chat_empty",
  "chat_too_long",
  "chat_bad_text",
  "rate_limited",
  "sign_in_to_chat",
  "account_disabled",
]);
const MUTE_PREFIX = "masques.mute.";

function muteKey(matchId: string, channel: ChatChannel): string {
  return `${MUTE_PREFIX}${matchId}.${channel}`;
}

/** Characters as people count them (code points, as the server does), not UTF-16 units. */
export function chatLength(text: string): number {
  return [...text].length;
}

/** A line's time of day, in the page's language. */
function timeOf(app: AppContext, iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return date.toLocaleTimeString(app.lang() === "fr" ? "fr-FR" : "en-GB", { hour: "2-digit", minute: "2-digit" });
}

/** One line: the time, the speaker and the text, each a text node. */
export function chatLineItem(app: AppContext, line: ChatLine, extraClass = ""): HTMLElement {
  return h(
    "li",
    {
      class: `chat-line${line.seat !== null ? ` seat-${line.seat}` : ""}${extraClass ? ` ${extraClass}` : ""}`,
      "data-line": line.id,
      "data-seat": line.seat ?? null,
    },
    h("time", { class: "chat-time", datetime: line.at }, timeOf(app, line.at)),
    " ",
    h("strong", { class: "chat-name" }, line.name),
    " ",
    h("span", { class: "chat-text", "data-testid": "chat-text" }, line.text),
  );
}

export interface ChatPanel {
  root: HTMLElement;
  /** A `chat` message from the server: a whole history (replaces) or new lines (added). */
  receive(channel: ChatChannel, lines: ChatLine[], history: boolean): void;
  /** A new connection: forget the lines (its histories come again) and which chats were heard. */
  reset(): void;
  /** Which channel this connection writes (null: none), and whether the spectators' chat may show. */
  setRole(writes: ChatChannel | null, signedIn: boolean): void;
  /** A refusal from the server: shown under the input, and the refused text given back. */
  refused(code: string, message: string): void;
  /** Whether a chat line was sent and not yet answered (a refusal then is the chat's). */
  pending(): boolean;
  draw(): void;
}

/**
 * The chats of one match.  `send` sends a line on the connection; it returns false when the
 * connection is not open.
 */
export function chatPanel(app: AppContext, matchId: string, send: (text: string) => boolean): ChatPanel {
  const lines: Record<ChatChannel, ChatLine[]> = { players: [], spectators: [] };
  const heard: Record<ChatChannel, boolean> = { players: false, spectators: false };
  let writes: ChatChannel | null = null;
  let signedIn = false;
  let sent: string | null = null;
  let echo = "";
  let error = "";
  let errorCode = "";

  const root = h("section", { class: "chat-panel", "data-testid": "chat" });
  const input = h("input", {
    type: "text",
    name: "chat",
    autocomplete: "off",
    "data-testid": "chat-input",
    oninput: () => drawCounter(),
  });
  const counter = h("span", { class: "chat-counter", "data-testid": "chat-counter", "aria-live": "off" });
  const sendButton = h("button", { type: "submit", "data-testid": "chat-send" });
  const form = h(
    "form",
    {
      class: "chat-form",
      onsubmit: (e: Event) => {
        e.preventDefault();
        submit();
      },
    },
    input,
    sendButton,
    counter,
  );
  // Built once and updated in place: the list keeps its scroll, the input its focus, and a screen
  // reader its place.
  const errorEl = h("p", { class: "error", role: "alert", "data-testid": "chat-error", hidden: true });
  const signIn = h("p", { class: "chat-sign-in", "data-testid": "chat-sign-in", hidden: true });
  const writerEl = h("div", { class: "chat-writer" }, form, errorEl, signIn);
  const parts = {
    players: channelParts("players"),
    spectators: channelParts("spectators"),
  };
  root.append(parts.players.wrap, parts.spectators.wrap);

  function channelParts(channel: ChatChannel) {
    const title = h("h3", {});
    const mute = h("button", {
      type: "button",
      class: "chat-mute",
      "data-testid": "chat-mute",
      onclick: () => setMuted(channel, !muted(channel)),
    });
    const note = h("p", { class: "chat-note" });
    const list = h("ol", {
      class: "chat-lines",
      role: "log",
      "aria-live": "polite",
      "data-testid": "chat-lines",
      "data-channel": channel,
    });
    const wrap = h(
      "div",
      { class: "chat-channel", "data-channel": channel, "data-testid": `chat-${channel}` },
      h("div", { class: "chat-head" }, title, mute),
      note,
      list,
    );
    return { wrap, title, mute, note, list };
  }

  function muted(channel: ChatChannel): boolean {
    return store.get(muteKey(matchId, channel)) === "1";
  }

  function setMuted(channel: ChatChannel, on: boolean): void {
    if (on) store.set(muteKey(matchId, channel), "1");
    else store.remove(muteKey(matchId, channel));
    draw();
  }

  function drawCounter(): void {
    const n = chatLength(input.value);
    counter.textContent = `${n}/${CHAT_MAX}`;
    counter.classList.toggle("over", n > CHAT_MAX);
    sendButton.disabled = n > CHAT_MAX || input.value.trim() === "";
  }

  function submit(): void {
    const text = input.value;
    if (text.trim() === "" || chatLength(text) > CHAT_MAX) return;
    if (!send(text)) {
      error = app.t("chat_offline");
      errorCode = "offline";
      draw();
      return;
    }
    sent = text;
    echo = text.normalize("NFC").trim(); // as the server stores it
    error = "";
    errorCode = "";
    input.value = "";
    drawCounter();
    draw();
  }

  function shown(channel: ChatChannel): boolean {
    return channel === "players" || heard.spectators || writes === "spectators";
  }

  function drawChannel(channel: ChatChannel): void {
    const { wrap, title, mute, note, list } = parts[channel];
    wrap.hidden = !shown(channel);
    const off = muted(channel);
    const want = lines[channel];
    wrap.dataset.muted = off ? "true" : "false";
    title.textContent = app.t(`chat_${channel}`);
    mute.textContent = app.t(off ? "chat_unmute" : "chat_mute");
    mute.setAttribute("aria-pressed", off ? "true" : "false");
    note.hidden = !off && want.length > 0;
    note.textContent = off
      ? app.t(want.length === 1 ? "chat_muted_one" : "chat_muted", { n: want.length })
      : app.t("chat_empty_list");
    note.dataset.testid = off ? "chat-muted" : "chat-none";
    list.hidden = off;
    list.setAttribute("aria-label", app.t(`chat_${channel}`));
    list.setAttribute("aria-live", off ? "off" : "polite");
    const known = Array.from(list.children, (li) => (li as HTMLElement).dataset.line).join(",");
    if (known !== want.map((line) => line.id).join(",") || list.dataset.lang !== app.lang()) {
      list.dataset.lang = app.lang();
      const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
      list.replaceChildren(...want.map((line) => chatLineItem(app, line)));
      if (atEnd) list.scrollTop = list.scrollHeight;
    }
  }

  function drawWriter(): void {
    const channel = writes;
    if (channel === null || muted(channel) || !shown(channel)) {
      writerEl.remove();
      return;
    }
    if (writerEl.parentElement !== parts[channel].wrap) parts[channel].wrap.append(writerEl);
    const needSession = channel === "spectators" && !signedIn;
    form.hidden = needSession;
    signIn.hidden = !needSession;
    if (needSession) {
      const restoreFocus = keepFocus(signIn); // drawn again as lines come
      signIn.replaceChildren(
        app.t("chat_sign_in"),
        " ",
        h("button", { type: "button", "data-testid": "chat-login", onclick: () => app.openAuth("login") }, app.t("log_in")),
        " ",
        h(
          "button",
          { type: "button", "data-testid": "chat-signup", onclick: () => app.openAuth("signup") },
          app.t("sign_up"),
        ),
      );
      restoreFocus();
    }
    input.setAttribute("aria-label", app.t(channel === "players" ? "chat_say_players" : "chat_say_spectators"));
    input.placeholder = app.t("chat_placeholder");
    sendButton.textContent = app.t("chat_send");
    drawCounter();
    errorEl.hidden = !error;
    errorEl.textContent = error;
    errorEl.dataset.code = errorCode;
  }

  function draw(): void {
    drawChannel("players");
    drawChannel("spectators");
    drawWriter();
  }

  return {
    root,
    receive(channel, incoming, history) {
      heard[channel] = true;
      const byId = new Map((history ? [] : lines[channel]).map((line) => [line.id, line]));
      for (const line of incoming) byId.set(line.id, line);
      lines[channel] = [...byId.values()].sort((a, b) => a.id - b.id);
      if (!history && sent !== null && channel === writes && incoming.some((line) => line.text === echo)) {
        sent = null; // ours came back: accepted
      }
      draw();
    },
    reset() {
      lines.players = [];
      lines.spectators = [];
      heard.players = false;
      heard.spectators = false;
      sent = null;
      draw();
    },
    setRole(nextWrites, nextSignedIn) {
      if (nextWrites === writes && nextSignedIn === signedIn) return;
      writes = nextWrites;
      signedIn = nextSignedIn;
      draw();
    },
    refused(code, message) {
      const known = app.t(`err_${code}`);
      error = known === `err_${code}` ? message || code : known;
      errorCode = code;
      if (sent !== null && input.value === "") input.value = sent;
      sent = null;
      draw();
      input.focus();
    },
    pending: () => sent !== null,
    draw,
  };
}
