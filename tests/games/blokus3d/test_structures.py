"""Custom structures (B3-2): whatever a document holds, parsing gives a structure or a clear
StructureError, and the game an InvalidOptionError, never another exception (a server 500)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from masques.engine import InvalidOptionError, load_game
from masques.games.blokus3d.structures import BOARD_SIZE, Structure, StructureError, parse_custom_grid

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-20, 20) | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)
ROW = (
    st.text(max_size=12)
    | st.text(alphabet="0123456789 ²³¹٣۵߀໒०\t", max_size=12)
    | st.lists(st.integers(-2, 12) | JSON, max_size=12)
)
DOC = st.fixed_dictionaries(
    {"heights": st.lists(ROW, max_size=11)}, optional={"name": st.text(max_size=45) | JSON}
)


def _check_parse(doc: Any) -> None:
    try:
        structure = parse_custom_grid(doc)
    except StructureError as exc:
        assert str(exc)
        return
    assert isinstance(structure, Structure)
    assert len(structure.max_heights) == BOARD_SIZE
    assert all(len(col) == BOARD_SIZE and all(0 <= h <= 10 for h in col) for col in structure.max_heights)


def _check_game(doc: Any) -> None:
    try:
        game = load_game("blokus3d", {"structure": "custom", "custom_structure": doc})
    except InvalidOptionError as exc:
        assert exc.option == "custom_structure"
        return
    kept = {**doc, "heights": [row.strip(" ") if isinstance(row, str) else row for row in doc["heights"]]}
    assert game.options["custom_structure"] == kept


@pytest.mark.parametrize("row", ["1²", "²", "12³4", "١٢", "٣", "1 2"])
def test_b3_2_a_row_with_other_digits_than_0_to_9_is_refused_by_name(row: str) -> None:
    with pytest.raises(StructureError, match=r"is not a digit 0-9"):
        parse_custom_grid({"heights": [row, "11"]})
    with pytest.raises(InvalidOptionError, match=r"custom_structure.*is not a digit 0-9"):
        load_game("blokus3d", {"structure": "custom", "custom_structure": {"heights": [row]}})


@pytest.mark.parametrize("blank", ["\x1c", "\x1f", "\x85", "\u2028", "\u2029", "\u3000", "\t", "\n"])
def test_b3_2_a_row_padded_with_other_blanks_than_spaces_is_refused(blank: str) -> None:
    """Only spaces may surround a row's digits: other characters that Python counts as blank
    (controls, separators) used to pass the check and stay in the options every seat is sent."""
    with pytest.raises(StructureError, match=r"is not a digit 0-9"):
        parse_custom_grid({"heights": [f"{blank}1221{blank}", "2442"]})


def test_b3_2_the_spaces_around_a_rows_digits_are_not_kept() -> None:
    """A row's padding is dropped from the options, so however long it was it is not repeated in
    every record, view and lobby line of the match."""
    doc = {"name": "Hill", "heights": [" " * 15_000 + "1221", " 2442 ", "2442", [1, 2, 2, 1]]}
    game = load_game("blokus3d", {"structure": "custom", "custom_structure": doc})
    kept = game.options["custom_structure"]
    assert kept == {"name": "Hill", "heights": ["1221", "2442", "2442", [1, 2, 2, 1]]}
    assert doc["heights"][0].startswith(" ")  # the caller's document is left as it was
    again = load_game("blokus3d", {"structure": "custom", "custom_structure": kept})
    assert again.new_initial_state(3).observation(0) == game.new_initial_state(3).observation(0)


@settings(max_examples=300, deadline=None)
@given(doc=DOC | JSON)
def test_b3_2_any_document_parses_or_is_refused_with_a_structure_error(doc: Any) -> None:
    _check_parse(doc)


@settings(max_examples=60, deadline=None)
@given(doc=DOC)
def test_b3_2_any_custom_structure_option_makes_a_game_or_an_invalid_option_error(doc: Any) -> None:
    _check_game(doc)


@pytest.mark.parametrize(
    "name", ["x\ud800", "\u202eevil", "tab\there", "a\x00", "private\ue000", "new\u2028line"]
)
def test_b3_2_a_custom_structure_name_is_plain_text(name: str) -> None:
    """Every seat is shown the name: nothing in it may hide, reorder or break the text around it."""
    with pytest.raises(StructureError, match=r"'name' must be plain text: character \d+"):
        parse_custom_grid({"name": name, "heights": ["22"]})
    assert parse_custom_grid({"name": "Hügel 🏔", "heights": ["22"]}).name == "Hügel 🏔"
