"""The Mascarade endgame solver, compiled with numba so that the bots can sample more worlds, or
solve from more cards left in the pool, in the time a player waits (``benchmarks/mascarade_endgame.py``).

Its oracle is the same search written plainly in Python, kept with the tests
(``tests/games/mascarade/endgame_oracle.py``): the same moves in the same order (cards that fit the
fewest open squares first, ties in the order the squares were opened), the same memo of proved bounds
under the same Zobrist keys, the same node count, so the same budget runs out at the same node.  The
move rules come from the game's own tables (``game.COMPATIBLE``, ``game.NEIGHBOURS``).

A position lives in row ``d`` of arrays indexed by depth (the search keeps one row per level, a move
writes the child into the next row), and the AND-OR recursion runs on an explicit stack over those
rows.  A 100-card set is two ``uint64`` words (cards 0..63, 64..99); the open squares are a list in
the order the Python solver's dict keeps them (its iteration order decides ties between moves).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar, cast

import numba
import numpy as np
import numpy.typing as npt

from .endgame import (
    DRAW_KEYS,
    HOLD_KEYS,
    LOSS,
    PASS_KEYS,
    PLACE_KEYS,
    PLAYER_KEYS,
    TIE,
    WIN,
)
from .game import COMPATIBLE, HAND, NEIGHBOURS, NUM_CARDS, PASS, SQUARES, MascaradeState

F = TypeVar("F", bound=Callable[..., Any])
U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
Rows = tuple[I64, I64, U64, U64, U64, I64, U64]
"""A position per row: header ``ints``, open ``squares`` and their card sets, ``occupied``
squares, ``hands``, their ``counts``, Zobrist ``keys`` (placements and hands)."""
Rules = tuple[I64, U64, I64, U64, U64]
"""What the moves read: the pool, compatible cards, neighbours, placement and hand keys."""

BUDGET = -1
"""What a search returns when it met its node budget."""
OPEN = 0  # the position's header fields, per row of ``ints``
DRAW_AT = 1
PLAYER = 2
PASSES = 3
HEADER = 4
FULL = 2  # a table holds at most one entry per FULL slots
USED = 16


def jit(fn: F) -> F:
    """Compile ``fn`` in nopython mode, cached on disk so that a new process only loads it."""
    return cast(F, numba.njit(cache=True, nogil=True)(fn))


def inline(fn: F) -> F:
    """:func:`jit`, and inlined into its callers."""
    return cast(F, numba.njit(cache=True, nogil=True, inline="always")(fn))


def _words(bits: int) -> tuple[int, int]:
    return bits & (2**64 - 1), bits >> 64


def _keys(keys: list[int]) -> U64:
    return np.array(keys, dtype=np.uint64)


_COMPATIBLE = np.array([_words(c) for c in COMPATIBLE], dtype=np.uint64)
_NEIGHBOURS = np.array([[*n, *[-1] * (4 - len(n))] for n in NEIGHBOURS], dtype=np.int64)
_PLACE_KEYS = _keys(PLACE_KEYS)
_HOLD_KEYS = _keys(HOLD_KEYS)
_TURN_KEYS = (_keys(PLAYER_KEYS), _keys(PASS_KEYS), _keys(DRAW_KEYS))


@inline
def low_bit(word: np.uint64) -> int:
    """The index of the lowest set bit of a non-zero word (binary search; numba has no ctz)."""
    index = 0
    half = 32
    while half:
        if word & ((np.uint64(1) << np.uint64(half)) - np.uint64(1)) == 0:
            word >>= np.uint64(half)
            index += half
        half //= 2
    return index


@inline
def bit(card: int) -> tuple[np.uint64, np.uint64]:
    """A card (or square) as a set of one, in two words."""
    if card < 64:
        return np.uint64(1) << np.uint64(card), np.uint64(0)
    return np.uint64(0), np.uint64(1) << np.uint64(card - 64)


@inline
def fits(ints: I64, open_sets: U64, hands: U64, d: int, seat: int) -> bool:
    """Whether a card of ``seat``'s hand fits some open square of row ``d``."""
    for k in range(ints[d, OPEN]):
        if open_sets[d, k, 0] & hands[d, 2 * seat] or open_sets[d, k, 1] & hands[d, 2 * seat + 1]:
            return True
    return False


@inline
def start_turn(rows: Rows, rules: Rules, d: int) -> None:
    """MC-7: nothing fits and the pool has cards: draw one at once."""
    ints, _, open_sets, _, hands, counts, keys = rows
    pool, _, _, _, hold_keys = rules
    seat = ints[d, PLAYER]
    if ints[d, DRAW_AT] and not fits(ints, open_sets, hands, d, seat):
        ints[d, DRAW_AT] -= 1
        card = pool[ints[d, DRAW_AT]]
        lo, hi = bit(card)
        hands[d, 2 * seat] |= lo
        hands[d, 2 * seat + 1] |= hi
        counts[d, seat] += 1
        keys[d] ^= hold_keys[seat * NUM_CARDS + card]


