"""Maske's ``mask_values.json``, what the web view reads for a mask's payday values per quarter turn.

The file is written by ``scripts/generate_view_data.py`` from ``data.MASK_VALUES``; these tests
regenerate it (so it cannot drift from the engine) and check it against the masks' drawings in
``masks.json`` with the turn written out independently (MS-3: clockwise about the centre).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

from local_modules import load_beside
from masques.games.maske.data import CENTRE, MASK_VALUES, MASKS, SIZE

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "generate_view_data.py"


def _generator() -> ModuleType:
    return load_beside(str(SCRIPT), SCRIPT.name, "view_data_generator")


def _read(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        resources.files("masques.games.maske").joinpath(name).read_text("utf-8")
    )
    return data


def test_ms3_mask_values_file_is_what_the_engine_tables_write() -> None:
    generator = _generator()
    assert _read("mask_values.json") == json.loads(generator.maske_mask_values())
    assert "maske/mask_values.json" not in generator.stale(), "rerun scripts/generate_view_data.py"
    shipped = _read("mask_values.json")["masks"]
    assert [m["id"] for m in shipped] == [m.id for m in MASKS]
    assert [[tuple(v) for v in m["values"]] for m in shipped] == [list(turns) for turns in MASK_VALUES]


def test_ms3_mask_values_file_turns_each_drawing_clockwise() -> None:
    drawings = _read("masks.json")["masks"]
    shipped = _read("mask_values.json")["masks"]
    pays = {"o": 3, "O": 5}
    for drawing, mask in zip(drawings, shipped, strict=True):
        rows: list[str] = drawing["rows"]
        for turns, values in enumerate(mask["values"]):
            assert len(values) == SIZE * SIZE and values[CENTRE] == 0
            for r in range(SIZE):
                for c in range(SIZE):
                    # Turned clockwise, the hole at (r, c) shows what stood at (SIZE-1-c, r) before.
                    sr, sc = r, c
                    for _ in range(turns):
                        sr, sc = SIZE - 1 - sc, sr
                    assert values[r * SIZE + c] == pays.get(rows[sr][sc], 0), (drawing["name"], turns, r, c)
