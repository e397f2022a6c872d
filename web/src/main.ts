/**
 * The single-page app: a top bar (home, how many matches wait for your move, the player with Log in /
 * Sign up / Log out, language switch) and a router over the lobby, match, replay, shared analysis,
 * player and leaderboard pages.
 */
import "./style.css";
import { identityBar } from "./account";
import { waiting } from "./alerts";
import { analysisPage } from "./analysis";
import { session } from "./api";
import { h, s } from "./dom";
import type { Lang } from "./games/contract";
import { initialLang, saveLang, SHELL, translator } from "./i18n";
import { leaderboardPage } from "./leaderboard";
import { lobbyPage } from "./lobby";
import { matchPage, type AppContext, type Page } from "./match";
import { playerPage } from "./player";
import { replayPage } from "./replay";
import { learnPage } from "./learn";
import { rulesIndexPage, rulesPage } from "./rules_page";

let lang: Lang = initialLang();
let page: Page | null = null;

const app: AppContext = {
  lang: () => lang,
  t: translator(SHELL, () => lang),
  navigate(path: string) {
    history.pushState(null, "", path);
    route();
  },
  openAuth(mode) {
    identity.open(mode);
  },
};

// After a log-in, a sign-up or a log-out the page is drawn again for the new player (a match page
// reconnects, and the server gives it that player's seat).
const identity = identityBar(app, () => route());

const langButton = h("button", {
  type: "button",
  class: "lang",
  "data-testid": "lang",
  onclick: () => setLang(lang === "en" ? "fr" : "en"),
});
const home = h("a", { href: "/", "data-link": true, class: "home" });
// Matches waiting for my move (from GET /api/me/waiting): a link to the lobby's "My matches".
const waitingBadge = h("a", {
  href: "/",
  "data-link": true,
  class: "waiting-badge",
  "data-testid": "waiting-badge",
  hidden: true,
});
const waitingLive = h("span", { class: "visually-hidden", "aria-live": "polite", "data-testid": "waiting-live" });
const content = h("div", { class: "content" });
document
  .getElementById("app")!
  .append(
    h(
      "header",
      { class: "topbar" },
      home,
      h("div", { class: "topbar-end" }, waitingBadge, waitingLive, identity.bar, langButton),
    ),
    identity.panel,
    content,
  );

/** The mark: a small mask. */
function logo(): SVGSVGElement {
  return s(
    "svg",
    { viewBox: "0 0 32 20", width: 32, height: 20, class: "logo", "aria-hidden": "true" },
    s("path", { d: "M2 3 Q16 -1 30 3 Q31 14 20 18 Q16 14 12 18 Q1 14 2 3 Z", fill: "#d4a017" }),
    s("ellipse", { cx: 10, cy: 8, rx: 4, ry: 2.6, fill: "#2b2420" }),
    s("ellipse", { cx: 22, cy: 8, rx: 4, ry: 2.6, fill: "#2b2420" }),
  );
}

function drawWaiting(): void {
  const n = waiting.count ?? 0;
  waitingBadge.hidden = n === 0;
  waitingBadge.dataset.count = String(n);
  waitingBadge.textContent = `● ${app.t("waiting_badge", { n })}`;
  const title = app.t(n === 1 ? "waiting_title_one" : "waiting_title", { n });
  waitingBadge.title = title;
  waitingBadge.setAttribute("aria-label", title);
  const said = n > 0 ? title : "";
  if (waitingLive.textContent !== said) waitingLive.textContent = said;
}
waiting.subscribe(drawWaiting);

function drawBar(): void {
  document.documentElement.lang = lang;
  drawWaiting();
  home.replaceChildren(logo(), app.t("title"));
  langButton.textContent = app.t("lang_switch");
  langButton.setAttribute("lang", lang === "en" ? "fr" : "en");
  identity.draw();
}

function setLang(next: Lang): void {
  lang = next;
  saveLang(lang);
  drawBar();
  page?.setLang(lang);
}

function route(): void {
  page?.destroy();
  page = null;
  content.replaceChildren();
  const path = location.pathname;
  const match = /^\/match\/([0-9a-f]{16})(\/replay)?\/?$/.exec(path);
  const player = /^\/player\/([0-9a-f]{16})\/?$/.exec(path);
  const shared = /^\/match\/([0-9a-f]{16})\/analysis\/(\d{1,2})\/?$/.exec(path);
  const rules = /^\/rules\/([a-z0-9-]{1,32})\/?$/.exec(path);
  const learn = /^\/learn\/([a-z0-9-]{1,32})\/?$/.exec(path);
  if (shared) {
    page = analysisPage(content, shared[1], Number(shared[2]), app);
  } else if (match) {
    page = match[2] ? replayPage(content, match[1], app) : matchPage(content, match[1], app);
  } else if (player) {
    page = playerPage(content, player[1], app);
  } else if (rules) {
    page = rulesPage(content, rules[1], app);
  } else if (/^\/rules\/?$/.test(path)) {
    page = rulesIndexPage(content, app);
  } else if (learn) {
    page = learnPage(content, learn[1], app);
  } else if (/^\/leaderboard\/?$/.test(path)) {
    page = leaderboardPage(content, app);
  } else if (/^\/me\/?$/.test(path)) {
    // One's own page, or the log-in form for a newcomer.
    const me = session.current.player;
    if (me) {
      history.replaceState(null, "", `/player/${me.id}`);
      route();
      return;
    }
    history.replaceState(null, "", "/");
    page = lobbyPage(content, app);
    identity.open("login");
  } else {
    page = lobbyPage(content, app);
  }
  drawBar();
}

// Links marked data-link stay in the app (no page load).
document.addEventListener("click", (event) => {
  const link = (event.target as Element).closest?.("a[data-link]") as HTMLAnchorElement | null;
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  app.navigate(link.getAttribute("href") ?? "/");
});
window.addEventListener("popstate", route);

drawBar();
// Who plays here first (the session cookie's player), then the page.
void session.load().then(() => {
  route();
  waiting.refresh();
});
