/**
 * The lobby: the games with a short summary of their rules, a form to create a match (options,
 * each seat: you, another person, or a bot at a level; public or private), my matches (those waiting
 * for my move first), and the open, running and finished matches to join, watch or replay.
 */
import { errorText } from "./account";
import { waiting } from "./alerts";
import {
  api,
  type ClockChoice,
  type GameInfo,
  type MyMatch,
  type OptionInfo,
  playerName,
  seats as seatKeys,
  session,
} from "./api";
import { CORRESPONDENCE_DAYS, FISCHER_PRESETS, fischerText, timeControl } from "./clock";
import { h, redrawKeepingFocus } from "./dom";
import type { Lang, MatchSummary } from "./games/contract";
import { format } from "./i18n";
import { botLevel, type AppContext, type Page } from "./match";
import { RULES } from "./rules";
import { GAMES, RULES_TEXT } from "./rules_page";

const rulesText = (lang: Lang, key: string): string => RULES_TEXT[lang][key];

const BOTS = ["random", "greedy", "easy", "medium", "hard", "expert"];
const REFRESH_MS = 3000;
const TURN_CLOCKS = [30, 60, 120, 300];
type ClockKind = "none" | "turn" | "fischer" | "correspondence";
const CLOCK_KINDS: ClockKind[] = ["none", "turn", "fischer", "correspondence"];

function seatCount(game: GameInfo, options: Record<string, unknown>): number {
  const players = options.players ?? game.options.find((o) => o.name === "players")?.default ?? game.players;
  return typeof players === "number" ? players : 2;
}

/** An option's values to choose from, or none when it takes any value of its type. */
function choices(option: OptionInfo): unknown[] {
  return Array.isArray(option.allowed) ? option.allowed : [];
}

/**
 * What a free (not listed) option field holds, as the API wants it: an int, a string, or any JSON.
 * Empty means "the default" (the option is not sent).  Throws a message when the text is no value.
 */
function parseFree(option: OptionInfo, text: string): unknown {
  const raw = text.trim();
  if (raw === "") return undefined;
  if (option.type === "int") {
    if (!/^-?\d+$/.test(raw)) throw new Error("int");
    return Number(raw);
  }
  if (option.type === "json") {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      throw new Error("json");
    }
  }
  return text;
}

/** A date and time as people of the page's language write it. */
export function formatDate(lang: Lang, iso: string | null | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(lang === "fr" ? "fr-FR" : "en-GB", { dateStyle: "medium", timeStyle: "short" });
}

/** A match's options in words ("Players: 2, Variant: 2D (6×6 grid)"), with the lobby's labels. */
export function describeOptions(lang: Lang, options: Record<string, unknown>): string {
  return Object.entries(options)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([name, value]) => {
      const label = lobbyT(lang, `opt_${name}`) ?? name.replace(/_/g, " ");
      const shown =
        lobbyT(lang, `val_${name}_${String(value)}`) ??
        (typeof value === "boolean"
          ? (lobbyT(lang, value ? "yes" : "no") ?? String(value))
          : typeof value === "object"
            ? JSON.stringify(value)
            : String(value));
      return `${label}${lang === "fr" ? " : " : ": "}${shown}`; // French puts a space before a colon
    })
    .join(", ");
}

