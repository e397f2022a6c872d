"""Scale-out: several server processes on one database tell each other about changes via Redis.

After a process changes a match (a seat, its status) it publishes the match id on a channel; the
others, if they serve that match, read it again from the database and send their clients the new
views.  A move that does not end the match is published with its version, seat, action and clock,
so another process applies it as it is instead of reading the log, seats and row again (the commonest
change costs no query).  The database stays the single source of truth (its unique (match, number)
constraint lets only one process commit each version); a process that is not at the move's version
reads the database as for any change.  Redis also carries "a chat line was said" notes (the line
itself is read from the database).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson

CHANNEL = "masques:match:"
PRESENCE = "masques:here:"
PRESENCE_TTL = 30
"""Seconds a process's note that a seat is connected to it lasts; it renews them every sweep."""


@dataclass(frozen=True)
class Moved:
    """A committed move that did not end its match: the version it was played at, and the clock after it."""

    version: int
    seat: int
    action: int
    clock: dict[str, Any] | None
    deadline: float | None


class Fanout:
    def __init__(
        self,
        url: str,
        on_change: Callable[[str], Awaitable[None]],
        on_chat: Callable[[str, int], Awaitable[None]] | None = None,
        on_move: Callable[[str, Moved], Awaitable[None]] | None = None,
    ) -> None:
        self.url = url
        self.on_change = on_change
        self.on_chat = on_chat
        self.on_move = on_move
        self.origin = secrets.token_hex(6)  # so a process ignores its own notes
        self.client: Any = None
        self.task: asyncio.Task[None] | None = None

    async def ping(self) -> None:
        """Raise unless Redis answers (the readiness check)."""
        if self.client is None:
            raise ConnectionError("not connected to Redis")
        await self.client.ping()

    async def start(self) -> None:
        import redis.asyncio as redis

        self.client = redis.Redis.from_url(self.url)
        await self.client.ping()
        pubsub = self.client.pubsub()
        await pubsub.psubscribe(CHANNEL + "*")
        self.task = asyncio.get_running_loop().create_task(self._listen(pubsub))

    async def _listen(self, pubsub: Any) -> None:
        async for message in pubsub.listen():
            if message.get("type") != "pmessage":
                continue
            channel = (
                message["channel"].decode() if isinstance(message["channel"], bytes) else message["channel"]
            )
            data = message["data"].decode() if isinstance(message["data"], bytes) else str(message["data"])
            origin, _, rest = data.partition(":")
            if origin == self.origin:
                continue
            kind, _, body = rest.partition(":")
            match_id = channel[len(CHANNEL) :]
            with contextlib.suppress(Exception):  # one bad note must not stop the listener
                if kind == "chat" and self.on_chat is not None:
                    await self.on_chat(match_id, int(body))
                elif kind == "move" and self.on_move is not None:
                    await self.on_move(match_id, Moved(**orjson.loads(body)))
                elif not kind or kind == "move":
                    await self.on_change(match_id)

    async def publish(self, match_id: str) -> None:
        await self.client.publish(CHANNEL + match_id, self.origin)

    async def moved(self, match_id: str, move: Moved) -> None:
        """Tell the other processes of a move committed at ``move.version`` (the match goes on)."""
        body = orjson.dumps(
            {
                "version": move.version,
                "seat": move.seat,
                "action": move.action,
                "clock": move.clock,
                "deadline": move.deadline,
            }
        )
        await self.client.publish(CHANNEL + match_id, f"{self.origin}:move:{body.decode()}")

    async def said(self, match_id: str, line_id: int) -> None:
        """Tell the other processes that a chat line of this match was stored."""
        await self.client.publish(CHANNEL + match_id, f"{self.origin}:chat:{line_id}")

    async def here(self, match_id: str, seats: list[int]) -> None:
        """Note that these seats are connected to this process (the note lasts PRESENCE_TTL)."""
        for seat in seats:
            await self.client.set(f"{PRESENCE}{match_id}:{seat}:{self.origin}", 1, ex=PRESENCE_TTL)

    async def present(self, match_id: str, seat: int) -> bool:
        """Whether another process noted this seat connected lately."""
        async for key in self.client.scan_iter(match=f"{PRESENCE}{match_id}:{seat}:*"):
            name = key.decode() if isinstance(key, bytes) else str(key)
            if not name.endswith(f":{self.origin}"):
                return True
        return False

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        if self.client is not None:
            await self.client.aclose()
