"""Engine playouts/s with the legacy chance generator (version 1, the Mersenne Twister) against the
current one (version 2, ChaCha20), per game, in the same process.

Usage: python benchmarks/chance.py [GAME ...] [--seconds S] [--rounds R]

Each configuration of ``masques bench`` runs random playouts (the same actions' rng either way; only
the deal's generator differs) for S seconds per version, alternating the versions R times so that a
noisy machine hits both alike; the table gives the best round of each and the ratio v2 / v1.  It
also times the generators alone: building a stream and dealing a 100-card shuffle.
"""

from __future__ import annotations

import argparse
import random
import time

from masques.cli.bench import configurations, run_playouts
from masques.engine import game_names, load_game
from masques.engine.chance import CHANCE_VERSION, LEGACY_CHANCE, stream


def best_rate(name: str, options: dict[str, object], version: int, seconds: float) -> float:
    return run_playouts(load_game(name, options), seconds=seconds, chance=version).playouts_per_second


def generator_costs(repeats: int = 20_000) -> list[tuple[str, float, float]]:
    """Microseconds per call, best of 5, for each version: a new stream, and a new stream + shuffle."""

    def timed(fn: object) -> float:
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for i in range(repeats):
                fn(i)  # type: ignore[operator]
            best = min(best, (time.perf_counter() - start) / repeats * 1e6)
        return best

    def shuffle_with(version: int) -> object:
        def go(i: int) -> None:
            random_deck = list(range(100))
            stream(i, "mascarade/deal", version=version).shuffle(random_deck)

        return go

    return [
        (
            "new stream",
            timed(lambda i: stream(i, "masker/deal", version=LEGACY_CHANCE)),
            timed(lambda i: stream(i, "masker/deal", version=CHANCE_VERSION)),
        ),
        ("stream + shuffle 100", timed(shuffle_with(LEGACY_CHANCE)), timed(shuffle_with(CHANCE_VERSION))),
        (
            "random.Random(i) alone",
            timed(random.Random),
            timed(lambda i: stream(i, "x")),
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="*", help="games to measure (default: all)")
    parser.add_argument("--seconds", type=float, default=1.0, help="per version and round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("generators alone, microseconds per call (best of 5)")
    print(f"{'':<24}{'v1 (MT)':>10}{'v2 (ChaCha20)':>15}")
    for label, v1, v2 in generator_costs():
        print(f"{label:<24}{v1:>10.2f}{v2:>15.2f}")
    print(f"\nrandom playouts/s, one core, best of {args.rounds} rounds of {args.seconds:g} s per version")
    header = f"{'game':<11}{'configuration':<16}{'v1 playouts/s':>15}{'v2 playouts/s':>15}{'v2/v1':>8}"
    print(header)
    ratios = []
    for name in args.games or game_names():
        for label, options in configurations(name, {}):
            best = {LEGACY_CHANCE: 0.0, CHANCE_VERSION: 0.0}
            for _ in range(args.rounds):
                for version in (LEGACY_CHANCE, CHANCE_VERSION):
                    best[version] = max(best[version], best_rate(name, options, version, args.seconds))
            ratio = best[CHANCE_VERSION] / best[LEGACY_CHANCE]
            ratios.append(ratio)
            print(
                f"{name:<11}{label:<16}{best[LEGACY_CHANCE]:>15,.0f}{best[CHANCE_VERSION]:>15,.0f}{ratio:>8.3f}",
                flush=True,
            )
    print(f"\nv2/v1 over {len(ratios)} configurations: min {min(ratios):.3f}, max {max(ratios):.3f}")


if __name__ == "__main__":
    main()
