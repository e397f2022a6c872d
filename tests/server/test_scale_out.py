"""Scale-out: two server processes on one PostgreSQL database share matches through Redis."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from masques_server_support import (  # type: ignore[import-not-found]
    TIMEOUT,
    Conn,
    ServerProcess,
    committed_actions,
    create_match,
    free_port,
    fresh_database_url,
    join,
    play_to_end,
    seat_conns,
)

from masques.engine import GameRecord


@pytest.fixture
def two_processes(tmp_path: Path) -> Iterator[tuple[str, ServerProcess, ServerProcess]]:
    """Two server processes on one fresh PostgreSQL database and the tests' Redis."""
    redis_url = os.environ.get("MASQUES_TEST_REDIS_URL")
    assert redis_url, (
        "MASQUES_TEST_REDIS_URL is not set: run the tests with scripts/test.sh (it starts Redis)"
    )
    url = fresh_database_url("postgresql", tmp_path)
    first = ServerProcess(url, free_port(), tmp_path / "a.log", redis_url=redis_url).start()
    second = ServerProcess(url, free_port(), tmp_path / "b.log", redis_url=redis_url).start()
    try:
        yield url, first, second
    finally:
        first.stop()
        second.stop()


def test_two_processes_play_one_match_through_redis(
    two_processes: tuple[str, ServerProcess, ServerProcess],
) -> None:
    url, first, second = two_processes
    with (
        httpx.Client(base_url=first.base_url, timeout=TIMEOUT) as api_a,
        httpx.Client(base_url=second.base_url, timeout=TIMEOUT) as api_b,
    ):
        match = create_match(api_a, "masker", {"players": 3}, ["human", "human", "greedy"], seed=11)
        token_a = join(api_a, match["id"], "ann", 0)["token"]
        token_b = join(api_b, match["id"], "bob", 1)["token"]  # the other process, same match
        conns = seat_conns(first.ws_url, match["id"], {0: token_a}) + seat_conns(
            second.ws_url, match["id"], {1: token_b}
        )
        acked = play_to_end(conns, random.Random(11))
        assert acked, "the humans made no move"
        for conn in conns:
            assert conn.state is not None and conn.state["to_move"] is None
        log = committed_actions(url, match["id"])
        assert [version for version, _ in acked] == sorted(version for version, _ in acked)
        for version, action in acked:
            assert log[version] == action
        final_a = api_a.get(f"/api/matches/{match['id']}/record", params={"full": "true"}).json()
        final_b = api_b.get(f"/api/matches/{match['id']}/record", params={"full": "true"}).json()
        assert final_a == final_b
        assert final_a["actions"] == log
        assert GameRecord.from_json(final_a).replay().is_terminal()
        for conn in conns:
            conn.close()


def test_a_seat_taken_through_one_process_is_known_at_once_to_the_other(
    two_processes: tuple[str, ServerProcess, ServerProcess],
) -> None:
    """Behind a proxy a join and the WebSocket that follows it may reach two processes; the second
    must not refuse the fresh token while the news of the join is still on its way through Redis."""
    _, first, second = two_processes
    with (
        httpx.Client(base_url=first.base_url, timeout=TIMEOUT) as api_a,
        httpx.Client(base_url=second.base_url, timeout=TIMEOUT) as api_b,
    ):
        for round_ in range(5):
            match = create_match(api_a, "masker", {"players": 2}, ["human", "human"], seed=round_)
            assert api_b.get(f"/api/matches/{match['id']}").status_code == 200  # B holds it too
            tokens = {seat: join(api_a, match["id"], f"p{seat}", seat)["token"] for seat in (0, 1)}
            for seat, token in tokens.items():
                conn = Conn(second.ws_url, match["id"], token, seat)
                state = conn.first_state()
                assert state["seat"] == seat, state
                conn.close()
            moved = api_b.post(f"/api/matches/{match['id']}/resign", headers={"X-Seat-Token": tokens[1]})
            assert moved.status_code == 200, moved.text
