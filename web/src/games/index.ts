/**
 * The registry of game views.  Each game registers here with its strings and a loader: a view's code
 * (and three.js for Blokus 3D) is fetched only when a page first shows that game, so the lobby stays
 * light.  A game without a module is shown by the generic view (its observation and its legal moves
 * as buttons).
 */
import type { GameModule, GameView, LogEntry, Messages, MatchView, ViewContext } from "./contract";
import { genericModule } from "./generic";
import blokus3dMessages from "./blokus3d_messages";
import mascaradeMessages from "./mascarade_messages";
import maskeMessages from "./maske_messages";
import maskerMessages from "./masker_messages";
import { sayBlokus3d, sayMascarade, sayMaske, sayMasker, type SayMove } from "./log_words";

type Loader = () => Promise<{ default: GameModule }>;

const LOADERS: Record<string, { messages: Messages; say: SayMove; load: Loader }> = {
  masker: { messages: maskerMessages, say: sayMasker, load: () => import("./masker") },
  mascarade: { messages: mascaradeMessages, say: sayMascarade, load: () => import("./mascarade") },
  blokus3d: { messages: blokus3dMessages, say: sayBlokus3d, load: () => import("./blokus3d") },
  maske: { messages: maskeMessages, say: sayMaske, load: () => import("./maske") },
};

/** How `game` says its moves, and its strings, without its view's code (null: a game without a view). */
export function wordsOf(game: string): { say: SayMove; messages: Messages } | null {
  const entry = LOADERS[game];
  return entry ? { say: entry.say, messages: entry.messages } : null;
}

/** The names of the games with a view of their own. */
export const GAMES_WITH_VIEWS = Object.keys(LOADERS);

const loaded = new Map<string, Promise<GameModule>>();

/** The full module of `game` (its view's code loaded), or the generic view. */
export function loadModule(game: string): Promise<GameModule> {
  const entry = LOADERS[game];
  if (!entry) return Promise.resolve(genericModule(game));
  let module = loaded.get(game);
  if (!module) {
    module = entry.load().then((m) => m.default);
    // A failed fetch (network) may be tried again by the next view.
    module.catch(() => loaded.delete(game));
    loaded.set(game, module);
  }
  return module;
}

/**
 * A view that stands in for a game's view until its code has arrived: it keeps the latest state and
 * hands it over, and tells the log the engine's text meanwhile.
 */
class LazyView implements GameView {
  private real: GameView | null = null;
  private latest: MatchView | null = null;
  private gone = false;
  private readonly ready: Promise<void>;

  constructor(
    private readonly ctx: ViewContext,
    game: string,
  ) {
    ctx.root.dataset.loading = "true";
    this.ready = loadModule(game).then((module) => {
      if (this.gone) return;
      delete ctx.root.dataset.loading;
      this.real = module.create(ctx);
      if (this.latest) this.real.update(this.latest);
    }).catch(() => {
      ctx.root.dataset.loading = "failed";
    });
  }

  whenReady(): Promise<void> {
    return this.ready;
  }

  update(view: MatchView): void {
    this.latest = view;
    this.real?.update(view);
    // Every game's observation names its last move: a hook for tests and tools (the board marks it).
    const obs = view.observation as { last_move?: string | null } | null;
    this.ctx.root.dataset.lastMove = obs?.last_move ?? "";
  }

  describe(entry: LogEntry): string {
    return this.real?.describe?.(entry) ?? entry.move;
  }

  result(view: MatchView): { title: string; values: (number | string)[] } | null {
    return this.real?.result?.(view) ?? null;
  }

  setLang(lang: ViewContext["lang"]): void {
    this.real?.setLang?.(lang);
  }

  destroy(): void {
    this.gone = true;
    this.real?.destroy();
    this.real = null;
  }
}

/** The view module for `game` (whose views load their code on first use), or the generic view. */
export function moduleFor(game: string): GameModule {
  const entry = LOADERS[game];
  if (!entry) return genericModule(game);
  return { name: game, messages: entry.messages, create: (ctx) => new LazyView(ctx, game) };
}
