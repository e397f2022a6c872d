"""Mascarade's bot part: cards in hand and their flexibility, and the levels that solve endgames."""

from __future__ import annotations

from ...ai.bots import Bot
from ...ai.parts import BotParts, relative
from ...engine import State
from ...extras import available
from .game import MascaradeState

FLEXIBLE_SQUARES = 4
"""A card that fits this many open squares counts as fully flexible."""

FITTING = 0.2
"""Weight of each card in hand that fits at least one open square."""

FLEXIBLE = 0.5
"""Weight of a fully flexible card in hand.  With the fitting weight it stays below 1, so one card
more in hand always costs more than the best card can bring."""

LONG_VIEW_FLEXIBLE_SQUARES = 8
"""How many open squares make a card fully flexible for the levels that solve endgames."""


def evaluate(state: State, seat: int, flexible_squares: int = FLEXIBLE_SQUARES) -> float:
    """Fewer cards in hand (MC-8), and flexible cards kept in hand: each card counts by how many open
    squares it fits, up to ``flexible_squares`` (a card that fits nowhere can only wait, and a player
    with none that fits must draw, MC-7), plus points in the scoring variant (MC-9).

    Flexibility is what makes the greedy bot play its awkward cards first and keep the easy ones for
    the end, when the pool is empty and every turn without a placement costs the game."""
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
        value = -float(hand.bit_count()) + FITTING * len(fits) + FLEXIBLE * flexible
        if state.game.options["scoring"]:
            value += float(state.scores_[s])
        values.append(value)
    return relative(values, seat)


def long_view(state: State, seat: int) -> float:
    """The evaluation with flexibility counted up to ``LONG_VIEW_FLEXIBLE_SQUARES`` squares: what hard
    and expert play by until their rollouts take over.  Telling a card that fits 8 squares from one
    that fits 4 keeps the cards that will still fit when the pool runs dry and the board has closed
    up (docs/ratings/README.md)."""
    return evaluate(state, seat, LONG_VIEW_FLEXIBLE_SQUARES)


ENDGAME_LEVELS: dict[str, dict[str, int]] = {
    # level -> EndgameBot's budgets: it plays greedy until the pool holds ``rollout_reach`` cards,
    # then chooses among its ``rollout_moves`` best-evaluated actions by greedy rollouts to an empty
    # pool, each endgame solved (``rollout_samples`` determinizations, ``rollout_budget`` nodes), and
    # from ``reach`` cards left solves every decision (``samples`` determinizations, ``budget`` nodes
    # each); with ``infer``, the worlds are drawn from that many times as many by how well they
    # explain the other player's last placement.
    "hard": {
        "reach": 4,
        "samples": 6,
        "budget": 150_000,
        "rollout_reach": 10,
        "rollout_samples": 16,
        "rollout_moves": 3,
        "rollout_budget": 300_000,
        "infer": 3,
    },
    "expert": {
        "reach": 5,
        "samples": 6,
        "budget": 1_500_000,
        "rollout_reach": 12,
        "rollout_samples": 32,
        "rollout_moves": 4,
        "rollout_budget": 300_000,
        "infer": 3,
    },
}
"""Levels that play greedy until the pool is nearly empty, then look ahead to the end (``endgame``).
Mascarade is won or lost in its last placements, when the board is nearly full and whoever is left
stuck loses a turn; a search with random playouts over the long game lost to the greedy bot.  Every
variant measured is in docs/ratings/README.md."""


def endgame_bot(level: str) -> Bot:
    """The hard or expert bot: greedy by the long view, then rollouts and the endgame solver."""
    from ...ai.search import GreedyBot
    from .endgame import EndgameBot

    return EndgameBot(GreedyBot(evaluate=long_view), name=level, **ENDGAME_LEVELS[level])


def warm_up() -> None:
    """Load, or the first time on a machine compile (numba caches it on disk), the endgame solver
    (nothing to do without numba: the plain solver needs no compiling)."""
    if not available("numba"):
        return
    from .endgame_core import warm_up as load_solver

    load_solver()


BOT = BotParts(
    evaluate=evaluate,
    levels={"easy": (20, 0), "medium": (80, 0)},
    warm_up=warm_up,
    special_levels=dict.fromkeys(ENDGAME_LEVELS, endgame_bot),
    openspiel_simulations=36,
)
"""Mascarade's bot tuning (levels: docs/ratings/)."""
