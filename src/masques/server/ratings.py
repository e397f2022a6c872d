"""Ratings of rated matches: OpenSkill's Plackett-Luce model, as the arena rates its bots.

Every seat of a rated match is rated, bots included: a seat's rating belongs to the person who holds
it (an account; also when a bot finished the seat for them) or, for a bot's own seat, to the bot
level (``bot:<level>``).  Ratings are kept per game and per *family*: two-player matches and
multi-player ones, which reward different play.  Each bot level enters with the rating the arena
measured for it (``bot_ratings.json``, made from ``docs/ratings/`` by ``scripts/bot_ratings.py``),
so a player's number is on the bots' scale: a player rated 25 plays about as well as the medium bot.

The number players see is mu (one decimal, as the arena tables quote it); leaderboards rank by the
ordinal mu - 3 sigma, which a lucky streak of few games cannot top; a rating stays *provisional*
while it rests on fewer than :data:`PROVISIONAL_GAMES` games.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from openskill.models import PlackettLuce

FAMILIES = ("two-player", "multi-player")
PROVISIONAL_GAMES = 10
BOT_PREFIX = "bot:"
BOT_RATINGS = Path(__file__).with_name("bot_ratings.json")


def family_of(seats: int) -> str:
    return "two-player" if seats == 2 else "multi-player"


@cache
def model() -> PlackettLuce:
    return PlackettLuce()


@dataclass(frozen=True)
class Skill:
    """One rating: the estimate (mu), its uncertainty (sigma) and the rated games behind it."""

    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, Any]:
        return {
            "rating": round(self.mu, 1),
            "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3),
            "ordinal": round(self.ordinal, 3),
            "games": self.games,
            "provisional": self.games < PROVISIONAL_GAMES,
        }


def newcomer() -> Skill:
    """A player's first rating: the model's default (mu 25, sigma 25/3)."""
    return Skill(model().mu, model().sigma)


@cache
def _bot_table() -> dict[str, dict[str, dict[str, list[float]]]]:
    table: dict[str, dict[str, dict[str, list[float]]]] = json.loads(BOT_RATINGS.read_text("utf-8"))
    return table


def bot_start(game: str, family: str, level: str) -> Skill:
    """The rating a bot level enters with: the arena's for this game and family, else the arena's
    for the game's other family (the closest measurement there is), else a newcomer's."""
    by_family = _bot_table().get(game, {})
    for fam in (family, *(f for f in FAMILIES if f != family)):
        measured = by_family.get(fam, {}).get(level)
        if measured is not None:
            return Skill(measured[0], measured[1])
    return newcomer()


def is_bot(key: str) -> bool:
    return key.startswith(BOT_PREFIX)


def ranks_from_winners(seats: int, winners: Sequence[int]) -> list[int]:
    """A match ended without its last move (resigned, claimed, time): winners first, tied."""
    return [0 if s in winners else 1 for s in range(seats)]


def rate(before: Sequence[Skill], ranks: Sequence[float], keys: Sequence[str]) -> dict[str, Skill]:
    """Each key's new rating after one match (``before[i]``: seat i's rating, ``keys[i]``: whose it
    is; ``ranks[i]``: seat i's place, lower is better, equal is tied).  A key in several seats (one
    bot level twice) gets the mean of its seats' updates, as in the arena; each key counts one more
    game.  The ranks are made whole places first: openskill truncates fractional ones."""
    teams = [[model().rating(mu=s.mu, sigma=s.sigma)] for s in before]
    places = sorted(set(ranks))
    updated = model().rate(teams, ranks=[places.index(r) for r in ranks])
    merged: dict[str, list[tuple[float, float]]] = {}
    for key, (rating,) in zip(keys, updated, strict=True):
        merged.setdefault(key, []).append((float(rating.mu), float(rating.sigma)))
    games = {key: skill.games for key, skill in zip(keys, before, strict=True)}
    return {
        key: Skill(
            sum(mu for mu, _ in items) / len(items),
            sum(sigma for _, sigma in items) / len(items),
            games[key] + 1,
        )
        for key, items in merged.items()
    }
