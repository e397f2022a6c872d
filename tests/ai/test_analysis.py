"""Judging decisions: values are shares of a win from the seat's own view, the move played is always
valued (also one move ordering would not search), and Mascarade's endgame values are its solver's."""

from __future__ import annotations

import random

import pytest

from masques.ai.analysis import Judgement, analyst, judge
from masques.ai.search import SearchBot
from masques.engine import State, load_game


def _play_until(state: State, rng: random.Random, done: object) -> State:
    for _ in range(400):
        if state.is_terminal() or done(state):  # type: ignore[operator]
            return state
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    raise AssertionError("the position was never reached")


@pytest.mark.parametrize("name", ["masker", "maske", "mascarade", "blokus3d"])
def test_a_judgement_values_the_preferred_and_the_played_move_between_zero_and_one(name: str) -> None:
    game = load_game(name, {"players": 2} if name != "maske" else {"players": 3, "masks": 2})
    state = _play_until(game.new_initial_state(3), random.Random(3), lambda s: len(s.legal_actions()) > 2)
    seat = state.current_player
    legal = state.legal_actions()
    played = legal[-1]
    verdict = judge(game, seat, [state.observation(seat)], legal, played, rng=random.Random(1), level="easy")
    assert verdict.best in legal
    assert 0.0 <= verdict.after <= 1.0 and 0.0 <= verdict.chance <= 1.0
    assert verdict.drop == max(0.0, verdict.chance - verdict.after)
    same = judge(
        game, seat, [state.observation(seat)], legal, verdict.best, rng=random.Random(1), level="easy"
    )
    assert same.after == same.chance and same.drop == 0.0


def test_the_move_played_is_valued_even_when_move_ordering_would_not_search_it() -> None:
    game = load_game("blokus3d", {"players": 2, "structure": "A"})
    state = game.new_initial_state(5)
    seat, legal = state.current_player, state.legal_actions()
    bot = SearchBot(60, root_moves=4)
    assert len(legal) > 4
    _best, plain = bot.action_values(game, seat, [state.observation(seat)], legal, random.Random(2))
    outside = next(a for a in legal if a not in plain)
    _best, values = bot.action_values(
        game, seat, [state.observation(seat)], legal, random.Random(2), include=outside
    )
    assert outside in values and len(values) == len(plain) + 1


def test_a_judgement_refuses_a_move_that_was_not_legal() -> None:
    game = load_game("masker", {"players": 2})
    state = game.new_initial_state(1)
    legal = state.legal_actions()
    illegal = next(a for a in range(game.num_distinct_actions) if a not in legal)
    with pytest.raises(ValueError, match="not legal"):
        judge(game, state.current_player, [state.observation(0)], legal, illegal, rng=random.Random(0))


def test_mascarade_endgame_values_are_the_solvers_outcomes() -> None:
    game = load_game("mascarade", {"players": 2})
    state = _play_until(
        game.new_initial_state(7),
        random.Random(7),
        lambda s: s.observation(s.current_player)["pool_size"] <= 3 and len(s.legal_actions()) > 1,
    )
    assert not state.is_terminal()
    seat = state.current_player
    legal = state.legal_actions()
    best, values = analyst("mascarade", "expert").action_values(
        game, seat, [state.observation(seat)], legal, random.Random(0)
    )
    assert best in legal and set(values) == set(legal)
    # each value is a mean of solved outcomes (loss 0, tie 1/2, win 1) over the draws
    assert all(0.0 <= v <= 1.0 for v in values.values())
    assert values[best] == max(values.values())


def test_a_bot_without_values_cannot_analyse() -> None:
    with pytest.raises(ValueError, match="cannot analyse"):
        analyst("masker", "greedy")
    assert Judgement(1, 0.25, 0.5).drop == 0.0
