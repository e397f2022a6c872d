"""A slow, literal reading of the Mascarade rules (spec ``mascarade.md``) for the rules tests.

Nothing here uses the engine's bitsets, ``SHARED`` or ``COMPATIBLE``: features are compared by name from
``CARDS``, the board is a dict ``square -> card`` and neighbours come from row/column arithmetic.
:class:`Model` replays a game move by move from the spec (MC-3 .. MC-9) so the tests can compare every
field the engine keeps with what the rules say it should be.  Ties (MC-8, MC-9) are left open: the model
gives the set of tied seats and the tests check the engine's lot picks one of them.

The module also finds real cards for hand-built positions (``disjoint_from``, ``worked_example``), so
the tests do not hard-code card ids of the frozen card set.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from masques.games.mascarade.game import CARDS, PASS, START

SIZE = 10
HAND = 5


def features(card: int) -> tuple[str, ...]:
    c = CARDS[card]
    return (c.face, c.hair, c.eyes, c.nose, c.mouth)


def shared(a: int, b: int) -> int:
    """How many of the five features cards a and b have in common."""
    return sum(x == y for x, y in zip(features(a), features(b), strict=True))


def square(row: int, col: int) -> int:
    assert 0 <= row < SIZE and 0 <= col < SIZE
    return row * SIZE + col


def neighbours(sq: int) -> list[int]:
    """Orthogonal neighbours on the 10x10 board (MC-1), without wrapping round the edges."""
    row, col = divmod(sq, SIZE)
    out = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r, c = row + dr, col + dc
        if 0 <= r < SIZE and 0 <= c < SIZE:
            out.append(r * SIZE + c)
    return out


def placements(board: dict[int, int], hand: Iterable[int], matching: str = "every") -> list[int]:
    """MC-4/MC-5: the placement action ids for ``hand`` on ``board`` (no PASS), sorted; with
    ``matching="one"`` (MC-5a) a card needs a shared feature with one adjacent card only."""
    hand = list(hand)
    if not board:
        return sorted(card * 100 + START for card in hand)
    out = []
    for card in hand:
        for sq in range(SIZE * SIZE):
            if sq in board:
                continue
            adjacent = [board[n] for n in neighbours(sq) if n in board]
            test = any if matching == "one" else all
            if adjacent and test(shared(card, other) >= 1 for other in adjacent):
                out.append(card * 100 + sq)
    return sorted(out)


def legal_actions(board: dict[int, int], hand: Iterable[int], matching: str = "every") -> list[int]:
    """MC-5/MC-7: the placements, or PASS alone when nothing can be placed."""
    return placements(board, hand, matching) or [PASS]


def points(board: dict[int, int], card: int, sq: int) -> int:
    """MC-9: one point per shared feature with every placed orthogonal neighbour."""
    return sum(shared(card, board[n]) for n in neighbours(sq) if n in board)


def board_of(placed: Sequence[Sequence[int]]) -> dict[int, int]:
    """``square -> card`` from the engine's ``placed`` list of (card, square, seat)."""
    return {int(p[1]): int(p[0]) for p in placed}


