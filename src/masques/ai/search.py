"""Greedy and tree-search bots that act from their seat's observations only.

* :class:`GreedyBot` — one ply: for each legal action, apply it to a determinization and keep the
  action whose result the game's evaluation likes best.
* :class:`SearchBot` — single-observer information-set MCTS (SO-ISMCTS): every iteration draws a
  full state from the bot's beliefs (the game's sampler, weighted by what the others' public choices
  suggest, see ``parts.BotParts.sample``), walks a tree of the
  seat's information sets with UCB over the actions legal in that draw (availability counts), runs
  a playout, and backs up each seat's result.  For a perfect-information game (Blokus 3D) the draw is
  always the same state, so this is plain UCT.

Both take a seeded ``random.Random`` and a fixed iteration budget, so a bot's move depends only on
its inputs: the same observations and seed give the same action on any machine.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..engine import JSON, Game, State
from .bots import check_decision
from .parts import bot_parts, sample_world

_determinize = sample_world


class GreedyBot:
    """One-ply lookahead with the game's evaluation (ties broken by the seeded RNG).

    With hidden information the value of an action is averaged over ``samples`` determinizations
    drawn from the bot's beliefs (one is enough when nothing is hidden).
    """

    name = "greedy"

    def __init__(self, samples: int = 12, evaluate: Callable[[State, int], float] | None = None) -> None:
        self.samples = samples
        self.evaluate = evaluate
        """The evaluation to play by; by default the game's (``parts.BotParts.evaluate``)."""

    def act(
        self,
        game: Game,
        seat: int,
        observations: Sequence[JSON],
        legal_actions: Sequence[int],
        rng: random.Random,
    ) -> int:
        check_decision(game, seat, observations, legal_actions)
        if len(legal_actions) == 1:
            return legal_actions[0]
        count = self.samples if game.hidden_information else 1
        worlds = [_determinize(game, seat, observations, rng) for _ in range(count)]
        evaluate = self.evaluate or bot_parts(game.name).evaluate
        return best_by_evaluation(worlds, legal_actions, seat, evaluate, rng)


def best_by_evaluation(
    worlds: Sequence[State],
    actions: Sequence[int],
    seat: int,
    evaluate: Callable[[State, int], float],
    rng: random.Random,
) -> int:
    """The action whose results ``evaluate`` likes best for ``seat``, averaged over ``worlds``; ties
    (within 1e-9) broken by ``rng``."""
    values = []
    for action in actions:
        total = 0.0
        for world in worlds:
            child = world.clone()
            child.apply(action)
            total += evaluate(child, seat)
        values.append(total / len(worlds))
    return best_valued(actions, values, rng)


def best_valued(actions: Sequence[int], values: Sequence[float], rng: random.Random) -> int:
    """The action of highest value; ties (within 1e-9 of the best so far) broken by ``rng``."""
    best: list[int] = []
    best_value = -math.inf
    for action, value in zip(actions, values, strict=True):
        if value > best_value + 1e-9:
            best, best_value = [action], value
        elif abs(value - best_value) <= 1e-9:
            best.append(action)
    return best[rng.randrange(len(best))]


@dataclass
class _Node:
    visits: int = 0
    availability: int = 0
    total: float = 0.0  # sum of the results of the seat that chose this node's action
    children: dict[int, _Node] = field(default_factory=dict)


