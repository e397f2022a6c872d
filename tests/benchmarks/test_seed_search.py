"""benchmarks/seed_search.py on a tiny window: the legacy generator gives the seed, and with it the
secret colours, away from the public board; a version-2 deal from a 256-bit secret is not found."""

from __future__ import annotations

from pathlib import Path

from local_modules import load_beside
from masques.engine.chance import CHANCE_VERSION, LEGACY_CHANCE, new_secret

ROOT = Path(__file__).resolve().parents[2]
seed_search = load_beside(str(ROOT / "benchmarks" / "seed_search.py"), "seed_search.py", "bench_seed_search")


def test_the_legacy_seed_is_recovered_from_the_public_board() -> None:
    seed = 1_000_077
    board = seed_search.spectator_board(seed, LEGACY_CHANCE)
    assert "tokens" not in board or board["tokens"] is None  # the colours are not on the board
    result = seed_search.search(board, 1_000_000, 512, LEGACY_CHANCE)
    assert result.finished and result.tried == 512
    assert result.found == [seed]
    assert seed_search.secret_colours(seed, LEGACY_CHANCE) == [
        seed_search.COLOURS[t]
        for t in seed_search.load_game("masker", seed_search.OPTIONS).new_initial_state(seed, chance=1).tokens
    ]


def test_a_version_2_deal_from_a_secret_is_not_found_but_a_small_seed_would_be() -> None:
    board = seed_search.spectator_board(new_secret(), CHANCE_VERSION)
    assert seed_search.search(board, 0, 256, CHANCE_VERSION).found == []
    # the search itself works on version 2: a seed inside the window is found
    small = seed_search.spectator_board(200, CHANCE_VERSION)
    assert seed_search.search(small, 0, 256, CHANCE_VERSION).found == [200]
