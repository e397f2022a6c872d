/**
 * The rules pages: `/rules` (every game) and `/rules/{game}` (one game's rules in English or French,
 * as the server renders them from docs/rules/).  Each figure of a page is an example position that the
 * game's own board view draws, read-only (nothing can be played on it).  Rule ids cited in error
 * messages link here (`/rules/{game}#MK-12`) through `ruleLinked`.
 */
import "./learn.css";
import { h } from "./dom";
import type { Lang, MatchView, Messages } from "./games/contract";
import { translator } from "./i18n";
import { seatLabel, ViewHost, type AppContext, type Page } from "./match";

export const RULES_TEXT: Messages = {
  en: {
    rules: "Rules",
    rules_title: "Rules of the games",
    rules_intro: "Each game's complete rules, with example positions drawn by the game's own board.",
    read_rules: "Read the rules",
    learn: "Guided first game",
    playing_online: "Playing online: resigning, aborting, absent players",
    loading: "Loading…",
    not_found: "No rules page here.",
    all_rules: "All rules",
    back_lobby: "Back to the lobby",
    in_lang: "En français",
    figure: "Example position",
    masker: "Masker",
    maske: "Maske",
    mascarade: "Mascarade",
    blokus3d: "Blokus 3D",
  },
  fr: {
    rules: "Règles",
    rules_title: "Règles des jeux",
    rules_intro: "La règle complète de chaque jeu, avec des positions d'exemple dessinées par le plateau du jeu.",
    read_rules: "Lire la règle",
    learn: "Première partie guidée",
    playing_online: "Jouer en ligne : abandon, annulation, joueurs absents",
    loading: "Chargement…",
    not_found: "Pas de page de règles ici.",
    all_rules: "Toutes les règles",
    back_lobby: "Retour au salon",
    in_lang: "In English",
    figure: "Position d'exemple",
    masker: "Masker",
    maske: "Maske",
    mascarade: "Mascarade",
    blokus3d: "Blokus 3D",
  },
};

export const GAMES = ["masker", "maske", "mascarade", "blokus3d"];
const PREFIX_GAME: Record<string, string> = { MK: "masker", MS: "maske", MC: "mascarade", B3: "blokus3d" };
const RULE_ID = /\b(MK|MS|MC|B3)-\d+[a-z]?\b/g;

