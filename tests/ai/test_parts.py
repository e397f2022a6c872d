"""The bots' view of a game's parts: beliefs stay consistent, and a game without a bot part gets
defaults that play."""

from __future__ import annotations

import json
import random

import pytest

from masques.ai import DEFAULT_BOT_PARTS, bot_parts, make_bot
from masques.ai.parts import BotParts, sample_world, score_lead
from masques.ai.search import SearchBot
from masques.engine import game_class, game_names, load_game

SHIPPED = [name for name in game_names() if game_class(name).__module__.startswith("masques.games.")]


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_game_brings_a_bot_part(name: str) -> None:
    parts = bot_parts(name)
    assert isinstance(parts, BotParts)
    assert parts is not DEFAULT_BOT_PARTS
    assert parts.evaluate is not score_lead


@pytest.mark.parametrize("name", game_names())
def test_belief_samples_give_the_seat_the_same_observation(name: str) -> None:
    """Whatever a game's beliefs weigh, a drawn world shows the seat exactly what it saw."""
    game = load_game(name)
    state = game.new_initial_state(2)
    rng = random.Random(2)
    for _ in range(12):
        after = state.clone()
        after.apply(after.random_legal_action(rng))
        if after.is_terminal():
            break
        state = after
    seat = state.current_player
    obs = state.observation(seat)
    for k in range(10):
        other = sample_world(game, seat, [obs], random.Random(k))
        assert json.dumps(other.observation(seat), sort_keys=True) == json.dumps(obs, sort_keys=True)


def test_score_lead_is_the_margin_over_the_best_other_seat() -> None:
    game = load_game("maske", {"players": 3})
    state = game.new_initial_state(1)
    scores = state.scores()
    for seat in range(3):
        others = [v for s, v in enumerate(scores) if s != seat]
        assert score_lead(state, seat) == scores[seat] - max(others)


def test_levels_take_each_games_budgets_and_the_defaults_where_it_sets_none() -> None:
    mascarade = bot_parts("mascarade")
    assert "hard" not in mascarade.levels and "hard" in mascarade.special_levels
    for name in game_names():
        parts = bot_parts(name)
        for level in ("easy", "medium", "hard", "expert"):
            bot = make_bot(level, name)
            assert bot.name == level
            if level in parts.levels:
                assert isinstance(bot, SearchBot)
                assert bot.iterations == parts.levels[level][0]
                assert bot.root_moves == parts.root_moves
    generic = make_bot("hard")
    assert isinstance(generic, SearchBot)
    assert generic.iterations == DEFAULT_BOT_PARTS.levels["hard"][0]