export function lobbyPage(root: HTMLElement, app: AppContext): Page {
  let games: GameInfo[] = [];
  let matches: MatchSummary[] = [];
  let mineList: MyMatch[] = [];
  let isPrivate = false;
  let chosen = "";
  let options: Record<string, unknown> = {};
  let free: Record<string, string> = {}; // what the free (int, text, JSON) option fields hold
  let seatKinds: string[] = [];
  let error = "";
  let rated = false;
  let clockKind: ClockKind = "none";
  let turnSeconds = 60;
  let fischerMinutes = 5;
  let fischerIncrement = 3;
  let days = 3;
  /** What happens at zero, once chosen; until then it follows `rated` (lose when rated, else a bot). */
  let atZero: "lose" | "bot" | null = null;
  let timer: number | undefined;
  /**
   * A player's games wait for the first reply about their matches: "my matches" is drawn above the
   * games, and games drawn before it would move under a click when it arrives.
   */
  let listsArrived = !session.current.player;
  const nameInput = h("input", { type: "text", name: "player-name", maxlength: 40, value: playerName.get() });

  const gamesEl = h("section", { class: "games", "aria-label": "games" });
  const formEl = h("section", { class: "create" });
  const listEl = h("section", { class: "matches" });
  const mineEl = h("section", { class: "my-matches", "data-testid": "my-matches", hidden: true });
  const boardLink = h("a", { href: "/leaderboard", "data-link": true, "data-testid": "leaderboard-link" });
  root.append(
    h(
      "div",
      { class: "lobby" },
      h("div", { class: "lobby-head" }, h("p", { class: "tagline" }), boardLink),
      mineEl,
      gamesEl,
      formEl,
      listEl,
    ),
  );
  const unwatch = waiting.subscribe(() => drawTitle());

  /** The tab's title: how many matches wait for my move, first. */
  function drawTitle(): void {
    const n = waiting.count ?? 0;
    document.title = n > 0 ? `(${n}) ${app.t("title")}` : app.t("title");
  }

  function choose(name: string): void {
    chosen = name;
    options = {};
    free = {};
    const game = games.find((g) => g.name === name);
    seatKinds = game ? defaultSeats(seatCount(game, options)) : [];
    draw();
    formEl.scrollIntoView({ block: "nearest" });
    formEl.querySelector<HTMLElement>("select, input")?.focus();
  }

  function defaultSeats(n: number): string[] {
    return Array.from({ length: n }, (_, i) => (i === 0 ? "you" : "random"));
  }

  function draw(): void {
    (root.querySelector(".tagline") as HTMLElement).textContent = app.t("tagline");
    boardLink.textContent = app.t("leaderboard");
    drawTitle();
    drawMine();
    drawGames();
    drawForm();
    drawList();
  }

  /** The lists are drawn again on each refresh: a link reached with the keyboard keeps the focus. */
  function drawMine(): void {
    redrawKeepingFocus(mineEl, drawMineList);
  }

  /** My open and running matches, those waiting for my move first (the server's order), marked. */
  function drawMineList(): void {
    mineEl.hidden = !session.current.player || mineList.length === 0;
    if (mineEl.hidden) {
      mineEl.replaceChildren();
      return;
    }
    const waitingCount = mineList.filter((m) => m.my_turn).length;
    mineEl.replaceChildren(
      h(
        "h2",
        {},
        t("my_matches"),
        waitingCount > 0
          ? h(
              "span",
              { class: "waiting-count", "data-testid": "my-waiting", "data-count": waitingCount },
              ` · ${t("waiting_n", { n: waitingCount })}`,
            )
          : null,
      ),
      h(
        "ul",
        { class: "match-list" },
        ...mineList.map((m) =>
          h(
            "li",
            { "data-match": m.id, "data-my-turn": m.my_turn ? "true" : "false", class: m.my_turn ? "my-turn" : "" },
            h(
              "a",
              { href: `/match/${m.id}`, "data-link": true, class: `button${m.my_turn ? " primary" : ""}` },
              m.my_turn ? t("play") : t("resume"),
            ),
            " ",
            h("strong", {}, m.title),
            m.private ? h("span", { class: "private-tag" }, t("private")) : null,
            ...tags(m),
            " ",
            h("span", { class: "who" }, who(m)),
            m.my_turn
              ? h("span", { class: "my-turn-mark", "data-testid": "my-turn" }, ` · ${t("your_move")}`)
              : h(
                  "span",
                  { class: "moves" },
                  ` · ${m.status === "open" ? t("status_open") : t("moves_n", { n: m.version })}`,
                ),
          ),
        ),
      ),
    );
  }

  function drawGames(): void {
    const lang = app.lang();
    gamesEl.hidden = !listsArrived;
    gamesEl.replaceChildren(
      h("h2", {}, t("games")),
      h(
        "div",
        { class: "game-cards" },
        ...games.map((game) =>
          h(
            "article",
            { class: `game-card${game.name === chosen ? " chosen" : ""}`, "data-game": game.name },
            h("h3", {}, game.title),
            h("p", {}, RULES[game.name]?.[lang] ?? ""),
            h(
              "nav",
              { class: "game-card-links", hidden: !GAMES.includes(game.name) },
              h("a", { href: `/rules/${game.name}`, "data-link": true, "data-testid": `rules-${game.name}` }, rulesText(lang, "rules")),
              " · ",
              h("a", { href: `/learn/${game.name}`, "data-link": true, "data-testid": `learn-${game.name}` }, rulesText(lang, "learn")),
            ),
            h(
              "button",
              {
                type: "button",
                class: game.name === chosen ? "primary" : "",
                "aria-pressed": game.name === chosen ? "true" : "false",
                "data-testid": `choose-${game.name}`,
                onclick: () => choose(game.name),
              },
              t("new_match"),
            ),
          ),
        ),
      ),
    );
  }

  /** Drawn again when a field changes what the form offers (players, the clock): the field keeps the focus. */
  function drawForm(): void {
    redrawKeepingFocus(formEl, drawCreateForm);
  }

  function drawCreateForm(): void {
    const game = games.find((g) => g.name === chosen);
    if (!game) {
      formEl.replaceChildren();
      return;
    }
    const fields = game.options.filter((option) => applies(game, option)).map((option) => optionField(option));
    const seatFields = seatKinds.map((kind, i) =>
      h(
        "label",
        { class: "field" },
        h("span", {}, t("seat_n", { n: i + 1 })),
        h(
          "select",
          {
            name: `seat-${i}`,
            onchange: (e: Event) => {
              seatKinds[i] = (e.target as HTMLSelectElement).value;
            },
          },
          h("option", { value: "you", selected: kind === "you" }, t("seat_you")),
          h("option", { value: "human", selected: kind === "human" }, t("seat_human")),
          ...BOTS.map((bot) =>
            h("option", { value: bot, selected: kind === bot }, t("seat_bot", { level: botLevel(app, bot) })),
          ),
        ),
      ),
    );
    const name = nameInput; // kept across redraws, so what a person types survives them
    name.placeholder = t("your_name");
    formEl.replaceChildren(
      h(
        "form",
        {
          class: "create-form",
          "data-testid": "create-form",
          onsubmit: (e: Event) => {
            e.preventDefault();
            void create(game, name.value.trim());
          },
        },
        h("h2", {}, t("create_title", { game: game.title })),
        h("div", { class: "fields" }, ...fields),
        h("fieldset", { class: "seats-fields" }, h("legend", {}, t("seats")), ...seatFields),
        h(
          "div",
          { class: "fields" },
          // An account plays under its username; a guest (or a newcomer) types a name.
          session.current.player?.kind === "account"
            ? null
            : h("label", { class: "field" }, h("span", {}, t("your_name")), name),
          h(
            "label",
            { class: "field check", title: t("private_help") },
            h("input", {
              type: "checkbox",
              name: "private",
              "data-testid": "private",
              checked: isPrivate,
              onchange: (e: Event) => {
                isPrivate = (e.target as HTMLInputElement).checked;
              },
            }),
            h("span", {}, t("private_match")),
          ),
        ),
        ratedField(),
        timeFields(),
        error ? h("p", { class: "error", role: "alert" }, error) : null,
        h("button", { type: "submit", class: "primary", "data-testid": "create" }, t("create")),
      ),
    );
  }

  /** Rated: for accounts only (a guest or a newcomer is told why, with the way to an account). */
  function ratedField(): HTMLElement {
    const account = session.current.player?.kind === "account";
    if (!account) rated = false;
    return h(
      "div",
      { class: "fields rated-fields" },
      h(
        "label",
        { class: "field check", title: t("rated_help") },
        h("input", {
          type: "checkbox",
          name: "rated",
          "data-testid": "rated",
          checked: rated,
          disabled: !account,
          "aria-describedby": account ? null : "rated-why",
          onchange: (e: Event) => {
            rated = (e.target as HTMLInputElement).checked;
            drawForm();
          },
        }),
        h("span", {}, t("rated_match")),
      ),
      account
        ? h("small", { class: "hint" }, t("rated_help"))
        : h(
            "small",
            { class: "hint", id: "rated-why", "data-testid": "rated-why" },
            t("rated_account_only"),
            " ",
            h("button", { type: "button", class: "link", onclick: () => app.openAuth("signup") }, app.t("sign_up")),
            " ",
            h("button", { type: "button", class: "link", onclick: () => app.openAuth("login") }, app.t("log_in")),
          ),
    );
  }

  /** The time control: none, per turn, live (minutes + increment, with presets) or correspondence
   * (days a move); for the last two, what happens when a person's time runs out. */
  function timeFields(): HTMLElement {
    const kind = h(
      "select",
      {
        name: "clock-kind",
        "data-testid": "clock-kind",
        onchange: (e: Event) => {
          clockKind = (e.target as HTMLSelectElement).value as ClockKind;
          drawForm();
        },
      },
      ...CLOCK_KINDS.map((k) => h("option", { value: k, selected: k === clockKind }, t(`clock_kind_${k}`))),
    );
    const parts: (HTMLElement | null)[] = [h("label", { class: "field" }, h("span", {}, t("clock")), kind)];
    if (clockKind === "turn") {
      parts.push(
        h(
          "label",
          { class: "field", title: t("clock_help") },
          h("span", {}, t("clock_turn_seconds")),
          h(
            "select",
            {
              name: "turn-seconds",
              onchange: (e: Event) => {
                turnSeconds = Number((e.target as HTMLSelectElement).value);
              },
            },
            ...TURN_CLOCKS.map((n) => h("option", { value: n, selected: n === turnSeconds }, t("clock_s", { n }))),
          ),
        ),
      );
    } else if (clockKind === "fischer") {
      const number = (name: string, value: number, min: number, max: number, set: (n: number) => void) =>
        h("input", {
          type: "number",
          name,
          "data-testid": name,
          min,
          max,
          step: 1,
          value,
          required: true,
          oninput: (e: Event) => set(Number((e.target as HTMLInputElement).value)),
        });
      parts.push(
        h(
          "label",
          { class: "field" },
          h("span", {}, t("clock_minutes")),
          number("clock-minutes", fischerMinutes, 1, 180, (n) => (fischerMinutes = n)),
        ),
        h(
          "label",
          { class: "field" },
          h("span", {}, t("clock_increment")),
          number("clock-increment", fischerIncrement, 0, 180, (n) => (fischerIncrement = n)),
        ),
        h(
          "div",
          { class: "field presets", role: "group", "aria-label": t("clock_presets") },
          h("span", {}, t("clock_presets")),
          h(
            "div",
            { class: "preset-buttons" },
            ...FISCHER_PRESETS.map(([minutes, increment]) =>
              h(
                "button",
                {
                  type: "button",
                  "data-testid": `preset-${minutes}-${increment}`,
                  "aria-pressed": minutes === fischerMinutes && increment === fischerIncrement ? "true" : "false",
                  onclick: () => {
                    fischerMinutes = minutes;
                    fischerIncrement = increment;
                    drawForm();
                  },
                },
                fischerText(minutes * 60, increment),
              ),
            ),
          ),
        ),
      );
    } else if (clockKind === "correspondence") {
      parts.push(
        h(
          "label",
          { class: "field" },
          h("span", {}, t("clock_days")),
          h(
            "select",
            {
              name: "clock-days",
              onchange: (e: Event) => {
                days = Number((e.target as HTMLSelectElement).value);
              },
            },
            ...CORRESPONDENCE_DAYS.map((n) => h("option", { value: n, selected: n === days }, t("tc_days", { n }))),
          ),
        ),
      );
    }
    if (clockKind === "fischer" || clockKind === "correspondence") {
      const chosen = atZero ?? (rated ? "lose" : "bot");
      parts.push(
        h(
          "label",
          { class: "field" },
          h("span", {}, t("at_zero")),
          h(
            "select",
            {
              name: "at-zero",
              onchange: (e: Event) => {
                atZero = (e.target as HTMLSelectElement).value as "lose" | "bot";
              },
            },
            ...(["lose", "bot"] as const).map((v) =>
              h("option", { value: v, selected: v === chosen }, app.t(`at_zero_${v}`)),
            ),
          ),
        ),
      );
    }
    return h("fieldset", { class: "fields time-fields" }, h("legend", {}, t("time_control")), ...parts);
  }

  /** The clock to send, or a message when a live clock's numbers are out of range. */
  function chosenClock(): ClockChoice | null {
    if (clockKind === "turn") return { kind: "turn", seconds: turnSeconds };
    if (clockKind === "correspondence") return { kind: "correspondence", days };
    if (clockKind === "fischer") {
      const ok = (n: number, min: number, max: number) => Number.isInteger(n) && n >= min && n <= max;
      if (!ok(fischerMinutes, 1, 180) || !ok(fischerIncrement, 0, 180)) throw new Error(t("bad_clock"));
      return { kind: "fischer", base: fischerMinutes * 60, increment: fischerIncrement };
    }
    return null;
  }

  /** An option's help in the page's language (the server's English words otherwise). */
  function optionHelp(option: OptionInfo): string {
    const key = `help_${chosen}_${option.name}`;
    const text = t(key);
    return text === key ? option.help : text;
  }

  /** One option's field: a checkbox (bool), a list (listed values), or a free field by type. */
  function optionField(option: OptionInfo): HTMLElement {
    const help = optionHelp(option);
    const value = option.name in options ? options[option.name] : option.default;
    const label =
      t(`opt_${option.name}`) === `opt_${option.name}` ? option.name.replace(/_/g, " ") : t(`opt_${option.name}`);
    if (option.type === "bool") {
      return h(
        "label",
        { class: "field check", title: help },
        h("input", {
          type: "checkbox",
          name: option.name,
          checked: Boolean(value),
          onchange: (e: Event) => {
            options[option.name] = (e.target as HTMLInputElement).checked;
          },
        }),
        h("span", {}, label),
      );
    }
    const allowed = choices(option);
    if (allowed.length === 0) return freeField(option, label);
    return h(
      "label",
      { class: "field", title: help },
      h("span", {}, label),
      h(
        "select",
        {
          name: option.name,
          onchange: (e: Event) => {
            const raw = (e.target as HTMLSelectElement).value;
            const picked = allowed.find((v) => String(v) === raw);
            options[option.name] = picked;
            const game = games.find((g) => g.name === chosen);
            if (game?.options.some((o) => o.only_with?.option === option.name)) drawForm();
            if (option.name === "players") {
              const n = seatCount(
                games.find((g) => g.name === chosen)!,
                options,
              );
              seatKinds = Array.from({ length: n }, (_, i) => seatKinds[i] ?? "random");
              drawForm();
            }
          },
        },
        ...allowed.map((v) =>
          h("option", { value: String(v), selected: String(v) === String(value) }, optionValue(option, v)),
        ),
      ),
    );
  }

  /** A number, text or JSON field for an option that takes any value of its type. */
  function freeField(option: OptionInfo, label: string): HTMLElement {
    const help = optionHelp(option);
    const initial =
      option.default === null ? "" : option.type === "json" ? JSON.stringify(option.default) : String(option.default);
    const shown = option.name in free ? free[option.name] : initial;
    const oninput = (e: Event) => {
      free[option.name] = (e.target as HTMLInputElement | HTMLTextAreaElement).value;
    };
    const attrs = { name: option.name, "data-option-type": option.type, title: help, oninput };
    const input =
      option.type === "json"
        ? h("textarea", { ...attrs, rows: 3, spellcheck: "false" }, shown)
        : h("input", {
            ...attrs,
            type: option.type === "int" ? "number" : "text",
            step: option.type === "int" ? 1 : undefined,
            value: shown,
          });
    return h(
      "label",
      { class: `field free ${option.type}` },
      h("span", {}, label),
      input,
      h("small", { class: "hint" }, help),
    );
  }

  /** Whether an option means something with the values chosen so far (see `only_with`). */
  function applies(game: GameInfo, option: OptionInfo): boolean {
    const condition = option.only_with;
    if (!condition) return true;
    const other = game.options.find((o) => o.name === condition.option);
    const value = condition.option in options ? options[condition.option] : other?.default;
    return String(value) === String(condition.value);
  }

  /** The options to send: those chosen from lists, and the free fields' values read as their types
   * (an option that means nothing with the others' values is left out). */
  function chosenOptions(game: GameInfo): Record<string, unknown> {
    const out: Record<string, unknown> = { ...options };
    for (const option of game.options) {
      if (!applies(game, option)) {
        delete out[option.name];
        continue;
      }
      if (option.type === "bool" || choices(option).length > 0 || !(option.name in free)) continue;
      try {
        const parsed = parseFree(option, free[option.name]);
        if (parsed === undefined) delete out[option.name];
        else out[option.name] = parsed;
      } catch (err) {
        throw new Error(t(`bad_${(err as Error).message}`, { name: option.name }));
      }
    }
    return out;
  }

  function optionValue(option: OptionInfo, value: unknown): string {
    const key = `val_${option.name}_${String(value)}`;
    const text = t(key);
    if (text !== key) return text;
    if (option.name === "masks" && value === 0) return t("val_default");
    return String(value);
  }

  async function create(game: GameInfo, name: string): Promise<void> {
    error = "";
    try {
      const kinds = seatKinds.map((k) => (k === "you" ? "human" : k));
      const chosenOpts = chosenOptions(game);
      const clock = chosenClock();
      if (name) playerName.set(name);
      // A guest (with the typed name) before the first match, so that the seat follows the player.
      const player = await session.ensure(session.current.player?.kind === "account" ? "" : name, app.lang());
      const match = await api.create(game.name, chosenOpts, kinds, {
        isPrivate,
        rated,
        clock,
        atZero: atZero ?? (rated ? "lose" : "bot"),
      });
      const mine = seatKinds.indexOf("you");
      if (mine >= 0) {
        const who = name || t("seat_n", { n: mine + 1 });
        const invite = match.invite;
        const joined = await api.join(match.id, player ? { seat: mine, invite } : { name: who, seat: mine, invite });
        if (joined.token) seatKeys.set(match.id, { seat: joined.seat, token: joined.token });
      }
      app.navigate(`/match/${match.id}`);
    } catch (err) {
      error = errorText(app, err); // the server's refusal, or a free field's value
      drawForm();
    }
  }

  function drawList(): void {
    redrawKeepingFocus(listEl, drawMatchList);
  }

  function drawMatchList(): void {
    const groups: [string, MatchSummary[]][] = [
      ["open", matches.filter((m) => m.status === "open")],
      ["running", matches.filter((m) => m.status === "running")],
      ["finished", matches.filter((m) => m.status === "finished").slice(0, 10)],
    ];
    listEl.replaceChildren(
      h("h2", {}, t("matches")),
      ...groups.map(([status, list]) =>
        h(
          "div",
          { class: `match-group ${status}`, "data-status": status },
          h("h3", {}, t(`status_${status}`)),
          list.length === 0
            ? h("p", { class: "empty" }, t("none"))
            : h("ul", { class: "match-list" }, ...list.map((m) => matchItem(m))),
        ),
      ),
    );
  }

  /** A match's marks in a list: rated, and its time control. */
  function tags(m: MatchSummary): HTMLElement[] {
    const out: HTMLElement[] = [];
    if (m.rated) out.push(h("span", { class: "rated-tag", "data-testid": "rated-tag" }, app.t("rated")));
    const control = timeControl(app.t, m);
    if (control) out.push(h("span", { class: "tc-tag", "data-testid": "time-control" }, control));
    return out;
  }

  function who(m: MatchSummary): string {
    return m.seats
      .map((s) => (s.kind === "human" ? (s.name ?? t("open")) : t("seat_bot", { level: botLevel(app, s.kind) })))
      .join(", ");
  }

  /** A finished match's result in words: who won (or no result), and how it ended when not played out. */
  function resultOf(m: MatchSummary): string {
    const end = m.end;
    if (!end) return "";
    const name = (seat: number) => {
      const s = m.seats[seat];
      if (!s) return t("seat_n", { n: seat + 1 });
      return s.kind === "human"
        ? (s.name ?? t("seat_n", { n: seat + 1 }))
        : t("seat_bot", { level: botLevel(app, s.kind) });
    };
    if (end.reason === "aborted") return app.t("end_aborted");
    const names = end.winners.map(name);
    const winners =
      names.length === 0 || names.length === m.seats.length
        ? app.t("draw")
        : app.t(names.length > 1 ? "winners" : "winner", { names: names.join(", ") });
    return end.reason && end.reason !== "played" ? `${winners} (${app.t(`how_${end.reason}`)})` : winners;
  }

  function matchItem(m: MatchSummary): HTMLElement {
    const free = m.seats.filter((s) => s.kind === "human" && !s.taken).length;
    const me = session.current.player?.id;
    const mine = seatKeys.get(m.id) !== null || (me !== undefined && m.seats.some((s) => s.player?.id === me));
    const action =
      m.status === "finished"
        ? t("replay")
        : mine
          ? t("resume")
          : m.status === "open" && free > 0
            ? t("join")
            : t("watch");
    const href = m.status === "finished" ? `/match/${m.id}/replay` : `/match/${m.id}`;
    return h(
      "li",
      { "data-match": m.id },
      h("a", { href, "data-link": true, class: "button" }, action),
      " ",
      h("strong", {}, m.title),
      ...tags(m),
      " ",
      h("span", { class: "who" }, who(m)),
      m.status === "running" ? h("span", { class: "moves" }, ` · ${t("moves_n", { n: m.version })}`) : null,
      m.status === "finished" && m.end
        ? h(
            "span",
            { class: "result", "data-testid": "finished-result", "data-reason": m.end.reason },
            ` · ${resultOf(m)}`,
          )
        : null,
      m.status === "finished" && (m.finished ?? m.created)
        ? h(
            "time",
            { class: "date", datetime: m.finished ?? m.created, "data-testid": "finished-date" },
            ` · ${formatDate(app.lang(), m.finished ?? m.created)}`,
          )
        : null,
      m.seeded ? h("span", { class: "seeded", title: t("seeded_help") }, ` · ${t("seeded")}`) : null,
    );
  }

  async function refresh(): Promise<void> {
    try {
      const [all, mine] = await Promise.all([
        api.matches(),
        session.current.player ? api.myMatches().catch(() => mineList) : Promise.resolve([] as MyMatch[]),
      ]);
      matches = all;
      mineList = mine;
      if (session.current.player) waiting.set(mine.filter((m) => m.my_turn).length);
      drawList();
      drawMine();
    } catch {
      // the next refresh tries again
    }
    if (!listsArrived) {
      listsArrived = true;
      drawGames();
    }
    timer = window.setTimeout(() => void refresh(), REFRESH_MS);
  }

  function t(key: string, params?: Record<string, string | number>): string {
    return lobbyT(app.lang(), key, params) ?? app.t(key, params);
  }

  void api.games().then((list) => {
    games = list;
    draw();
  });
  void refresh();
  draw();

  return {
    setLang: () => draw(),
    destroy: () => {
      window.clearTimeout(timer);
      unwatch();
    },
  };
}

