"""A database that cannot be reached just now: a request is refused with 503 ``unavailable`` and a
Retry-After (nothing done, not a server fault), a move on a WebSocket gets the same refusal and its
connection stays open, and once the database is back the same request goes through."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as support
import pytest
from sqlalchemy.exc import OperationalError

from masques.server.errors import UNAVAILABLE_RETRY
from masques.server.storage import Storage


@pytest.fixture(scope="module", params=support.BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """The app, writing from a thread of this process: the tests replace the storage's methods
    here, which a writing process of its own would not see."""
    url = support.fresh_database_url(request.param, tmp_path_factory.mktemp("server"))
    running = support.ThreadServer(url, bot_workers=2, writer="thread").start()
    yield running
    running.stop()


def _away(*args: Any, **kwargs: Any) -> None:
    raise OperationalError("INSERT ...", {}, ConnectionError("server closed the connection unexpectedly"))


def _refused(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.json() == {
        "code": "unavailable",
        "message": "the server cannot reach its database just now: nothing was done, try again in a moment",
        "retry_after": UNAVAILABLE_RETRY,
    }
    assert response.headers["retry-after"] == str(UNAVAILABLE_RETRY)


def test_a_request_the_database_cannot_serve_is_refused_with_503_and_does_nothing(
    server: Any, api: httpx.Client, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    body = {"game": "masker", "options": {"players": 2}, "seats": [{"kind": "human"}] * 2}
    before = len(support.all_match_ids(server.database_url))
    with monkeypatch.context() as patched:
        patched.setattr(Storage, "create_match", _away)
        _refused(api.post("/api/matches", json=body))
    assert len(support.all_match_ids(server.database_url)) == before
    assert "server closed the connection" not in caplog.text  # the driver's words are not logged
    assert api.post("/api/matches", json=body).status_code == 201  # back: the same request goes through


def _two_people_connected(api: httpx.Client, ws_url: str) -> tuple[str, list[Any], Any, int]:
    """A new match of two people, both connected: its id, their connections, the one to move and
    a legal move of theirs."""
    match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
    tokens = {seat: support.join(api, match_id, f"p{seat}", seat)["token"] for seat in (0, 1)}
    conns = support.seat_conns(ws_url, match_id, tokens)
    for conn in conns:
        conn.wait_version(0)
    mover = next(c for c in conns if c.state is not None and c.state["your_turn"])
    return match_id, conns, mover, mover.state["legal"][0]["id"]


def test_a_move_the_database_cannot_commit_is_refused_and_the_connection_stays(
    server: Any, api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id, conns, mover, action = _two_people_connected(api, server.ws_url)
    try:
        with monkeypatch.context() as patched:
            patched.setattr(Storage, "append_actions", _away)
            patched.setattr(Storage, "append_action", _away)
            mover.act(action, 0)
            refusal = mover.recv_type("error")
            assert (refusal["code"], refusal["version"]) == ("unavailable", 0)
            assert refusal["retry_after"] == UNAVAILABLE_RETRY
        assert support.summary(api, match_id)["version"] == 0  # nothing was done
        mover.act(action, 0)  # the same move, once the database is back
        assert mover.wait_version(1)["version"] == 1
        assert support.committed_actions(server.database_url, match_id) == [action]
    finally:
        for conn in conns:
            conn.close()


def test_a_move_whose_writing_process_dies_is_refused_and_the_same_move_then_goes_through(
    tmp_path: Path,
) -> None:
    """kill -9 of the process that writes a SQLite file, while it holds a move: the move is refused
    as one the database could not serve, the connection stays, and sent again it is written by the
    writing process started in its place."""
    running = support.ThreadServer(f"sqlite:///{tmp_path / 'site.db'}", bot_workers=1).start()
    try:
        with httpx.Client(base_url=running.base_url, timeout=support.TIMEOUT) as api:
            match_id, conns, mover, action = _two_people_connected(api, running.ws_url)
            try:
                commits = running.app.state.registry.commits
                writer = commits._process.pid
                os.kill(writer, signal.SIGSTOP)  # it takes the move but cannot write it
                mover.act(action, 0)
                deadline = time.monotonic() + support.TIMEOUT
                while not (commits._pending and not commits._unsent and not commits._out):
                    assert time.monotonic() < deadline, "the move never reached the writing process"
                    time.sleep(0.01)  # the move is sent to it, not yet answered
                os.kill(writer, signal.SIGKILL)
                refusal = mover.recv_type("error")
                assert (refusal["code"], refusal["version"]) == ("unavailable", 0)
                assert support.summary(api, match_id)["version"] == 0
                mover.act(action, 0)
                assert mover.wait_version(1)["version"] == 1
                assert support.committed_actions(running.database_url, match_id) == [action]
                assert running.app.state.registry.commits._process.pid != writer
            finally:
                for conn in conns:
                    conn.close()
    finally:
        running.stop()


def test_a_background_task_the_database_fails_logs_one_warning_line(caplog: pytest.LogCaptureFixture) -> None:
    """The sweep's rounds while the database is away: a warning naming the error's type, with no
    trace and none of the driver's words; any other failure keeps its full trace."""
    from masques.server.matches import log_failure

    caplog.set_level("WARNING", logger="masques.server")
    try:
        _away()
    except OperationalError:
        log_failure("checking the clocks failed; trying again later")
    try:
        raise ValueError("a bug")
    except ValueError:
        log_failure("%s of match %s failed; trying again", "the bot loop", "m1")
    away, bug = caplog.records[-2:]
    assert (away.levelname, away.exc_info) == ("WARNING", None)
    assert away.getMessage() == (
        "checking the clocks failed; trying again later (the database cannot be reached: OperationalError)"
    )
    assert "server closed" not in caplog.text
    assert bug.levelname == "ERROR" and bug.exc_info is not None
    assert bug.getMessage() == "the bot loop of match m1 failed; trying again"
