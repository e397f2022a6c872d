"""Blokus 3D's bot part: visible squares and mobility, move priors, and the largest-piece playouts."""

from __future__ import annotations

import random

from ...ai.parts import BotParts, one_ply_priors, relative
from ...engine import State
from .game import SQUARES, Blokus3DState
from .pieces import ORIENTATIONS

_CUBES = tuple(len(o.cubes) for o in ORIENTATIONS)


def evaluate(state: State, seat: int) -> float:
    """Visible squares and pieces placed (B3-6), plus a little mobility for the colours to come."""
    assert isinstance(state, Blokus3DState)
    game = state.game
    values = [0.0] * game.num_players
    scores = state.colour_scores()
    for colour in range(game.colours_in_play):
        owner = game.seat_of_colour(colour)
        mobility = 0
        if state.status[colour] == "playing":
            mobility = sum(m.bit_count() for _, m in state._generate(colour))
        values[owner] += scores[colour] + 0.02 * min(mobility, 200)
    return relative(values, seat)


def largest_piece_first(state: State, rng: random.Random) -> int:
    """A random placement of one of the largest pieces that can be placed: B3-6 counts visible
    squares, and small pieces fit late, large ones do not (``benchmarks/search.py`` compares it with
    uniform playouts)."""
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


BOT = BotParts(
    evaluate=evaluate,
    levels={"easy": (30, 0), "medium": (120, 0), "hard": (600, 0), "expert": (3000, 0)},
    priors=one_ply_priors(evaluate),
    root_moves=6,
    policy=largest_piece_first,
    policy_levels=frozenset({"expert"}),
    openspiel_simulations=4,
)
"""Blokus 3D's bot tuning.  The expert level's playouts place the largest piece they can: more
iterations of random playouts stopped paying.  The search keeps the 6 best-ordered root moves: the
one-ply ordering is good enough that a narrow search gains the most (docs/ratings/README.md)."""
