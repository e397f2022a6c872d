"""The Masker figures of the rules page are drawn from seeded deals (MK-1, MK-2, MK-13) and committed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from masques.engine import game_part
from masques.games.masker.figures import SAMPLE_SEED, figures
from masques.games.masker.game import CODE_NAMES, MaskerGame

FIGURES_DIR = Path(__file__).resolve().parents[3] / "docs" / "rules" / "figures"
SVG = "{http://www.w3.org/2000/svg}"


def _cells(svg: str) -> dict[int, list[str]]:
    """Cell -> the crosses drawn there, bottom first."""
    root = ET.fromstring(svg)
    out: dict[int, list[str]] = {}
    for g in root.iter(f"{SVG}g"):
        if g.attrib.get("class") == "cell":
            out[int(g.attrib["data-cell"])] = [p.attrib["data-cross"] for p in g.iter(f"{SVG}path")]
    return out


def test_the_game_names_its_figures_part() -> None:
    assert game_part("masker", "figures") is figures


def test_committed_figures_are_what_the_data_draws() -> None:
    for name, svg in figures().items():
        path = FIGURES_DIR / name
        assert path.exists(), f"{path} is missing: run python scripts/rule_figures.py"
        assert path.read_text("utf-8") == svg, f"{path} is stale: run python scripts/rule_figures.py"


def test_grid_figure_is_the_seeded_2d_deal() -> None:
    """MK-2: the 36 crosses of MK-1 (6 of each colour, 5 white, the runner), one per cell."""
    cells = _cells(figures()["masker-grid.svg"])
    state = MaskerGame({"variant": "2d"}).new_initial_state(SAMPLE_SEED)
    assert cells == {i: [CODE_NAMES[s[0]]] for i, s in enumerate(state.stacks)}
    counts = Counter(name for crosses in cells.values() for name in crosses)
    assert counts == {"red": 6, "yellow": 6, "green": 6, "blue": 6, "black": 6, "white": 5, "runner": 1}


def test_stacks_figure_is_the_seeded_3d_deal() -> None:
    """MK-13: nine stacks of four, no white at the bottom, the runner on top."""
    cells = _cells(figures()["masker-stacks.svg"])
    state = MaskerGame({"variant": "3d"}).new_initial_state(SAMPLE_SEED)
    assert cells == {i: [CODE_NAMES[c] for c in s] for i, s in enumerate(state.stacks)}
    assert all(len(s) == 4 and s[0] != "white" and "runner" not in s[:3] for s in cells.values())
    assert sum(s[3] == "runner" for s in cells.values()) == 1
