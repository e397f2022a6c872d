"""The greedy bot's per-game evaluations: each term pulls the way its docstring says."""

from __future__ import annotations

import random

from masques.ai.evaluation import (
    FLEXIBLE_SQUARES,
    LONG_VIEW_FLEXIBLE_SQUARES,
    mascarade,
    mascarade_long_view,
    masker,
)
from masques.engine import load_game
from masques.games.mascarade.game import MascaradeState
from masques.games.masker.game import NUM_COLOURS, RUNNER, WHITE, MaskerGame, MaskerState


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


def masker_position(*, exposed: bool, mover: int = 1) -> MaskerState:
    """A 2-player 2D Masker deal with the runner in corner a1 and ``mover`` to play.  Seat 0 holds
    red (0), seat 1 yellow (1).  With ``exposed`` the runner's neighbour b1 is red; otherwise a red
    cross far away swaps places with it.  The counts on the board are the same either way."""
    game = load_game("masker", {"players": 2})
    assert isinstance(game, MaskerGame)
    crosses = [c for c in range(NUM_COLOURS) for _ in range(6)] + [WHITE] * 5
    for code in (2, 3, 0):  # green and blue next to the runner (b1, a2), red in the far corner
        crosses.remove(code)
    codes = [RUNNER, 2, *crosses[:4], 3, *crosses[4:], 0]
    assert len(codes) == 36
    if exposed:
        codes[1], codes[35] = codes[35], codes[1]
    return MaskerState(game, 0, [[code] for code in codes], [0, 1], mover)


def test_masker_race_share_rewards_finishing_a_rival_colour() -> None:
    """MK-10, MK-9: a rival's colour taken off the board is what wins, and the capacity to do it is
    limited, so a cross of a rival colour that is almost gone is worth more than one of a full colour."""
    state = masker_position(exposed=False)

    def value(mine: int, rival: int) -> float:
        probe = state.clone()
        assert isinstance(probe, MaskerState)
        probe.on_board[0], probe.on_board[1] = mine, rival
        return masker(probe, 0)

    assert value(6, 5) > value(6, 6)
    assert value(5, 6) < value(6, 6)
    assert value(6, 1) - value(6, 2) > value(6, 5) - value(6, 6)


def test_masker_counts_crosses_exposed_to_the_rivals_next_step() -> None:
    """MK-5: the rival to move can take a cross next to the runner; our colour there is a risk that
    the same counts far from the runner are not, and on our own turn there is no such risk."""
    assert masker(masker_position(exposed=True), 0) < masker(masker_position(exposed=False), 0)
    ours_to_move = masker(masker_position(exposed=True, mover=0), 0)
    assert ours_to_move == masker(masker_position(exposed=False, mover=0), 0)
    assert masker(masker_position(exposed=True), 0) < ours_to_move


def test_masker_an_eliminated_seat_is_worth_least() -> None:
    state = masker_position(exposed=False)
    state.eliminated[0] = True
    assert masker(state, 0) < masker(masker_position(exposed=True), 0) - 10


def test_mascarade_long_view_tells_apart_cards_the_greedy_count_calls_equally_flexible() -> None:
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
        assert mascarade_long_view(with_wider, seat) > mascarade_long_view(with_narrower, seat)
        checked += 1
    assert checked >= 3


def test_masker_exposure_under_mk_14a_is_the_cross_beneath_the_runner() -> None:
    """MK-14a: when the rival's free step can only take the cross beneath the runner, that cross is
    what is exposed (the top of the runner's stack is the runner itself)."""
    game = load_game("masker", {"players": 2, "variant": "3d"})
    assert isinstance(game, MaskerGame)
    values = []
    for bottom, beneath in ((2, 0), (0, 2)):  # seat 0's red beneath, or a neutral green (same counts)
        stacks: list[list[int]] = [[bottom, 1, beneath, 4], [RUNNER]] + [[] for _ in range(7)]
        state = MaskerState(game, 0, stacks, [0, 1], 0)
        state.apply(0)  # seat 0 takes black; the rival's free step takes ``beneath``
        assert state.legal_actions() == [0]
        values.append(masker(state, 0))
    assert values[0] < values[1]
