"""Memory holds only the matches in use: a finished or idle match leaves it and is rebuilt from its log
when asked for, and the lobby reads the database without bringing matches back."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import masques_server_support as support
import pytest

from masques.server import matches


def _wait(condition: object, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_unused_matches_leave_memory_and_come_back(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(matches, "IDLE_SECONDS", 0.3)
    server = support.ThreadServer(support.fresh_database_url(backend, tmp_path)).start()
    live = server.app.state.registry.matches
    try:
        with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
            bots = support.create_match(api, "masker", {"players": 2}, ["random", "random"])["id"]
            waiting = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
            watched = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
            watcher = support.Conn(server.ws_url, watched)
            watcher.first_state()
            _wait(lambda: support.summary(api, bots)["status"] == "finished", "the bots did not finish")
            final = support.summary(api, bots)
            _wait(lambda: bots not in live and waiting not in live, "idle matches stayed in memory")
            assert watched in live  # a connection keeps a match in memory

            listed = {m["id"]: m for m in api.get("/api/matches").json()}
            assert listed[bots]["status"] == "finished"
            assert listed[bots]["version"] == final["version"]
            assert listed[bots]["seats"] == [{**s, "connected": False} for s in final["seats"]]
            assert listed[waiting]["status"] == "open"
            assert bots not in live and waiting not in live  # the lobby did not load them

            assert support.summary(api, bots) == final  # rebuilt from the log on demand
            record = api.get(f"/api/matches/{bots}/record", params={"full": "true"}).json()
            assert record["actions"] == support.committed_actions(server.database_url, bots)
            assert support.join(api, waiting, "ann")["seat"] == 0
            watcher.close()
    finally:
        server.stop()
