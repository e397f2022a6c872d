"""The bot interface, the baseline random bot, and the named bots and levels players choose from.

A bot sees what its seat may see: the game (options and facts), its seat, its observation history
and the legal actions of the current decision.  It never receives the true state of a
hidden-information game.  Levels are iteration budgets set by each game's bot part (``parts``), so
a level plays the same on any machine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from ..engine import JSON, Game
from .parts import DEFAULT_LEVELS, bot_parts


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


def check_decision(game: Game, seat: int, observations: Sequence[JSON], legal_actions: Sequence[int]) -> None:
    """Refuse, with words, a decision a bot cannot make: a seat the game has not, no legal action
    (the game is over, or it is not this seat's turn), or another seat's observations (a search
    would quietly play from the wrong point of view)."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.num_players:
        raise ValueError(f"seat must be 0..{game.num_players - 1} (got {seat!r})")
    if not legal_actions:
        raise ValueError(f"seat {seat} has no legal action: the game is over or it is not this seat's turn")
    if observations:
        last = observations[-1]
        owner = last.get("seat", seat) if isinstance(last, dict) else seat
        if owner != seat:
            raise ValueError(f"these are seat {owner}'s observations, not seat {seat}'s")


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


BOT_KINDS = ("random", "greedy", "easy", "medium", "hard", "expert", "openspiel")


def make_bot(kind: str, game: str | None = None) -> Bot:
    """A bot by name: ``random``, ``greedy``, a level or ``openspiel``, tuned by the game's bot part
    (``parts.bot_parts``); ValueError names the known kinds."""
    from .search import GreedyBot, SearchBot

    parts = bot_parts(game) if game is not None else None
    if kind == "random":
        return RandomBot()
    if kind == "greedy":
        return GreedyBot()
    if kind in ("easy", "medium", "hard", "expert"):
        if parts is None:
            return SearchBot(DEFAULT_LEVELS[kind][0], name=kind)
        if kind in parts.special_levels:
            return parts.special_levels[kind](kind)
        iterations, depth = parts.levels.get(kind, DEFAULT_LEVELS[kind])
        policy = parts.policy if kind in parts.policy_levels else None
        return SearchBot(
            iterations, playout_depth=depth, name=kind, root_moves=parts.root_moves, policy=policy
        )
    if kind == "openspiel":
        try:
            from .openspiel import OpenSpielBot
        except ImportError:
            raise ValueError("the openspiel bot needs OpenSpiel: pip install 'masques[openspiel]'") from None
        return OpenSpielBot(parts.openspiel_simulations if parts is not None else 20)
    raise ValueError(f"unknown bot {kind!r}; bots are: {', '.join(BOT_KINDS)}")
