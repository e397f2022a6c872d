"""Joins that can be retried: with an Idempotency-Key, a join whose answer was lost (a crash, a bad
network) gets the same seat and the same token when sent again, even after a restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import masques_server_support as support
import pytest

KEY = "3f1c9a7e-5b2d-4e8f-9a61-0c7d2e4b8f13"


def _join(api: httpx.Client, match_id: str, name: str, key: str, **body: Any) -> httpx.Response:
    return api.post(
        f"/api/matches/{match_id}/join", json={"name": name, **body}, headers={"Idempotency-Key": key}
    )


def test_a_retried_join_gets_the_same_seat_and_token(server: Any, api: httpx.Client) -> None:
    match_id = support.create_match(api, "maske", {"players": 3}, ["human", "human", "human"])["id"]
    first = _join(api, match_id, "ann", KEY)
    assert first.status_code == 200, first.text
    again = _join(api, match_id, "ann", KEY)
    assert again.status_code == 200 and again.json() == first.json()
    other = _join(api, match_id, "bob", KEY[::-1])
    assert other.json()["seat"] != first.json()["seat"]
    seats = support.summary(api, match_id)["seats"]
    assert [s["taken"] for s in seats] == [True, True, False]  # the retry took no second seat
    # the token works: it is the seat's key
    conn = support.Conn(server.ws_url, match_id, first.json()["token"], first.json()["seat"])
    assert conn.first_state()["seat"] == first.json()["seat"]
    conn.close()


def test_a_retried_join_still_works_once_the_match_is_full(api: httpx.Client) -> None:
    match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
    first = _join(api, match_id, "ann", KEY)
    support.join(api, match_id, "bob")
    assert support.summary(api, match_id)["status"] == "running"
    again = _join(api, match_id, "ann", KEY)
    assert again.status_code == 200 and again.json() == first.json()


def test_a_key_used_for_another_join_is_refused(api: httpx.Client) -> None:
    match_id = support.create_match(api, "maske", {"players": 3}, ["human", "human", "human"])["id"]
    assert _join(api, match_id, "ann", KEY).status_code == 200
    reused = _join(api, match_id, "someone else", KEY)
    assert reused.status_code == 409 and reused.json()["code"] == "key_reused"
    assert [s["taken"] for s in support.summary(api, match_id)["seats"]] == [True, False, False]


@pytest.mark.parametrize("key", ["short", "x" * 201])
def test_a_malformed_key_is_refused(api: httpx.Client, key: str) -> None:
    match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
    refused = _join(api, match_id, "ann", key)
    assert refused.status_code == 400 and refused.json()["code"] == "bad_request"
    assert [s["taken"] for s in support.summary(api, match_id)["seats"]] == [False, False]


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_a_join_retried_after_a_restart_gets_its_seat(backend: str, tmp_path: Path) -> None:
    url = support.fresh_database_url(backend, tmp_path)
    server = support.ThreadServer(url).start()
    try:
        with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
            match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
            first = _join(api, match_id, "ann", KEY).json()
    finally:
        server.stop()
    server = support.ThreadServer(url).start()  # the answer was lost; the client tries again
    try:
        with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
            assert _join(api, match_id, "ann", KEY).json() == first
            assert [s["taken"] for s in support.summary(api, match_id)["seats"]] == [True, False]
    finally:
        server.stop()


def test_a_last_join_whose_start_was_not_written_leaves_the_match_open_and_its_retry_starts_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last seat is taken but the start cannot be written (the database away a moment): the
    match stays open in memory as in storage, and the join's retry starts it."""
    import asyncio

    from sqlalchemy.exc import OperationalError

    from masques.server.matches import Registry
    from masques.server.storage import Storage

    storage = Storage(f"sqlite:///{tmp_path / 'start.sqlite3'}")
    storage.migrate()
    start = storage.start_match
    failures = [OperationalError("UPDATE matches", {}, Exception("connection lost"))]

    def start_once_failing(*args: Any, **kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return start(*args, **kwargs)

    monkeypatch.setattr(storage, "start_match", start_once_failing)

    async def scenario() -> None:
        registry = Registry(storage, limits=support.RELAXED, bot_workers=1, writer="thread")
        try:
            match = await registry.create("masker", {"players": 2}, ["human", "human"])
            await registry.join(match, "ann", 0)
            with pytest.raises(OperationalError):
                await registry.join(match, "bob", 1, KEY)
            row = storage.match(match.id)
            assert row is not None and (match.status, row.status) == ("open", "open")
            assert match.deadline is None
            seat, _ = await registry.join(match, "bob", 1, KEY)
            row = storage.match(match.id)
            assert seat == 1 and row is not None and (match.status, row.status) == ("running", "running")
            mover = match.state.current_player
            await registry.submit(match, mover, match.state.legal_actions()[0], match.version)
            assert storage.log(match.id) and match.version == 1
        finally:
            registry.close()
            await asyncio.sleep(0)

    support.run_async(scenario())
    storage.engine.dispose()
