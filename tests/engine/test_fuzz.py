"""Property tests: no input, however malformed, escapes as anything but the engine's typed errors,
and a refused input never changes the state."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from masques.engine import (
    ActionError,
    GameRecord,
    InvalidOptionError,
    MalformedActionError,
    RecordError,
    game_names,
    load_game,
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)


def some_state(name: str, moves: int, seed: int):  # type: ignore[no-untyped-def]
    state = load_game(name).new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply(state.random_legal_action(rng))
    return state


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(game_names()), obj=json_values, moves=st.integers(0, 6))
def test_action_from_json_accepts_only_well_formed_actions(name: str, obj: object, moves: int) -> None:
    state = some_state(name, moves, 1)
    before = json.dumps(state.serialize(), sort_keys=True)
    try:
        action = state.action_from_json(obj)
    except MalformedActionError:
        pass
    else:
        assert 0 <= action < state.game.num_distinct_actions
        assert state.action_from_json(state.action_to_json(action)) == action
        try:
            state.apply(action)
        except ActionError:
            assert json.dumps(state.serialize(), sort_keys=True) == before
        return
    assert json.dumps(state.serialize(), sort_keys=True) == before


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(game_names()), text=st.text(max_size=30))
def test_action_from_str_accepts_only_the_notation(name: str, text: str) -> None:
    state = some_state(name, 3, 2)
    try:
        action = state.action_from_str(text)
    except MalformedActionError:
        return
    assert state.action_to_str(action).lower() == "".join(text.split()).lower()


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(game_names()), junk=st.one_of(json_values, st.binary(max_size=4)))
def test_apply_refuses_junk_without_changing_anything(name: str, junk: object) -> None:
    state = some_state(name, 4, 3)
    before = json.dumps(state.serialize(), sort_keys=True)
    in_range = isinstance(junk, int) and 0 <= junk < state.game.num_distinct_actions
    if in_range and not isinstance(junk, bool) and state.is_legal(junk):  # type: ignore[arg-type]
        return
    try:
        state.apply(junk)  # type: ignore[arg-type]
    except ActionError:
        pass
    else:
        raise AssertionError(f"{junk!r} was applied")
    assert json.dumps(state.serialize(), sort_keys=True) == before


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(game_names()), options=st.dictionaries(st.text(max_size=25), json_values))
def test_options_are_validated_or_refused(name: str, options: dict[str, object]) -> None:
    try:
        game = load_game(name, options)
    except InvalidOptionError as exc:
        assert f"option {exc.option!r}" in str(exc)
    else:
        assert game.new_initial_state(0) is not None


@settings(max_examples=200, deadline=None)
@given(obj=json_values)
def test_records_are_validated(obj: object) -> None:
    """Either a valid record that replays, or RecordError; nothing else escapes."""
    try:
        GameRecord.from_json(obj).replay()
    except RecordError as exc:
        assert str(exc)
