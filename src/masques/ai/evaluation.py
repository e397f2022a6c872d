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
from ..games.masker.game import STEP, MaskerState


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
    """Our colour's chances in the race against the rival colour closest to elimination, the
    exposure of our crosses to the next player's first step, and a little capacity left.

    If the remaining crosses of two colours were taken in random order, the rival's last cross would
    go first with probability ``mine / (mine + rival)`` (the last of the two colours to be emptied
    is ours).  That share is what the evaluation counts: it is convex in the rival's count, so
    taking the crosses of a colour that is almost gone is worth more than thinning every colour a
    little, which is how a colour gets eliminated before the capacity (MK-9) runs out.  Exposure: if
    the turn has passed to a rival, the share of the crosses its first step can take that are ours
    is the chance of losing one (MK-5, MK-7, MK-8).  Against the random bot (2 players, 2,000
    games) these lifted greedy from 82.5% to 85.8%, and among random bots with 3 and 4 players and
    in 3D by 3 to 5 points too (``benchmarks/masker_greedy.py``)."""
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
    rival = min(rivals) if rivals else 0
    share = _race_share(mine, rival)
    room = (game.capacity - state.held(seat)) / game.capacity
    value = MASKER_RACE_WEIGHT * share + MASKER_ROOM_WEIGHT * room
    exposure = _masker_exposure(state, seat)
    if exposure:
        value -= MASKER_RACE_WEIGHT * exposure * (share - _race_share(mine - 1, rival))
    return value


MASKER_RACE_WEIGHT = 6.0
"""Masker: weight of the race share (between 0 and 1)."""

MASKER_ROOM_WEIGHT = 0.1
"""Masker: weight of the capacity left; small, so that a useful capture is always worth its room."""


def _race_share(mine: int, rival: int) -> float:
    """The chance that the rival's colour empties first if both are taken in random order."""
    return mine / (mine + rival) if mine + rival else 0.0


def _masker_exposure(state: MaskerState, seat: int) -> float:
    """The share of our colour among the crosses a rival's coming first step can take (0 on our turn
    or a teammate's)."""
    player = state.current_player
    if state.over or state.phase != STEP or state.game.team_of(player) == state.game.team_of(seat):
        return 0.0
    targets = state.step_targets()
    if not targets:
        return 0.0
    mine = state.team_colour(seat)
    # the cross a step takes: the top, or under MK-14a the one beneath the runner
    taken = [state.stacks[cell][-2 if cell == state.runner else -1] for cell in targets]
    return sum(1 for code in taken if code == mine) / len(taken)


FLEXIBLE_SQUARES = 4
"""Mascarade: a card that fits this many open squares counts as fully flexible."""


def mascarade(state: State, seat: int, flexible_squares: int = FLEXIBLE_SQUARES) -> float:
    """Fewer cards in hand (MC-8), and flexible cards kept in hand: each card counts by how many open
    squares it fits, up to ``flexible_squares`` (a card that fits nowhere can only wait, and a player
    with none that fits must draw, MC-7), plus points in the scoring variant (MC-9).

    Flexibility is what makes the greedy bot play its awkward cards first and keep the easy ones for
    the end, when the pool is empty and every turn without a placement costs the game: against the
    random bot (2 players, 200 games) it lifted greedy from 71% to 93%.  Weights of 0.4 and 1.0, or 0.1
    and 0.6, did as well (93–94.5%)."""
    assert isinstance(state, MascaradeState)
    open_squares = list(state.allowed.values())
    values = []
    for s, hand in enumerate(state.hands):
        fits: dict[int, int] = {}
        for allowed in open_squares:
            here = allowed & hand
            while here:
                low = here & -here
                here ^= low
                fits[low] = fits.get(low, 0) + 1
        flexible = sum(min(k, flexible_squares) for k in fits.values()) / flexible_squares
        value = -float(hand.bit_count()) + MASCARADE_FITTING * len(fits) + MASCARADE_FLEXIBLE * flexible
        if state.game.options["scoring"]:
            value += float(state.scores_[s])
        values.append(value)
    return _relative(values, seat)


MASCARADE_FITTING = 0.2
"""Mascarade: weight of each card in hand that fits at least one open square."""

MASCARADE_FLEXIBLE = 0.5
"""Mascarade: weight of a fully flexible card in hand.  With the fitting weight it stays below 1, so
one card more in hand always costs more than the best card can bring."""


LONG_VIEW_FLEXIBLE_SQUARES = 8
"""Mascarade: how many open squares make a card fully flexible for the levels that solve endgames."""


def mascarade_long_view(state: State, seat: int) -> float:
    """The Mascarade evaluation with flexibility counted up to ``LONG_VIEW_FLEXIBLE_SQUARES`` squares:
    what hard and expert play by until their rollouts take over.

    Telling a card that fits 8 squares from one that fits 4 keeps the cards that will still fit
    when the pool runs dry and the board has closed up.  Two players, against greedy, seeds 70000+:
    hard won 72.5% of 200 with it where it won 66.5% with the greedy bot's count of 4, and 70.5% of
    200 more (docs/ratings/README.md)."""
    return mascarade(state, seat, LONG_VIEW_FLEXIBLE_SQUARES)


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
