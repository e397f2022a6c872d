"""What the encoders write: each block says what its docstring says, on positions of random games."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from masques.engine import State, game_class, game_names, game_part, load_game
from masques.rl.encoders import encoder_for
from masques.rl.encoding import Encoder


def positions(name: str, options: dict[str, object], seed: int, every: int = 1) -> Iterator[State]:
    game = load_game(name, options)
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    k = 0
    while not state.is_terminal():
        if k % every == 0:
            yield state
        state.apply(state.random_legal_action(rng))
        k += 1
    yield state


def block(encoder: Encoder[Any], vector: np.ndarray, name: str) -> np.ndarray:
    b = encoder.layout.block(name)
    return vector[b.start : b.stop]


@pytest.mark.parametrize(
    ("name", "options"),
    [
        pytest.param(name, cfg, id=f"{name}-{i}")
        for name in game_names()
        for i, cfg in enumerate(game_class(name).conformance_configurations())
    ],
)
def test_vectors_are_float32_within_the_encoder_bounds_and_blocks_tile_them(
    name: str, options: dict[str, object]
) -> None:
    encoder = encoder_for(load_game(name, options))
    starts = [b.start for b in encoder.layout.blocks]
    assert starts == sorted(starts) and starts[0] == 0
    assert sum(b.size for b in encoder.layout.blocks) == encoder.size
    for state in positions(name, options, seed=1, every=3):
        for seat in range(state.game.num_players):
            v = encoder.encode(state.observation(seat))
            assert v.dtype == np.float32 and v.shape == (encoder.size,)
            assert v.min() >= encoder.low and v.max() <= encoder.high
    if game_part(name, "rl") is not None:  # the games' own encoders: the unit interval
        assert (encoder.low, encoder.high) == (0.0, 1.0)


@pytest.mark.parametrize("name", [n for n in game_names() if game_part(n, "rl") is not None])
def test_whose_turn_is_written_relative_to_the_viewer(name: str) -> None:
    encoder = encoder_for(load_game(name))
    for state in positions(name, {}, seed=2, every=5):
        if state.is_terminal():
            continue
        for seat in range(state.game.num_players):
            v = encoder.encode(state.observation(seat))
            turn = block(encoder, v, "actor" if name == "maske" else "to_move")
            if name == "blokus3d":
                colours = state.game.colours_in_play  # type: ignore[attr-defined]
                first = next(c for c in range(colours) if state.game.seat_of_colour(c) == seat)  # type: ignore[attr-defined]
                assert np.flatnonzero(turn).tolist() == [(state.current_colour - first) % colours]  # type: ignore[attr-defined]
            elif name == "maske":
                actor = state.observation(seat)["actor"]
                assert np.flatnonzero(turn).tolist() == [(actor - seat) % state.game.num_players]
            else:
                assert np.flatnonzero(turn).tolist() == [
                    (state.current_player - seat) % state.game.num_players
                ]


@pytest.mark.parametrize("variant", ["2d", "3d"])
def test_masker_reach_is_where_the_runner_may_step_and_channel_0_is_ones_own_colour(variant: str) -> None:
    encoder = encoder_for(load_game("masker", {"variant": variant}))
    for state in positions("masker", {"variant": variant}, seed=3):
        for seat in range(2):
            obs = state.observation(seat)
            v = encoder.encode(obs)
            steps = [a for a in state.legal_actions() if a < 36]
            assert np.flatnonzero(block(encoder, v, "reach")).tolist() == steps
            board = block(encoder, v, "board").reshape(-1, 7)
            assert board[:, 0].sum() == obs["colours_on_board"][obs["your_colour"]]


@pytest.mark.parametrize("variant", ["2d", "3d"])
def test_masker_around_counts_the_tops_next_to_each_cell(variant: str) -> None:
    game = load_game("masker", {"variant": variant, "players": 3})
    encoder = encoder_for(game)
    for state in positions("masker", {"variant": variant, "players": 3}, seed=7, every=2):
        obs = state.observation(1)
        around = block(encoder, encoder.encode(obs), "around").reshape(game.cells, 7)
        mine = obs["your_colour"]
        for cell, near in enumerate(game.neighbours):  # type: ignore[attr-defined]
            tops = [obs["stacks"][n][-1] for n in near if obs["stacks"][n]]
            assert around[cell, 0] * 4 == tops.count(mine)
            assert around[cell, 5] * 4 == tops.count("white")
            assert around[cell].sum() * 4 == len(tops)


def test_mascarade_hand_is_the_viewers_own() -> None:
    encoder = encoder_for(load_game("mascarade"))
    for state in positions("mascarade", {}, seed=4, every=4):
        for seat in range(3):
            obs = state.observation(seat)
            v = encoder.encode(obs)
            assert np.flatnonzero(block(encoder, v, "hand")).tolist() == obs["hand"]
            occupied = block(encoder, v, "board").reshape(100, -1)[:, 0]
            assert np.flatnonzero(occupied).tolist() == sorted(p["square"] for p in obs["placed"])


def test_blokus3d_every_cube_is_written_once() -> None:
    encoder = encoder_for(load_game("blokus3d"))
    for state in positions("blokus3d", {}, seed=5, every=4):
        obs = state.observation(0)
        v = encoder.encode(obs)
        cubes = sum(len(column) for row in obs["stacks"] for column in row)
        assert block(encoder, v, "cubes").sum() == cubes


def test_maske_sticks_are_where_the_observation_says() -> None:
    encoder = encoder_for(load_game("maske", {"players": 3}))
    for state in positions("maske", {"players": 3}, seed=6, every=7):
        obs = state.observation(1)
        v = encoder.encode(obs)
        planes = block(encoder, v, "sticks").reshape(3, 2, 49)
        for s, pair in enumerate(obs["sticks"]):
            for k, hole in enumerate(pair):
                expected = [hole] if hole >= 0 else []
                assert np.flatnonzero(planes[(s - 1) % 3, k]).tolist() == expected