@dataclass
class Model:
    """The game from the spec: hands are sets, the pool a list whose last card is drawn next."""

    n: int
    scoring: bool
    hands: list[set[int]]
    pool: list[int]
    board: dict[int, int] = field(default_factory=dict)
    placed: list[tuple[int, int, int]] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    draws: list[int] = field(default_factory=list)
    player: int = 0
    drew_this_turn: bool = False
    log: list[tuple[int, bool]] = field(default_factory=list)  # (action, pool empty after it)
    over: bool = False
    tied: list[int] = field(default_factory=list)  # the seats that may win (one unless a lot decides)
    matching: str = "every"  # MC-5a

    def __post_init__(self) -> None:
        self.scores = [0] * self.n
        self.draws = [0] * self.n
        self.begin_turn(0)  # MC-4: seat 0 opens

    def begin_turn(self, seat: int) -> None:
        """MC-7: nothing to place -> draw exactly one card at once, if the pool has any."""
        self.player = seat
        self.drew_this_turn = False
        if not placements(self.board, self.hands[seat], self.matching) and self.pool:
            self.hands[seat].add(self.pool.pop())
            self.draws[seat] += 1
            self.drew_this_turn = True

    def legal(self) -> list[int]:
        return [] if self.over else legal_actions(self.board, self.hands[self.player], self.matching)

    def apply(self, action: int) -> None:
        assert action in self.legal(), f"model: {action} is not legal"
        seat = self.player
        if action == PASS:
            self.log.append((action, not self.pool))
            recent = self.log[-self.n :]
            if len(recent) == self.n and all(a == PASS and empty for a, empty in recent):
                self.finish(placed_out=None)  # MC-8 b: a full round of passes, pool empty
                return
            self.begin_turn((seat + 1) % self.n)
            return
        card, sq = divmod(action, 100)
        self.scores[seat] += points(self.board, card, sq)
        self.hands[seat].remove(card)
        self.board[sq] = card
        self.placed.append((card, sq, seat))
        self.log.append((action, not self.pool))
        if not self.hands[seat] and not self.pool:
            self.finish(placed_out=seat)  # MC-8 a
            return
        while len(self.hands[seat]) < HAND and self.pool:  # MC-6
            self.hands[seat].add(self.pool.pop())
        self.begin_turn((seat + 1) % self.n)

    def finish(self, placed_out: int | None) -> None:
        self.over = True
        sizes = [len(h) for h in self.hands]
        seats = list(range(self.n))
        if self.scoring:  # MC-9: highest score, then fewest cards, then lot
            best = max(self.scores)
            seats = [s for s in seats if self.scores[s] == best]
            fewest = min(sizes[s] for s in seats)
            self.tied = [s for s in seats if sizes[s] == fewest]
        elif placed_out is not None:
            self.tied = [placed_out]
        else:
            fewest = min(sizes)
            self.tied = [s for s in seats if sizes[s] == fewest]


def disjoint_from(cards: Iterable[int], exclude: Iterable[int] = ()) -> list[int]:
    """The cards sharing no feature with any of ``cards`` (they can never be placed next to them)."""
    cards = list(cards)
    banned = set(cards) | set(exclude)
    return [c for c in range(len(CARDS)) if c not in banned and all(shared(c, o) == 0 for o in cards)]


def compatible_with(card: int, exclude: Iterable[int] = ()) -> list[int]:
    banned = {card, *exclude}
    return [c for c in range(len(CARDS)) if c not in banned and shared(c, card) >= 1]


def worked_example() -> dict[str, int]:
    """Real cards for the rulebook's scoring example (MC-9), placed as in the drawing.

    Card 5 sits at f6 (row 5, col 4) with card 1 above (e5 = START), 2 left, 3 right and 4 below;
    card 6 goes diagonally below-right of 5, touching 3 and 4.  Connectors A, B, C (diagonal to 5)
    let 1..4 be laid legally first.  Required: shared(5, 1..4) = 1, 2, 1, 2; shared(6, 3) = shared(6, 4) = 1.
    """
    n = len(CARDS)
    for c5 in range(n):
        by = {k: [c for c in range(n) if c != c5 and shared(c5, c) == k] for k in (1, 2)}
        for c1 in by[1]:
            for c3 in by[1]:
                if c3 == c1:
                    continue
                for c2 in by[2]:
                    for c4 in by[2]:
                        if c4 == c2:
                            continue
                        used = {c1, c2, c3, c4, c5}
                        sixes = [c for c in range(n) if c not in used and shared(c, c3) == 1 == shared(c, c4)]
                        for c6 in sixes:
                            taken = used | {c6}
                            a = _connector(c1, c2, taken)
                            b = _connector(c1, c3, taken | {a}) if a is not None else None
                            c = _connector(c2, c4, taken | {a, b}) if b is not None else None
                            if c is not None:
                                assert a is not None and b is not None
                                return {
                                    "1": c1,
                                    "2": c2,
                                    "3": c3,
                                    "4": c4,
                                    "5": c5,
                                    "6": c6,
                                    "A": a,
                                    "B": b,
                                    "C": c,
                                }
    raise AssertionError("no cards for the worked example")


def _connector(x: int, y: int, taken: set[int]) -> int | None:
    for c in range(len(CARDS)):
        if c not in taken and shared(c, x) >= 1 and shared(c, y) >= 1:
            return c
    return None
