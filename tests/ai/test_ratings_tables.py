"""The committed arena tables (docs/ratings/) stay reproducible: one sampled game of each table
replays, through the chance version the table records (1 when it records none), to its result.

The game of each table is the cheapest one found (cheap bots and few moves); tables with no cheap
game (hard, expert or OpenSpiel in every seat) are marked slow.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from masques.ai import arena
from masques.engine.chance import LEGACY_CHANCE

RATINGS = Path(__file__).resolve().parents[2] / "docs" / "ratings"

# table -> the seed of its game to replay (all the table's games are played with distinct seeds)
CHEAP = {
    "blokus3d-2p": 904,  # greedy against random
    "blokus3d-2p-vs-openspiel": 14,
    "blokus3d-4p": 68,
    "mascarade-2p": 448,  # greedy against random
    "masker-2p": 964,  # greedy against random
    "masker-2p-greedy-random": 160,
}
SLOW = {
    "blokus3d-4p-hard-among-greedy": 8,
    "mascarade-2p-vs-openspiel": 0,
    "maske-4p": 99,
    "maske-4p-hard-among-greedy": 36,
    "maske-4p-vs-openspiel": 39,
    "masker-2p-vs-openspiel": 1,
}


def load_table(name: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((RATINGS / f"{name}.json").read_text("utf-8"))
    return data


def test_every_committed_table_is_covered() -> None:
    assert {p.stem for p in RATINGS.glob("*.json")} == set(CHEAP) | set(SLOW)


def replay_one(name: str, seed: int) -> None:
    table = load_table(name)
    results = [arena.result_from_json(r) for r in table["results"]]  # type: ignore[attr-defined]
    (recorded,) = [r for r in results if r.spec.seed == seed]
    assert recorded.spec.chance == table.get("chance", LEGACY_CHANCE)
    assert arena.play(recorded.spec) == recorded


@pytest.mark.parametrize(("name", "seed"), sorted(CHEAP.items()))
def test_a_cheap_game_of_the_table_replays_to_its_result(name: str, seed: int) -> None:
    replay_one(name, seed)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "seed"), sorted(SLOW.items()))
def test_a_game_of_a_table_of_strong_bots_replays_to_its_result(name: str, seed: int) -> None:
    replay_one(name, seed)
