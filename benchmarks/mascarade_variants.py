"""Mascarade bot variants against each other: how the figures of docs/ratings/README.md
("Mascarade: rollouts to the end of the drawing") were measured.

Usage: python benchmarks/mascarade_variants.py VARIANT OPPONENT [--games N] [--start K] [--workers W]

A variant is a level name (``greedy``, ``easy`` ... ``expert``) or an EndgameBot's budgets as
``key=value`` pairs joined by commas, e.g. ``rollout_reach=10,rollout_samples=16,rollout_moves=3``
(the keys of ``ENDGAME_LEVELS``; the ones left out take hard's values).  Game ``k`` deals seed
``70000 + k`` to 2 players, the variant sitting at seat ``k % 2``; each seat's bot has its own seeded
RNG, so a run is repeatable.  Prints the variant's wins, by seat, the CPU time per game of each side
and the variant's longest decision.
"""

from __future__ import annotations

import argparse
import random
import time
from concurrent.futures import ProcessPoolExecutor

from masques.ai.bots import Bot, make_bot
from masques.ai.search import GreedyBot
from masques.engine import JSON, load_game
from masques.games.mascarade.bot import ENDGAME_LEVELS
from masques.games.mascarade.endgame import EndgameBot

LEVEL_NAMES = ("random", "greedy", "easy", "medium", "hard", "expert")


def build(variant: str) -> Bot:
    """A level by name, or hard's EndgameBot with some budgets changed."""
    if variant in LEVEL_NAMES:
        return make_bot(variant, "mascarade")
    budgets = dict(ENDGAME_LEVELS["hard"])
    for pair in variant.split(","):
        key, _, value = pair.partition("=")
        if key not in budgets:
            raise SystemExit(f"unknown budget {key!r}; budgets are: {', '.join(budgets)}")
        budgets[key] = int(value)
    return EndgameBot(GreedyBot(), name=variant, **budgets)


def play(job: tuple[int, str, str]) -> tuple[float, int, float, float, float]:
    """One game: the variant's result, its seat, each side's CPU seconds and the variant's longest
    decision."""
    k, variant, opponent = job
    game = load_game("mascarade", {"players": 2})
    state = game.new_initial_state(70_000 + k)
    mine = k % 2
    bots = [build(variant), build(opponent)] if mine == 0 else [build(opponent), build(variant)]
    rngs = [random.Random(k * 1000 + seat) for seat in range(2)]
    histories: list[list[JSON]] = [[state.observation(seat)] for seat in range(2)]
    spent = [0.0, 0.0]
    longest = 0.0
    while not state.is_terminal():
        seat = state.current_player
        start = time.process_time()
        action = bots[seat].act(game, seat, histories[seat], state.legal_actions(), rngs[seat])
        took = time.process_time() - start
        spent[seat] += took
        if seat == mine:
            longest = max(longest, took)
        state.apply(action)
        for s in range(2):
            histories[s].append(state.observation(s))
    return state.returns()[mine], mine, spent[mine], spent[1 - mine], longest


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("variant")
    parser.add_argument("opponent")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--start", type=int, default=0, help="first game index (deal 70000 + index)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    build(args.variant), build(args.opponent)  # bad budgets fail before any game
    jobs = [(k, args.variant, args.opponent) for k in range(args.start, args.start + args.games)]
    results = []
    with ProcessPoolExecutor(args.workers) as pool:
        for done, result in enumerate(pool.map(play, jobs), 1):
            results.append(result)
            if done % 10 == 0 or done == len(jobs):
                won = sum(r[0] for r in results)
                print(f"  {done}/{len(jobs)} games, {won:g} won ({won / done:.1%})", flush=True)
    n = len(results)
    won = sum(r[0] for r in results)
    first = sum(r[0] for r in results if r[1] == 0)
    print(
        f"{args.variant} against {args.opponent}: {won:g} of {n} ({won / n:.1%}); "
        f"as seat 0 {first:g} of {(n + 1) // 2}, as seat 1 {won - first:g} of {n // 2}; CPU per game "
        f"{sum(r[2] for r in results) / n:.1f} s against {sum(r[3] for r in results) / n:.1f} s; "
        f"longest decision {max(r[4] for r in results):.2f} s"
    )


if __name__ == "__main__":
    main()
