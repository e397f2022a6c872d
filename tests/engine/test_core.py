"""The engine contract's shared parts: option validation, typed errors, the registry."""

from __future__ import annotations

import pytest

from masques.engine import (
    IllegalActionError,
    InvalidOptionError,
    MalformedActionError,
    UnknownGameError,
    ViewerError,
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
        ({"players": "4"}, "'players' must be an integer"),
        ({"players": True}, "'players' must be an integer"),
        ({"structure": "E"}, "one of A, B, C, D, custom"),
        ({"random_first": "yes"}, "must be true or false"),
        ({"colour": "blue"}, "'colour' is unknown; options are: players"),
    ],
)
def test_bad_options_name_the_allowed_values(options: dict[str, object], fragment: str) -> None:
    with pytest.raises(InvalidOptionError, match=fragment):
        load_game("blokus3d", options)


@pytest.mark.parametrize("options", ["players=3", 5, [("players", 3)]])
def test_options_that_are_no_object_are_an_option_error(options: object) -> None:
    with pytest.raises(InvalidOptionError, match="must be an object"):
        load_game("masker", options)  # type: ignore[arg-type]


@pytest.mark.parametrize("depth", [33, 500, 900, 5000])
@pytest.mark.parametrize(("game", "option"), [("masker", "zzz"), ("blokus3d", "custom_structure")])
def test_options_nested_too_deep_are_an_option_error_at_any_depth(game: str, option: str, depth: int) -> None:
    """Copying deeply nested options used to overflow Python's recursion limit (a server error
    for a 1 KB request); every depth is now refused the same way, before any copy."""
    nested: object = []
    for _ in range(depth - 1):
        nested = [nested]
    options = {"structure": "custom", option: nested} if game == "blokus3d" else {option: nested}
    with pytest.raises(InvalidOptionError, match=rf"'{option}' nests lists and objects more than 32 deep"):
        load_game(game, options)  # type: ignore[arg-type]


def test_options_nested_within_the_bound_are_checked_as_usual() -> None:
    nested: object = "x"
    for _ in range(32):
        nested = {"k": nested}
    with pytest.raises(InvalidOptionError, match="'custom_structure' is invalid"):
        load_game("blokus3d", {"structure": "custom", "custom_structure": nested})  # type: ignore[dict-item]


def test_a_game_keeps_its_own_copy_of_its_options() -> None:
    """Changing the dict a game was made from, or the options a state serialises, changes neither
    the game nor its records."""
    grid = {"name": "mine", "heights": ["22", "22"]}
    given = {"players": 2, "structure": "custom", "custom_structure": grid}
    game = load_game("blokus3d", given)
    grid["heights"] = ["1"]
    assert game.options["custom_structure"] == {"name": "mine", "heights": ["22", "22"]}
    four = load_game("masker", {"players": 4})
    state = four.new_initial_state(1)
    state.serialize()["options"]["players"] = 2
    assert four.num_players == 4 and four.options["players"] == 4


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


def test_bench_configurations_default_to_the_given_options() -> None:
    """A game that does not spread its benchmark over variants measures the options it is given."""
    from masques.engine.core import Game as BaseGame

    class Plain(BaseGame):
        name = "plain"
        title = "Plain"
        rules_version = "1"
        option_specs = ()

    assert Plain.bench_configurations({}) == [("defaults", {})]
    assert Plain.bench_configurations({"players": 3, "fast": True}) == [
        ("players=3, fast=True", {"players": 3, "fast": True})
    ]
    assert Plain.playthrough_configurations() == [("default", 1, {})]


def test_shipped_games_spread_bench_configurations_unless_options_are_given() -> None:
    blokus = game_class("blokus3d")
    assert [label for label, _ in blokus.bench_configurations({"players": 2})] == [
        "structure A",
        "structure B",
        "structure C",
        "structure D",
    ]
    assert blokus.bench_configurations({"structure": "B"}) == [("structure=B", {"structure": "B"})]
    for name in game_names():
        cls = game_class(name)
        configs = cls.bench_configurations({})
        assert configs and len({label for label, _ in configs}) == len(configs)
        for _, options in configs:
            cls(options)  # every configuration is valid


def test_playthroughs_come_from_each_game_and_name_their_files() -> None:
    from masques.engine.playthroughs import playthroughs

    entries = playthroughs()
    assert {e.game for e in entries} == set(game_names())
    masker = [e for e in entries if e.game == "masker"]
    assert [e.filename for e in masker] == [
        f"masker-{tag}-seed{seed}.txt" for tag, seed, _ in game_class("masker").playthrough_configurations()
    ]
    assert len({e.filename for e in entries}) == len(entries)


@pytest.mark.parametrize("game", ["masker", "maske", "mascarade", "blokus3d"])
def test_an_observation_is_asked_for_a_seat_or_the_spectator_only(game: str) -> None:
    """A seat such as -1 once read as the last seat's eyes (its hand, its secret colour)."""
    state = load_game(game).new_initial_state(1)
    players = state.game.num_players
    for viewer in (-1, players, True, False, "0", 0.0, 2**70):
        with pytest.raises(ViewerError, match=r"a viewer is a seat from 0 to"):
            state.observation(viewer)  # type: ignore[arg-type]
    assert state.observation(None)["seat"] is None  # type: ignore[index]
    assert [state.observation(seat)["seat"] for seat in range(players)] == list(range(players))  # type: ignore[index]


def test_an_option_that_means_something_only_with_another_names_one_of_its_values() -> None:
    """``only_with`` lets a form hide a field that means nothing yet (B3-2's custom structure)."""
    from typing import Any

    from masques.engine import game_catalogue

    conditional = 0
    games: list[dict[str, Any]] = game_catalogue()  # type: ignore[assignment]
    for game in games:
        options = {o["name"]: o for o in game["options"]}
        for option in options.values():
            condition = option["only_with"]
            if condition is None:
                continue
            conditional += 1
            assert condition["value"] in options[condition["option"]]["allowed"], (game["name"], option)
    assert conditional >= 1
    custom = next(o for o in game_class("blokus3d").option_specs if o.name == "custom_structure")
    assert custom.only_with == ("structure", "custom")
