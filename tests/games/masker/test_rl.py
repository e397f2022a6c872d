"""Masker's environment fast path over whole games, for every configuration: one environment played
through many games (each new game's base comes from a kept copy, then follows action by action) gives
at every position exactly the vector of the reference encoding of that seat's observation, and a mask
of exactly the legal actions (MK-5 .. MK-8 steps, MK-11 completions), which the caller may write into."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from masques.engine import load_game
from masques.games.masker.game import STOP, MaskerGame, MaskerState
from masques.games.masker.rl import MaskerEncoder, MaskerTracker
from masques.rl import aec_env
from masques.rl.encoding import FEW_IDS

CONFIGS = MaskerGame.conformance_configurations()


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: f"{o['players']}p-{o['variant']}")
def test_one_environment_over_many_games_gives_the_reference_vectors_and_masks(
    options: dict[str, Any],
) -> None:
    env = aec_env("masker", **options)
    encoder = env.encoder
    assert isinstance(encoder, MaskerEncoder)
    rng = random.Random(5)
    seen = {"free step": 0, "elimination": 0}
    for game_seed in range(12):
        env.reset(seed=game_seed)
        for agent in env.agent_iter(200):
            obs, _, terminated, truncated, _ = env.last()
            state = env.position
            assert isinstance(state, MaskerState) and obs is not None
            seat = env.seat_of[agent]
            assert np.array_equal(obs["observation"], encoder.encode(state.observation(seat)))
            if terminated or truncated:
                env.step(None)
                continue
            legal = state.legal_actions()
            assert np.flatnonzero(obs["action_mask"]).tolist() == legal
            obs["action_mask"][:] = 1  # the caller's own: no later mask may show it
            obs["observation"][:] = 0.5
            seen["free step"] += len(legal) > FEW_IDS
            before = len(state.eliminations)
            action = legal[rng.randrange(len(legal))]
            env.step(action)
            seen["elimination"] += action < STOP and len(state.eliminations) > before
    assert seen["elimination"]  # MK-10, and MK-11 with three players
    if options["variant"] == "2d":  # free steps over 2D's 36 cells: the masks that are not kept
        assert seen["free step"]


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: f"{o['players']}p-{o['variant']}")
def test_a_new_game_is_met_from_the_kept_base_of_its_turn_and_the_board_of_its_deal(
    options: dict[str, Any],
) -> None:
    game = load_game("masker", options)
    encoder = MaskerEncoder(game)  # type: ignore[arg-type]
    tracker = encoder.tracker()
    assert isinstance(tracker, MaskerTracker)
    for seed in range(30):  # every first player, many deals, after games of every length
        state = game.new_initial_state(seed)
        assert isinstance(state, MaskerState)
        for seat in range(game.num_players):
            assert np.array_equal(tracker.vector(state, seat), encoder.encode(state.observation(seat)))
        rng = random.Random(seed)
        for _ in range(rng.randrange(40)):
            if state.is_terminal():
                break
            state.apply(state.random_legal_action(rng))
            seat = rng.randrange(game.num_players)
            assert np.array_equal(tracker.vector(state, seat), encoder.encode(state.observation(seat)))
    assert len(tracker.fresh) <= game.num_players  # one kept base per first player, not per deal
