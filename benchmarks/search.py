"""Search speed: ISMCTS/UCT iterations per second and seconds per move at each bot level, per game.

Usage: python benchmarks/search.py [GAME ...] [--positions N]
Positions are taken from seeded random games (every few moves), so runs are comparable.  Times are
the CPU time of this process (``time.process_time``), so other work on the machine inflates them
less.  ``--levels hard,openspiel`` compares our hard level with OpenSpiel's bot at its simulation
count (the arena's "equal time per move" comparisons).  Levels that solve endgames instead of
searching with a fixed iteration count (Mascarade hard and expert, its ``ENDGAME_LEVELS``) show how far
back their rollouts reach (cards left in the pool) and in how many worlds, in place of the iterations.
"""

from __future__ import annotations

import argparse
import random
import time

from masques.ai import bot_parts, make_bot
from masques.ai.parts import DEFAULT_LEVELS
from masques.engine import game_names, load_game

OPTIONS = {
    "blokus3d": {"players": 4, "structure": "D"},
    "masker": {"players": 2},
    "mascarade": {"players": 3},
    "maske": {"players": 4},
}


def positions(name: str, count: int):  # type: ignore[no-untyped-def]
    game = load_game(name, OPTIONS[name])
    out = []
    seed = 0
    while len(out) < count:
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        histories = {s: [state.observation(s)] for s in range(game.num_players)}
        ply = 0
        while not state.is_terminal():
            if ply % 9 == 4 and len(state.legal_actions()) > 1:
                seat = state.current_player
                out.append((game, seat, list(histories[seat]), state.legal_actions()))
            state.apply(state.random_legal_action(rng))
            for s in range(game.num_players):
                histories[s].append(state.observation(s))
            ply += 1
        seed += 1
    return out[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("games", nargs="*")
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--levels", default="easy,medium,hard,expert")
    args = parser.parse_args()
    print(f"{'game':<10}{'level':<8}{'iterations':>11}{'s/move':>9}{'iterations/s':>14}")
    for name in args.games or game_names():
        sample = positions(name, args.positions)
        for level in args.levels.split(","):
            bot = make_bot(level, name)
            start = time.process_time()
            for game, seat, history, legal in sample:
                bot.act(game, seat, history, legal, random.Random(0))
            per_move = (time.process_time() - start) / len(sample)
            parts = bot_parts(name)
            if level in parts.special_levels:
                print(f"{name:<10}{level:<8}{'special':>11}{per_move:>9.3f}{'-':>14}")
                continue
            if level == "openspiel":
                iterations = parts.openspiel_simulations
            else:
                iterations = parts.levels.get(level, DEFAULT_LEVELS[level])[0]
            print(f"{name:<10}{level:<8}{iterations:>11}{per_move:>9.3f}{iterations / per_move:>14,.0f}")


if __name__ == "__main__":
    main()
