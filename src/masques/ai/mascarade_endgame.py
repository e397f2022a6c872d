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

Earlier in the game the bots look ahead with rollouts: greedy play at every seat until the pool is
empty (:func:`greedy_move`, the greedy bot's choice computed square by square), then that endgame
solved (:func:`rollout_outcome`).
"""

from __future__ import annotations

import math
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
    cards_of,
    mask_of,
)
from .bots import Bot
from .evaluation import FLEXIBLE_SQUARES, MASCARADE_FITTING, MASCARADE_FLEXIBLE
from .evaluation import mascarade as mascarade_value
from .search import best_by_evaluation, best_valued

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


def _value(hand: int, counts: dict[int, int]) -> float:
    """The greedy evaluation of one seat (``evaluation.mascarade`` without scoring), from how many
    open squares each card of ``hand`` fits: the same operations in the same order, so the same
    float."""
    held = hand.bit_count()
    fits = 0
    flexible = 0
    while hand:
        low = hand & -hand
        hand ^= low
        k = counts.get(low, 0)
        if k:
            fits += 1
            flexible += min(k, FLEXIBLE_SQUARES)
    return -float(held) + MASCARADE_FITTING * fits + MASCARADE_FLEXIBLE * (flexible / FLEXIBLE_SQUARES)


def _fit_counts(hand: int, allowed: dict[int, int]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for cards in allowed.values():
        here = cards & hand
        while here:
            low = here & -here
            here ^= low
            counts[low] = counts.get(low, 0) + 1
    return counts


def greedy_move(world: MascaradeState, rng: random.Random) -> int:
    """The greedy bot's choice on a full state, as ``best_by_evaluation([world], ...)`` with the
    Mascarade evaluation makes it (same action, same use of ``rng``), without copying the state for
    every action: only the chosen square and its neighbours change what each card fits.  For the
    game without scoring, the only one the rollouts play."""
    actions = world.legal_actions()
    if len(actions) == 1:
        return actions[0]
    return best_valued(actions, greedy_values(world, actions), rng)


def greedy_values(world: MascaradeState, actions: list[int]) -> list[float]:
    """The greedy evaluation of each placement in ``actions`` for the player to move (the mover's
    value minus the best other's, after the placement and its draws)."""
    assert not world.game.options["scoring"]
    one = world.game.options["matching"] == "one"  # MC-5a
    mover = world.player
    players = world.game.num_players
    hands = world.hands
    allowed = world.allowed
    pool = world.pool
    board = world.board
    nxt = (mover + 1) % players
    upcoming = 0  # the cards a placement can bring into a hand: the mover's refill, a forced draw
    for card in pool[-HAND - 1 :]:
        upcoming |= 1 << card
    relevant = [hand | upcoming for hand in hands]
    next_fits = {sq for sq, cards in allowed.items() if cards & hands[nxt]}
    counts = [_fit_counts(cards, allowed) for cards in relevant]
    out = []
    for action in actions:
        card, square = divmod(action, SQUARES)
        changed = {square: 0}
        for nb in NEIGHBOURS[square]:
            if board[nb] < 0:
                if one:
                    changed[nb] = allowed.get(nb, 0) | COMPATIBLE[card]
                else:
                    changed[nb] = allowed.get(nb, ALL_CARDS) & COMPATIBLE[card]
        new_hands = hands.copy()
        new_hands[mover] &= ~(1 << card)
        held = new_hands[mover].bit_count()
        left = len(pool) - (min(HAND - held, len(pool)) if held < HAND else 0)  # MC-6
        for index in range(len(pool) - 1, left - 1, -1):
            new_hands[mover] |= 1 << pool[index]
        if left and not (
            len(changed.keys() & next_fits) < len(next_fits)
            or any(cards & hands[nxt] for cards in changed.values())
        ):
            new_hands[nxt] |= 1 << pool[left - 1]  # MC-7: the next seat draws at once
        values = []
        for seat in range(players):
            seat_counts = counts[seat].copy()
            for sq, cards in changed.items():
                gone = allowed.get(sq, 0) & relevant[seat]
                while gone:
                    low = gone & -gone
                    gone ^= low
                    seat_counts[low] -= 1
                come = cards & relevant[seat]
                while come:
                    low = come & -come
                    come ^= low
                    seat_counts[low] = seat_counts.get(low, 0) + 1
            values.append(_value(new_hands[seat], seat_counts))
        others = [v for s, v in enumerate(values) if s != mover]
        out.append(values[mover] - max(others))
    return out


REPLY_SHARPNESS = 8.0
"""How sharply :func:`last_move_likelihoods` expects the other player to have chosen by the greedy
evaluation: a placement worth 0.1 card less than the best is taken e**-0.8 times as often."""


def last_move_likelihoods(
    game: Game, seat: int, observations: Sequence[JSON], worlds: Sequence[MascaradeState]
) -> list[float]:
    """How well each world explains the other player's last placement (2 players), if that player
    chooses roughly as the greedy evaluation does: a soft-max of the evaluation over the placements
    it had, averaged over which of its cards was the one it drew afterwards.

    A player who keeps its flexible cards and lays its awkward ones leaves a trace: a world where it
    held a card that was a clearly better move than the one it made is less likely.  Worlds that the
    last move cannot tell apart (no placement, a pass, a first move) all weigh 1."""
    if game.num_players != 2 or len(observations) < 2:
        return [1.0] * len(worlds)
    before, now = observations[-2], observations[-1]
    other = 1 - seat
    moves = now["moves"]
    if before.get("to_move") != other or not moves or int(moves[-1]) == PASS or not before["placed"]:
        return [1.0] * len(worlds)
    action = int(moves[-1])
    card = action // SQUARES
    held = int(before["hand_sizes"][other])
    drew = min(max(0, HAND - (held - 1)), int(before["pool_size"]))
    if drew > 1:
        return [1.0] * len(worlds)
    mine_before = mask_of(before["hand"])
    forced = [c for c in now["hand"] if not mine_before >> c & 1]  # my draw at the start of this turn
    template = MascaradeState.__new__(MascaradeState)
    template.restore(game, before, [0, 0], [], seed=0)  # type: ignore[arg-type]
    out = []
    for world in worlds:
        hand_now = world.hands[other]
        choices = cards_of(hand_now) if drew else [-1]
        total = 0.0
        for drawn in choices:
            then = template.clone()
            then.hands = [0, 0]
            then.hands[seat] = mine_before
            then.hands[other] = (hand_now & ~(1 << drawn) if drawn >= 0 else hand_now) | 1 << card
            then.pool = world.pool + forced + ([drawn] if drawn >= 0 else [])
            actions = then.legal_actions()
            if action not in actions:
                continue
            values = greedy_values(then, actions)
            top = max(values)
            weights = [math.exp(REPLY_SHARPNESS * (v - top)) for v in values]
            total += weights[actions.index(action)] / sum(weights)
        out.append(total / len(choices))
    return out


def rollout_outcome(world: MascaradeState, seat: int, rng: random.Random, budget: int) -> int | None:
    """Play ``world`` on with greedy moves for every seat until the pool is empty, then solve: the
    outcome ``seat`` can force from there (None when the solver needs more than ``budget`` nodes).

    The greedy moves here are one-ply on the world itself (every hand in sight): a rollout asks what
    the board will leave each hand once the drawing stops, not how a seat would guess."""
    world = world.clone()
    while not world.is_terminal() and world.pool:
        world.apply(greedy_move(world, rng))
    if world.is_terminal():
        if world.tie_break is not None and seat in world.tie_break[:-1]:
            return TIE
        return WIN if world.winners() == [seat] else LOSS
    outcomes = solve(world, seat, world.legal_actions(), budget)
    if outcomes is None:
        return None
    return max(outcomes.values()) if world.current_player == seat else min(outcomes.values())


class EndgameBot:
    """Plays like ``inner`` until at most ``rollout_reach`` cards are left in the pool, then looks
    ahead with rollouts, and from ``reach`` cards left solves.

    * Rollouts (``reach`` < pool <= ``rollout_reach``, 2 players): in each of ``rollout_samples``
      determinizations, the ``rollout_moves`` actions the game's evaluation likes best are each played
      on with greedy moves until the pool is empty, and that endgame is solved (:func:`rollout_outcome`);
      the action with the best outcomes in total is played.  Who is left stuck once the drawing stops
      decides the game, and the one-ply evaluation cannot see that far.
    * Solving (pool <= ``reach``): every decision is searched to the end in ``samples``
      determinizations (perfect information sampling: with 2 players and an empty pool one draw is
      the truth), and the action that forces the best outcome in the most of them is played; among
      equals, the one the game's evaluation likes best, averaged over the same draws.

    With ``infer``, every determinization is drawn from ``infer`` times as many, in proportion to
    how well each explains the other player's last placement (:func:`last_move_likelihoods`).  A
    draw too big for ``budget`` nodes, or the scoring variant (points decide there, MC-9), leaves the
    decision to ``inner``; a rollout whose endgame is too big counts as a tie.  Rollouts are for 2
    players: with more, the hands left when the pool runs dry are too big to solve in a rollout's
    budget, and ``inner`` plays until the solver takes over.
    """

    def __init__(
        self,
        inner: Bot,
        *,
        reach: int,
        samples: int,
        budget: int,
        name: str | None = None,
        rollout_reach: int = 0,
        rollout_samples: int = 16,
        rollout_moves: int = 3,
        rollout_budget: int = 100_000,
        infer: int = 0,
    ) -> None:
        self.inner = inner
        self.reach = reach
        self.samples = samples
        self.budget = budget
        self.rollout_reach = rollout_reach
        self.rollout_samples = rollout_samples
        self.rollout_moves = rollout_moves
        self.rollout_budget = rollout_budget
        self.infer = infer
        self.name = name or inner.name
        self.solved = 0
        """How many decisions the solver made."""
        self.rolled = 0
        """How many decisions the rollouts made (the others were ``inner``'s)."""

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
        pool = int(obs["pool_size"])
        if game.name != "mascarade" or obs["scoring"] or pool > max(self.reach, self.rollout_reach):
            return self.inner.act(game, seat, observations, legal_actions, rng)
        if pool > self.reach:
            if game.num_players != 2:
                return self.inner.act(game, seat, observations, legal_actions, rng)
            return self._roll(game, seat, observations, list(legal_actions), rng)
        unseen = 100 - len(obs["placed"]) - len(obs["hand"])
        hidden_order = pool > 0 or game.num_players > 2
        count = self.samples if hidden_order and unseen > 0 else 1
        actions = list(legal_actions)
        worlds = self._worlds(game, seat, observations, rng, count)
        totals = dict.fromkeys(actions, 0)
        for world in worlds:
            outcomes = solve(world, seat, actions, self.budget)
            if outcomes is None:
                return self.inner.act(game, seat, observations, legal_actions, rng)
            for action, outcome in outcomes.items():
                totals[action] += outcome
        self.solved += 1
        top = max(totals.values())
        best = [a for a in actions if totals[a] == top]
        if len(best) == 1:
            return best[0]
        return best_by_evaluation(worlds, best, seat, mascarade_value, rng)

    def _roll(
        self, game: Game, seat: int, observations: Sequence[JSON], actions: list[int], rng: random.Random
    ) -> int:
        worlds = self._worlds(game, seat, observations, rng, self.rollout_samples)
        per_world = [greedy_values(world, actions) for world in worlds]  # no copy per action
        values: dict[int, float] = {}
        for index, action in enumerate(actions):
            total = 0.0
            for world_values in per_world:
                total += world_values[index]
            values[action] = total / len(worlds)
        ranked = sorted(actions, key=lambda a: -values[a])[: self.rollout_moves]
        totals: dict[int, float] = {}
        for action in ranked:
            total = 0
            for world in worlds:
                child = world.clone()
                child.apply(action)
                outcome = rollout_outcome(child, seat, rng, self.rollout_budget)
                total += TIE if outcome is None else outcome
            totals[action] = total + 1e-3 * values[action]
        self.rolled += 1
        return max(ranked, key=lambda a: totals[a])

    def _worlds(
        self, game: Game, seat: int, observations: Sequence[JSON], rng: random.Random, count: int
    ) -> list[MascaradeState]:
        """``count`` determinizations; with ``infer``, drawn from ``infer`` times as many by how well
        they explain the other player's last placement (:func:`last_move_likelihoods`)."""
        worlds = []
        for _ in range(count * max(1, self.infer) if count > 1 else 1):
            world = game.sample_state(seat, observations, rng)
            assert isinstance(world, MascaradeState)
            worlds.append(world)
        if len(worlds) > count:
            weights = last_move_likelihoods(game, seat, observations, worlds)
            if sum(weights) > 0:
                return rng.choices(worlds, weights, k=count)
        return worlds[:count]
