"""How long a match's analysis takes: seconds per judged decision at each level, one core, and the
decisions a seat makes in a whole match, so the time of an analysis with W bot workers follows.

Usage: python benchmarks/analysis.py [GAME ...] [--levels easy,hard,expert] [--decisions N]
(default: every game in its two-player form; N decisions of seat 0 spread over one random match)
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from masques.ai.analysis import judge
from masques.engine import load_game

CONFIGS: dict[str, dict[str, Any]] = {
    "masker": {"players": 2},
    "maske": {"players": 3, "masks": 2},
    "mascarade": {"players": 2},
    "blokus3d": {"players": 2, "structure": "A"},
}


def seat_decisions(name: str, seed: int) -> list[tuple[Any, int]]:
    """Seat 0's decisions (more than one legal move) in one random match: (state, move played)."""
    game = load_game(name, CONFIGS[name])
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    found = []
    while not state.is_terminal():
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        if state.current_player == 0 and len(legal) > 1:
            found.append((state.clone(), action))
        state.apply(action)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", default=list(CONFIGS))
    parser.add_argument("--levels", default="easy,hard,expert")
    parser.add_argument("--decisions", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{'game':<10} {'level':<7} {'s/decision':>10} {'decisions':>9} {'match, 1 worker':>16}")
    for name in args.games:
        found = seat_decisions(name, args.seed)
        step = max(1, len(found) // args.decisions)
        sample = found[::step][: args.decisions]
        game = load_game(name, CONFIGS[name])
        for level in args.levels.split(","):
            times = []
            for state, played in sample:
                started = time.perf_counter()
                judge(
                    game,
                    0,
                    [state.observation(0)],
                    state.legal_actions(),
                    played,
                    rng=random.Random(0),
                    level=level,
                )
                times.append(time.perf_counter() - started)
            each = statistics.median(times)
            print(
                f"{name:<10} {level:<7} {each:>10.2f} {len(found):>9} {each * len(found):>15.0f}s", flush=True
            )


if __name__ == "__main__":
    main()
