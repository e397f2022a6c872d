"""Engine playouts/s with the legacy chance generator (version 1, the Mersenne Twister) against the
current one (version 2, ChaCha20), per game, in the same process.

Usage: python benchmarks/chance.py [GAME ...] [--seconds S] [--rounds R]

Each configuration of ``masques bench`` runs random playouts from the same seeds (the actions' rng
is the same either way; only the deal's generator differs, so the games themselves differ too) for
about S seconds of CPU time per version, alternating the versions R times so that a busy machine
hits both alike; the table gives the best round of each and the ratio v2 / v1, and the CPU time of
the deal alone, where the versions differ.  It also times the generators alone.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from masques.cli.bench import run_playouts
from masques.engine import game_class, game_names, load_game
from masques.engine.chance import CHANCE_VERSION, LEGACY_CHANCE, stream


def playouts_per_cpu_second(name: str, options: dict[str, object], version: int, playouts: int) -> float:
    """``playouts`` random playouts from seeds 0, 1, ...: playouts per second of this process's CPU
    time (steadier than the wall clock on a busy machine)."""
    game = load_game(name, options)
    start = time.process_time()
    run_playouts(game, max_playouts=playouts, chance=version)
    return playouts / max(time.process_time() - start, 1e-9)


def deal_microseconds(name: str, options: dict[str, object], version: int, deals: int = 300) -> float:
    """CPU microseconds per ``new_initial_state`` (the deal: where the generators differ), best of 5."""
    game = load_game(name, options)
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for seed in range(deals):
            game.new_initial_state(seed, chance=version)
        best = min(best, (time.process_time() - start) / deals * 1e6)
    return best


def generator_costs(repeats: int = 5_000) -> list[tuple[str, float, float]]:
    """CPU microseconds per call, best of 5, for each version: a new stream; a new stream and a
    100-card shuffle."""

    def timed(fn: Callable[[int], object]) -> float:
        best = float("inf")
        for _ in range(5):
            start = time.process_time()
            for i in range(repeats):
                fn(i)
            best = min(best, (time.process_time() - start) / repeats * 1e6)
        return best

    def deal(version: int) -> Callable[[int], object]:
        def go(i: int) -> object:
            deck = list(range(100))
            stream(i, "mascarade/deal", version=version).shuffle(deck)
            return deck

        return go

    return [
        (
            "new stream",
            timed(lambda i: stream(i, "masker/deal", version=LEGACY_CHANCE)),
            timed(lambda i: stream(i, "masker/deal", version=CHANCE_VERSION)),
        ),
        ("new stream + shuffle 100", timed(deal(LEGACY_CHANCE)), timed(deal(CHANCE_VERSION))),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="*", help="games to measure (default: all)")
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU time per version and round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("the generators alone, CPU microseconds per call (best of 5)")
    print(f"{'':<26}{'v1 (MT)':>10}{'v2 (ChaCha20)':>15}")
    for label, v1, v2 in generator_costs():
        print(f"{label:<26}{v1:>10.2f}{v2:>15.2f}")
    print(
        f"\nper configuration: CPU microseconds per deal (new_initial_state, best of 5), and random"
        f" playouts per CPU second (best of {args.rounds} rounds of about {args.seconds:g} s per version,"
        " the versions alternating)"
    )
    print(
        f"{'game':<11}{'configuration':<16}{'deal v1':>9}{'deal v2':>9}"
        f"{'v1 playouts/s':>15}{'v2 playouts/s':>15}{'v2/v1':>8}"
    )
    ratios = []
    for name in args.games or game_names():
        for label, options in game_class(name).bench_configurations({}):
            deals = [deal_microseconds(name, options, v) for v in (LEGACY_CHANCE, CHANCE_VERSION)]
            probe = playouts_per_cpu_second(name, options, LEGACY_CHANCE, 3)
            count = max(3, round(probe * args.seconds))
            best = {LEGACY_CHANCE: 0.0, CHANCE_VERSION: 0.0}
            for _ in range(args.rounds):
                for version in (LEGACY_CHANCE, CHANCE_VERSION):
                    rate = playouts_per_cpu_second(name, options, version, count)
                    best[version] = max(best[version], rate)
            ratio = best[CHANCE_VERSION] / best[LEGACY_CHANCE]
            ratios.append(ratio)
            print(
                f"{name:<11}{label:<16}{deals[0]:>9.1f}{deals[1]:>9.1f}"
                f"{best[LEGACY_CHANCE]:>15,.0f}{best[CHANCE_VERSION]:>15,.0f}{ratio:>8.3f}",
                flush=True,
            )
    print(f"\nv2/v1 over {len(ratios)} configurations: min {min(ratios):.3f}, max {max(ratios):.3f}")


if __name__ == "__main__":
    main()
