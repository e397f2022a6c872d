/**
 * The registry of game views.  Each game module registers here with one line; a game without a
 * module is shown by the generic view (its observation and its legal moves as buttons).
 */
import type { GameModule } from "./contract";
import { genericModule } from "./generic";
import mascarade from "./mascarade";
import masker from "./masker";
import blokus3d from "./blokus3d";
import maske from "./maske";

const MODULES: GameModule[] = [
  masker,
  mascarade,
  blokus3d,
  maske,
];

const BY_NAME = new Map(MODULES.map((m) => [m.name, m]));

/** The view module for `game`, or the generic view. */
export function moduleFor(game: string): GameModule {
  return BY_NAME.get(game) ?? genericModule(game);
}
