"""Bots: legal, deterministic, and acting from their seat's observations only."""

from __future__ import annotations

import json
import random

import pytest

from masques.ai import BOT_KINDS, make_bot
from masques.engine import game_names, load_game

SMALL_OPTIONS = {
    "blokus3d": {"players": 2, "structure": "A"},
    "masker": {"players": 3},
    "mascarade": {"players": 3},
    "maske": {"players": 4, "masks": 2},
}


def positions(name: str, count: int = 3):  # type: ignore[no-untyped-def]
    game = load_game(name, SMALL_OPTIONS.get(name, {}))
    state = game.new_initial_state(5)
    rng = random.Random(5)
    histories = {s: [state.observation(s)] for s in range(game.num_players)}
    found = []
    step = 0
    while not state.is_terminal() and len(found) < count:
        if step % 7 == 3:
            found.append((game, state.clone(), [list(h) for h in histories.values()]))
        state.apply(state.random_legal_action(rng))
        for s in range(game.num_players):
            histories[s].append(state.observation(s))
        step += 1
    return found


@pytest.mark.parametrize("name", sorted(SMALL_OPTIONS))
@pytest.mark.parametrize("kind", ["random", "greedy", "easy"])
def test_bots_choose_legal_actions_deterministically(name: str, kind: str) -> None:
    for game, state, histories in positions(name):
        seat = state.current_player
        legal = state.legal_actions()
        bot = make_bot(kind, name)
        first = bot.act(game, seat, histories[seat], legal, random.Random(11))
        again = make_bot(kind, name).act(game, seat, histories[seat], legal, random.Random(11))
        assert first in legal
        assert first == again


@pytest.mark.parametrize("name", [n for n in game_names() if load_game(n).hidden_information])
def test_fairness_bots_cannot_tell_apart_what_their_seat_cannot(name: str) -> None:
    """Two true states with the same observation history for the seat give the same action."""
    for game, state, histories in positions(name, count=2):
        seat = state.current_player
        twin = game.sample_state(seat, histories[seat], random.Random(99))
        assert json.dumps(twin.observation(seat), sort_keys=True) == json.dumps(
            state.observation(seat), sort_keys=True
        )
        for kind in ("greedy", "easy"):
            a = make_bot(kind, name).act(game, seat, histories[seat], state.legal_actions(), random.Random(3))
            b = make_bot(kind, name).act(game, seat, histories[seat], twin.legal_actions(), random.Random(3))
            assert a == b


def test_unknown_bot_names_the_kinds() -> None:
    with pytest.raises(ValueError, match="bots are: random, greedy, easy"):
        make_bot("genius", "masker")
    assert set(BOT_KINDS) >= {"random", "greedy", "easy", "medium", "hard", "expert"}


def test_greedy_plays_by_the_evaluation_it_is_given() -> None:
    """The endgame levels' inner greedy bot plays by its own evaluation, not the game's."""
    from masques.ai.search import GreedyBot

    def last_action(state, seat):  # type: ignore[no-untyped-def]
        return float(state.history[-1])

    for name in sorted(SMALL_OPTIONS):
        for game, state, histories in positions(name):
            seat = state.current_player
            legal = state.legal_actions()
            bot = GreedyBot(samples=2, evaluate=last_action)
            assert bot.act(game, seat, histories[seat], legal, random.Random(1)) == max(legal)


def test_mascarade_endgame_levels_play_by_the_long_view() -> None:
    from masques.games.mascarade.bot import long_view

    for kind in ("hard", "expert"):
        bot = make_bot(kind, "mascarade")
        assert bot.inner.evaluate is long_view  # type: ignore[attr-defined]
    assert make_bot("greedy", "mascarade").evaluate is None  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", ["greedy", "easy"])
def test_a_bot_refuses_in_words_what_it_cannot_decide(kind: str) -> None:
    """Another seat's observations, no legal action, or a seat the game has not: a clear error,
    not a move searched from the wrong point of view nor a bare IndexError."""
    game = load_game("mascarade", {"players": 3})
    state = game.new_initial_state(5)
    bot, rng = make_bot(kind, "mascarade"), random.Random(0)
    seat, legal = state.current_player, state.legal_actions()
    other = (seat + 1) % 3
    with pytest.raises(ValueError, match=f"seat {other}'s observations, not seat {seat}'s"):
        bot.act(game, seat, [state.observation(other)], legal, rng)
    with pytest.raises(ValueError, match="no legal action"):
        bot.act(game, seat, [state.observation(seat)], [], rng)
    with pytest.raises(ValueError, match=r"seat must be 0\.\.2"):
        bot.act(game, 99, [state.observation(seat)], legal, rng)
    with pytest.raises(ValueError, match="observations, not seat"):
        game.sample_state(seat, [state.observation(other)], rng)
