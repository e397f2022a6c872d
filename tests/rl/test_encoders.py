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
def test_masker_board_is_every_stack_level_by_level_in_the_viewers_colours(variant: str) -> None:
    """MK-13, MK-14: each level of each stack one-hot (own colour, the others after it in colour
    order, white, the runner), nothing above a stack's top; the blocks are the documented ones."""
    game = load_game("masker", {"variant": variant, "players": 3})
    encoder = encoder_for(game)
    names = ["board", "piles", "held", "on_board", "out", "out_colours", "to_move", "steps", "flags"]
    assert [b.name for b in encoder.layout.blocks] == names
    colours = ["red", "yellow", "green", "blue", "black"]
    others = ["white", "runner"]
    for state in positions("masker", {"variant": variant, "players": 3}, seed=7, every=2):
        obs = state.observation(1)
        board = block(encoder, encoder.encode(obs), "board").reshape(game.cells, game.height, 7)  # type: ignore[attr-defined]
        mine = colours.index(obs["your_colour"])
        for cell, stack in enumerate(obs["stacks"]):
            for level in range(game.height):  # type: ignore[attr-defined]
                if level >= len(stack):
                    assert not board[cell, level].any()
                    continue
                name = stack[level]
                code = (colours.index(name) - mine) % 5 if name in colours else 5 + others.index(name)
                assert np.flatnonzero(board[cell, level]).tolist() == [code]
        assert board[:, :, 0].sum() == obs["colours_on_board"][obs["your_colour"]]


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
