"""The bot interface, the baseline random bot, and the named bots and levels players choose from.

A bot sees what its seat may see: the game (options and facts), its seat, its observation history
and the legal actions of the current decision.  It never receives the true state of a
hidden-information game.  Levels are iteration budgets per game, so a level plays the same on any
machine; ``hard`` takes about 0.2 s and ``expert`` about 1 s per move on one core here.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from ..engine import JSON, Game
from .evaluation import mascarade_long_view


class Bot(Protocol):
    """Chooses an action for ``seat`` from what that seat has observed."""

    name: str

    def act(
        self,
        game: Game,
        seat: int,
        observations: Sequence[JSON],
        legal_actions: Sequence[int],
        rng: random.Random,
    ) -> int: ...


class RandomBot:
    """Uniformly random among the legal actions: the baseline every other bot must beat."""

    name = "random"
    reads_observations = False
    """It looks at nothing but the legal actions, so callers may skip building its observations."""

    def act(
        self,
        game: Game,
        seat: int,
        observations: Sequence[JSON],
        legal_actions: Sequence[int],
        rng: random.Random,
    ) -> int:
        if not legal_actions:
            raise ValueError("the random bot was asked to act with no legal action")
        return legal_actions[rng.randrange(len(legal_actions))]


LEVELS: dict[str, dict[str, tuple[int, int]]] = {
    # game: level -> (iterations, playout depth: 0 = random playouts to the end, else that many random
    # plies and then the game's evaluation)
    "blokus3d": {"easy": (30, 0), "medium": (120, 0), "hard": (600, 0), "expert": (3000, 0)},
    "masker": {"easy": (120, 0), "medium": (450, 0), "hard": (1500, 0), "expert": (7500, 0)},
    "mascarade": {"easy": (20, 0), "medium": (80, 0)},  # hard and expert: ENDGAME_LEVELS
    "maske": {"easy": (60, 30), "medium": (250, 30), "hard": (800, 30), "expert": (4000, 30)},
}
"""Iteration budgets per game and level (see the arena tables under docs/ratings/)."""

POLICY_LEVELS: dict[str, frozenset[str]] = {"blokus3d": frozenset({"expert"})}
"""Levels whose playouts follow the game's playout policy (``playouts.POLICIES``), not uniform random
moves.  In Blokus 3D more iterations of random playouts stopped paying (3000 against 600 scored 52.5%
of 40), while playouts that place the largest piece they can make a search stronger at any budget."""

ENDGAME_LEVELS: dict[str, dict[str, dict[str, int]]] = {
    # game: level -> EndgameBot's budgets: it plays greedy until the pool holds ``rollout_reach``
    # cards, then chooses among its ``rollout_moves`` best-evaluated actions by greedy rollouts to an
    # empty pool, each endgame solved (``rollout_samples`` determinizations, ``rollout_budget``
    # nodes), and from ``reach`` cards left solves every decision (``samples`` determinizations,
    # ``budget`` nodes each); with ``infer``, the worlds are drawn from that many times as many by
    # how well they explain the other player's last placement.
    "mascarade": {
        "hard": {
            "reach": 4,
            "samples": 6,
            "budget": 150_000,
            "rollout_reach": 10,
            "rollout_samples": 16,
            "rollout_moves": 3,
            "rollout_budget": 300_000,
            "infer": 3,
        },
        "expert": {
            "reach": 5,
            "samples": 6,
            "budget": 1_500_000,
            "rollout_reach": 12,
            "rollout_samples": 32,
            "rollout_moves": 4,
            "rollout_budget": 300_000,
            "infer": 3,
        },
    },
}
"""Levels that play greedy until the pool is nearly empty, then look ahead to the end (``mascarade_endgame``).
Mascarade is won or lost in its last placements, when the board is nearly full and whoever is left
stuck loses a turn; a search with random playouts over the long game lost to the greedy bot (250
iterations won 34 of 100).  Solving from 4 cards left in the pool alone beat greedy about 60% of the
time (61 and 60 of 100 at budgets of 150,000 and 1,000,000 nodes; 2 players, seeds 70000+); even
with the true hidden state it won only 67 of those games, so the games are mostly decided earlier.
Greedy rollouts to an empty pool, each endgame solved, from 10 cards left lift that to about 65%
(57.5% without rollouts on 200 deals, 64.5–67% with them; 65% over 300 games with the table's).
Reaching back to 20 cards scored about the same over 300 games at twice the time.  Playing the
greedy phase by flexibility counted up to 8 open squares instead of greedy's 4
(``ENDGAME_INNER_EVALUATIONS``) lifted hard to 71.5% over 400 deals.  See docs/ratings/README.md for
every variant measured."""

ENDGAME_INNER_EVALUATIONS = {"mascarade": mascarade_long_view}
"""What the endgame levels play by before their rollouts and solver take over (one ply, like greedy)."""

ROOT_MOVES = {"blokus3d": 6}
"""How many of the best-ordered root moves a search keeps where the game has move priors: in Blokus 3D
(2 players, 100 games against greedy at 400 iterations) keeping 6 won 95.5%, 4 won 91.5%, 8 won 76%
and 12 won 75.5% — the one-ply ordering is good enough that a narrow search gains the most."""

BOT_KINDS = ("random", "greedy", "easy", "medium", "hard", "expert", "openspiel")

OPENSPIEL_SIMULATIONS = {"blokus3d": 4, "masker": 160, "mascarade": 36, "maske": 30}
"""OpenSpiel MCTSBot/ISMCTSBot simulations per move: about the CPU time our ``hard`` level takes here
(about 0.2 s a move, measured with ``time.process_time`` over the non-forced moves of whole games;
OpenSpiel drives our Python games through its bindings, so each simulation costs more than ours)."""


def make_bot(kind: str, game: str | None = None) -> Bot:
    """A bot by name: ``random``, ``greedy`` or a level; ValueError names the known kinds."""
    from .search import GreedyBot, SearchBot

    if kind == "random":
        return RandomBot()
    if kind == "greedy":
        return GreedyBot()
    if kind in ("easy", "medium", "hard", "expert"):
        if game in ENDGAME_LEVELS and kind in ENDGAME_LEVELS[game]:
            from .mascarade_endgame import EndgameBot

            inner = GreedyBot(evaluate=ENDGAME_INNER_EVALUATIONS.get(game))
            return EndgameBot(inner, name=kind, **ENDGAME_LEVELS[game][kind])
        if game is None:
            return SearchBot(LEVELS["masker"][kind][0], name=kind)
        if game not in LEVELS:
            raise ValueError(f"no bot levels for game {game!r}")
        iterations, depth = LEVELS[game][kind]
        policy = None
        if kind in POLICY_LEVELS.get(game, frozenset()):
            from .playouts import POLICIES

            policy = POLICIES[game]
        return SearchBot(
            iterations, playout_depth=depth, name=kind, root_moves=ROOT_MOVES.get(game, 12), policy=policy
        )
    if kind == "openspiel":
        try:
            from .openspiel import OpenSpielBot
        except ImportError:
            raise ValueError("the openspiel bot needs OpenSpiel: pip install 'masques[openspiel]'") from None
        return OpenSpielBot(OPENSPIEL_SIMULATIONS.get(game or "masker", 20))
    raise ValueError(f"unknown bot {kind!r}; bots are: {', '.join(BOT_KINDS)}")
