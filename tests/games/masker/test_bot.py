"""Masker's bot part: the race evaluation pulls the way its docstring says, and the beliefs stay
consistent with what a seat saw while learning from captures."""

from __future__ import annotations

import random
from collections import Counter

from masques.engine import load_game
from masques.games.masker.bot import evaluate as masker
from masques.games.masker.bot import sample
from masques.games.masker.game import (
    COLOURS,
    NUM_COLOURS,
    RUNNER,
    WHITE,
    MaskerGame,
    MaskerState,
    consistent_tokens,
)


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


def test_masker_beliefs_doubt_a_colour_its_opponent_keeps_capturing() -> None:
    game = load_game("masker", {"players": 2})
    state = game.new_initial_state(3)
    rng = random.Random(3)
    while len(state.history) < 16:
        state.apply(state.random_legal_action(rng))
    obs = state.observation(0)
    captured = Counter(obs["piles"][1])
    favourite = max((c for c in COLOURS if c in captured), key=lambda c: captured[c])
    uniform = Counter()
    weighted = Counter()
    draws = random.Random(1)
    for _ in range(3000):
        weighted[COLOURS[sample(game, 0, [obs], draws).tokens[1]]] += 1
        uniform[COLOURS[game.sample_state(0, [obs], draws).tokens[1]]] += 1
    assert weighted[favourite] < uniform[favourite]
    allowed = {COLOURS[t[1]] for t in consistent_tokens(game, obs)}
    assert set(weighted) <= allowed


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
