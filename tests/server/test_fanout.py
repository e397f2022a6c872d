"""Processes' notes of which seats are connected to them, in Redis: one key per match, read at once."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any
from unittest import mock
from urllib.parse import urlsplit

import masques_server_support as support
import pytest
import redis

from masques.server import fanout
from masques.server.fanout import PRESENCE, PRESENCE_TTL, Fanout


async def _nothing(*_args: Any) -> None:
    return None


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("MASQUES_TEST_REDIS_URL")
    assert url, "MASQUES_TEST_REDIS_URL is not set: run the tests with scripts/test.sh"
    return url


def test_a_seat_is_present_while_another_process_notes_it_and_not_after(redis_url: str) -> None:
    match_id = secrets.token_hex(8)

    async def scenario() -> None:
        one, other = Fanout(redis_url, _nothing), Fanout(redis_url, _nothing)
        for process in (one, other):
            await process.start()
        try:
            await one.refresh({match_id: []})  # nobody connected: nothing noted, no error
            assert not await other.present(match_id, 0)
            assert not await other.anyone(match_id) and not await one.anyone(match_id)
            await one.refresh({match_id: [0, 2]})
            assert await other.anyone(match_id) and await one.anyone(match_id)  # any process's note
            assert await other.present(match_id, 0) and await other.present(match_id, 2)
            assert not await other.present(match_id, 1)  # another seat's note is not this one's
            assert not await one.present(match_id, 0)  # a process's own note does not count
            ttl = await one.client.ttl(PRESENCE + match_id)
            assert 0 < ttl <= PRESENCE_TTL  # the match's notes go once nobody renews them

            await one.gone(match_id, 0)
            await one.drain()  # (told at once, sent with what else is told meanwhile)
            assert not await other.present(match_id, 0) and await other.present(match_id, 2)

            later = time.time() + PRESENCE_TTL + 1  # a note not renewed in time has run out
            with mock.patch.object(fanout.time, "time", return_value=later):
                assert not await other.present(match_id, 2) and not await other.anyone(match_id)
                await other.refresh({match_id: [1]})  # and a renewal by anyone clears it out
            assert await one.client.zrange(PRESENCE + match_id, 0, -1) == [f"1:{other.origin}".encode()]
        finally:
            for process in (one, other):
                await process.stop()

    support.run_async(scenario())


def test_a_seat_arriving_or_leaving_is_told_and_the_others_read_who_is_connected_elsewhere(
    redis_url: str,
) -> None:
    """A seat's arrival and departure are noted and told in one go; each process reads the seats
    connected to the others (not its own), alone or, in the sweep, for many matches at once."""
    match_id, quiet = secrets.token_hex(8), secrets.token_hex(8)

    async def scenario() -> None:
        told: asyncio.Queue[str] = asyncio.Queue()

        async def presence(changed: str) -> None:
            await told.put(changed)

        one, other = Fanout(redis_url, _nothing), Fanout(redis_url, _nothing, on_presence=presence)
        for process in (one, other):
            await process.start()
        try:
            await one.arrived(match_id, 1)
            assert await asyncio.wait_for(told.get(), 5) == match_id
            assert await other.elsewhere(match_id) == {1} and await one.elsewhere(match_id) == set()
            await other.arrived(match_id, 0)  # a process hears none of its own notes
            assert await other.refresh({match_id: [0, 2], quiet: []}) == {match_id: {1}, quiet: set()}
            assert await one.refresh({match_id: []}) == {match_id: {0, 2}}
            await one.gone(match_id, 1)
            assert await asyncio.wait_for(told.get(), 5) == match_id
            assert await other.elsewhere(match_id) == set() and told.empty()
            with mock.patch.object(other.client, "zrangebyscore", side_effect=redis.ConnectionError):
                assert await other.elsewhere(match_id) is None  # unknown, not "nobody"
            with mock.patch.object(other.client, "pipeline", side_effect=redis.ConnectionError):
                assert await other.refresh({match_id: [0]}) is None
            await other.drain()
            with mock.patch.object(other, "_connected_line", side_effect=redis.ConnectionError):
                await other.arrived(match_id, 0)  # no error: the sweep notes it later
                await other.gone(match_id, 0)
                await other.drain()
            assert not other.unsent  # (a presence is not a change of the match)
            await other.arrived(match_id, 3)  # the next ones go through a new connection
            await other.drain()
            assert await one.elsewhere(match_id) == {0, 2, 3}  # (0's departure was never told)
        finally:
            for process in (one, other):
                await process.stop()

    support.run_async(scenario())


def test_without_an_answer_from_redis_a_seat_counts_as_present(redis_url: str) -> None:
    """A seat is never handed to a bot for an absence that cannot be told."""

    async def scenario() -> None:
        process = Fanout(redis_url, _nothing)
        await process.start()
        try:
            with mock.patch.object(process.client, "zrangebyscore", side_effect=redis.ConnectionError):
                assert await process.present(secrets.token_hex(8), 0)
            with mock.patch.object(process.client, "zcount", side_effect=redis.ConnectionError):
                assert await process.anyone(secrets.token_hex(8))  # nor a match taken up for it
        finally:
            await process.stop()

    support.run_async(scenario())


class _Silencer:
    """A TCP relay in front of Redis that can stop passing bytes: a Redis paused, or cut off by a
    network that drops packets, whose connections stay open and never answer."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.passing = asyncio.Event()
        self.passing.set()
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(self.host, self.port)

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await source.read(65536):
                    await self.passing.wait()
                    sink.write(data)
                    await sink.drain()

        await asyncio.gather(pump(reader, upstream_writer), pump(upstream_reader, writer))

    def close(self) -> None:
        self.passing.set()
        if self.server is not None:
            self.server.close()


