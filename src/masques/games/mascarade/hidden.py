"""MC-3 hidden information for the conformance kit's mutation leak check: the hands and the pool.

A variation keeps every public fact of the position (the layout, each hand's size, the pool's size,
scores, forced draws); like the determinization sampler, it does not replay the inferences a player
could draw from past forced draws and passes.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from ...engine.core import HiddenField, HiddenVariation

if TYPE_CHECKING:
    from .game import MascaradeGame, MascaradeState


def vary_hidden(
    game: MascaradeGame, state: MascaradeState, part: HiddenField, rng: random.Random
) -> HiddenVariation | None:
    """``hands``: one card of a hand swapped with a card of another hand or of the pool, seen by the
    hands' owners.  ``pool``: two cards of the pool swapped, seen by nobody."""
    from .game import cards_of

    if part.field == "pool":
        if len(state.pool) < 2:
            return None
        i, j = rng.sample(range(len(state.pool)), 2)
        other = state.clone()
        other.pool[i], other.pool[j] = other.pool[j], other.pool[i]
        return HiddenVariation(other)
    if part.field != "hands":
        raise ValueError(f"mascarade hides no part {part.field!r}")
    if state.over:
        return None  # revealed at the end
    holders = [s for s in range(game.num_players) if state.hands[s]]
    if not holders:
        return None
    seat = rng.choice(holders)
    card = rng.choice(cards_of(state.hands[seat]))
    elsewhere: list[tuple[int | None, int]] = [
        (s, c) for s in range(game.num_players) if s != seat for c in cards_of(state.hands[s])
    ]
    elsewhere += [(None, c) for c in state.pool]
    if not elsewhere:
        return None
    owner, swap = rng.choice(elsewhere)
    other = state.clone()
    other.hands[seat] ^= 1 << card | 1 << swap
    if owner is None:
        other.pool[other.pool.index(swap)] = card
        return HiddenVariation(other, frozenset({seat}))
    other.hands[owner] ^= 1 << card | 1 << swap
    return HiddenVariation(other, frozenset({seat, owner}))
