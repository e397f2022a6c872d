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

from ...ai.bots import Bot
from ...ai.search import SearchBot, best_by_evaluation, best_valued
from ...engine import JSON, Game
from ...extras import available
from .bot import FITTING, FLEXIBLE, FLEXIBLE_SQUARES
from .bot import evaluate as mascarade_value
from .game import (
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

MAX_PLAYERS = 4
WIN = 2
TIE = 1
LOSS = 0
ANALYSIS_ITERATIONS = 300
"""The tree search that values Mascarade's moves before the endgame, for analysis."""
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
compiled solver keys its table the same way); a collision among a few million positions has a chance
near 2**-20."""


def search(
    state: MascaradeState, seat: int, actions: list[int], budget: int
) -> tuple[dict[int, int] | None, int]:
    """:func:`solve`'s answer and the nodes it searched (``budget + 1`` when it gave up), by the
    compiled solver (``endgame_core``), or where numba is not installed by the same search written
    plainly in Python (``endgame_plain``: the same outcomes and node counts, only slower)."""
    if not available("numba"):
        from .endgame_plain import search as plain_search

        return plain_search(state, seat, actions, budget)
    from .endgame_core import solve_compiled

    outcomes, nodes = solve_compiled(state, seat, actions, budget)
    return (None if outcomes is None else dict(zip(actions, outcomes, strict=True))), nodes


def solve(state: MascaradeState, seat: int, actions: list[int], budget: int) -> dict[int, int] | None:
    """The forced outcome (WIN, TIE, LOSS) of each action for ``seat``, or None when the search
    needs more than ``budget`` nodes."""
    return search(state, seat, actions, budget)[0]


def _value(hand: int, counts: dict[int, int]) -> float:
    """The greedy evaluation of one seat (``bot.evaluate`` without scoring), from how many
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
    return -float(held) + FITTING * fits + FLEXIBLE * (flexible / FLEXIBLE_SQUARES)


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

    def action_values(
        self,
        game: Game,
        seat: int,
        observations: Sequence[JSON],
        legal_actions: Sequence[int],
        rng: random.Random,
        *,
        include: int | None = None,
    ) -> tuple[int, dict[int, float]]:
        """For analysis: the move this bot prefers and move values as shares of a win.  Where it
        solves, each move's solved outcome averaged over the draws; where it rolls out, the rolled
        moves' outcomes (``include`` rolled too); before that, a tree search's values (the greedy
        evaluation is no chance of winning)."""
        actions = list(legal_actions)
        obs = observations[-1]
        pool = int(obs["pool_size"])
        early = game.name != "mascarade" or obs["scoring"] or pool > max(self.reach, self.rollout_reach)
        if early or (pool > self.reach and game.num_players != 2):
            return self._searcher().action_values(game, seat, observations, actions, rng, include=include)
        if pool > self.reach:
            worlds = self._worlds(game, seat, observations, rng, self.rollout_samples)
            per_world = [greedy_values(world, actions) for world in worlds]
            greedy = {a: sum(v[i] for v in per_world) / len(worlds) for i, a in enumerate(actions)}
            ranked = sorted(actions, key=lambda a: -greedy[a])[: self.rollout_moves]
            if include is not None and include in actions and include not in ranked:
                ranked.append(include)
            totals = {
                a: t / (WIN * len(worlds)) for a, t in self._rollouts(worlds, ranked, seat, rng).items()
            }
            best = max(ranked[: self.rollout_moves], key=lambda a: totals[a] + 1e-3 * greedy[a])
            return best, totals
        unseen = 100 - len(obs["placed"]) - len(obs["hand"])
        count = self.samples if (pool > 0 or game.num_players > 2) and unseen > 0 else 1
        worlds = self._worlds(game, seat, observations, rng, count)
        sums = dict.fromkeys(actions, 0)
        for world in worlds:
            outcomes = solve(world, seat, actions, self.budget)
            if outcomes is None:
                return self._searcher().action_values(game, seat, observations, actions, rng, include=include)
            for action, outcome in outcomes.items():
                sums[action] += outcome
        values = {a: sums[a] / (WIN * len(worlds)) for a in actions}
        top = max(sums.values())
        tied = [a for a in actions if sums[a] == top]
        choice = tied[0] if len(tied) == 1 else best_by_evaluation(worlds, tied, seat, mascarade_value, rng)
        return choice, values

    @staticmethod
    def _searcher() -> SearchBot:
        """Values before the endgame: a tree search with playouts to the end."""
        return SearchBot(ANALYSIS_ITERATIONS, name="analysis")

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
        totals = {a: t + 1e-3 * values[a] for a, t in self._rollouts(worlds, ranked, seat, rng).items()}
        self.rolled += 1
        return max(ranked, key=lambda a: totals[a])

    def _rollouts(
        self, worlds: list[MascaradeState], actions: list[int], seat: int, rng: random.Random
    ) -> dict[int, int]:
        """Each action's outcomes summed over the worlds, each played on by :func:`rollout_outcome`
        (an endgame too big for the budget counts as a tie)."""
        totals: dict[int, int] = {}
        for action in actions:
            total = 0
            for world in worlds:
                child = world.clone()
                child.apply(action)
                outcome = rollout_outcome(child, seat, rng, self.rollout_budget)
                total += TIE if outcome is None else outcome
            totals[action] = total
        return totals

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
