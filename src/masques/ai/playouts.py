"""Playout policies: how a search finishes a game quickly when uniform random moves mislead it.

A policy takes a full state and a seeded RNG and returns a legal action.  It must be cheap: a search
calls it at every move of every playout.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..engine import State
from ..games.blokus3d.game import SQUARES, Blokus3DState
from ..games.blokus3d.pieces import ORIENTATIONS

_CUBES = tuple(len(o.cubes) for o in ORIENTATIONS)


def blokus3d_largest_piece_first(state: State, rng: random.Random) -> int:
    """A random placement of one of the largest pieces that can be placed (B3-6 counts visible
    squares, and small pieces fit late, large ones do not).  Against uniform random play it wins
    81.5% of 200 two-player games; as the playouts of a 600-iteration search it beat the plain
    search of the same budget 65% of 40."""
    assert isinstance(state, Blokus3DState)
    if not state.moves:
        return state.random_legal_action(rng)
    largest = max(_CUBES[o] for o, _ in state.moves)
    candidates = [(o, anchors) for o, anchors in state.moves if _CUBES[o] == largest]
    orientation, anchors = candidates[rng.randrange(len(candidates))]
    for _ in range(rng.randrange(anchors.bit_count())):
        anchors &= anchors - 1
    geo = state.geo
    return orientation * SQUARES + geo.cell_square[((anchors & -anchors).bit_length() - 1) % geo.layer]


POLICIES: dict[str, Callable[[State, random.Random], int]] = {"blokus3d": blokus3d_largest_piece_first}
"""Each game's playout policy, for the levels that use one (``bots.POLICY_LEVELS``)."""