/** A text with every rule id (MK-12, B3-4...) made a link to its rule on the game's rules page. */
export function ruleLinked(text: string): (Node | string)[] {
  const out: (Node | string)[] = [];
  let last = 0;
  for (const found of text.matchAll(RULE_ID)) {
    const at = found.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    const game = PREFIX_GAME[found[1]];
    out.push(h("a", { href: `/rules/${game}#${found[0]}`, "data-link": true, class: "rule-link" }, found[0]));
    last = at + found[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

interface RulesAnswer {
  game: string;
  lang: Lang;
  title: string;
  html: string;
  figures: Record<string, MatchView>;
}

export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { credentials: "same-origin" });
  if (!response.ok) throw new Error(String(response.status));
  return (await response.json()) as T;
}

/** A read-only board: the game's view over one position (its moves, if any, do nothing). */
export function figureView(app: AppContext, view: MatchView): ViewHost {
  const host = new ViewHost(
    app,
    (seat) => seatLabel(app, view.match, seat, view.seat),
    () => undefined,
  );
  host.update(view.match.game, view);
  return host;
}

/** `/rules`: the games, each with its rules and its guided first game. */
export function rulesIndexPage(root: HTMLElement, app: AppContext): Page {
  const t = translator(RULES_TEXT, () => app.lang());
  const el = h("div", { class: "rules-index", "data-testid": "rules-index" });
  root.append(el);
  function draw(): void {
    el.replaceChildren(
      h("h2", {}, t("rules_title")),
      h("p", {}, t("rules_intro")),
      h(
        "ul",
        { class: "rules-games" },
        ...GAMES.map((game) =>
          h(
            "li",
            { "data-game": game },
            h("a", { href: `/rules/${game}`, "data-link": true, "data-testid": `rules-${game}` }, t(game)),
            " · ",
            h("a", { href: `/learn/${game}`, "data-link": true, "data-testid": `learn-${game}` }, t("learn")),
          ),
        ),
        h("li", {}, h("a", { href: "/rules/playing-online", "data-link": true }, t("playing_online"))),
      ),
      h("p", {}, h("a", { href: "/", "data-link": true }, t("back_lobby"))),
    );
  }
  draw();
  return { setLang: draw, destroy: () => undefined };
}

/** `/rules/{game}`: one page of rules, in the page's language (`?lang=`, else the app's). */
export function rulesPage(root: HTMLElement, game: string, app: AppContext): Page {
  const t = translator(RULES_TEXT, () => app.lang());
  const asked = new URLSearchParams(location.search).get("lang");
  let lang: Lang = asked === "fr" || asked === "en" ? asked : app.lang();
  let hosts: ViewHost[] = [];
  let destroyed = false;
  let loaded = false;
  const nav = h("nav", { class: "rules-nav" });
  const body = h("article", { class: "rules-body", "data-testid": "rules-body", "data-state": "loading" });
  const el = h("div", { class: "rules-page", "data-game": game }, nav, body);
  root.append(el);

  function drawNav(): void {
    const other: Lang = lang === "en" ? "fr" : "en";
    const links = [
      h("a", { href: "/rules", "data-link": true }, t("all_rules")),
      h(
        "button",
        { type: "button", class: "rules-lang", "data-testid": "rules-lang", lang: other, onclick: () => switchTo(other) },
        RULES_TEXT[lang].in_lang,
      ),
    ];
    if (GAMES.includes(game))
      links.push(
        h("a", { href: `/learn/${game}`, "data-link": true, class: "primary", "data-testid": "rules-learn" }, t("learn")),
      );
    nav.replaceChildren(...links);
  }

  function switchTo(next: Lang): void {
    lang = next;
    history.replaceState(null, "", `/rules/${game}?lang=${lang}${location.hash}`);
    void load();
  }

  function clearFigures(): void {
    for (const host of hosts) host.destroy();
    hosts = [];
  }

  async function load(): Promise<void> {
    drawNav();
    body.dataset.state = "loading";
    if (!loaded) body.replaceChildren(h("p", {}, t("loading")));
    let answer: RulesAnswer;
    try {
      answer = await getJson<RulesAnswer>(`/api/rules/${encodeURIComponent(game)}?lang=${lang}`);
    } catch {
      if (destroyed) return;
      body.dataset.state = "missing";
      body.replaceChildren(h("p", {}, t("not_found")));
      return;
    }
    if (destroyed) return;
    clearFigures();
    const doc = new DOMParser().parseFromString(answer.html, "text/html");
    body.replaceChildren(...Array.from(doc.body.childNodes, (node) => document.importNode(node, true)));
    body.lang = lang;
    for (const link of body.querySelectorAll<HTMLAnchorElement>("a[data-rules-link]")) link.dataset.link = "";
    for (const figure of body.querySelectorAll<HTMLElement>("figure[data-figure]")) {
      const view = answer.figures[figure.dataset.figure ?? ""];
      if (!view) continue;
      const host = figureView(app, view);
      host.root.classList.add("rules-board");
      host.root.setAttribute("aria-label", t("figure"));
      host.root.inert = true; // a picture: nothing on it can be played or focused
      figure.prepend(host.root);
      hosts.push(host);
    }
    document.title = `${answer.title} · Masques`;
    loaded = true;
    body.dataset.state = "ready";
    const target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (target) {
      target.scrollIntoView();
      target.classList.add("rule-target");
    }
  }

  void load();
  return {
    setLang(next) {
      if (next !== lang) switchTo(next);
      else drawNav();
    },
    destroy() {
      destroyed = true;
      clearFigures();
    },
  };
}