class SearchBot:
    """SO-ISMCTS (UCT for perfect information) with a fixed iteration budget.

    ``playout_depth`` cuts playouts short and scores the position with the game's evaluation (the
    best-evaluated seat wins the playout); 0 plays to the end.  ``policy`` chooses the playout moves
    (``parts.BotParts.policy``); by default they are uniformly random.
    """

    def __init__(
        self,
        iterations: int,
        *,
        exploration: float = 0.7,
        playout_depth: int = 0,
        name: str = "mcts",
        root_moves: int = 12,
        policy: Callable[[State, random.Random], int] | None = None,
    ) -> None:
        self.iterations = iterations
        self.policy = policy
        self.root_moves = root_moves
        self.exploration = exploration
        self.playout_depth = playout_depth
        self.name = name

    def act(
        self,
        game: Game,
        seat: int,
        observations: Sequence[JSON],
        legal_actions: Sequence[int],
        rng: random.Random,
    ) -> int:
        check_decision(game, seat, observations, legal_actions)
        if len(legal_actions) == 1:
            return legal_actions[0]
        root, allowed = self._search(game, seat, observations, legal_actions, rng)
        ranked = [(child.visits, a) for a, child in root.children.items() if a in allowed]
        if not ranked:
            return legal_actions[rng.randrange(len(legal_actions))]
        most = max(v for v, _ in ranked)
        choices = sorted(a for v, a in ranked if v == most)
        return choices[rng.randrange(len(choices))]

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
        """The move this bot would choose and the searched moves' values for ``seat``: the mean
        result of the playouts through each (a share of a win, 0..1).  ``include`` is searched even
        when move ordering would leave it out (the move a player made, for analysis)."""
        root, allowed = self._search(game, seat, observations, legal_actions, rng, include=include)
        values = {
            a: child.total / child.visits
            for a, child in root.children.items()
            if a in allowed and child.visits > 0
        }
        if not values:
            raise ValueError("the search visited no move")
        most = max(root.children[a].visits for a in values)
        choice = min(a for a in values if root.children[a].visits == most)
        return choice, values

    def _search(
        self,
        game: Game,
        seat: int,
        observations: Sequence[JSON],
        legal_actions: Sequence[int],
        rng: random.Random,
        *,
        include: int | None = None,
    ) -> tuple[_Node, set[int]]:
        """Run the iterations; the root and the moves it was allowed to search."""
        root = _Node()
        perfect = not game.hidden_information
        base = _determinize(game, seat, observations, rng) if perfect else None
        allowed = set(legal_actions)
        prior = bot_parts(game.name).priors
        if prior is not None and base is not None and len(legal_actions) > self.root_moves:
            # Too many moves to try them all: search the best-ordered ones only.
            scores = prior(base, list(legal_actions))
            ranked_moves = sorted(zip(scores, legal_actions, strict=True), key=lambda t: (-t[0], t[1]))
            allowed = {a for _, a in ranked_moves[: self.root_moves]}
            if include is not None and include in legal_actions:
                allowed.add(include)
            for a in legal_actions:
                if a not in allowed:
                    root.children[a] = _Node(visits=10**9, total=-(10**9))  # never selected
        for _ in range(self.iterations):
            state = base.clone() if base is not None else _determinize(game, seat, observations, rng)
            self._iterate(game, root, state, rng)
        return root, allowed

    def _iterate(self, game: Game, root: _Node, state: State, rng: random.Random) -> None:
        path: list[tuple[_Node, int]] = []  # (node, seat that chose it)
        node = root
        while not state.is_terminal():
            legal = state.legal_actions()
            mover = state.current_player
            untried = [a for a in legal if a not in node.children]
            if untried:
                action = untried[rng.randrange(len(untried))]
                child = node.children[action] = _Node()
                for a in legal:
                    if a in node.children:
                        node.children[a].availability += 1
                state.apply(action)
                path.append((child, mover))
                node = child
                break
            log_total = 0.0
            best_value = -math.inf
            best_action = legal[0]
            for a in legal:
                c = node.children[a]
                c.availability += 1
                log_total = math.log(c.availability)
                value = c.total / c.visits + self.exploration * math.sqrt(log_total / c.visits)
                if value > best_value:
                    best_value, best_action = value, a
            node = node.children[best_action]
            state.apply(best_action)
            path.append((node, mover))
        result = self._playout(game, state, rng)
        for visited, mover in path:
            visited.visits += 1
            visited.total += result[mover]
        root.visits += 1

    def _playout(self, game: Game, state: State, rng: random.Random) -> list[float]:
        depth = 0
        policy = self.policy
        while not state.is_terminal():
            if self.playout_depth and depth >= self.playout_depth:
                return self._judge(game, state)
            state.apply(state.random_legal_action(rng) if policy is None else policy(state, rng))
            depth += 1
        return state.returns()

    @staticmethod
    def _judge(game: Game, state: State) -> list[float]:
        """Score a cut-off playout: the evaluation turned into shares of a win (a softmax)."""
        evaluate = bot_parts(game.name).evaluate
        values = [evaluate(state, s) for s in range(game.num_players)]
        top = max(values)
        weights = [math.exp((v - top) / 2.0) for v in values]
        total = sum(weights)
        return [w / total for w in weights]
