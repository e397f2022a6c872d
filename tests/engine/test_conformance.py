"""The conformance kit, run on every registered game and every configuration it declares."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from masques.engine import Game, conformance, game_class, game_names, load_game

CONFIGS = [
    pytest.param(name, cfg, id=f"{name}-{i}")
    for name in game_names()
    for i, cfg in enumerate(game_class(name).conformance_configurations())
]

SEEDED_CHECKS: dict[str, Callable[[Game, int], None]] = {
    "rejections": conformance.check_rejections,
    "notation": conformance.check_notation,
    "clone_independence": conformance.check_clone_independence,
    "determinism": conformance.check_determinism,
    "record_roundtrip": conformance.check_record_roundtrip,
    "observations_json": conformance.check_observations_json,
    "no_leaks": conformance.check_no_leaks,
    "bad_apply_never_mutates": conformance.check_bad_apply_never_mutates,
}


@pytest.mark.parametrize(("name", "options"), CONFIGS)
def test_random_games_reach_the_end(name: str, options: dict[str, object]) -> None:
    game = load_game(name, options)
    plies = conformance.check_random_games(game, range(20))
    assert plies > 20


@pytest.mark.parametrize("check", sorted(SEEDED_CHECKS))
@pytest.mark.parametrize(("name", "options"), CONFIGS)
def test_conformance_check(name: str, options: dict[str, object], check: str) -> None:
    game = load_game(name, options)
    SEEDED_CHECKS[check](game, 7)


def test_every_game_declares_its_facts() -> None:
    for name in game_names():
        cls = game_class(name)
        assert cls.name == name
        assert cls.title and cls.rules_version
        game = cls()
        assert game.num_players >= 1
        assert game.num_distinct_actions > 0
        assert game.max_game_length > 0
        for spec in cls.option_specs:
            assert spec.help, f"{name}.{spec.name} has no help text"


def test_kit_catches_a_state_that_leaks() -> None:
    """The leak check is not vacuous: a game whose observation shows a per-sample secret fails."""
    import random

    from masques.engine.core import JSON

    base = load_game("blokus3d", {"players": 2})

    class Leaky(type(base)):  # type: ignore[misc]
        def sample_state(self, seat, observations, rng):  # type: ignore[no-untyped-def]
            state = super().sample_state(seat, observations, rng)
            secret = rng.random()
            original = state.observation

            def observation(seat: int | None) -> JSON:
                obs = original(seat)
                obs["secret"] = secret
                return obs

            state.observation = observation
            return state

    with pytest.raises(AssertionError, match="cannot tell apart"):
        conformance.check_no_leaks(Leaky({"players": 2}), 1, samples=2)
    assert random  # the kit uses seeded RNGs only