@inline
def play(rows: Rows, rules: Rules, d: int, action: int, solver: int, one: bool) -> int:
    """Play ``action`` in row ``d``: the finished game's outcome for ``solver``, or -1 and the next
    position in row ``d + 1`` (``EndgameSolver.play``); ``one``: option ``matching=one`` (MC-5a)."""
    ints, squares, open_sets, occupied, hands, counts, keys = rows
    pool, compatible, neighbours, place_keys, hold_keys = rules
    players = counts.shape[1]
    seat = ints[d, PLAYER]
    draw_at = ints[d, DRAW_AT]
    for s in range(players):  # scalar copies: numba builds a view for each row assignment
        hands[d + 1, 2 * s] = hands[d, 2 * s]
        hands[d + 1, 2 * s + 1] = hands[d, 2 * s + 1]
        counts[d + 1, s] = counts[d, s]
    occupied[d + 1, 0] = occupied[d, 0]
    occupied[d + 1, 1] = occupied[d, 1]
    if action == PASS:
        passes = ints[d, PASSES] + 1 if draw_at == 0 else 0
        if passes >= players:  # MC-8 b: the fewest cards in hand win; a shared first place goes to a lot
            fewest = counts[d, 0]
            for s in range(1, players):
                fewest = min(fewest, counts[d, s])
            if counts[d, solver] != fewest:
                return LOSS
            tied = 0
            for s in range(players):
                tied += counts[d, s] == fewest
            return WIN if tied == 1 else TIE
        size = ints[d, OPEN]
        for k in range(size):
            squares[d + 1, k] = squares[d, k]
            open_sets[d + 1, k, 0] = open_sets[d, k, 0]
            open_sets[d + 1, k, 1] = open_sets[d, k, 1]
        ints[d + 1, OPEN] = size
        ints[d + 1, DRAW_AT] = draw_at
        ints[d + 1, PLAYER] = (seat + 1) % players
        ints[d + 1, PASSES] = passes
        keys[d + 1] = keys[d]
        start_turn(rows, rules, d + 1)
        return -1
    card = action // SQUARES
    square = action % SQUARES
    lo, hi = bit(card)
    hands[d + 1, 2 * seat] &= ~lo
    hands[d + 1, 2 * seat + 1] &= ~hi
    counts[d + 1, seat] -= 1
    key = keys[d] ^ place_keys[action] ^ hold_keys[seat * NUM_CARDS + card]
    lo, hi = bit(square)
    occupied[d + 1, 0] |= lo
    occupied[d + 1, 1] |= hi
    size = 0  # the open squares but this one, in their order; then its empty neighbours
    for k in range(ints[d, OPEN]):
        if squares[d, k] != square:
            squares[d + 1, size] = squares[d, k]
            open_sets[d + 1, size, 0] = open_sets[d, k, 0]
            open_sets[d + 1, size, 1] = open_sets[d, k, 1]
            size += 1
    for j in range(4):
        nb = neighbours[square, j]
        if nb < 0:
            break
        lo, hi = bit(nb)
        if occupied[d + 1, 0] & lo or occupied[d + 1, 1] & hi:
            continue
        k = 0
        while k < size and squares[d + 1, k] != nb:
            k += 1
        if k == size:  # newly open: any card sharing a feature with this one (MC-5)
            squares[d + 1, k] = nb
            open_sets[d + 1, k, 0] = compatible[card, 0]
            open_sets[d + 1, k, 1] = compatible[card, 1]
            size += 1
        elif one:  # MC-5a: one matching neighbour is enough
            open_sets[d + 1, k, 0] |= compatible[card, 0]
            open_sets[d + 1, k, 1] |= compatible[card, 1]
        else:
            open_sets[d + 1, k, 0] &= compatible[card, 0]
            open_sets[d + 1, k, 1] &= compatible[card, 1]
    ints[d + 1, OPEN] = size
    if counts[d + 1, seat] == 0 and draw_at == 0:  # MC-8 a
        return WIN if seat == solver else LOSS
    while counts[d + 1, seat] < HAND and draw_at:  # MC-6
        draw_at -= 1
        drawn = pool[draw_at]
        lo, hi = bit(drawn)
        hands[d + 1, 2 * seat] |= lo
        hands[d + 1, 2 * seat + 1] |= hi
        counts[d + 1, seat] += 1
        key ^= hold_keys[seat * NUM_CARDS + drawn]
    ints[d + 1, DRAW_AT] = draw_at
    ints[d + 1, PLAYER] = (seat + 1) % players
    ints[d + 1, PASSES] = 0
    keys[d + 1] = key
    start_turn(rows, rules, d + 1)
    return -1


