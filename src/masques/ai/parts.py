"""What a game brings to the bots: its ``"bot"`` part, and the default for a game that brings none.

A game's package names a :class:`BotParts` in its ``parts`` mapping (``"bot": "package.module:BOT"``).
Everything the bots know about one game comes from there: the evaluation greedy plays by (and that cuts
playouts short), the iteration budgets of the levels, move priors, a playout policy, beliefs about
hidden information, levels played by a game-specific bot.  A game without a part gets
:data:`DEFAULT_BOT_PARTS`: the lead in the game's own scores, and searches of generic budgets.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..engine import JSON, Game, State, game_names, game_part

if TYPE_CHECKING:
    from .bots import Bot

Evaluation = Callable[[State, int], float]
"""A full state and a seat -> a number, more is better for that seat."""
Priors = Callable[[State, list[int]], list[float]]
"""A full state and actions -> one value per action, for ordering the search's root moves."""
Policy = Callable[[State, random.Random], int]
"""A full state and an rng -> a legal action, for playouts."""
Sampler = Callable[[Game, int, Sequence[JSON], random.Random], State]
"""A seat's observation history -> a full state consistent with it (a bot's beliefs)."""


def relative(values: Sequence[float], seat: int) -> float:
    """A seat's value minus the best other seat's: what matters in a race."""
    others = [v for s, v in enumerate(values) if s != seat]
    return values[seat] - (max(others) if others else 0.0)


def score_lead(state: State, seat: int) -> float:
    """The default evaluation: how far the seat leads the best other seat in the game's own scores,
    and the result itself once the game is over."""
    if state.is_terminal():
        return 1000.0 * relative(state.returns(), seat)
    return relative(state.scores(), seat)


DEFAULT_LEVELS: Mapping[str, tuple[int, int]] = {
    "easy": (50, 0),
    "medium": (200, 0),
    "hard": (800, 0),
    "expert": (3000, 0),
}
"""Iterations and playout depth (0 = random playouts to the end) of each level for a game that sets
none; a game tunes its own with the arena (docs/ratings/)."""


@dataclass(frozen=True)
class BotParts:
    """One game's bot tuning; every field has a default that works for any game."""

    evaluate: Evaluation = score_lead
    """What greedy plays by, and what scores playouts cut short by ``playout depth``."""
    levels: Mapping[str, tuple[int, int]] = field(default_factory=lambda: dict(DEFAULT_LEVELS))
    """Level -> (iterations, playout depth: 0 = random playouts to the end, else that many plies and
    then the evaluation)."""
    priors: Priors | None = None
    """Optional move ordering: the search then keeps only the ``root_moves`` best root moves."""
    root_moves: int = 12
    policy: Policy | None = None
    """Playout moves for the levels in ``policy_levels`` (else uniformly random)."""
    policy_levels: frozenset[str] = frozenset()
    sample: Sampler | None = None
    """Beliefs: how a bot draws the hidden information (else the game's own uniform sampler)."""
    special_levels: Mapping[str, Callable[[str], Bot]] = field(default_factory=dict)
    """Levels played by a game-specific bot: level -> factory taking the level's name."""
    openspiel_simulations: int = 20
    """OpenSpiel MCTS/ISMCTS simulations per move for the ``openspiel`` bot: about the time ``hard``
    takes."""
    warm_up: Callable[[], None] | None = None
    """Prepares what the bots compile or load on first use (``warm_up`` runs it at set-up)."""


DEFAULT_BOT_PARTS = BotParts()


def bot_parts(game: str) -> BotParts:
    """The bot part of game ``game``, or :data:`DEFAULT_BOT_PARTS`."""
    part = game_part(game, "bot")
    if part is None:
        return DEFAULT_BOT_PARTS
    if not isinstance(part, BotParts):
        raise TypeError(f"the bot part of {game!r} is not a BotParts")
    return part


def sample_world(game: Game, seat: int, observations: Sequence[JSON], rng: random.Random) -> State:
    """A full state for a bot to search, drawn from its beliefs about what it cannot see."""
    sampler = bot_parts(game.name).sample
    if sampler is not None and observations:
        return sampler(game, seat, observations, rng)
    return game.sample_state(seat, observations, rng)


def one_ply_priors(evaluate: Evaluation) -> Priors:
    """Priors that order moves by ``evaluate`` one move ahead, from the mover's point of view."""

    def priors(state: State, actions: list[int]) -> list[float]:
        seat = state.current_player
        out = []
        for action in actions:
            child = state.clone()
            child.apply(action)
            out.append(evaluate(child, seat))
        return out

    return priors


def warm_up() -> None:
    """Run every game's bot warm-up now (set-up calls it), so no first move waits for a compiler."""
    for name in game_names():
        prepare = bot_parts(name).warm_up
        if prepare is not None:
            prepare()
