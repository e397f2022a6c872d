"""Scale-out: several server processes on one database tell each other about changes via Redis.

After a process changes a match (a seat, its status) it publishes the match id on a channel; the
others, if they serve that match, read it again from the database and send their clients the new
views.  A move that does not end the match is published with its version, seat, action and clock,
so another process applies it as it is instead of reading the log, seats and row again (the commonest
change costs no query).  The database stays the single source of truth (its unique (match, number)
constraint lets only one process commit each version); a process that is not at the move's version
reads the database as for any change.  Redis also carries "a chat line was said" notes (the line
itself is read from the database), and "a seat arrived or left" notes: which seats each process has
connected is kept in Redis (see :meth:`Fanout.refresh`), and the note makes the others read it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson

log = logging.getLogger("masques.fanout")

CHANNEL = "masques:match:"
PRESENCE = "masques:here:"
PRESENCE_TTL = 30
"""Seconds a process's note that a seat is connected to it lasts; it renews them every sweep."""
COMMAND_SECONDS = 2.0
"""How long a round of notes or a presence command may wait for Redis: a Redis that stopped
answering (paused, or its packets dropped) must fail the send, whose notes are told again later,
not hold the notes behind it for as long as TCP takes to give up."""
SWEEP_BATCH = 200
"""Matches whose presence one round trip of the sweep notes and reads."""
HEALTH_CHECK_SECONDS = 15
"""How long the subscription may stay silent before it asks Redis whether it is still there."""


