"""The Mascarade figures of the rules page are drawn from the game's data (MC-1 .. MC-5) and committed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from masques.engine import game_part
from masques.games.mascarade.figures import SAMPLE_PLACEMENTS, SAMPLE_SEED, figures, sample_layout
from masques.games.mascarade.game import (
    CARDS,
    FEATURE_TABLE,
    FEATURES,
    SHARED,
    SIZE,
    SQUARES,
    START,
    MascaradeGame,
)

FIGURES_DIR = Path(__file__).resolve().parents[3] / "docs" / "rules" / "figures"
SVG = "{http://www.w3.org/2000/svg}"


def test_the_game_names_its_figures_part() -> None:
    assert game_part("mascarade", "figures") is figures


def test_committed_figures_are_what_the_data_draws() -> None:
    for name, svg in figures().items():
        path = FIGURES_DIR / name
        assert path.exists(), f"{path} is missing: run python scripts/rule_figures.py"
        assert path.read_text("utf-8") == svg, f"{path} is stale: run python scripts/rule_figures.py"


def test_sample_layout_is_a_legal_game_from_the_start_square() -> None:
    """MC-4: the first card is on the start square; MC-5: every later one is a legal placement."""
    placed = sample_layout()
    assert len(placed) == SAMPLE_PLACEMENTS
    assert placed[0][1] == START
    state = MascaradeGame().new_initial_state(SAMPLE_SEED)
    for card, square, seat in placed:
        for _ in range(4):  # passes (MC-7) between two placements: at most one per player
            if state.current_player == seat:
                break
            state.apply(state.legal_actions()[0])
        assert state.current_player == seat
        assert state.is_legal(card * SQUARES + square)
        state.apply(card * SQUARES + square)


def test_layout_figure_draws_each_placed_card_where_it_lies() -> None:
    """MC-5: neighbours on the drawing share at least one feature (the default `every` matching)."""
    root = ET.fromstring(figures()["mascarade-layout.svg"])
    drawn: dict[int, int] = {}
    for g in root.iter(f"{SVG}g"):
        if g.attrib.get("class") == "placed":
            face = next(c for c in g.iter(f"{SVG}g") if c.attrib.get("class") == "card")
            drawn[int(g.attrib["data-square"])] = int(face.attrib["data-card"])
    assert drawn == {square: card for card, square, _ in sample_layout()}
    for square, card in drawn.items():
        r, c = divmod(square, SIZE)
        for nr, nc in ((r + 1, c), (r, c + 1)):
            other = drawn.get(nr * SIZE + nc) if nr < SIZE and nc < SIZE else None
            if other is not None:
                assert SHARED[card][other] >= 1


def test_features_figure_shows_every_value_in_table_order() -> None:
    """MC-2: one row per feature with each of its values, as the feature table lists them."""
    root = ET.fromstring(figures()["mascarade-features.svg"])
    rows = [g for g in root.iter(f"{SVG}g") if g.attrib.get("class") == "feature"]
    assert [g.attrib["data-feature"] for g in rows] == list(FEATURES)
    for g in rows:
        values = [v.attrib["data-value"] for v in g.iter(f"{SVG}g") if v.attrib.get("class") == "value"]
        assert values == [v["key"] for v in FEATURE_TABLE[g.attrib["data-feature"]]["values"]]
    assert {c.face for c in CARDS} == {v["key"] for v in FEATURE_TABLE["face"]["values"]}
