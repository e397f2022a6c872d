"""Engine speed, one core: random playouts/s, legal-move generations/s, mean legal moves per turn.

Usage: python benchmarks/engine.py [GAME ...] [--seconds S]   (default: every game; the same
figures as ``masques bench GAME``)
For Blokus 3D it also times the reference generator of the tests (a plain loop over pieces,
orientations and positions) on the same positions, and prints the speed ratio.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from masques.cli.bench import run_playouts
from masques.engine import game_class, game_names, load_game

ROOT = Path(__file__).resolve().parents[1]


def reference_ratio(seconds: float) -> tuple[float, float, int]:
    """Generations/s of the fast generator vs the tests' reference generator, same positions."""
    sys.path.insert(0, str(ROOT / "tests" / "games" / "blokus3d"))
    from reference import reference_legal_actions  # type: ignore[import-not-found]

    game = load_game("blokus3d", {"structure": "D", "players": 4})
    rng = random.Random(0)
    positions = []
    while len(positions) < 60:
        state = game.new_initial_state()
        while not state.is_terminal():
            positions.append(state.clone())
            state.apply(state.random_legal_action(rng))
    positions = positions[:: max(1, len(positions) // 60)][:60]

    def rate(fn) -> float:  # type: ignore[no-untyped-def]
        n = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            for p in positions:
                fn(p)
                n += 1
        return n / (time.perf_counter() - start)

    fast = rate(lambda s: s._generate(s.colour))
    slow = rate(reference_legal_actions)
    return fast, slow, len(positions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("games", nargs="*", help="games to measure (default: all)")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--players", type=int, default=None)
    args = parser.parse_args()
    base = {} if args.players is None else {"players": args.players}
    games = args.games or game_names()
    for name in games:
        print(f"\n{name}: random playouts on one core, {args.seconds:g} s per configuration")
        header = ("configuration", "playouts/s", "generations/s", "mean legal", "moves/game")
        print(f"{header[0]:<16}{header[1]:>12}{header[2]:>16}{header[3]:>12}{header[4]:>12}")
        for label, options in game_class(name).bench_configurations(base):
            r = run_playouts(load_game(name, options), seconds=args.seconds, label=label)
            print(
                f"{label:<16}{r.playouts_per_second:>12,.0f}{r.generations_per_second:>16,.0f}"
                f"{r.mean_legal_moves:>12,.1f}{r.mean_length:>12.1f}"
            )
    if "blokus3d" in games:
        fast, slow, n = reference_ratio(min(args.seconds, 3.0))
        print(
            f"\nstructure D, 4 players, {n} positions from random games: bitboard generator "
            f"{fast:,.0f} gen/s, reference loop {slow:,.0f} gen/s: {fast / slow:,.0f}x faster"
        )


if __name__ == "__main__":
    main()
