"""The Maske masks figure of the rules page is drawn from the game's mask table (MS-1, MS-2) and committed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from masques.engine import game_part
from masques.games.maske.data import CENTRE, MASK_VALUES, MASKS
from masques.games.maske.figures import figures

FIGURES_DIR = Path(__file__).resolve().parents[3] / "docs" / "rules" / "figures"
SVG = "{http://www.w3.org/2000/svg}"


def test_the_game_names_its_figures_part() -> None:
    assert game_part("maske", "figures") is figures


def test_committed_figures_are_what_the_data_draws() -> None:
    for name, svg in figures().items():
        path = FIGURES_DIR / name
        assert path.exists(), f"{path} is missing: run python scripts/rule_figures.py"
        assert path.read_text("utf-8") == svg, f"{path} is stale: run python scripts/rule_figures.py"


def test_every_mask_is_drawn_with_the_values_it_pays() -> None:
    """MS-2: each hole shows the value the game pays there (orientation 0); MS-1: the centre is no hole."""
    root = ET.fromstring(figures()["maske-masks.svg"])
    masks = [g for g in root.iter(f"{SVG}g") if g.attrib.get("class") == "mask"]
    assert [int(g.attrib["data-mask"]) for g in masks] == [m.id for m in MASKS]
    for g in masks:
        holes = {
            int(c.attrib["data-position"]): int(c.attrib["data-value"])
            for c in g.iter(f"{SVG}circle")
            if c.attrib.get("class") == "hole"
        }
        values = MASK_VALUES[int(g.attrib["data-mask"])][0]
        assert holes == {p: v for p, v in enumerate(values) if p != CENTRE}
        assert len([e for e in g.iter() if e.attrib.get("class") == "centre"]) == 1
