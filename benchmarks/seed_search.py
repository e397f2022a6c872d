"""The attack the chance generator guards against: recover a Masker deal's seed, and with it every
secret colour, from the public board alone.

Usage: python benchmarks/seed_search.py [--window-bits 20] [--max-seconds 100] [--seed S]

With the legacy generator (version 1: Python's Mersenne Twister seeded with the seed), a 2D Masker
game is dealt from a seed inside a window of 2**window-bits seeds; the search tries every seed of the
window, replaying only the start of the deal's shuffle until a cross disagrees with the board (most
seeds fail at the first cross), and checks every survivor against the engine's own spectator
observation.  It prints the seed found and the secret colours it gives away.  With the current
generator (version 2) the server's seed is 256 bits from ``secrets``: the script says why no search
can work and runs the same window search against such a deal, which finds nothing.
"""

from __future__ import annotations

import _random
import argparse
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from masques.engine import JSON, load_game
from masques.engine.chance import CHANCE_VERSION, LEGACY_CHANCE, Chance, new_secret
from masques.games.masker.game import CODE_NAMES, COLOURS, MaskerGame

OPTIONS = {"players": 2, "variant": "2d"}
WINDOW_BASE = 1_372_000_000  # where the demo's window starts: a 31-bit seed, as the old server drew


@dataclass
class SearchResult:
    found: list[int]
    tried: int
    seconds: float
    finished: bool


def spectator_board(seed: int, version: int) -> JSON:
    """What everyone sees when the game starts: the spectator's observation."""
    return load_game("masker", OPTIONS).new_initial_state(seed, chance=version).observation(None)


def _first_mismatch_v1(pieces: list[int], target: list[int]) -> Callable[[int], bool]:
    """Version 1's deal, cut short: ``random.Random(seed).shuffle`` step by step (the same draws as
    ``_randbelow_with_getrandbits``) until a cross differs from the board."""
    rng = _random.Random()
    reseed, bits = rng.seed, rng.getrandbits
    last = len(pieces) - 1

    def matches(seed: int) -> bool:
        reseed(seed)
        x = pieces.copy()
        for i in range(last, 0, -1):
            n = i + 1
            k = n.bit_length()
            r = bits(k)
            while r >= n:
                r = bits(k)
            x[i], x[r] = x[r], x[i]
            if x[i] != target[i]:
                return False
        return True

    return matches


def _first_mismatch_v2(pieces: list[int], target: list[int]) -> Callable[[int], bool]:
    """Version 2's deal, cut short the same way (a new ChaCha20 stream per seed)."""
    last = len(pieces) - 1

    def matches(seed: int) -> bool:
        below = Chance(seed, "masker/deal")._randbelow
        x = pieces.copy()
        for i in range(last, 0, -1):
            r = below(i + 1)
            x[i], x[r] = x[r], x[i]
            if x[i] != target[i]:
                return False
        return True

    return matches


def search(
    board: JSON,
    start: int,
    size: int,
    version: int,
    *,
    max_seconds: float = 100.0,
    progress: Callable[[int, float], None] | None = None,
) -> SearchResult:
    """Every seed of ``[start, start + size)`` whose deal shows ``board`` (a spectator observation)."""
    target = [CODE_NAMES.index(stack[0]) for stack in board["stacks"]]
    pieces = MaskerGame.crosses()
    matches = (_first_mismatch_v1 if version == LEGACY_CHANCE else _first_mismatch_v2)(pieces, target)
    found = []
    began = time.perf_counter()
    tried = 0
    step = 1 << 16
    for block in range(start, start + size, step):
        for seed in range(block, min(block + step, start + size)):
            if matches(seed) and spectator_board(seed, version) == board:  # the engine has the last word
                found.append(seed)
        tried = min(block + step, start + size) - start
        elapsed = time.perf_counter() - began
        if progress:
            progress(tried, elapsed)
        if elapsed > max_seconds and tried < size:
            return SearchResult(found, tried, elapsed, False)
    return SearchResult(found, tried, time.perf_counter() - began, True)


