"""The Blokus 3D figures of the rules page are drawn from the game's data (B3-1, B3-2) and committed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from masques.engine import game_part
from masques.games.blokus3d.figures import PLAYER_COUNTS, figures
from masques.games.blokus3d.pieces import PIECE_CUBES, PIECE_IDS
from masques.games.blokus3d.structures import STRUCTURE_KEYS, builtin_structure

FIGURES_DIR = Path(__file__).resolve().parents[3] / "docs" / "rules" / "figures"
SVG = "{http://www.w3.org/2000/svg}"


def test_the_game_names_its_figures_part() -> None:
    assert game_part("blokus3d", "figures") is figures


def test_committed_figures_are_what_the_data_draws() -> None:
    for name, svg in figures().items():
        path = FIGURES_DIR / name
        assert path.exists(), f"{path} is missing: run python scripts/rule_figures.py"
        assert path.read_text("utf-8") == svg, f"{path} is stale: run python scripts/rule_figures.py"


@pytest.mark.parametrize("key", STRUCTURE_KEYS)
def test_structure_figure_draws_every_column_at_its_limit(key: str) -> None:
    """B3-2: each panel holds exactly the footprint of that player count's grid, at its heights."""
    root = ET.fromstring(figures()[f"blokus3d-structure-{key}.svg"])
    panels = root.findall(f"{SVG}g[@class='panel']")
    assert [int(p.attrib["data-players"]) for p in panels] == list(PLAYER_COUNTS)
    for panel in panels:
        structure = builtin_structure(key, int(panel.attrib["data-players"]))
        drawn = {
            (int(g.attrib["data-x"]), int(g.attrib["data-y"])): int(g.attrib["data-height"])
            for g in panel.iter(f"{SVG}g")
            if g.attrib.get("class") == "column"
        }
        assert drawn == {(x, y): structure.max_heights[x][y] for x, y in structure.footprint}


def test_pieces_figure_draws_the_eleven_pieces_cube_by_cube() -> None:
    """B3-1: every piece of a colour, each with the cubes of the piece table."""
    root = ET.fromstring(figures()["blokus3d-pieces.svg"])
    pieces = [g for g in root.iter(f"{SVG}g") if g.attrib.get("class") == "piece"]
    assert [g.attrib["data-piece"] for g in pieces] == list(PIECE_IDS)
    for g in pieces:
        cubes = {
            (int(c.attrib["data-x"]), int(c.attrib["data-y"]), int(c.attrib["data-z"]))
            for c in g.iter(f"{SVG}g")
            if c.attrib.get("class") == "cube"
        }
        assert cubes == set(PIECE_CUBES[g.attrib["data-piece"]])
