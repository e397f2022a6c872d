"""Blokus 3D's ``orientations.json``, the data the web view draws pieces from (B3-1).

The file is written by ``scripts/generate_view_data.py`` from ``pieces.ORIENTATIONS``; these tests
regenerate it (so it cannot drift from the engine) and check that placing the file's cubes the way
the client does (the first column resting on the height map) gives exactly the cubes the engine adds.
"""

from __future__ import annotations

import json
import random
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

from local_modules import load_beside
from masques.engine import load_game
from masques.games.blokus3d.pieces import ORIENTATIONS

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "generate_view_data.py"


def _generator() -> ModuleType:
    return load_beside(str(SCRIPT), SCRIPT.name, "view_data_generator")


def _shipped() -> dict[str, Any]:
    text = resources.files("masques.games.blokus3d").joinpath("orientations.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def test_b3_1_orientations_file_is_what_the_engine_tables_write() -> None:
    generator = _generator()
    text = generator.blokus3d_orientations()
    assert _shipped() == json.loads(text)
    assert "blokus3d/orientations.json" not in generator.stale(), "rerun scripts/generate_view_data.py"


def test_b3_1_orientations_file_numbers_every_orientation_as_the_engine() -> None:
    entries = _shipped()["orientations"]
    assert len(entries) == len(ORIENTATIONS) == 104
    for entry, orientation in zip(entries, ORIENTATIONS, strict=True):
        assert (entry["index"], entry["piece"], entry["number"]) == (
            orientation.index,
            orientation.piece,
            orientation.number,
        )
        assert f"{entry['piece']}:{entry['number']}" == orientation.label


def _client_cubes(
    entry: dict[str, Any], x: int, y: int, stacks: list[list[str]]
) -> set[tuple[int, int, int]]:
    """Where the web view draws a placement: its first column's lowest cube on that column's top."""
    dx, dy, zlow, _ = entry["columns"][0]
    z = len(stacks[y + dy][x + dx]) - zlow
    return {(x + cx, y + cy, z + cz) for cx, cy, cz in entry["cubes"]}


def test_b3_4_file_cubes_rest_where_the_engine_puts_them() -> None:
    entries = _shipped()["orientations"]
    game = load_game("blokus3d", {"players": 2})
    rng = random.Random(18)
    checked = 0
    for seed in range(3):
        state = game.new_initial_state(seed)
        for _ in range(60):  # bounded: a 2-player game has at most 44 placements
            if state.is_terminal():
                break
            actions = state.legal_actions()
            action = rng.choice(actions)
            move = state.action_to_json(action)
            assert isinstance(move, dict)
            before: list[list[str]] = state.observation(None)["stacks"]
            entry = entries[action // 100]
            assert (entry["piece"], entry["number"]) == (move["piece"], move["orientation"])
            expected = _client_cubes(entry, int(move["x"]), int(move["y"]), before)
            state.apply(action)
            after: list[list[str]] = state.observation(None)["stacks"]
            added = {
                (x, y, z)
                for y, row in enumerate(after)
                for x, stack in enumerate(row)
                for z in range(len(before[y][x]), len(stack))
            }
            assert added == expected, move
            checked += 1
    assert checked > 30
