"""Judging a player's decisions with a bot: how much each move cost the seat's chance of winning.

The bot judges from the seat's observations only, as it plays: in a hidden-information game the
values are averaged over the worlds the seat's information set allows, never the true state.  A
bot that can analyse offers ``action_values`` (see :meth:`SearchBot.action_values`): the move it
prefers and the values, as shares of a win, of the moves it searched.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..engine import JSON, Game
from .bots import make_bot

ANALYSIS_LEVEL = "expert"
"""The level that judges a finished match's decisions."""


@runtime_checkable
class Analyst(Protocol):
    """A bot that can say what each move is worth, not only which one it plays."""

    def action_values(
        self,
        game: Game,
        seat: int,
        observations: Sequence[JSON],
        legal_actions: Sequence[int],
        rng: random.Random,
        *,
        include: int | None = None,
    ) -> tuple[int, dict[int, float]]: ...


@dataclass(frozen=True)
class Judgement:
    """One decision judged: the move the bot prefers, the seat's chance of winning with it, and
    with the move played (equal when they are the same move)."""

    best: int
    chance: float
    after: float

    @property
    def drop(self) -> float:
        return max(0.0, self.chance - self.after)


def analyst(game_name: str, level: str = ANALYSIS_LEVEL) -> Analyst:
    """The ``level`` bot of ``game_name`` as an analyst; ValueError for a bot that cannot analyse."""
    bot = make_bot(level, game_name)
    if not isinstance(bot, Analyst):
        raise ValueError(f"the {level} bot cannot analyse moves")
    return bot


def judge(
    game: Game,
    seat: int,
    observations: Sequence[JSON],
    legal_actions: Sequence[int],
    played: int,
    *,
    rng: random.Random,
    level: str = ANALYSIS_LEVEL,
) -> Judgement:
    """Judge the move ``played`` among ``legal_actions`` from the seat's ``observations``."""
    if played not in legal_actions:
        raise ValueError(f"action {played} was not legal")
    best, values = analyst(game.name, level).action_values(
        game, seat, observations, legal_actions, rng, include=played
    )
    chance = _clamp(values[best])
    after = chance if played == best else _clamp(values.get(played, chance))
    return Judgement(best, chance, after)


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, value))
