"""Scale-out: several server processes on one database tell each other about changes via Redis.

After a process commits an action (or a seat changes) it publishes the match id on a channel; the
others, if they serve that match, read the new actions from the database and send their clients
the new views.  The database stays the single source of truth (its unique (match, number)
constraint lets only one process commit each version); Redis only carries "look again" notes, and
"a chat line was said" notes (the line itself is read from the database).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

CHANNEL = "masques:match:"
PRESENCE = "masques:here:"
PRESENCE_TTL = 30
"""Seconds a process's note that a seat is connected to it lasts; it renews them every sweep."""


class Fanout:
    def __init__(
        self,
        url: str,
        on_change: Callable[[str], Awaitable[None]],
        on_chat: Callable[[str, int], Awaitable[None]] | None = None,
    ) -> None:
        self.url = url
        self.on_change = on_change
        self.on_chat = on_chat
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
            origin, _, chat_line = data.partition(":chat:")
            if origin == self.origin:
                continue
            with contextlib.suppress(Exception):  # one bad note must not stop the listener
                if chat_line and self.on_chat is not None:
                    await self.on_chat(channel[len(CHANNEL) :], int(chat_line))
                elif not chat_line:
                    await self.on_change(channel[len(CHANNEL) :])

    async def publish(self, match_id: str) -> None:
        await self.client.publish(CHANNEL + match_id, self.origin)

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
