"""Golden playthroughs: seed-fixed traces under tests/playthroughs/ must match the engine exactly.

After an intended rule change, regenerate with ``python scripts/regen_playthroughs.py`` and review
the diff.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from masques.engine import conformance, load_game
from masques.engine.playthroughs import playthrough_path, playthroughs

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("entry", playthroughs(), ids=lambda e: e.filename)
def test_playthrough_matches_golden_file(entry) -> None:  # type: ignore[no-untyped-def]
    path = playthrough_path(ROOT, entry)
    assert path.exists(), f"{path} is missing: run scripts/regen_playthroughs.py"
    expected = path.read_text("utf-8")
    actual = conformance.playthrough(load_game(entry.game, entry.options), entry.seed)
    if actual != expected:
        diff = "".join(
            list(
                difflib.unified_diff(
                    expected.splitlines(True), actual.splitlines(True), "golden", "engine", n=1
                )
            )[:40]
        )
        pytest.fail(f"{path.name} differs from the engine:\n{diff}")


def test_every_game_has_a_playthrough() -> None:
    from masques.engine import game_names

    assert {e.game for e in playthroughs()} == set(game_names())


def test_every_golden_file_belongs_to_a_listed_playthrough() -> None:
    """A playthrough dropped from a game's list leaves no stale golden file behind."""
    listed = {e.filename for e in playthroughs()}
    assert {p.name for p in (ROOT / "tests" / "playthroughs").glob("*.txt")} == listed
