"""MS-17 hidden information for the conformance kit's mutation leak check: the deck's order, the masks
still to lay and the drawn card.

Who knows each card of the deck is public (``deck_known``), so a variation swaps cards only between
places that are not public, and names as ``seen_by`` the seats that knew either card.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from ...engine.core import HiddenField, HiddenVariation
from .data import MASKS

if TYPE_CHECKING:
    from .game import MaskeGame, MaskeState


def _seats(known: int) -> frozenset[int]:
    return frozenset(s for s in range(known.bit_length()) if known >> s & 1)


def _hidden_places(state: MaskeState) -> list[int]:
    return [i for i, k in enumerate(state.known) if k != state.everyone]


def _vary_deck(state: MaskeState, rng: random.Random) -> HiddenVariation | None:
    """Two cards of the deck swap places (each place keeps who knows it)."""
    places = _hidden_places(state)
    if len(places) < 2:
        return None
    i, j = rng.sample(places, 2)
    other = state.clone()
    other.deck[i], other.deck[j] = other.deck[j], other.deck[i]
    return HiddenVariation(other, _seats(state.known[i] | state.known[j]))


def _vary_masks(state: MaskeState, rng: random.Random) -> HiddenVariation | None:
    """Two masks still to lay swap places, or one is replaced by a mask not in play; the mask the
    placer has turned over (MS-8) is public and stays."""
    from .game import LAY

    first = 1 if state.phase == LAY else 0
    places = list(range(first, len(state.stack)))
    if not places:
        return None
    laid = {m for m, _ in state.laid}
    unused = [m for m in range(len(MASKS)) if m not in laid and m not in state.stack]
    other = state.clone()
    i = rng.choice(places)
    if unused and (len(places) < 2 or rng.random() < 0.5):
        other.stack[i] = rng.choice(unused)
    elif len(places) >= 2:
        j = rng.choice([p for p in places if p != i])
        other.stack[i], other.stack[j] = other.stack[j], other.stack[i]
    else:
        return None
    return HiddenVariation(other)


def _vary_drawn(state: MaskeState, rng: random.Random) -> HiddenVariation | None:
    """The card up for auction swaps with a card of the deck that is not public either."""
    auction = state.auction
    if auction is None or auction["knew"] == state.everyone:
        return None  # no auction, or a card every seat has seen
    places = _hidden_places(state)
    if not places:
        return None
    j = rng.choice(places)
    other = state.clone()
    assert other.auction is not None
    other.auction["card"], other.deck[j] = other.deck[j], other.auction["card"]
    return HiddenVariation(other, _seats(int(auction["knew"]) | state.known[j]))


def vary_hidden(
    game: MaskeGame, state: MaskeState, part: HiddenField, rng: random.Random
) -> HiddenVariation | None:
    """The declared parts ``deck``, ``mask_stack`` and ``drawn_card`` (see the functions above)."""
    if part.field == "deck":
        return _vary_deck(state, rng)
    if part.field == "mask_stack":
        return _vary_masks(state, rng)
    if part.field == "drawn_card":
        return _vary_drawn(state, rng)
    raise ValueError(f"{game.name} hides no part {part.field!r}")
