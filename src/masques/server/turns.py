"""Costly work that callers take turns at, one caller's key after another.

A replay or a record of a long match takes the process a while to build, and the process builds
one at a time (they would only share its interpreter).  In one first-come queue, a client that
asks for twenty at once makes everybody else wait for all twenty; here each waiting key gets a
turn in rotation, so a newcomer waits for at most one job of each other key ahead of it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress


class TakingTurns:
    """At most ``at_once`` holders at a time; the waiting keys served round-robin, each key's own
    waiters in the order they came."""

    def __init__(self, at_once: int = 1) -> None:
        if at_once < 1:
            raise ValueError("at_once must be at least 1")
        self._free = at_once
        self._waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    @property
    def waiting(self) -> int:
        """How many callers wait for a turn."""
        return sum(len(queue) for queue in self._waiting.values())

    @asynccontextmanager
    async def turn(self, key: str) -> AsyncIterator[None]:
        """Hold a turn for the body of the ``async with``; a caller cancelled while it waits
        leaves the queue, and one cancelled as its turn came hands the turn on."""
        if self._free > 0 and not self._waiting:
            self._free -= 1
        else:
            ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiting.setdefault(key, deque()).append(ready)
            try:
                await ready
            except asyncio.CancelledError:
                if ready.done() and not ready.cancelled():
                    self._hand_on()  # the turn was given as the caller went: pass it on
                else:
                    self._leave(key, ready)
                raise
        try:
            yield
        finally:
            self._hand_on()

    def _leave(self, key: str, ready: asyncio.Future[None]) -> None:
        queue = self._waiting.get(key)
        if queue is None:
            return
        with suppress(ValueError):
            queue.remove(ready)
        if not queue:
            del self._waiting[key]

    def _hand_on(self) -> None:
        """Give the turn to the first waiter of the key next in the rotation (that key, if it
        still waits for more, goes to the back), or free it."""
        while self._waiting:
            key, queue = next(iter(self._waiting.items()))
            ready = queue.popleft()
            if queue:
                self._waiting.move_to_end(key)
            else:
                del self._waiting[key]
            if not ready.done():
                ready.set_result(None)
                return
        self._free += 1
