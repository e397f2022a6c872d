"""Mascarade's encoder: the layout (each placed card as its five features), the viewer's hand, and
the public counts (hand sizes, pool, scores, forced draws), seen by one seat."""

from __future__ import annotations

from typing import cast

import numpy as np

from ...engine import JSON
from ...rl.encoding import Array, Cells, Encoder, Layout, Mask, Tracker, rank_of, relative_seats
from .game import (
    CARDS,
    FEATURES,
    NUM_CARDS,
    PASS,
    SIZE,
    SQUARES,
    MascaradeGame,
    MascaradeState,
)

VALUES: tuple[tuple[str, ...], ...] = tuple(
    tuple(sorted({getattr(card, feature) for card in CARDS})) for feature in FEATURES
)
"""Each feature's values, in a fixed order."""
SQUARE_WIDTH = 1 + sum(len(v) for v in VALUES)  # occupied, then one-hot per feature
MAX_POINTS = 2 * SIZE * (SIZE - 1) * len(FEATURES)
"""MC-9: points come from pairs of neighbouring cards, at most five per pair, each pair counted once."""


def card_row(card: int) -> list[float]:
    row = [1.0] + [0.0] * (SQUARE_WIDTH - 1)
    offset = 1
    for feature, values in zip(FEATURES, VALUES, strict=True):
        row[offset + values.index(getattr(CARDS[card], feature))] = 1.0
        offset += len(values)
    return row


CARD_ROWS = np.array([card_row(c) for c in range(NUM_CARDS)] + [[0.0] * SQUARE_WIDTH], dtype=np.float32)
"""Row ``c``: card c as a square's encoding; the last row is an empty square."""
EMPTY = NUM_CARDS
CARD_ONES = [np.flatnonzero(row).tolist() for row in CARD_ROWS[:NUM_CARDS]]
"""Where card c's row has its six ones (occupied, then one value per feature)."""