def test_a_redis_that_stops_answering_fails_a_note_in_time_and_it_is_told_later(redis_url: str) -> None:
    """Telling a move waits for nothing; if Redis goes silent, its send fails within seconds (the
    note waits to be told again) instead of holding the notes behind it for ever."""
    address = urlsplit(redis_url)
    assert address.hostname is not None and address.port is not None
    silencer = _Silencer(address.hostname, address.port)

    async def scenario() -> None:
        port = await silencer.start()
        process = Fanout(f"redis://127.0.0.1:{port}{address.path}", _nothing)
        await process.start()
        try:
            await process.publish("00000000000000ab")
            await process.drain()
            assert not process.unsent
            silencer.passing.clear()
            rounds = 0
            connected_line = process._connected_line

            async def counted() -> Any:
                nonlocal rounds
                rounds += 1
                return await connected_line()

            process._connected_line = counted  # type: ignore[method-assign]
            move = fanout.Moved(0, 0, 1, None, None)
            await asyncio.wait_for(process.moved("00000000000000ab", move), 0.5)  # told, not sent yet
            await asyncio.wait_for(process.drain(), fanout.COMMAND_SECONDS + 10)
            assert process.unsent == {"00000000000000ab"}
            # Notes told while Redis is silent, more than one round's: all given up on at once,
            # after one round's wait, not one wait per round.
            matches = {f"{number:016x}" for number in range(2 * fanout.ROUND + 10)}
            rounds = 0
            for match_id in sorted(matches):
                await process.moved(match_id, move)
            await asyncio.wait_for(process.drain(), fanout.COMMAND_SECONDS + 10)
            assert process.unsent == matches | {"00000000000000ab"} and rounds == 1
        finally:
            silencer.close()
            await process.stop()

    support.run_async(scenario())


@contextlib.asynccontextmanager
async def _teller_and_hearer(redis_url: str, match_id: str) -> AsyncIterator[tuple[Fanout, list[int]]]:
    """Two processes' fanouts: the first tells, and the versions of the match's moves the second
    hears are listed in the order heard."""
    heard: list[int] = []

    async def moved(changed: str, move: fanout.Moved) -> None:
        if changed == match_id:
            heard.append(move.version)

    one, other = Fanout(redis_url, _nothing), Fanout(redis_url, _nothing, on_move=moved)
    for process in (one, other):
        await process.start()
    try:
        yield one, heard
    finally:
        for process in (one, other):
            await process.stop()


async def _until_heard(heard: list[int], count: int) -> None:
    deadline = time.monotonic() + 10
    while len(heard) < count and time.monotonic() < deadline:
        await asyncio.sleep(0.01)


def test_notes_told_in_a_burst_reach_the_others_in_order_in_few_round_trips(redis_url: str) -> None:
    """A move's note is told at once and sent with the others told meanwhile: the other process
    hears every move, in the order told (its versions one after another), and one Redis round trip
    carries many."""
    match_id = secrets.token_hex(8)

    async def scenario() -> None:
        async with _teller_and_hearer(redis_url, match_id) as (one, heard):
            rounds = 0
            send_all = one._send_all

            async def counted() -> None:
                nonlocal rounds
                rounds += 1
                await send_all()

            one._send_all = counted  # type: ignore[method-assign]
            for version in range(300):
                await one.moved(match_id, fanout.Moved(version, version % 4, 7, None, None))
                if version % 50 == 0:
                    await asyncio.sleep(0)  # the loop turns: some go out while more are told
            await one.drain()
            assert not one.unsent and not one.outbox
            await _until_heard(heard, 300)
            assert heard == list(range(300))
            assert rounds <= 10

    support.run_async(scenario())


def test_notes_whose_connection_was_closed_while_idle_go_out_on_a_new_one(redis_url: str) -> None:
    """Redis (its ``timeout``) or the network may close the notes' connection while it idles: the
    next round finds it closed and goes out on a new connection, nothing left to the sweep."""
    match_id = secrets.token_hex(8)

    async def scenario() -> None:
        async with _teller_and_hearer(redis_url, match_id) as (one, heard):
            await one.moved(match_id, fanout.Moved(0, 0, 7, None, None))
            await one.drain()
            clients = await one.client.client_list()
            senders = [
                c for c in clients if c["name"] == f"masques-fanout-{one.origin}" and c["cmd"] == "publish"
            ]
            assert len(senders) == 1
            await one.client.client_kill_filter(_id=senders[0]["id"])
            await one.moved(match_id, fanout.Moved(1, 1, 7, None, None))
            await one.drain()
            assert not one.unsent
            await _until_heard(heard, 2)
            assert heard == [0, 1]

    support.run_async(scenario())
