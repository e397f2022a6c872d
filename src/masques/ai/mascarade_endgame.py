"""Exact Mascarade endgames: who can force a win once little is left to draw.

In Mascarade the board has as many squares as there are cards, so a game that runs its course
fills the board: when the pool runs dry, only a handful of empty squares are left, each narrowed by
its neighbours, and the hands are all that remain to play (with 2 players, a seat then knows the
other hand exactly: it is every card not yet seen).  That endgame decides the game — who places
their last card first (MC-8 a), who is left stuck (MC-7) — and it is small enough to solve exactly.

:func:`solve` searches a full state (a determinization: the pool's order is fixed) to the end and
says, for one seat, whether that seat can force an outright win, and failing that a tie, against
any play by the others (the others are taken to play against it together, which is exact with 2
players).  A node budget bounds the work; a search that would exceed it gives up.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

from ..engine import JSON, Game
from ..games.mascarade.game import (
    ALL_CARDS,
    COMPATIBLE,
    HAND,
    NEIGHBOURS,
    NUM_CARDS,
    PASS,
    SQUARES,
    MascaradeState,
)
from .bots import Bot
from .evaluation import mascarade as mascarade_value
from .search import best_by_evaluation

MAX_PLAYERS = 4
WIN = 2
TIE = 1
LOSS = 0
"""Outcomes for the solving seat: a tie (MC-8 b, fewest cards shared) is worth the lot's share."""

_RANDOM = random.Random("mascarade-endgame")
PLACE_KEYS = [_RANDOM.getrandbits(64) for _ in range(NUM_CARDS * SQUARES)]
HOLD_KEYS = [_RANDOM.getrandbits(64) for _ in range(MAX_PLAYERS * NUM_CARDS)]
PLAYER_KEYS = [_RANDOM.getrandbits(64) for _ in range(MAX_PLAYERS)]
PASS_KEYS = [_RANDOM.getrandbits(64) for _ in range(MAX_PLAYERS)]
DRAW_KEYS = [_RANDOM.getrandbits(64) for _ in range(NUM_CARDS + 1)]
"""Zobrist keys: a position's key is the XOR of one per placement since the root (card, square), one
per card in a hand (seat, card), and one each for the player to move, the passes and the pool's
size.  One 64-bit integer keys the memo (a tuple of hands costs more to build and hash, and the
compiled twin keys its table the same way); a collision among a few million positions has a chance
near 2**-20."""


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


@cache
def compiled_available() -> bool:
    """Whether the compiled solver runs here (numba installed); the first call loads it."""
    try:
        from .mascarade_endgame_core import warm_up
    except ImportError:  # pragma: no cover - numba is a dependency
        return False
    warm_up()
    return True


def search(
    state: MascaradeState, seat: int, actions: list[int], budget: int, *, compiled: bool | None = None
) -> tuple[dict[int, int] | None, int]:
    """:func:`solve`'s answer and the nodes it searched (``budget + 1`` when it gave up), with the
    compiled solver (the default when numba is installed) or the Python one: both search the same
    nodes in the same order."""
    if compiled is None:
        compiled = compiled_available()
    if compiled:
        from .mascarade_endgame_core import solve_compiled

        outcomes, nodes = solve_compiled(state, seat, actions, budget)
        return (None if outcomes is None else dict(zip(actions, outcomes, strict=True))), nodes
    solver = EndgameSolver(state, seat, budget)
    try:
        return {action: solver.outcome(action) for action in actions}, solver.nodes
    except BudgetExceededError:
        return None, solver.nodes


def solve(state: MascaradeState, seat: int, actions: list[int], budget: int) -> dict[int, int] | None:
    """The forced outcome (WIN, TIE, LOSS) of each action for ``seat``, or None when the search
    needs more than ``budget`` nodes."""
    return search(state, seat, actions, budget)[0]


class EndgameBot:
    """Plays like ``inner`` until at most ``reach`` cards are left in the pool, then solves.

    From there on, every decision is searched to the end in ``samples`` determinizations (perfect
    information sampling: with 2 players and an empty pool one draw is the truth), and the action
    that forces the best outcome in the most of them is played; among equals, the one the game's
    evaluation likes best, averaged over the same draws.  A draw too big for ``budget`` nodes, or
    the scoring variant (points decide there, MC-9), leaves the decision to ``inner``.
    """

    def __init__(self, inner: Bot, *, reach: int, samples: int, budget: int, name: str | None = None) -> None:
        self.inner = inner
        self.reach = reach
        self.samples = samples
        self.budget = budget
        self.name = name or inner.name
        self.solved = 0
        """How many decisions the solver made (the others were ``inner``'s)."""

    def act(
        self,
        game: Game,
        seat: int,
        observations: Sequence[JSON],
        legal_actions: Sequence[int],
        rng: random.Random,
    ) -> int:
        if len(legal_actions) == 1:
            return legal_actions[0]
        obs = observations[-1]
        if game.name != "mascarade" or obs["scoring"] or int(obs["pool_size"]) > self.reach:
            return self.inner.act(game, seat, observations, legal_actions, rng)
        unseen = 100 - len(obs["placed"]) - len(obs["hand"])
        hidden_order = int(obs["pool_size"]) > 0 or game.num_players > 2
        count = self.samples if hidden_order and unseen > 0 else 1
        actions = list(legal_actions)
        worlds = []
        totals = dict.fromkeys(actions, 0)
        for _ in range(count):
            world = game.sample_state(seat, observations, rng)
            assert isinstance(world, MascaradeState)
            outcomes = solve(world, seat, actions, self.budget)
            if outcomes is None:
                return self.inner.act(game, seat, observations, legal_actions, rng)
            for action, outcome in outcomes.items():
                totals[action] += outcome
            worlds.append(world)
        self.solved += 1
        top = max(totals.values())
        best = [a for a in actions if totals[a] == top]
        if len(best) == 1:
            return best[0]
        return best_by_evaluation(worlds, best, seat, mascarade_value, rng)
