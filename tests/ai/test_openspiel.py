"""The OpenSpiel adapter: our games as pyspiel games, and OpenSpiel's search bots as opponents."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pyspiel
import pytest

from masques.ai import make_bot
from masques.ai.openspiel import register_all
from masques.engine import game_names, load_game

OPTIONS = {
    "blokus3d": {"players": 2, "structure": "A"},
    "masker": {"players": 3, "variant": "3d"},
    "mascarade": {"players": 2},
    "maske": {"players": 3, "masks": 2},
}


def test_every_game_is_registered_with_its_options() -> None:
    names = register_all()
    assert names == sorted(f"masques_{n}" for n in game_names())
    game = pyspiel.load_game("masques_masker", {"players": 4, "variant": "3d", "seed": 3})
    assert game.num_players() == 4
    assert game.num_distinct_actions() == load_game("masker").num_distinct_actions
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    blokus = pyspiel.load_game("masques_blokus3d")
    assert blokus.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_a_game_played_through_pyspiel_matches_the_engine(name: str) -> None:
    register_all()
    game = pyspiel.load_game(f"masques_{name}", {**OPTIONS[name], "seed": 5})
    ours = load_game(name, OPTIONS[name]).new_initial_state(5)
    state = game.new_initial_state()
    rng = np.random.RandomState(5)
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal == ours.legal_actions()
        assert state.current_player() == ours.current_player
        action = int(rng.choice(legal))
        state.apply_action(action)
        ours.apply(action)
    assert ours.is_terminal()
    assert list(state.returns()) == ours.returns()
    clone = state.clone()
    assert clone.is_terminal()


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_openspiel_bots_play_legal_moves_from_observations(name: str) -> None:
    game = load_game(name, OPTIONS[name])
    state = game.new_initial_state(2)
    rng = random.Random(2)
    for _ in range(5):
        state.apply(state.random_legal_action(rng))
    seat = state.current_player
    bot = make_bot("openspiel", name)
    action = bot.act(game, seat, [state.observation(seat)], state.legal_actions(), random.Random(1))
    assert action in state.legal_actions()


def test_the_interpreter_exits_cleanly_after_registration() -> None:
    code = (
        "import pyspiel\nfrom masques.ai.openspiel import register_all\nregister_all()\n"
        "g = pyspiel.load_game('masques_masker')\ns = g.new_initial_state()\n"
        "s.apply_action(s.legal_actions()[0])\nprint('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
