"""Per-game position evaluations for the greedy bot and for cut-off playouts.

Each function looks at a full state (a determinization when the game hides things: bots never get
the true state of a hidden-information game) from one seat's point of view and returns a number
where more is better for that seat.  They are deliberately simple and cheap.
"""

from __future__ import annotations

from collections.abc import Callable

from ..engine import State
from ..games.blokus3d.game import Blokus3DState
from ..games.mascarade.game import MascaradeState
from ..games.maske.game import MaskeState
from ..games.masker.game import MaskerState


def _relative(values: list[float], seat: int) -> float:
    """A seat's value minus the best other seat's: what matters in a race."""
    others = [v for s, v in enumerate(values) if s != seat]
    return values[seat] - (max(others) if others else 0.0)


def blokus3d(state: State, seat: int) -> float:
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
    return _relative(values, seat)


def masker(state: State, seat: int) -> float:
    """Own colour kept on the board, others' colours taken off (colour exposure), capacity left."""
    assert isinstance(state, MaskerState)
    if state.eliminated[seat]:
        return -100.0
    game = state.game
    mine = state.on_board[state.team_colour(seat)]
    rivals = [
        state.on_board[state.team_colour(s)]
        for s in range(game.num_players)
        if game.team_of(s) != game.team_of(seat) and not state.eliminated[s]
    ]
    room = (game.capacity - state.held(seat)) / game.capacity
    return mine - (min(rivals) if rivals else 0) * 0.5 + 0.5 * room


def mascarade(state: State, seat: int) -> float:
    """Fewer cards in hand (MC-8), cards that still fit somewhere (they can be played next turn, and
    a player with none must draw, MC-7), and points in the scoring variant (MC-9)."""
    assert isinstance(state, MascaradeState)
    open_squares = list(state.allowed.values())
    values = []
    for s, hand in enumerate(state.hands):
        fitting = 0
        for a in open_squares:
            fitting |= a & hand
        value = -float(hand.bit_count()) + 0.4 * fitting.bit_count()
        if state.game.options["scoring"]:
            value += float(state.scores_[s])
        values.append(value)
    return _relative(values, seat)


def maske(state: State, seat: int) -> float:
    """Points, plus what the sticks would earn at the coming payday (MS-13)."""
    assert isinstance(state, MaskeState)
    n = state.game.num_players
    values = [float(p) for p in state.points]
    if state.laid and state.phase not in ("over", "setup"):
        ring = state.top_values()
        for s in range(n):
            values[s] += ring[state.sticks[2 * s]] + ring[state.sticks[2 * s + 1]]
    return _relative(values, seat)


def one_ply_priors(state: State, actions: list[int]) -> list[float]:
    """Order moves by the game's evaluation one move ahead, from the mover's point of view."""
    seat = state.current_player
    evaluate = EVALUATIONS[state.game.name]
    out = []
    for action in actions:
        child = state.clone()
        child.apply(action)
        out.append(evaluate(child, seat))
    return out


PRIORS: dict[str, Callable[[State, list[int]], list[float]]] = {"blokus3d": one_ply_priors}
"""Optional move orderings: the search keeps only the best-ordered root moves when there are many."""

EVALUATIONS: dict[str, Callable[[State, int], float]] = {
    "blokus3d": blokus3d,
    "masker": masker,
    "mascarade": mascarade,
    "maske": maske,
}