class MascaradeEncoder(Encoder[MascaradeGame]):
    """Blocks: board (square x [occupied, features one-hot]), hand (card), hand_sizes (seat, / 100),
    pool (/ 100), scores (seat, / most possible), draws (seat, / 100), to_move (seat), flags (drew
    this turn, scoring variant), empty_passes (/ players)."""

    def __init__(self, game: MascaradeGame) -> None:
        super().__init__(game)
        n = game.num_players
        layout = Layout()
        self.board = layout.add("board", SIZE * SIZE * SQUARE_WIDTH)
        self.hand = layout.add("hand", NUM_CARDS)
        self.hand_sizes = layout.add("hand_sizes", n)
        self.pool = layout.add("pool", 1)
        self.scores = layout.add("scores", n)
        self.draws = layout.add("draws", n)
        self.to_move = layout.add("to_move", n)
        self.flags = layout.add("flags", 2)
        self.empty_passes = layout.add("empty_passes", 1)
        self.layout = layout
        self.ranks = [rank_of(seat, n) for seat in range(n)]
        self.seats = [relative_seats(seat, n) for seat in range(n)]

    def tracker(self) -> MascaradeTracker:
        return MascaradeTracker(self)

    def mask(self, state: MascaradeState) -> Mask:  # type: ignore[override]
        """Straight from the hand and the cards each open square allows, written byte by byte into
        the mask's memory (no sorted list, no index array)."""
        marks = bytearray(self.game.num_distinct_actions)
        if not state.over:
            hand = state.hands[state.player]
            cards = []  # (bit, first action id) of each card in hand
            rest = hand
            while rest:
                low = rest & -rest
                cards.append((low, (low.bit_length() - 1) * SQUARES))
                rest ^= low
            found = False
            for square, allowed in state.allowed.items():
                fits = allowed & hand
                if fits:
                    found = True
                    for bit, first in cards:
                        if fits & bit:
                            marks[first + square] = 1
            if not found:
                marks[PASS] = 1
        return np.frombuffer(marks, dtype=np.int8)  # writable: the array holds the bytearray

    def encode(self, obs: JSON) -> Array:
        n = self.game.num_players
        rank = self.ranks[obs["seat"]]
        hand = self.hand
        hot = [hand + c for c in obs["hand"]]
        at: list[int] = []
        values: list[float] = []
        for s in range(n):
            r = rank[s]
            at += (self.hand_sizes + r, self.scores + r, self.draws + r)
            values += (
                obs["hand_sizes"][s] / NUM_CARDS,
                obs["scores"][s] / MAX_POINTS,
                obs["draws"][s] / NUM_CARDS,
            )
        at += (self.pool, self.empty_passes)
        values += (obs["pool_size"] / NUM_CARDS, obs["empty_passes"] / n)
        if obs["to_move"] is not None:
            hot.append(self.to_move + rank[obs["to_move"]])
        if obs["drew_this_turn"]:
            hot.append(self.flags)
        if obs["scoring"]:
            hot.append(self.flags + 1)
        out = self._array(hot, at, values)
        cards = [EMPTY] * (SIZE * SIZE)
        for p in obs["placed"]:
            cards[p["square"]] = p["card"]
        out[: self.hand] = CARD_ROWS[cards].ravel()
        return out

    def render(self, obs: JSON) -> str:
        grid = [["  ." for _ in range(SIZE)] for _ in range(SIZE)]
        for p in obs["placed"]:
            grid[p["square"] // SIZE][p["square"] % SIZE] = f"{p['card']:3d}"
        lines = [f"{r + 1:2d} " + "".join(row) for r, row in enumerate(grid)]
        lines.append("   " + "".join(f"  {f}" for f in "abcdefghij"))
        sizes = ", ".join(f"seat {s}: {k}" for s, k in enumerate(obs["hand_sizes"]))
        lines.append(f"cards in hand {sizes}; pool {obs['pool_size']}; scores {obs['scores']}")
        if obs["terminal"]:
            lines.append(f"game over; winners {obs['winners']}")
        else:
            lines.append(f"seat {obs['to_move']} to move")
        return "\n".join(lines)


class MascaradeTracker(Tracker[MascaradeState]):
    """Mascarade's fast path: placed cards are added to the board as they come.  The few per-seat
    counts are written into each view in the viewer's seat order, with the viewer's own hand, MC-3's
    one private fact (cheaper than permuting the whole vector)."""

    def __init__(self, encoder: MascaradeEncoder) -> None:
        super().__init__(encoder.size)
        self.enc = encoder
        self.placed = 0
        self.turn = (0, 0, False)

    def rebuild(self, state: MascaradeState) -> None:
        self.placed = 0
        self.turn = (-1, -1, False)
        self.cells[self.enc.flags + 1] = float(self.enc.game.options["scoring"])
        self.advance(state, -1)

    def advance(self, state: MascaradeState, action: int) -> bool:
        cells, placed = self.cells, state.placed
        while self.placed < len(placed):
            card, square, _ = placed[self.placed]
            start = square * SQUARE_WIDTH
            for k in CARD_ONES[card]:
                cells[start + k] = 1.0
            self.placed += 1
        turn = (len(state.pool), state.empty_passes, state.drew_this_turn)
        if turn != self.turn:
            enc = self.enc
            cells[enc.pool] = turn[0] / NUM_CARDS
            cells[enc.empty_passes] = turn[1] / enc.game.num_players
            cells[enc.flags] = float(turn[2])
            self.turn = turn
        return True

    def view(self, state: MascaradeState, seat: int) -> Array:
        enc, hands, scores, draws = self.enc, state.hands, state.scores_, state.draws
        out = self.base.copy()
        cells = cast(Cells, out.data)
        for r, s in enumerate(enc.seats[seat]):
            cells[enc.hand_sizes + r] = hands[s].bit_count() / NUM_CARDS  # sizes are public, not hands
            cells[enc.scores + r] = scores[s] / MAX_POINTS
            cells[enc.draws + r] = draws[s] / NUM_CARDS
        if not state.over:
            cells[enc.to_move + enc.ranks[seat][state.player]] = 1.0
        hand, fits = enc.hand, hands[seat]  # the seat's own hand (MC-3)
        while fits:
            low = fits & -fits
            cells[hand + low.bit_length() - 1] = 1.0
            fits ^= low
        return out