@inline
def moves(rows: Rows, d: int, out: I64, fit_count: I64, first_seen: I64, order: I64) -> int:
    """Write row ``d``'s moves to ``out[d]`` in ``EndgameSolver.moves``' order; return how many.

    Cards by how many open squares they fit, ties in the order a card first fits one (the squares
    in their list order, then cards ascending); each card's squares in list order.  ``fit_count``
    is all zeros on entry and on return; ``first_seen`` and ``order`` are scratch."""
    ints, squares, open_sets, _, hands, _, _ = rows
    seat = ints[d, PLAYER]
    found = 0
    seen = 0
    for k in range(ints[d, OPEN]):
        for w in range(2):
            here = open_sets[d, k, w] & hands[d, 2 * seat + w]
            while here:
                card = low_bit(here) + 64 * w
                here &= here - np.uint64(1)
                if fit_count[card] == 0:
                    first_seen[card] = seen
                    seen += 1
                fit_count[card] += 1
                out[d, found] = card * SQUARES + squares[d, k]
                found += 1
    if found == 0:
        out[d, 0] = PASS
        return 1
    for i in range(found):  # a stable insertion sort by (fit count, first seen)
        card = out[d, i] // SQUARES
        order[i] = fit_count[card] * 128 + first_seen[card]
    for i in range(1, found):
        action = out[d, i]
        rank = order[i]
        j = i - 1
        while j >= 0 and order[j] > rank:
            out[d, j + 1] = out[d, j]
            order[j + 1] = order[j]
            j -= 1
        out[d, j + 1] = action
        order[j + 1] = rank
    for i in range(found):
        fit_count[out[d, i] // SQUARES] = 0
    return found


@inline
def find(table: U64, key: np.uint64) -> int:
    """The slot of ``key`` in an open-addressing table (rows: key, bounds), or of the empty slot
    where it would go.  A row's bounds are ``USED + low + 4 * high``, 0 when the row is empty: key
    and bounds share a cache line, one miss per look-up in a table of millions."""
    mask: int = table.shape[0] - 1
    slot = int(key) & mask
    while table[slot, 1] and table[slot, 0] != key:
        slot = (slot + 1) & mask
    return slot


@jit
def grown(table: U64) -> U64:
    """The same entries in a table twice as large."""
    new_table = np.zeros((2 * table.shape[0], 2), dtype=np.uint64)
    for slot in range(table.shape[0]):
        if table[slot, 1]:
            new_table[find(new_table, table[slot, 0])] = table[slot]
    return new_table


@jit
def solve_rows(
    rows: Rows,
    rules: Rules,
    turn_keys: tuple[U64, U64, U64],
    actions: I64,
    solver: int,
    budget: int,
    outcomes: I64,
    one: bool,
) -> int:
    """``EndgameSolver.outcome`` of each root action (row 0) into ``outcomes``; return the nodes
    searched, or :data:`BUDGET` when the budget ran out (``outcomes`` is then incomplete).
    ``turn_keys``: the Zobrist keys of the player to move, the passes and the pool's size."""
    ints, _, _, _, _, counts, keys = rows
    pool = rules[0]
    player_keys, pass_keys, draw_keys = turn_keys
    depth = ints.shape[0]
    width = 1
    for s in range(counts.shape[1]):
        width += counts[0, s]
    width = (width + pool.shape[0]) * SQUARES + 1
    moves_at = np.empty((depth, width), dtype=np.int64)
    count_at = np.zeros(depth, dtype=np.int64)
    next_at = np.zeros(depth, dtype=np.int64)
    key_at = np.zeros(depth, dtype=np.uint64)
    low_at = np.zeros(depth, dtype=np.int64)
    high_at = np.zeros(depth, dtype=np.int64)
    fit_count = np.zeros(NUM_CARDS, dtype=np.int64)
    first_seen = np.zeros(NUM_CARDS, dtype=np.int64)
    order = np.empty(width, dtype=np.int64)
    table = np.zeros((1 << 16, 2), dtype=np.uint64)  # the proved bounds of each position, by key
    entries = 0
    nodes = 0
    for a in range(actions.shape[0]):
        after = play(rows, rules, 0, actions[a], solver, one)
        outcomes[a] = after
        if after >= 0:
            continue
        for target in (WIN, TIE):
            # reaches(row 1, target): the AND-OR search, one row per level
            d = 1
            entering = True
            child = -1  # the last child's answer at row d (-1: none yet)
            proved = False
            while True:
                if entering:
                    entering = False
                    key = keys[d] ^ player_keys[ints[d, PLAYER]] ^ pass_keys[ints[d, PASSES]]
                    key ^= draw_keys[ints[d, DRAW_AT]]
                    slot = find(table, key)
                    low, high = LOSS, WIN
                    if table[slot, 1]:
                        low, high = int(table[slot, 1]) % 4, int(table[slot, 1]) // 4 % 4
                    if low >= target or high < target:
                        child = 1 if low >= target else 0
                        if d == 1:
                            proved = child == 1
                            break
                        d -= 1
                    else:
                        nodes += 1
                        if nodes > budget:
                            return BUDGET
                        key_at[d] = key
                        low_at[d] = low
                        high_at[d] = high
                        count_at[d] = moves(rows, d, moves_at, fit_count, first_seen, order)
                        next_at[d] = 0
                        child = -1
                mine = 1 if ints[d, PLAYER] == solver else 0
                if child >= 0 and child == mine:
                    result = mine
                elif next_at[d] < count_at[d]:
                    action = moves_at[d, next_at[d]]
                    next_at[d] += 1
                    end = play(rows, rules, d, action, solver, one)
                    if end >= 0:
                        child = 1 if end >= target else 0
                    else:
                        d += 1
                        entering = True
                    continue
                else:
                    result = 1 - mine
                low = low_at[d]
                high = high_at[d]
                if result:
                    low = max(low, target)
                else:
                    high = min(high, target - 1)
                slot = find(table, key_at[d])
                if not table[slot, 1]:
                    entries += 1
                    table[slot, 0] = key_at[d]
                table[slot, 1] = np.uint64(USED + low + 4 * high)
                if FULL * entries > table.shape[0]:
                    table = grown(table)
                child = result
                if d == 1:
                    proved = result == 1
                    break
                d -= 1
            if proved:
                outcomes[a] = target
                break
            outcomes[a] = LOSS
    return nodes


def _depth(state: MascaradeState) -> int:
    """Rows enough for the longest line: each level places a card or passes, a pass with cards in
    the pool draws one, and fewer than a round of passes with an empty pool come in a row."""
    players = state.game.num_players
    cards = sum(h.bit_count() for h in state.hands) + len(state.pool)
    return (cards + 1) * players + len(state.pool) + 3


def solve_compiled(
    state: MascaradeState, seat: int, actions: list[int], budget: int
) -> tuple[list[int] | None, int]:
    """The outcome of each action for ``seat`` (None past the budget), and the nodes searched."""
    depth = _depth(state)
    players = state.game.num_players
    ints = np.zeros((depth, HEADER), dtype=np.int64)
    squares = np.zeros((depth, SQUARES), dtype=np.int64)
    open_sets = np.zeros((depth, SQUARES, 2), dtype=np.uint64)
    occupied = np.zeros((depth, 2), dtype=np.uint64)
    hands = np.zeros((depth, 2 * players), dtype=np.uint64)
    counts = np.zeros((depth, players), dtype=np.int64)
    keys = np.zeros(depth, dtype=np.uint64)
    for k, (square, allowed) in enumerate(state.allowed.items()):
        squares[0, k] = square
        open_sets[0, k] = _words(allowed)
    occupied[0] = _words(sum(1 << s for s, card in enumerate(state.board) if card >= 0))
    key = 0
    for holder, hand in enumerate(state.hands):
        hands[0, 2 * holder : 2 * holder + 2] = _words(hand)
        counts[0, holder] = hand.bit_count()
        for card in range(NUM_CARDS):
            if hand >> card & 1:
                key ^= HOLD_KEYS[holder * NUM_CARDS + card]
    keys[0] = key
    ints[0, OPEN] = len(state.allowed)
    ints[0, DRAW_AT] = len(state.pool)
    ints[0, PLAYER] = state.player
    ints[0, PASSES] = state.empty_passes
    outcomes = np.zeros(len(actions), dtype=np.int64)
    rows = (ints, squares, open_sets, occupied, hands, counts, keys)
    rules = (np.array(state.pool, dtype=np.int64), _COMPATIBLE, _NEIGHBOURS, _PLACE_KEYS, _HOLD_KEYS)
    one = state.game.options["matching"] == "one"  # MC-5a
    nodes = solve_rows(
        rows, rules, _TURN_KEYS, np.array(actions, dtype=np.int64), seat, budget, outcomes, one
    )
    if nodes == BUDGET:
        return None, budget + 1
    return [int(o) for o in outcomes], nodes


@cache
def warm_up() -> None:
    """Load (or, the first time on a machine, compile) the solver now, with the argument types every
    later call has."""
    from ...engine import load_game

    state = load_game("mascarade", {"players": 2}).new_initial_state(0)
    assert isinstance(state, MascaradeState)
    solve_compiled(state, 0, state.legal_actions()[:1], budget=1)
