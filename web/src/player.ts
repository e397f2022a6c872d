/**
 * A player's page (`/player/{id}`): their ratings per game and family with a graph of one rating's
 * history (the chosen game and family), and their finished matches, most recent first, with the date,
 * the game, its options, the opponents, the result and a link to the replay.  Private matches appear
 * only on the player's own page (the server leaves them out for anyone else).
 */
import { errorText } from "./account";
import {
  api,
  ApiError,
  session,
  type Family,
  type GameRating,
  type HistoryEntry,
  type PlayerPage,
  type RatingHistory,
  type RatingPoint,
} from "./api";
import { h, redrawKeepingFocus } from "./dom";
import { ratingGraph } from "./graph";
import { familyName } from "./leaderboard";
import { describeOptions, formatDate } from "./lobby";
import { botLevel, type AppContext, type Page } from "./match";

export function playerPage(root: HTMLElement, playerId: string, app: AppContext): Page {
  let data: PlayerPage | null = null;
  let error = "";
  let titles: Record<string, string> = {};
  /** The rating whose history the graph draws, and that history once loaded. */
  let chosen: { game: string; family: Family } | null = null;
  let graph: RatingHistory | null = null;
  let graphError = "";
  let asked = 0;
  const el = h("div", { class: "player-page", "data-testid": "player-page", "data-player": playerId });
  root.append(el);

  function opponent(entry: HistoryEntry["opponents"][number]): Node {
    const name =
      entry.kind === "human"
        ? (entry.name ?? app.t("seat", { n: entry.seat + 1 }))
        : app.t("bot", { level: botLevel(app, entry.kind) });
    return entry.player
      ? h("a", { href: `/player/${entry.player}`, "data-link": true, class: "opponent" }, name)
      : h("span", { class: "opponent" }, name);
  }

  function resultText(entry: HistoryEntry): string {
    const base = app.t(`result_${entry.result}`);
    const reason = entry.end?.reason;
    return reason && reason !== "played" && entry.result !== "aborted" ? `${base} (${app.t(`how_${reason}`)})` : base;
  }

  function row(entry: HistoryEntry): HTMLElement {
    const opponents: Node[] = [];
    entry.opponents.forEach((o, i) => {
      if (i > 0) opponents.push(document.createTextNode(", "));
      opponents.push(opponent(o));
    });
    return h(
      "tr",
      { "data-match": entry.id, "data-result": entry.result, class: `result-${entry.result}` },
      h("td", { class: "date" }, formatDate(app.lang(), entry.finished ?? entry.created)),
      h("td", { class: "game" }, entry.title),
      h("td", { class: "options" }, describeOptions(app.lang(), entry.options)),
      h("td", { class: "opponents" }, ...opponents),
      h("td", { class: "result", "data-testid": "history-result" }, resultText(entry)),
      h(
        "td",
        {},
        h(
          "a",
          { href: `/match/${entry.id}/replay`, "data-link": true, "data-testid": "history-replay" },
          app.t("replay"),
        ),
      ),
    );
  }

  function gameTitle(game: string): string {
    return titles[game] ?? game;
  }

  function choose(game: string, family: Family): void {
    chosen = { game, family };
    graph = null;
    graphError = "";
    const ask = ++asked;
    draw();
    api
      .ratings(playerId, game, family)
      .then((answer) => {
        if (ask !== asked) return;
        graph = answer;
        draw();
      })
      .catch((err: unknown) => {
        if (ask !== asked) return;
        graphError = errorText(app, err);
        draw();
      });
  }

  function pointText(p: RatingPoint): string {
    const change = `${p.change >= 0 ? "+" : "−"}${Math.abs(p.change).toFixed(1)}`;
    return app.t("graph_point", { date: formatDate(app.lang(), p.at), rating: p.rating.toFixed(1), change });
  }

  /** The ratings table (a row per game and family; choosing one draws its graph) and the graph. */
  function ratingsSection(ratings: GameRating[]): HTMLElement {
    const section = h("section", { class: "ratings", "data-testid": "ratings" }, h("h3", {}, app.t("ratings")));
    if (ratings.length === 0) {
      section.append(h("p", { class: "empty", "data-testid": "no-ratings" }, app.t("no_ratings")));
      return section;
    }
    const key = (r: { game: string; family: Family }) => `${r.game}/${r.family}`;
    section.append(
      h(
        "table",
        { class: "history ratings-table", "data-testid": "ratings-table" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ...["col_game", "col_family", "col_rating", "col_games"].map((k) => h("th", { scope: "col" }, app.t(k))),
          ),
        ),
        h(
          "tbody",
          {},
          ...ratings.map((r) =>
            h(
              "tr",
              {
                "data-game": r.game,
                "data-family": r.family,
                class: chosen && key(chosen) === key(r) ? "chosen" : "",
              },
              h("td", {}, gameTitle(r.game)),
              h("td", {}, familyName(app, r.family)),
              h(
                "td",
                { class: "rating", "data-testid": "player-rating" },
                r.rating.toFixed(1),
                r.provisional
                  ? h("span", { class: "provisional", title: app.t("provisional_help", { n: 10 }) }, " ?")
                  : null,
              ),
              h("td", {}, r.games),
            ),
          ),
        ),
      ),
    );
    const select = h(
      "select",
      {
        name: "rating-graph",
        "data-testid": "graph-choice",
        onchange: (e: Event) => {
          const [game, family] = (e.target as HTMLSelectElement).value.split("/");
          choose(game, family as Family);
        },
      },
      ...ratings.map((r) =>
        h(
          "option",
          { value: key(r), selected: chosen !== null && key(chosen) === key(r) },
          `${gameTitle(r.game)} — ${familyName(app, r.family)}`,
        ),
      ),
    );
    section.append(
      h(
        "div",
        { class: "graph-head" },
        h("h3", {}, app.t("rating_history")),
        h("label", { class: "field" }, h("span", { class: "visually-hidden" }, app.t("rating_history")), select),
      ),
    );
    if (graphError) {
      section.append(h("p", { class: "error", role: "alert" }, graphError));
    } else if (!graph || !chosen) {
      section.append(h("p", {}, app.t("connecting")));
    } else if (graph.history.length === 0) {
      section.append(h("p", { class: "empty" }, app.t("no_history_points")));
    } else {
      const label = app.t("rating_graph", {
        name: data?.name ?? "",
        game: gameTitle(chosen.game),
        family: familyName(app, chosen.family),
      });
      section.append(h("figure", { class: "graph" }, ratingGraph(graph.history, label, pointText)));
    }
    return section;
  }

  /** Drawn anew when a graph is chosen and when it comes: the graph's select keeps the focus. */
  function draw(): void {
    redrawKeepingFocus(el, drawPage);
  }

  function drawPage(): void {
    if (error) {
      el.replaceChildren(h("p", { class: "error", role: "alert", "data-testid": "player-error" }, error));
      return;
    }
    if (!data) {
      el.replaceChildren(h("p", {}, app.t("connecting")));
      return;
    }
    document.title = `${data.name} — ${app.t("title")}`;
    const own = session.current.player?.id === data.id;
    el.replaceChildren(
      h(
        "h2",
        { "data-testid": "player-name" },
        data.name,
        data.kind === "guest" ? h("small", { class: "guest-tag" }, ` ${app.t("guest")}`) : null,
      ),
      h("p", { class: "since" }, app.t("since", { date: formatDate(app.lang(), data.created) })),
      data.ratings ? ratingsSection(data.ratings) : "",
      h("h3", {}, own ? app.t("my_history") : app.t("history")),
      data.matches.length === 0
        ? h("p", { class: "empty", "data-testid": "history-empty" }, app.t("no_history"))
        : h(
            "table",
            { class: "history", "data-testid": "history" },
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                ...["col_date", "col_game", "col_options", "col_opponents", "col_result", ""].map((k) =>
                  h("th", { scope: "col" }, k ? app.t(k) : ""),
                ),
              ),
            ),
            h("tbody", {}, ...data.matches.map(row)),
          ),
      h("nav", { class: "match-links" }, h("a", { href: "/", "data-link": true }, app.t("back_lobby"))),
    );
  }

  void api
    .games()
    .then((list) => {
      titles = Object.fromEntries(list.map((g) => [g.name, g.title]));
      draw();
    })
    .catch(() => undefined); // the names of the games stay as they are
  api
    .player(playerId)
    .then((page) => {
      data = page;
      const first = page.ratings?.[0];
      if (first) choose(first.game, first.family);
      else draw();
    })
    .catch((err: unknown) => {
      error = err instanceof ApiError && err.status === 404 ? app.t("no_player") : errorText(app, err);
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
