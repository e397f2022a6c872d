"""Mascarade's bot part: each term of the evaluation pulls the way its docstring says."""

from __future__ import annotations

import random

from masques.engine import load_game
from masques.games.mascarade.bot import FLEXIBLE_SQUARES, LONG_VIEW_FLEXIBLE_SQUARES, long_view
from masques.games.mascarade.bot import evaluate as mascarade
from masques.games.mascarade.game import MascaradeState


def mid_game(seed: int) -> MascaradeState:
    """A 2-player Mascarade position after some random placements, with several open squares."""
    game = load_game("mascarade", {"players": 2})
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(12):
        state.apply(state.random_legal_action(rng))
    assert isinstance(state, MascaradeState)
    return state


def squares_fitted(state: MascaradeState, card: int) -> int:
    return sum(1 for allowed in state.allowed.values() if allowed >> card & 1)


def test_mascarade_prefers_keeping_flexible_cards_in_hand() -> None:
    """Two hands of the same size that differ in one card: the one whose card fits more open squares
    (up to FLEXIBLE_SQUARES) is worth more to its holder (MC-5, MC-7: awkward cards get stuck)."""
    checked = 0
    for seed in range(20):
        state = mid_game(seed)
        seat = state.current_player
        fits = {card: min(squares_fitted(state, card), FLEXIBLE_SQUARES) for card in state.pool}
        fitting = [card for card, k in fits.items() if k > 0]
        awkward = min(fitting, key=lambda card: fits[card])
        flexible = max(fitting, key=lambda card: fits[card])
        if fits[awkward] == fits[flexible]:
            continue
        base = state.hands[seat]
        with_awkward, with_flexible = state.clone(), state.clone()
        assert isinstance(with_awkward, MascaradeState) and isinstance(with_flexible, MascaradeState)
        with_awkward.hands[seat] = base | 1 << awkward
        with_flexible.hands[seat] = base | 1 << flexible
        assert mascarade(with_flexible, seat) > mascarade(with_awkward, seat)
        checked += 1
    assert checked >= 5


def test_mascarade_counts_hand_size_first() -> None:
    """MC-8: one card more in hand costs more than any flexibility it brings."""
    state = mid_game(3)
    seat = state.current_player
    card = max(state.pool, key=lambda c: squares_fitted(state, c))
    bigger = state.clone()
    assert isinstance(bigger, MascaradeState)
    bigger.hands[seat] |= 1 << card
    assert mascarade(bigger, seat) < mascarade(state, seat)


def test_long_view_tells_apart_cards_the_greedy_count_calls_equally_flexible() -> None:
    """MC-5, MC-7: the endgame levels' evaluation still prefers to keep the card that fits more open
    squares when both fit at least FLEXIBLE_SQUARES, where the greedy bot's count sees no difference."""
    checked = 0
    for seed in range(40):
        state = mid_game(seed)
        seat = state.current_player
        fits = {card: squares_fitted(state, card) for card in state.pool}
        wide = [card for card, k in fits.items() if k >= FLEXIBLE_SQUARES]
        if len(wide) < 2:
            continue
        narrower = min(wide, key=lambda card: fits[card])
        wider = max(wide, key=lambda card: fits[card])
        if fits[narrower] >= LONG_VIEW_FLEXIBLE_SQUARES or fits[narrower] == fits[wider]:
            continue
        with_narrower, with_wider = state.clone(), state.clone()
        assert isinstance(with_narrower, MascaradeState) and isinstance(with_wider, MascaradeState)
        with_narrower.hands[seat] |= 1 << narrower
        with_wider.hands[seat] |= 1 << wider
        assert mascarade(with_wider, seat) == mascarade(with_narrower, seat)
        assert long_view(with_wider, seat) > long_view(with_narrower, seat)
        checked += 1
    assert checked >= 3
