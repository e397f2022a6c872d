/**
 * A player's page (`/player/{id}`): their finished matches, most recent first, with the date, the game,
 * its options, the opponents, the result and a link to the replay.  Private matches appear only on the
 * player's own page (the server leaves them out for anyone else).
 */
import { errorText } from "./account";
import { api, ApiError, session, type HistoryEntry, type PlayerPage } from "./api";
import { h } from "./dom";
import { describeOptions, formatDate } from "./lobby";
import { botLevel, type AppContext, type Page } from "./match";

export function playerPage(root: HTMLElement, playerId: string, app: AppContext): Page {
  let data: PlayerPage | null = null;
  let error = "";
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

  function draw(): void {
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

  api
    .player(playerId)
    .then((page) => {
      data = page;
      draw();
    })
    .catch((err: unknown) => {
      error = err instanceof ApiError && err.status === 404 ? app.t("no_player") : errorText(app, err);
      draw();
    });
  draw();

  return {
    setLang: () => draw(),
    destroy: () => undefined,
  };
}
