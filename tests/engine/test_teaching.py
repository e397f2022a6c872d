"""Example positions and lesson helpers: a position is a seeded game replayed by the engine, so an
illegal move in its definition fails at once."""

from __future__ import annotations

import pytest

from masques.engine import EngineError, load_game
from masques.engine.teaching import Position, after, best


def test_a_position_replays_its_moves_and_goes_on() -> None:
    start = Position("masker", 18, options={"players": 2})
    state = start.then("f5").state()
    fresh = load_game("masker", {"players": 2}).new_initial_state(18)
    fresh.apply(fresh.action_from_str("f5"))
    assert state.history == fresh.history and state.observation(0) == fresh.observation(0)
    assert start.moves == () and start.then("f5", "f1").moves == ("f5", "f1")


def test_an_illegal_move_in_a_position_fails() -> None:
    with pytest.raises(EngineError):
        Position("masker", 18, ("a1",), {"players": 2}).state()  # MK-5: a1 does not touch the runner


def test_best_keeps_every_move_of_the_highest_value_and_after_leaves_the_state() -> None:
    state = Position("masker", 18, options={"players": 2}).state()
    legal = state.legal_actions()
    assert best(state, lambda s, a: 0.0) == legal
    assert best(state, lambda s, a: float(a == legal[-1])) == [legal[-1]]
    moved = after(state, legal[0])
    assert len(moved.history) == 1 and state.history == []
