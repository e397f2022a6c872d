"""Maske's bot part: points plus the coming payday, and level budgets."""

from __future__ import annotations

from ...ai.parts import BotParts, relative
from ...engine import State
from .game import MaskeState


def evaluate(state: State, seat: int) -> float:
    """Points, plus what the sticks would earn at the coming payday (MS-13)."""
    assert isinstance(state, MaskeState)
    n = state.game.num_players
    values = [float(p) for p in state.points]
    if state.laid and state.phase not in ("over", "setup"):
        ring = state.top_values()
        for s in range(n):
            values[s] += ring[state.sticks[2 * s]] + ring[state.sticks[2 * s + 1]]
    return relative(values, seat)


BOT = BotParts(
    evaluate=evaluate,
    levels={"easy": (60, 30), "medium": (250, 30), "hard": (800, 30), "expert": (4000, 30)},
    openspiel_simulations=30,
)
"""Maske's bot tuning (levels: docs/ratings/)."""