def secret_colours(seed: int, version: int) -> list[str]:
    state = load_game("masker", OPTIONS).new_initial_state(seed, chance=version)
    return [COLOURS[t] for t in state.tokens]


def _progress(label: str) -> Callable[[int, float], None]:
    def show(tried: int, elapsed: float) -> None:
        rate = tried / elapsed if elapsed else 0.0
        print(
            f"\r  {label}: {tried:>9,} seeds tried, {elapsed:6.1f} s, {rate:>9,.0f} seeds/s",
            end="",
            file=sys.stderr,
        )

    return show


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--window-bits", type=int, default=20)
    parser.add_argument("--max-seconds", type=float, default=100.0, help="per search")
    parser.add_argument(
        "--seed", type=int, default=None, help="the legacy deal's seed (default: drawn in the window)"
    )
    args = parser.parse_args()
    size = 1 << args.window_bits
    start = WINDOW_BASE

    print(f"== version {LEGACY_CHANCE}: the Mersenne Twister seeded with the seed")
    seed = start + secrets.randbelow(size) if args.seed is None else args.seed
    board = spectator_board(seed, LEGACY_CHANCE)
    print(
        f"a 2-player 2D Masker game is dealt from a seed in [{start:,}, {start + size:,})"
        f" (2**{args.window_bits} seeds)"
    )
    print("the public board (what a spectator sees):")
    for row in range(6):
        print("  " + " ".join(f"{board['stacks'][row * 6 + c][0]:<6}" for c in range(6)))
    result = search(board, start, size, LEGACY_CHANCE, max_seconds=args.max_seconds, progress=_progress("v1"))
    print(file=sys.stderr)
    done = "the whole window" if result.finished else f"{result.tried:,} seeds (time limit)"
    print(
        f"searched {done} in {result.seconds:.1f} s ({result.tried / result.seconds:,.0f} seeds/s, one core)"
    )
    for found in result.found:
        print(f"seed found: {found} (the deal's seed {'matches' if found == seed else 'differs'})")
        print(f"  secret colours, seat by seat: {', '.join(secret_colours(found, LEGACY_CHANCE))}")
        print(f"  true secret colours:          {', '.join(secret_colours(seed, LEGACY_CHANCE))}")
    if not result.found:
        print("no seed found in the window")

    print(f"\n== version {CHANCE_VERSION}: ChaCha20 keyed through BLAKE2b")
    print(
        "The server draws each match's seed with secrets: 256 bits, so the search space is 2**256\n"
        "seeds.  Each game's stream is ChaCha20 under a key derived from the seed by keyed BLAKE2b;\n"
        "both are pseudorandom functions of their key, so what a board shows says nothing about the\n"
        "seed that an exhaustive search could test faster than by trying seeds, and trying 2**256\n"
        "seeds is beyond any computer (at 10**18 seeds a second, some 4 * 10**51 years).  Nor do other\n"
        "streams of the same seed (bots, lots) help: each has its own derived key.  A seed chosen\n"
        "small (--seed 5 on the command line) is found by this very search: secrecy comes from the\n"
        "256-bit secret, which is why only practice games may choose their seed."
    )
    secret = new_secret()
    board2 = spectator_board(secret, CHANCE_VERSION)
    result2 = search(
        board2, start, size, CHANCE_VERSION, max_seconds=args.max_seconds, progress=_progress("v2")
    )
    print(file=sys.stderr)
    done = "the whole window" if result2.finished else f"{result2.tried:,} seeds (time limit)"
    print(
        f"the same search over {done} against a version-2 deal from a 256-bit secret: "
        f"{len(result2.found)} seeds found ({result2.seconds:.1f} s,"
        f" {result2.tried / result2.seconds:,.0f} seeds/s)"
    )


if __name__ == "__main__":
    main()
