"""The Mascarade endgame solver written plainly in Python: the oracle of the compiled one, and the
solver the bots use where numba is not installed (the ``fast`` extra).

``endgame_core`` searches the same positions in the same order with the same memo, so both give the
same outcomes and node counts and run out of budget at the same node; the tests hold the compiled
one to this, and ``benchmarks/mascarade_endgame.py`` times the two.
"""

from __future__ import annotations

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
from .game import (
    ALL_CARDS,
    COMPATIBLE,
    HAND,
    NEIGHBOURS,
    NUM_CARDS,
    PASS,
    SQUARES,
    MascaradeState,
)


class BudgetExceededError(Exception):
    """The search met its node budget before it could prove anything."""


class _Position:
    __slots__ = ("allowed", "draw_at", "hands", "key", "occupied", "passes", "player")

    def __init__(
        self,
        *,
        hands: list[int],
        allowed: dict[int, int],
        occupied: int,
        draw_at: int,
        player: int,
        passes: int,
        key: int,
    ) -> None:
        self.hands = hands
        self.allowed = allowed
        self.occupied = occupied
        self.draw_at = draw_at  # how many cards are left in the pool (the next is pool[draw_at - 1])
        self.player = player
        self.passes = passes
        self.key = key


class EndgameSolver:
    """Proves wins and ties for ``seat`` from a full Mascarade state, within ``budget`` nodes."""

    def __init__(self, state: MascaradeState, seat: int, budget: int) -> None:
        self.seat = seat
        self.players = state.game.num_players
        self.one = state.game.options["matching"] == "one"  # MC-5a
        self.pool = list(state.pool)
        self.budget = budget
        self.nodes = 0
        self.bounds: dict[int, tuple[int, int]] = {}  # what is proved of each position, by key
        occupied = 0
        for square, card in enumerate(state.board):
            if card >= 0:
                occupied |= 1 << square
        key = 0
        for holder, hand in enumerate(state.hands):
            for card in range(NUM_CARDS):
                if hand >> card & 1:
                    key ^= HOLD_KEYS[holder * NUM_CARDS + card]
        self.root = _Position(
            hands=list(state.hands),
            allowed=dict(state.allowed),
            occupied=occupied,
            draw_at=len(state.pool),
            player=state.player,
            passes=state.empty_passes,
            key=key,
        )

    # -- rules on positions (MC-5 .. MC-8, as the engine plays them) --------------------------
    def moves(self, pos: _Position) -> list[int]:
        """Placements of the player to move, the awkward cards first (they decide races); or PASS.

        (Trying first the actions that settled other positions, a history heuristic, searched up to
        three times as many positions.)"""
        hand = pos.hands[pos.player]
        fits: dict[int, list[int]] = {}
        for square, allowed in pos.allowed.items():
            here = allowed & hand
            while here:
                low = here & -here
                here ^= low
                fits.setdefault(low.bit_length() - 1, []).append(square)
        if not fits:
            return [PASS]
        out: list[int] = []
        for card in sorted(fits, key=lambda c: len(fits[c])):
            out.extend(card * SQUARES + square for square in fits[card])
        return out

    def play(self, pos: _Position, action: int) -> _Position | int:
        """The position after ``action``, or the finished game's outcome for the solving seat."""
        n = self.players
        hands = pos.hands.copy()
        seat = pos.player
        if action == PASS:
            passes = pos.passes + 1 if pos.draw_at == 0 else 0
            if passes >= n:
                return self._fewest(hands)
            nxt = _Position(
                hands=hands,
                allowed=pos.allowed,
                occupied=pos.occupied,
                draw_at=pos.draw_at,
                player=(seat + 1) % n,
                passes=passes,
                key=pos.key,
            )
            self._start_turn(nxt)
            return nxt
        card, square = divmod(action, SQUARES)
        hands[seat] &= ~(1 << card)
        key = pos.key ^ PLACE_KEYS[action] ^ HOLD_KEYS[seat * NUM_CARDS + card]
        allowed = pos.allowed.copy()
        del allowed[square]
        occupied = pos.occupied | 1 << square
        for nb in NEIGHBOURS[square]:
            if not occupied >> nb & 1:
                if self.one:  # MC-5a: one matching neighbour is enough
                    allowed[nb] = allowed.get(nb, 0) | COMPATIBLE[card]
                else:
                    allowed[nb] = allowed.get(nb, ALL_CARDS) & COMPATIBLE[card]
        draw_at = pos.draw_at
        if not hands[seat] and not draw_at:  # MC-8 a
            return WIN if seat == self.seat else LOSS
        held = hands[seat].bit_count()
        while held < HAND and draw_at:  # MC-6
            draw_at -= 1
            hands[seat] |= 1 << self.pool[draw_at]
            key ^= HOLD_KEYS[seat * NUM_CARDS + self.pool[draw_at]]
            held += 1
        nxt = _Position(
            hands=hands,
            allowed=allowed,
            occupied=occupied,
            draw_at=draw_at,
            player=(seat + 1) % n,
            passes=0,
            key=key,
        )
        self._start_turn(nxt)
        return nxt

    def _start_turn(self, pos: _Position) -> None:
        """MC-7: nothing fits and the pool has cards: draw one at once."""
        hand = pos.hands[pos.player]
        if pos.draw_at and not any(a & hand for a in pos.allowed.values()):
            pos.draw_at -= 1
            pos.hands = pos.hands.copy()
            pos.hands[pos.player] |= 1 << self.pool[pos.draw_at]
            pos.key ^= HOLD_KEYS[pos.player * NUM_CARDS + self.pool[pos.draw_at]]

    def _fewest(self, hands: list[int]) -> int:
        """MC-8 b: the fewest cards in hand win; a shared first place goes to a lot."""
        sizes = [h.bit_count() for h in hands]
        fewest = min(sizes)
        if sizes[self.seat] != fewest:
            return LOSS
        return WIN if sizes.count(fewest) == 1 else TIE

    # -- search -------------------------------------------------------------------------------
    def reaches(self, pos: _Position | int, target: int) -> bool:
        """Can the solving seat force an outcome of at least ``target``?"""
        if isinstance(pos, int):
            return pos >= target
        key = pos.key ^ PLAYER_KEYS[pos.player] ^ PASS_KEYS[pos.passes] ^ DRAW_KEYS[pos.draw_at]
        low, high = self.bounds.get(key, (LOSS, WIN))
        if low >= target:
            return True
        if high < target:
            return False
        self.nodes += 1
        if self.nodes > self.budget:
            raise BudgetExceededError
        mine = pos.player == self.seat
        result = not mine
        for action in self.moves(pos):
            if self.reaches(self.play(pos, action), target) == mine:
                result = mine
                break
        self.bounds[key] = (max(low, target), high) if result else (low, min(high, target - 1))
        return result

    def outcome(self, action: int) -> int:
        """The best outcome the solving seat can force after playing ``action`` at the root."""
        after = self.play(self.root, action)
        if self.reaches(after, WIN):
            return WIN
        return TIE if self.reaches(after, TIE) else LOSS


def search(
    state: MascaradeState, seat: int, actions: list[int], budget: int
) -> tuple[dict[int, int] | None, int]:
    """The oracle's outcomes of ``actions`` for ``seat`` and the nodes searched (``budget + 1`` when
    it gave up), as the compiled ``endgame.search`` answers."""
    solver = EndgameSolver(state, seat, budget)
    try:
        return {action: solver.outcome(action) for action in actions}, solver.nodes
    except BudgetExceededError:
        return None, solver.nodes
