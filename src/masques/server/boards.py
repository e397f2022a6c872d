"""The HTTP routes of ratings: leaderboards, a player's ratings and their history (the graph)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from ..engine import game_names
from .errors import ServerError
from .limits import client_key
from .matches import Registry
from .people import PLAYER_ID, optional_session
from .ratings import BOT_PREFIX, FAMILIES, Skill, bot_start, is_bot
from .schema import errors
from .storage import RatingRow, Storage, aware

FamilyQuery = Annotated[str, Query(pattern="^(two-player|multi-player)$", description=", ".join(FAMILIES))]
BOT_LEVELS = ("random", "greedy", "easy", "medium", "hard", "expert")
"""The bot levels every leaderboard shows, at their arena rating until they have played here."""


def skill_json(row: RatingRow) -> dict[str, Any]:
    return Skill(row.mu, row.sigma, row.games).to_json()


def ranked(entries: list[tuple[float, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Leaderboard rows, best ordinal first: equal ordinals (as shown, to three decimals) share a rank
    and the next rank skips past them; among them, more games first, then the id, so the order is
    the same each time."""
    entries = sorted(entries, key=lambda e: (-round(e[0], 3), -e[1]["games"], e[1]["player"]["id"]))
    rows: list[dict[str, Any]] = []
    for i, (ordinal, entry) in enumerate(entries):
        tied = i > 0 and round(ordinal, 3) == round(entries[i - 1][0], 3)
        rows.append({"rank": rows[-1]["rank"] if tied else i + 1, **entry})
    return rows


def router() -> APIRouter:
    api = APIRouter()

    def storage_of(request: Request) -> Storage:
        storage: Storage = request.app.state.storage
        return storage

    async def limit(request: Request) -> None:
        registry: Registry = request.app.state.registry
        key = client_key(request.client.host if request.client else None)
        for kind in ("api", "read"):
            await registry.rates.check(kind, key)

    def check_game(game: str) -> None:
        if game not in game_names():
            raise ServerError(404, "no_game", f"unknown game {game!r}; games are: {', '.join(game_names())}")

    @api.get("/api/leaderboard", responses=errors(400, 404))
    async def leaderboard(
        request: Request, game: Annotated[str, Query(max_length=32)], family: FamilyQuery = "two-player"
    ) -> dict[str, Any]:
        """A game's ratings in one family, best first (ranked by mu - 3 sigma).  Accounts appear once
        they have the server's minimum of rated games; the bot levels always appear, at the rating the
        arena measured until they have played rated matches here."""
        await limit(request)
        check_game(game)
        registry: Registry = request.app.state.registry
        least = registry.limits.leaderboard_min_games
        rows = await asyncio.to_thread(storage_of(request).leaderboard, game, family)
        entries: list[tuple[float, dict[str, Any]]] = []
        seen_bots = set()
        for rating, player in rows:
            if is_bot(rating.player_key):
                level = rating.player_key[len(BOT_PREFIX) :]
                seen_bots.add(level)
                who = {"id": rating.player_key, "name": level, "kind": "bot"}
            elif player is None or player.disabled or rating.games < least:
                continue
            else:
                who = {"id": player.id, "name": player.name, "kind": player.kind}
            skill = Skill(rating.mu, rating.sigma, rating.games)
            entry = {"player": who, **skill.to_json()}
            if who["kind"] == "bot":  # its rating rests on the arena's games, not only the few here
                entry["provisional"] = False
            entries.append((skill.ordinal, entry))
        for level in BOT_LEVELS:
            if level not in seen_bots:
                skill = bot_start(game, family, level)
                who = {"id": f"{BOT_PREFIX}{level}", "name": level, "kind": "bot"}
                entries.append((skill.ordinal, {"player": who, **skill.to_json(), "provisional": False}))
        return {"game": game, "family": family, "min_games": least, "rows": ranked(entries)}

    @api.get("/api/players/{player_id}/ratings", responses=errors(400, 404))
    async def rating_history(
        player_id: str,
        request: Request,
        game: Annotated[str, Query(max_length=32)],
        family: FamilyQuery = "two-player",
    ) -> dict[str, Any]:
        """A player's rating after each rated match of a game and family, oldest first.  A private
        match is named to the player alone: others see the point on the graph, not which match."""
        await limit(request)
        check_game(game)
        storage = storage_of(request)
        row = await asyncio.to_thread(storage.player, player_id) if PLAYER_ID.fullmatch(player_id) else None
        if row is None:
            raise ServerError(404, "no_player", "no such player")
        events = await asyncio.to_thread(storage.rating_history, row.id, game, family)
        viewer = await optional_session(request)
        hidden = (
            set()
            if viewer is not None and viewer.player.id == row.id
            else await asyncio.to_thread(storage.private_matches, {e.match_id for e in events})
        )
        return {
            "game": game,
            "family": family,
            "history": [
                {
                    "match": None if e.match_id in hidden else e.match_id,
                    "at": aware(e.at).isoformat(),
                    "rating": round(e.mu, 1),
                    "mu": round(e.mu, 3),
                    "sigma": round(e.sigma, 3),
                    "change": round(e.change, 3),
                }
                for e in events
            ],
        }

    return api
