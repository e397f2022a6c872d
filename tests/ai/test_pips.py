"""Pips, the test-only game (``tests/extra_games``), through the bots and the arena: it brings no
bot part, so every level plays by the defaults (the lead in the game's own scores, generic budgets)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from masques.ai import BOT_KINDS, DEFAULT_BOT_PARTS, bot_parts, make_bot
from masques.cli.main import app
from masques.engine import game_part, load_game


def test_pips_comes_from_its_entry_point_and_brings_no_part() -> None:
    game = load_game("pips")
    assert type(game).__module__ == "masques_pips"
    assert type(game).parts == {}
    assert game_part("pips", "bot") is None
    assert bot_parts("pips") is DEFAULT_BOT_PARTS


@pytest.mark.parametrize("kind", [k for k in BOT_KINDS if k != "openspiel"])
def test_every_bot_level_plays_pips_to_the_end_on_its_seats_view(kind: str) -> None:
    game = load_game("pips", {"players": 3, "hand": 2})
    bot = make_bot(kind, "pips")
    state = game.new_initial_state(5)
    rng = random.Random(5)
    histories: list[list[object]] = [[state.observation(s)] for s in range(game.num_players)]
    while not state.is_terminal():
        seat = state.current_player
        legal = state.legal_actions()
        action = bot.act(game, seat, histories[seat], legal, rng)
        assert action in legal
        state.apply(action)
        for s in range(game.num_players):
            histories[s].append(state.observation(s))
    assert state.winners()


def test_greedy_by_the_score_lead_takes_the_trick_when_it_closes_it() -> None:
    """The default evaluation reads the game's own scores: the last player of a trick who can take it
    does, since that is the move that raises its lead."""
    game = load_game("pips")
    greedy = make_bot("greedy", "pips")
    checked = 0
    for seed in range(30):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        state.apply(state.random_legal_action(rng))  # the leader opens the trick
        seat = state.current_player
        led = state.observation(seat)["trick"][0]
        if max(state.observation(seat)["hand"]) < led:
            continue
        action = greedy.act(game, seat, [state.observation(seat)], state.legal_actions(), rng)
        assert state.action_to_json(action)["card"] > led
        checked += 1
    assert checked >= 10


def test_the_arena_rates_bots_at_pips(tmp_path: Path) -> None:
    out = tmp_path / "pips"
    result = CliRunner().invoke(
        app,
        [
            "arena",
            "pips",
            "--bots",
            "greedy,random,easy",
            "--games",
            "6",
            "--workers",
            "1",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.with_suffix(".json").read_text("utf-8"))
    assert {row["bot"] for row in data["table"]} == {"greedy", "random", "easy"}
    assert len(data["results"]) == 6
