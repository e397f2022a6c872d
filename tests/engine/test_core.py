"""The engine contract's shared parts: option validation, typed errors, the registry."""

from __future__ import annotations

import pytest

from masques.engine import (
    IllegalActionError,
    InvalidOptionError,
    MalformedActionError,
    UnknownGameError,
    game_class,
    game_names,
    load_game,
)


def test_registry_lists_blokus3d() -> None:
    assert "blokus3d" in game_names()
    assert game_class("blokus3d").name == "blokus3d"


def test_unknown_game_names_the_known_ones() -> None:
    with pytest.raises(UnknownGameError, match=r"games are: .*blokus3d"):
        load_game("chess")


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"players": 5}, r"'players' must be one of 2, 3, 4 \(got 5\)"),
        ({"players": "4"}, "'players' must be a int"),
        ({"players": True}, "'players' must be a int"),
        ({"structure": "E"}, "one of A, B, C, D, custom"),
        ({"random_first": "yes"}, "must be a bool"),
        ({"colour": "blue"}, "'colour' is unknown; options are: players"),
    ],
)
def test_bad_options_name_the_allowed_values(options: dict[str, object], fragment: str) -> None:
    with pytest.raises(InvalidOptionError, match=fragment):
        load_game("blokus3d", options)


def test_defaults_fill_missing_options() -> None:
    game = load_game("blokus3d")
    assert game.options["players"] == 4
    assert game.options["structure"] == "D"


def test_errors_are_typed_and_keep_a_reason() -> None:
    state = load_game("blokus3d").new_initial_state()
    with pytest.raises(MalformedActionError) as malformed:
        state.apply("12")  # type: ignore[arg-type]
    assert "integer" in malformed.value.reason
    with pytest.raises(IllegalActionError) as illegal:
        state.apply(0)  # I2 anchored on a1: outside pyramid D
    assert "outside the structure" in illegal.value.reason
    assert state.history == []
