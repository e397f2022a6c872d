"""Processes' notes of which seats are connected to them, in Redis: one key per match, read at once."""

from __future__ import annotations

import os
import secrets
import time
from typing import Any
from unittest import mock

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
            await one.here(match_id, [])  # nobody connected: nothing noted, no error
            assert not await other.present(match_id, 0)
            assert not await other.anyone(match_id) and not await one.anyone(match_id)
            await one.here(match_id, [0, 2])
            assert await other.anyone(match_id) and await one.anyone(match_id)  # any process's note
            assert await other.present(match_id, 0) and await other.present(match_id, 2)
            assert not await other.present(match_id, 1)  # another seat's note is not this one's
            assert not await one.present(match_id, 0)  # a process's own note does not count
            ttl = await one.client.ttl(PRESENCE + match_id)
            assert 0 < ttl <= PRESENCE_TTL  # the match's notes go once nobody renews them

            await one.gone(match_id, 0)
            assert not await other.present(match_id, 0) and await other.present(match_id, 2)

            later = time.time() + PRESENCE_TTL + 1  # a note not renewed in time has run out
            with mock.patch.object(fanout.time, "time", return_value=later):
                assert not await other.present(match_id, 2) and not await other.anyone(match_id)
                await other.here(match_id, [1])  # and a renewal by anyone clears it out
            assert await one.client.zrange(PRESENCE + match_id, 0, -1) == [f"1:{other.origin}".encode()]
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
