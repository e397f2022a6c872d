"""The bot interface and the baseline random bot.

A bot sees what its seat may see: the game (options and facts), its seat, its observation history
and the legal actions of the current decision.  It never receives the true state of a
hidden-information game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from ..engine import JSON, Game


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


BOTS: dict[str, type[RandomBot]] = {"random": RandomBot}
"""Bot kinds by the name used in ``--seats``."""


def make_bot(kind: str) -> Bot:
    """A bot by name; ValueError names the known kinds."""
    try:
        return BOTS[kind]()
    except KeyError:
        raise ValueError(f"unknown bot {kind!r}; bots are: {', '.join(sorted(BOTS))}") from None