const LOBBY: Record<Lang, Record<string, string>> = {
  en: {
    games: "Games",
    new_match: "New match",
    create_title: "New match of {game}",
    seats: "Seats",
    seat_n: "Seat {n}",
    seat_you: "You",
    seat_human: "Another person (open seat)",
    seat_bot: "{level} bot",
    your_name: "Your name",
    create: "Create and play",
    matches: "Matches",
    status_open: "Waiting for players",
    status_running: "Being played",
    status_finished: "Finished",
    none: "None.",
    open: "open seat",
    replay: "Replay",
    resume: "Resume",
    join: "Join",
    watch: "Watch",
    moves_n: "{n} moves",
    seeded: "chosen deal",
    seeded_help:
      "The creator chose this match's seed: they know the cards dealt (allowed only with at most one person)",
    opt_players: "Players",
    opt_variant: "Variant",
    opt_scoring: "Scoring variant (points)",
    opt_masks: "Masks",
    opt_unmasking: "Unmasking at the end",
    opt_colours_per_player: "Colours per player",
    opt_two_player_scoring: "Two-player scoring",
    opt_structure: "Structure",
    opt_random_first: "Random first colour",
    opt_custom_structure: "Your structure",
    help_masker_players: "2 or 3 players, or 4 in two teams of two.",
    help_masker_variant: "2D: a 6×6 grid; 3D: 3×3 stacks of four levels.",
    help_mascarade_players: "3 or 4 players; 2 players is this site's extension.",
    help_mascarade_scoring: "The variant with points, for older players.",
    help_mascarade_matching: "Whether a card laid must share a feature with every card beside it, or with one at least.",
    help_maske_players: "Number of players.",
    help_maske_masks: "Masks in play; the default follows the number of players.",
    help_maske_unmasking: "After the last payday the masks come off one by one from the top, and each mask laid bare pays out in turn.",
    help_maske_auction: "Rounds: whoever drops out is out of that auction; open: a pass keeps you in.",
    help_blokus3d_players: "Number of players.",
    help_blokus3d_colours_per_player: "Colours each player plays; two colours each only with two players.",
    help_blokus3d_two_player_scoring: "With two players of two colours each: a player scores the sum of both colours, or the better one.",
    help_blokus3d_structure: "The shape to build: Tower, Wall, Stairs, Pyramid, or one of your own.",
    help_blokus3d_custom_structure: 'Your own shape, as JSON: {"name": "Hill", "heights": ["0120", "1331", "0120"]}: up to 10 rows of up to 10 digits, the first row the farthest, each digit the height of that square.',
    help_blokus3d_random_first: "The first colour is drawn at random instead of blue starting.",
    val_default: "default",
    bad_int: "Option {name}: a whole number, please.",
    bad_json: "Option {name}: this is not valid JSON.",
    clock: "Clock",
    clock_none: "none",
    clock_s: "{n} s a turn",
    clock_help: "When a person's time runs out, a simple bot moves for them.",
    time_control: "Time",
    clock_kind_none: "No clock",
    clock_kind_turn: "Per turn",
    clock_kind_fischer: "Live: total + increment",
    clock_kind_correspondence: "Correspondence: days a move",
    clock_turn_seconds: "Time per turn",
    clock_minutes: "Minutes each",
    clock_increment: "Seconds added per move",
    clock_presets: "Presets",
    clock_days: "Time per move",
    at_zero: "When a player's time runs out",
    bad_clock: "A live clock takes 1 to 180 minutes and 0 to 180 seconds per move.",
    rated_match: "Rated",
    rated_help: "The result moves the players' ratings. Only accounts (and bots) may play it.",
    rated_account_only: "Rated matches are for accounts: sign up or log in to play one.",
    waiting_n: "{n} waiting for your move",
    val_variant_2d: "2D (6×6 grid)",
    val_variant_3d: "3D (3×3 stacks)",
    val_structure_A: "A — Tower",
    val_structure_B: "B — Wall",
    val_structure_C: "C — Stairs",
    val_structure_D: "D — Pyramid",
    val_two_player_scoring_sum: "sum of both colours",
    val_two_player_scoring_best: "best colour",
    opt_matching: "Matching",
    val_matching_every: "every neighbour (MC-5)",
    val_matching_one: "one neighbour is enough (MC-5a)",
    opt_auction: "Auction",
    val_auction_rounds: "dropping out is final (MS-11)",
    val_auction_open: "open: a pass keeps you in (MS-11a)",
    private_match: "Private (by invite link only)",
    private_help: "Not listed in the lobby: others join with the invite link you share.",
    private: "private",
    my_matches: "My matches",
    your_move: "your move",
    play: "Play",
    yes: "yes",
    no: "no",
  },
  fr: {
    games: "Jeux",
    new_match: "Nouvelle partie",
    create_title: "Nouvelle partie de {game}",
    seats: "Places",
    seat_n: "Place {n}",
    seat_you: "Vous",
    seat_human: "Une autre personne (place libre)",
    seat_bot: "robot {level}",
    your_name: "Votre nom",
    create: "Créer et jouer",
    matches: "Parties",
    status_open: "En attente de joueurs",
    status_running: "En cours",
    status_finished: "Terminées",
    none: "Aucune.",
    open: "place libre",
    replay: "Revoir",
    resume: "Reprendre",
    join: "Rejoindre",
    watch: "Regarder",
    moves_n: "{n} coups",
    seeded: "donne choisie",
    seeded_help:
      "Le créateur a choisi la graine de cette partie : il connaît la donne (permis seulement avec une personne au plus)",
    opt_players: "Joueurs",
    opt_variant: "Variante",
    opt_scoring: "Variante à points",
    opt_masks: "Masques",
    opt_unmasking: "Démasquage à la fin",
    opt_colours_per_player: "Couleurs par joueur",
    opt_two_player_scoring: "Score à deux",
    opt_structure: "Structure",
    opt_random_first: "Première couleur au hasard",
    opt_custom_structure: "Votre structure",
    help_masker_players: "2 ou 3 joueurs, ou 4 en deux équipes de deux.",
    help_masker_variant: "2D : une grille 6×6 ; 3D : des piles 3×3 de quatre niveaux.",
    help_mascarade_players: "3 ou 4 joueurs ; à 2, c'est une extension de ce site.",
    help_mascarade_scoring: "La variante à points, pour les plus grands.",
    help_mascarade_matching: "Une carte posée doit avoir un point commun avec chaque carte voisine, ou avec une au moins.",
    help_maske_players: "Nombre de joueurs.",
    help_maske_masks: "Masques en jeu ; par défaut, selon le nombre de joueurs.",
    help_maske_unmasking: "Après la dernière paie, on retire les masques un à un par le haut, et chaque masque découvert paie à son tour.",
    help_maske_auction: "Par tours : qui se retire quitte cette enchère ; ouvertes : passer ne fait pas sortir.",
    help_blokus3d_players: "Nombre de joueurs.",
    help_blokus3d_colours_per_player: "Couleurs jouées par chaque joueur ; deux couleurs chacun seulement à deux joueurs.",
    help_blokus3d_two_player_scoring: "À deux joueurs de deux couleurs : le score d'un joueur est la somme de ses deux couleurs, ou la meilleure.",
    help_blokus3d_structure: "La forme à bâtir : Tour, Mur, Escalier, Pyramide, ou la vôtre.",
    help_blokus3d_custom_structure: 'Votre forme, en JSON : {"name": "Colline", "heights": ["0120", "1331", "0120"]} : jusqu’à 10 rangées de 10 chiffres au plus, la première la plus éloignée, chaque chiffre la hauteur de sa case.',
    help_blokus3d_random_first: "La première couleur est tirée au sort au lieu du bleu.",
    val_default: "par défaut",
    bad_int: "Option {name} : un nombre entier, s'il vous plaît.",
    bad_json: "Option {name} : ce n'est pas du JSON valide.",
    clock: "Pendule",
    clock_none: "aucune",
    clock_s: "{n} s par tour",
    clock_help: "Quand le temps d'une personne est écoulé, un robot simple joue pour elle.",
    time_control: "Temps",
    clock_kind_none: "Sans pendule",
    clock_kind_turn: "Par tour",
    clock_kind_fischer: "En direct : total + incrément",
    clock_kind_correspondence: "Par correspondance : jours par coup",
    clock_turn_seconds: "Temps par tour",
    clock_minutes: "Minutes chacun",
    clock_increment: "Secondes ajoutées par coup",
    clock_presets: "Cadences",
    clock_days: "Temps par coup",
    at_zero: "Quand le temps d'un joueur est écoulé",
    bad_clock: "Une pendule en direct prend de 1 à 180 minutes et de 0 à 180 secondes par coup.",
    rated_match: "Classée",
    rated_help: "Le résultat fait évoluer le classement des joueurs. Seuls les comptes (et les robots) y jouent.",
    rated_account_only: "Les parties classées sont réservées aux comptes : créez-en un ou connectez-vous.",
    waiting_n: "{n} en attente de votre coup",
    val_variant_2d: "2D (grille 6×6)",
    val_variant_3d: "3D (piles 3×3)",
    val_structure_A: "A — Tour",
    val_structure_B: "B — Mur",
    val_structure_C: "C — Escalier",
    val_structure_D: "D — Pyramide",
    val_two_player_scoring_sum: "somme des deux couleurs",
    val_two_player_scoring_best: "meilleure couleur",
    opt_matching: "Accord",
    val_matching_every: "avec chaque voisin (MC-5)",
    val_matching_one: "un voisin suffit (MC-5a)",
    opt_auction: "Enchères",
    val_auction_rounds: "qui passe sort (MS-11)",
    val_auction_open: "ouvertes : passer ne fait pas sortir (MS-11a)",
    private_match: "Privée (sur lien d'invitation seulement)",
    private_help: "Absente du salon : les autres la rejoignent par le lien d'invitation que vous partagez.",
    private: "privée",
    my_matches: "Mes parties",
    your_move: "à vous de jouer",
    play: "Jouer",
    yes: "oui",
    no: "non",
  },
};

function lobbyT(lang: Lang, key: string, params?: Record<string, string | number>): string | null {
  const text = LOBBY[lang][key] ?? LOBBY.en[key];
  return text === undefined ? null : format(text, params);
}
