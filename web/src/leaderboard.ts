/**
 * The leaderboard (`/leaderboard?game=G&family=F`): one game and one player-count family, ranked by
 * the server (ordinal = mu - 3 sigma); accounts link to their page, bot levels are marked, and a
 * rating still provisional (few games) says so.
 */
import { errorText } from "./account";
import { api, type Family, type GameInfo, type Leaderboard, type LeaderboardRow } from "./api";
import { h, redrawKeepingFocus } from "./dom";
import type { Lang } from "./games/contract";
import { botLevel, type AppContext, type Page } from "./match";

export const FAMILIES: Family[] = ["two-player", "multi-player"];

/** Why a higher rating can rank lower: the server ranks by the rating less three uncertainties. */
const ORDER: Record<Lang, string> = {
  en: "Ranked by the rating less three times its uncertainty (±): a rating from few games ranks lower until more games confirm it.",
  fr: "Rangés selon le classement moins trois fois son incertitude (±) : un classement établi sur peu de parties est rangé plus bas jusqu'à ce que d'autres parties le confirment.",
};

/** The family's name in words. */
export function familyName(app: AppContext, family: Family): string {
  return app.t(family === "two-player" ? "family_two" : "family_multi");
}

/** A player's name in a ranking: a link to an account's page; a bot level by its name, marked. */
export function rankedPlayer(app: AppContext, row: LeaderboardRow): HTMLElement {
  const { player } = row;
  if (player.kind === "bot") {
    const level = player.id.startsWith("bot:") ? player.id.slice(4) : player.name;
    return h(
      "span",
      { class: "lb-player bot", "data-kind": "bot" },
      botLevel(app, level),
      " ",
      h("small", { class: "bot-tag" }, app.t("lb_bot")),
    );
  }
  return h(
    "a",
    { href: `/player/${player.id}`, "data-link": true, class: "lb-player", "data-kind": "account" },
    player.name,
  );
}

export function leaderboardPage(root: HTMLElement, app: AppContext): Page {
  const params = new URLSearchParams(location.search);
  let game = params.get("game") ?? "";
  let family: Family = params.get("family") === "multi-player" ? "multi-player" : "two-player";
  let games: GameInfo[] = [];
  let board: Leaderboard | null = null;
  let error = "";
  let asked = 0; // answers to older questions are dropped
  const el = h("div", { class: "leaderboard-page", "data-testid": "leaderboard" });
  root.append(el);

  async function load(): Promise<void> {
    const ask = ++asked;
    board = null;
    error = "";
    draw();
    try {
      const answer = await api.leaderboard(game, family);
      if (ask !== asked) return;
      board = answer;
    } catch (err) {
      if (ask !== asked) return;
      error = errorText(app, err);
    }
    draw();
  }

  function choose(nextGame: string, nextFamily: Family): void {
    game = nextGame;
    family = nextFamily;
    history.replaceState(null, "", `/leaderboard?game=${encodeURIComponent(game)}&family=${family}`);
    void load();
  }

  function row(r: LeaderboardRow): HTMLElement {
    return h(
      "tr",
      { "data-player": r.player.id, "data-kind": r.player.kind, class: r.player.kind === "bot" ? "bot" : "" },
      h("td", { class: "rank" }, r.rank),
      h("td", { class: "player" }, rankedPlayer(app, r)),
      h(
        "td",
        { class: "rating", "data-testid": "lb-rating" },
        r.rating.toFixed(1),
        h("span", { class: "uncertainty", "data-testid": "lb-uncertainty" }, ` ±${r.sigma.toFixed(1)}`),
        r.provisional
          ? h(
              "span",
              {
                class: "provisional",
                "data-testid": "provisional",
                title: app.t("provisional_help", { n: 10 }),
                "aria-label": app.t("provisional"),
              },
              " ?",
            )
          : null,
      ),
      h("td", { class: "games" }, r.games),
    );
  }

  /** Drawn anew on each choice and answer: the select just changed from the keyboard keeps the focus. */
  function draw(): void {
    redrawKeepingFocus(el, drawBoard);
  }

  function drawBoard(): void {
    document.title = `${app.t("lb_title")} — ${app.t("title")}`;
    const gameSelect = h(
      "select",
      {
        name: "game",
        "data-testid": "lb-game",
        onchange: (e: Event) => choose((e.target as HTMLSelectElement).value, family),
      },
      ...games.map((g) => h("option", { value: g.name, selected: g.name === game }, g.title)),
    );
    const familySelect = h(
      "select",
      {
        name: "family",
        "data-testid": "lb-family",
        onchange: (e: Event) => choose(game, (e.target as HTMLSelectElement).value as Family),
      },
      ...FAMILIES.map((f) => h("option", { value: f, selected: f === family }, familyName(app, f))),
    );
    const body = error
      ? h("p", { class: "error", role: "alert", "data-testid": "lb-error" }, error)
      : !board
        ? h("p", {}, app.t("connecting"))
        : board.rows.length === 0
          ? h("p", { class: "empty", "data-testid": "lb-empty" }, app.t("lb_empty"))
          : h(
              "table",
              { class: "history leaderboard", "data-testid": "lb-table", "data-game": board.game },
              h(
                "thead",
                {},
                h(
                  "tr",
                  {},
                  ...["lb_rank", "lb_player", "lb_rating", "lb_games"].map((k) => h("th", { scope: "col" }, app.t(k))),
                ),
              ),
              h("tbody", {}, ...board.rows.map(row)),
            );
    el.replaceChildren(
      h("h2", {}, app.t("lb_title")),
      h(
        "form",
        { class: "fields lb-choice", onsubmit: (e: Event) => e.preventDefault() },
        h("label", { class: "field" }, h("span", {}, app.t("lb_game")), gameSelect),
        h("label", { class: "field" }, h("span", {}, app.t("lb_family")), familySelect),
      ),
      board ? h("p", { class: "hint" }, app.t(board.min_games === 1 ? "lb_min_games_one" : "lb_min_games", { n: board.min_games })) : "",
      body,
      board && board.rows.length > 0 ? h("p", { class: "hint", "data-testid": "lb-order" }, ORDER[app.lang()]) : "",
      h("nav", { class: "match-links" }, h("a", { href: "/", "data-link": true }, app.t("back_lobby"))),
    );
  }

  void api
    .games()
    .then((list) => {
      games = list;
      if (!games.some((g) => g.name === game) && games.length > 0) game = games[0].name;
      choose(game, family);
    })
    .catch((err: unknown) => {
      error = errorText(app, err);
      draw();
    });
  draw();

  return {
    setLang: () => draw(),
    destroy: () => {
      asked += 1;
    },
  };
}
