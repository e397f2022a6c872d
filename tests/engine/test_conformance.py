"""The conformance kit, run on every registered game and every configuration it declares."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import ClassVar

import pytest

from masques.engine import (
    Game,
    HiddenField,
    HiddenVariation,
    State,
    conformance,
    game_class,
    game_names,
    load_game,
)
from masques.games.blokus3d.game import Blokus3DGame
from masques.games.masker.game import MaskerGame

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


@pytest.mark.parametrize(("name", "options"), CONFIGS)
def test_hidden_information_mutations(name: str, options: dict[str, object]) -> None:
    """The mutation leak check: every declared hidden part varied, seen only by who may see it."""
    game = load_game(name, options)
    varied = conformance.check_hidden_information(game, 7)
    assert (varied > 0) == bool(game.hidden_information)


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


# -- the mutation leak check is not vacuous ---------------------------------------------------------------
class _SecretBlokus(Blokus3DGame):
    hidden_information: ClassVar[tuple[HiddenField, ...]] = (HiddenField("secret", "nobody", "never"),)


def test_a_game_with_no_hidden_information_passes_trivially() -> None:
    assert conformance.check_hidden_information(load_game("blokus3d", {"players": 2}), 1) == 0


def test_a_declared_part_without_a_hook_fails_asking_for_one() -> None:
    with pytest.raises(
        AssertionError, match=r"declares hidden parts \['secret'\] but has no vary_hidden hook"
    ):
        conformance.check_hidden_information(_SecretBlokus({"players": 2}), 1)
    game = _SecretBlokus({"players": 2})
    with pytest.raises(NotImplementedError, match=r"write _SecretBlokus\.vary_hidden"):
        game.vary_hidden(game.new_initial_state(), game.hidden_information[0], random.Random(1))


def test_an_unknown_visibility_is_refused() -> None:
    class Vague(MaskerGame):
        hidden_information: ClassVar[tuple[HiddenField, ...]] = (HiddenField("tokens", "friends", "end"),)

    with pytest.raises(AssertionError, match="visible_to='friends'; use one of nobody, owner, team"):
        conformance.check_hidden_information(Vague(), 1)


def test_a_hook_that_changes_nothing_fails() -> None:
    class Idle(MaskerGame):
        def vary_hidden(self, state: State, part: HiddenField, rng: random.Random) -> HiddenVariation | None:
            return HiddenVariation(state.clone(), frozenset({0}))

    with pytest.raises(AssertionError, match="the hook changed nothing"):
        conformance.check_hidden_information(Idle(), 1)


def test_a_hook_that_returns_nothing_fails() -> None:
    class Never(MaskerGame):
        def vary_hidden(self, state: State, part: HiddenField, rng: random.Random) -> HiddenVariation | None:
            return None

    with pytest.raises(AssertionError, match="never varied hidden part 'tokens'"):
        conformance.check_hidden_information(Never(), 1)


def test_a_hook_that_lets_every_seat_see_fails() -> None:
    class Open(MaskerGame):
        """Swaps the two players' tokens: a true variation, but one every seat sees."""

        def vary_hidden(self, state: State, part: HiddenField, rng: random.Random) -> HiddenVariation | None:
            if state.is_terminal():
                return None
            other = state.clone()
            other.tokens.reverse()  # type: ignore[attr-defined]
            return HiddenVariation(other, frozenset({0, 1}))

    with pytest.raises(AssertionError, match=r"never varied out of sight of seats \[0, 1\]"):
        conformance.check_hidden_information(Open({"players": 2}), 1)


def test_a_hook_that_changes_the_true_state_fails() -> None:
    class Careless(MaskerGame):
        def vary_hidden(self, state: State, part: HiddenField, rng: random.Random) -> HiddenVariation | None:
            variation = super().vary_hidden(state, part, rng)
            state.tokens.reverse()  # type: ignore[attr-defined]
            return variation

    with pytest.raises(AssertionError, match="vary_hidden changed the true state"):
        conformance.check_hidden_information(Careless(), 1)


def test_a_hook_that_names_the_wrong_seer_reports_a_leak() -> None:
    """A seat left out of ``seen_by`` that does see the change is reported as a leak, by seat."""

    class Mislabelled(MaskerGame):
        def vary_hidden(self, state: State, part: HiddenField, rng: random.Random) -> HiddenVariation | None:
            variation = super().vary_hidden(state, part, rng)
            return None if variation is None else HiddenVariation(variation.state)

    with pytest.raises(AssertionError, match=r"LEAK: seat \d may not see this part.*'your_colour'"):
        conformance.check_hidden_information(Mislabelled({"players": 3}), 1)


def test_a_leak_through_legal_actions_is_caught() -> None:
    """The player to move learns what its legal actions depend on: a hidden part must not change them."""
    from masques.games.masker.game import MaskerState

    class Shy(MaskerState):
        def legal_actions(self) -> list[int]:
            legal = super().legal_actions()
            return legal[:-1] if legal and self.tokens[0] == 0 else legal

    class Peeking(MaskerGame):
        def vary_hidden(self, state: State, part: HiddenField, rng: random.Random) -> HiddenVariation | None:
            variation = super().vary_hidden(state, part, rng)
            if variation is None or variation.state.current_player in variation.seen_by:
                return None
            shy = Shy.__new__(Shy)
            shy.__dict__.update(variation.state.__dict__)
            return HiddenVariation(shy, variation.seen_by)

    with pytest.raises(AssertionError, match="to move, may not see this part, but its legal actions change"):
        conformance.check_hidden_information(Peeking({"players": 3}), 1, games=6)
