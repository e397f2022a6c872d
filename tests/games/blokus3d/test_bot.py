"""Blokus 3D's bot part: its playout policy makes legal moves of the kind it promises, from the
seeded RNG alone."""

from __future__ import annotations

import random

from masques.ai import make_bot
from masques.ai.search import SearchBot
from masques.engine import load_game
from masques.games.blokus3d.bot import BOT, largest_piece_first
from masques.games.blokus3d.game import SQUARES
from masques.games.blokus3d.pieces import ORIENTATIONS


def test_blokus3d_playouts_place_a_largest_piece_that_fits() -> None:
    """B3-6 counts visible squares: the policy places the biggest piece it can, anywhere it fits."""
    for players in (2, 4):
        game = load_game("blokus3d", {"players": players})
        state = game.new_initial_state(3)
        seen_sizes = set()
        while not state.is_terminal():
            legal = state.legal_actions()
            action = largest_piece_first(state, random.Random(len(state.history)))
            assert action in legal
            assert action == largest_piece_first(state, random.Random(len(state.history)))
            sizes = {len(ORIENTATIONS[a // SQUARES].cubes) for a in legal if a // SQUARES < len(ORIENTATIONS)}
            if sizes:
                size = len(ORIENTATIONS[action // SQUARES].cubes)
                assert size == max(sizes)
                seen_sizes.add(size)
            state.apply(action)
        assert len(seen_sizes) > 1  # as the large pieces run out, smaller ones come


def test_blokus3d_expert_plays_out_with_the_policy() -> None:
    expert, hard = make_bot("expert", "blokus3d"), make_bot("hard", "blokus3d")
    assert isinstance(expert, SearchBot) and isinstance(hard, SearchBot)
    assert expert.policy is BOT.policy
    assert hard.policy is None
    assert expert.iterations > hard.iterations