ROUND = 256
"""At most this many notes are sent in one write (the rest follow at once, in order)."""
Command = tuple[str | int | float, ...]


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
        *,
        on_resubscribed: Callable[[], Awaitable[None]] | None = None,
        on_presence: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        self.url = url
        self.on_change = on_change
        self.on_chat = on_chat
        self.on_move = on_move
        self.on_resubscribed = on_resubscribed
        self.on_presence = on_presence
        self.origin = secrets.token_hex(6)  # so a process ignores its own notes
        self.client: Any = None
        self.listening: Any = None
        self.task: asyncio.Task[None] | None = None
        self.unsent: set[str] = set()
        """Matches whose change could not be told (Redis away): told again by :meth:`resend`."""
        self.outbox: list[tuple[list[Command], str | None]] = []
        """What to tell, in the order told: each item's commands, and the match whose change they
        tell (marked :attr:`unsent` if they fail) or None (presence: the sweep tells it again)."""
        self.sending: asyncio.Task[None] | None = None
        self.line: Any = None
        """The connection that sends the outbox, the sender's alone: the client's pool hands out a
        connection only after a turn of the event loop, one request at a time, and a busy loop's
        turn made every note and presence wait in turn for the pool."""

    async def ping(self) -> None:
        """Raise unless Redis answers (the readiness check)."""
        if self.client is None:
            raise ConnectionError("not connected to Redis")
        await self.client.ping()

    async def start(self) -> None:
        import redis.asyncio as redis

        # named, so that an operator's CLIENT LIST tells each process's connections apart
        name = f"masques-fanout-{self.origin}"
        self.client = redis.Redis.from_url(
            self.url, client_name=name, socket_timeout=COMMAND_SECONDS, socket_connect_timeout=COMMAND_SECONDS
        )
        # The subscription waits for notes as long as none come: no read timeout, a ping instead.
        self.listening = redis.Redis.from_url(
            self.url,
            client_name=name,
            socket_connect_timeout=COMMAND_SECONDS,
            health_check_interval=HEALTH_CHECK_SECONDS,
        )
        await self.client.ping()
        pubsub = self.listening.pubsub()
        await pubsub.psubscribe(CHANNEL + "*")
        self.task = asyncio.get_running_loop().create_task(self._subscribed(pubsub))

    async def _subscribed(self, pubsub: Any) -> None:
        """Listen for as long as the process runs.  A lost connection to Redis (a restart, a
        network blip) is subscribed again, waiting longer each time up to 5 s; the notes sent
        meanwhile are lost, so the process then reads again every match it serves
        (``on_resubscribed``): no match stays behind, waiting for a note that never comes."""
        delay = 0.5
        while True:
            try:
                if pubsub is None:
                    pubsub = self.listening.pubsub()
                    await pubsub.psubscribe(CHANNEL + "*")
                    log.warning("subscribed to Redis again: reading the matches this process serves")
                    if self.on_resubscribed is not None:
                        await self.on_resubscribed()
                    delay = 0.5
                await self._listen(pubsub)
                raise ConnectionError("the subscription ended")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the connection, or Redis: try again
                log.warning("lost the Redis subscription (%s): again in %.1f s", type(exc).__name__, delay)
            if pubsub is not None:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                pubsub = None
            await asyncio.sleep(delay)
            delay = min(5.0, delay * 2)

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
                elif kind == "presence":
                    if self.on_presence is not None:
                        await self.on_presence(match_id)
                elif kind == "move" and self.on_move is not None:
                    await self.on_move(match_id, Moved(**orjson.loads(body)))
                elif not kind or kind == "move":
                    await self.on_change(match_id)

    def _send(self, channel: str, note: str) -> None:
        """Publish a note, as well as Redis allows: a change is committed before it is told.  One
        that could not be sent is told again, as a plain change, by :meth:`resend` (the sweep's);
        and a process whose own subscription was cut reads every match again when it is back."""
        told = channel[len(CHANNEL) :] if channel.startswith(CHANNEL) else None
        self._tell([("PUBLISH", channel, note)], told)

    def _tell(self, commands: list[Command], told: str | None) -> None:
        """Queue commands for Redis, sent in the order told by one task on its own connection, each
        round in one write of everything told since the last: a move's note costs a fraction of a
        command, and nothing (a match's lock, its views, a connection's first messages) waits for
        Redis."""
        self.outbox.append((commands, told))
        if self.sending is None or self.sending.done():
            self.sending = asyncio.get_running_loop().create_task(self._send_all())

    async def _connected_line(self) -> Any:
        if self.line is None:
            line = self.client.connection_pool.make_connection()
            await line.connect()
            self.line = line
        return self.line

    async def _send_all(self) -> None:
        while self.outbox:
            items, self.outbox = self.outbox[:ROUND], self.outbox[ROUND:]
            commands = [command for item, _ in items for command in item]
            try:
                await self._write(commands)
            except Exception as exc:  # Redis down or the connection lost
                # Give up on everything queued by now, not round after round (each waiting for
                # Redis up to COMMAND_SECONDS): the sweep tells those matches again, and what is
                # told from now on tries a new connection.
                items += self.outbox
                self.outbox = []
                log.warning("could not tell the other processes of a change (%s)", type(exc).__name__)
                self.unsent.update(told for _, told in items if told is not None)
                await self._drop_line()

    async def _write(self, commands: list[Command]) -> None:
        """Send commands and read their replies.  A connection that was closed while it idled (by a
        Redis ``timeout``, or a network that forgets quiet connections) is replaced once: a command
        sent twice tells the same thing twice, which the others ignore."""
        from redis.exceptions import ConnectionError as Closed

        reused = self.line is not None
        line = await self._connected_line()
        try:
            await line.send_packed_command(line.pack_commands(commands))
            for _ in commands:
                await line.read_response()
        except Closed:
            if not reused:
                raise
            await self._drop_line()
            await self._write(commands)

    async def _drop_line(self) -> None:
        if self.line is not None:
            with contextlib.suppress(Exception):
                await self.line.disconnect()
            self.line = None

    async def drain(self) -> None:
        """Wait until every note told so far was sent, or given up on (then :attr:`unsent`)."""
        while self.sending is not None and not self.sending.done():
            await asyncio.shield(self.sending)

    async def resend(self) -> None:
        """Tell again the changes that could not be told (the others read those matches afresh)."""
        for match_id in sorted(self.unsent):
            try:
                await self.client.publish(CHANNEL + match_id, self.origin)
            except Exception:
                return  # still away: the next sweep tries again
            self.unsent.discard(match_id)

    async def publish(self, match_id: str) -> None:
        """Tell the other processes that the match changed (they read it again if they serve it)."""
        self._send(CHANNEL + match_id, self.origin)

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
        self._send(CHANNEL + match_id, f"{self.origin}:move:{body.decode()}")

    async def said(self, match_id: str, line_id: int) -> None:
        """Tell the other processes that a chat line of this match was stored."""
        self._send(CHANNEL + match_id, f"{self.origin}:chat:{line_id}")

    def _note_commands(self, match_id: str, seats: list[int], now: float) -> list[Command]:
        """Note that these seats are connected to this process (the note lasts PRESENCE_TTL).

        A match's notes are one sorted set, ``seat:process`` scored by when each runs out, so that
        whether a seat is connected elsewhere is one read of one key (not a scan of every key).  The
        processes' clocks must agree within a few seconds (as their clocks' deadlines need anyway)."""
        key = PRESENCE + match_id
        scored: list[str | float] = []
        for seat in seats:
            scored += [now + PRESENCE_TTL, f"{seat}:{self.origin}"]
        return [
            ("ZADD", key, *scored),
            ("ZREMRANGEBYSCORE", key, "-inf", now),  # notes of processes gone
            ("EXPIRE", key, PRESENCE_TTL),
        ]

    def _note(self, pipe: Any, match_id: str, seats: list[int], now: float) -> None:
        for command in self._note_commands(match_id, seats, now):
            pipe.execute_command(*command)

    async def arrived(self, match_id: str, seat: int) -> None:
        """Note that the seat is connected here, and tell the others, in the order of the other notes
        (their clients see it connected now, not at the next sweep).  Without Redis, the sweep
        tells it."""
        note = ("PUBLISH", CHANNEL + match_id, f"{self.origin}:presence:{seat}")
        self._tell([*self._note_commands(match_id, [seat], time.time()), note], None)

    async def gone(self, match_id: str, seat: int) -> None:
        """Take back this process's note that the seat is connected: its last connection here closed
        (else the others would count it present until the note ran out, its grace period longer);
        and tell the others, whose clients see it leave.  Without Redis, the note runs out."""
        note = ("PUBLISH", CHANNEL + match_id, f"{self.origin}:presence:{seat}")
        self._tell([("ZREM", PRESENCE + match_id, f"{seat}:{self.origin}"), note], None)

    def _others(self, notes: list[Any]) -> set[int]:
        """The seats of the other processes' notes (``seat:process``), each once."""
        seats = set()
        for note in notes:
            name = note.decode() if isinstance(note, bytes) else str(note)
            seat, _, origin = name.partition(":")
            if origin != self.origin and seat.isdigit():
                seats.add(int(seat))
        return seats

    async def elsewhere(self, match_id: str) -> set[int] | None:
        """The seats of the match other processes noted connected lately; None without an answer
        from Redis (the caller keeps what it knew: the sweep reads it again)."""
        try:
            notes = await self.client.zrangebyscore(PRESENCE + match_id, time.time(), "+inf")
        except Exception as exc:
            log.warning("could not read which seats are connected elsewhere (%s)", type(exc).__name__)
            return None
        return self._others(notes)

    async def refresh(self, seats: dict[str, list[int]]) -> dict[str, set[int]] | None:
        """The sweep's round: note the seats connected here of each match and read
        which are connected elsewhere, a pipeline of SWEEP_BATCH matches per round trip.  None
        without an answer from Redis."""
        out: dict[str, set[int]] = {}
        ids = list(seats)
        try:
            for start in range(0, len(ids), SWEEP_BATCH):
                batch, now = ids[start : start + SWEEP_BATCH], time.time()
                async with self.client.pipeline(transaction=False) as pipe:
                    for match_id in batch:
                        if seats[match_id]:
                            self._note(pipe, match_id, seats[match_id], now)
                        pipe.zrangebyscore(PRESENCE + match_id, now, "+inf")
                    answers = await pipe.execute()
                position = 0
                for match_id in batch:
                    position += 3 if seats[match_id] else 0
                    out[match_id] = self._others(answers[position])
                    position += 1
        except Exception as exc:  # Redis down: the next sweep tries again
            log.warning("could not note and read connected seats (%s)", type(exc).__name__)
            return None
        return out

    async def connected(self, match_ids: list[str]) -> dict[str, set[int]] | None:
        """The seats other processes noted connected, for each of these matches (a lobby's rows of
        matches this process does not serve), a pipeline of SWEEP_BATCH per round trip; None
        without an answer from Redis."""
        out: dict[str, set[int]] = {}
        try:
            for start in range(0, len(match_ids), SWEEP_BATCH):
                batch, now = match_ids[start : start + SWEEP_BATCH], time.time()
                async with self.client.pipeline(transaction=False) as pipe:
                    for match_id in batch:
                        pipe.zrangebyscore(PRESENCE + match_id, now, "+inf")
                    answers = await pipe.execute()
                out.update(
                    (match_id, self._others(notes)) for match_id, notes in zip(batch, answers, strict=True)
                )
        except Exception as exc:
            log.warning("could not read which seats are connected elsewhere (%s)", type(exc).__name__)
            return None
        return out

    async def anyone(self, match_id: str) -> bool:
        """Whether any process noted a seat of this match connected lately (without an answer
        from Redis, yes, as for ``present``)."""
        try:
            return bool(await self.client.zcount(PRESENCE + match_id, time.time(), "+inf"))
        except Exception as exc:
            log.warning("could not read which seats are connected (%s)", type(exc).__name__)
            return True

    async def present(self, match_id: str, seat: int) -> bool:
        """Whether another process noted this seat connected lately.  Without an answer from
        Redis, say yes: a seat is never handed to a bot for an absence that cannot be told."""
        try:
            notes = await self.client.zrangebyscore(PRESENCE + match_id, time.time(), "+inf")
        except Exception as exc:
            log.warning("could not read which seats are connected elsewhere (%s)", type(exc).__name__)
            return True
        return seat in self._others(notes)

    async def stop(self) -> None:
        with contextlib.suppress(Exception):  # the last notes, within the commands' own timeout
            await self.drain()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        await self._drop_line()
        for client in (self.client, self.listening):
            if client is not None:
                await client.aclose()
