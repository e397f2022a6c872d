"""What an operator watches: /healthz (alive), /readyz (database and Redis answer) and Prometheus
metrics at /metrics that move with the play (actions, a person's move latency, bot think time,
refusals by code, live matches and connections)."""

from __future__ import annotations

import asyncio
import random
import re
import time
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as support
import pytest

from masques.server.storage import Storage


def sample(text: str, name: str, labels: str = "") -> float:
    """One sample's value in a Prometheus exposition (0 when absent)."""
    pattern = re.compile(rf"^{re.escape(name)}{re.escape(labels)} (\S+)$", re.MULTILINE)
    found = pattern.search(text)
    return float(found.group(1)) if found else 0.0


def scrape(api: httpx.Client) -> str:
    response = api.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return response.text


def test_health_and_readiness(server: Any, api: httpx.Client) -> None:
    assert api.get("/healthz").json() == {"status": "ok"}
    ready = api.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {"status": "ready", "database": "ok", "redis": "off"}
    for path in ("/healthz", "/readyz", "/", "/rules/maske"):  # as uptime monitors ask: HEAD, no body
        head = api.head(path)
        assert head.status_code == 200 and head.content == b"", path


def test_readiness_fails_while_the_database_does_not_answer(
    server: Any, api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(_self: Storage) -> None:
        raise ConnectionError("the database is down")

    monkeypatch.setattr(Storage, "ping", down)
    ready = api.get("/readyz")
    assert ready.status_code == 503
    assert ready.json() == {"status": "not ready", "database": "failing: ConnectionError", "redis": "off"}
    assert api.get("/healthz").status_code == 200  # alive all the same


def test_a_database_that_hangs_holds_one_thread_and_readiness_comes_back_with_it(
    server: Any, api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Probes that give up on a hung database wait for the one ping in flight instead of each
    leaving a thread stuck in the pool that also hashes passwords and serves the rules: the site
    keeps serving, and is ready again as soon as the database answers."""
    import threading

    from masques.server import app as app_module

    answers = threading.Event()
    pings: list[int] = []

    def hung(_self: Storage) -> None:
        pings.append(1)
        answers.wait(60)

    monkeypatch.setattr(Storage, "ping", hung)
    monkeypatch.setattr(app_module, "READY_TIMEOUT", 0.2)
    try:
        for _ in range(12):  # twice the default pool's threads on a 2-core machine
            ready = api.get("/readyz")
            assert ready.status_code == 503 and ready.json()["database"] == "failing: TimeoutError"
        assert len(pings) == 1
        assert api.get("/api/rules/masker").status_code == 200  # the pool still has its threads
    finally:
        answers.set()
    for _ in range(50):
        if api.get("/readyz").status_code == 200:
            break
    else:
        raise AssertionError("not ready again once the database answers")


def test_metrics_move_with_the_play(server: Any, api: httpx.Client) -> None:
    before = scrape(api)
    match_id = support.create_match(api, "masker", {"players": 2}, ["human", "easy"], seed=11)["id"]
    token = support.join(api, match_id, "Ann", 0)["token"]
    conns = support.seat_conns(server.ws_url, match_id, {0: token})
    during = scrape(api)
    assert sample(during, "masques_connections") >= 1 and sample(during, "masques_live_matches") >= 1
    conns[0].send({"type": "action", "action": -1, "version": 0})  # refused: counted by its code
    conns[0].drain(0.3)
    acked = support.play_to_end(conns, random.Random(3))
    api.get("/api/matches/0123456789abcdef")  # 404 no_match
    after = scrape(api)
    for conn in conns:
        conn.close()

    people = sample(after, "masques_actions_total", '{by="person"}') - sample(
        before, "masques_actions_total", '{by="person"}'
    )
    bots = sample(after, "masques_actions_total", '{by="bot"}') - sample(
        before, "masques_actions_total", '{by="bot"}'
    )
    assert people >= len(acked) > 0 and bots > 0
    moves = sample(after, "masques_human_move_seconds_count") - sample(
        before, "masques_human_move_seconds_count"
    )
    assert moves >= len(acked)
    commits = sample(after, "masques_move_commit_seconds_count") - sample(
        before, "masques_move_commit_seconds_count"
    )
    assert commits == people + bots  # every committed action, a person's or a bot's, once
    assert sample(after, "masques_bot_think_seconds_count") > sample(
        before, "masques_bot_think_seconds_count"
    )
    for code in ("no_match",):
        assert sample(after, "masques_errors_total", f'{{code="{code}"}}') > sample(
            before, "masques_errors_total", f'{{code="{code}"}}'
        )
    refused = [
        code
        for code in ("illegal_action", "bad_action", "stale_version")
        if sample(after, "masques_errors_total", f'{{code="{code}"}}')
        > sample(before, "masques_errors_total", f'{{code="{code}"}}')
    ]
    assert refused, "the refused action was not counted"
    assert "masques_bot_queue_depth" in after and "masques_bots_running" in after
    assert sample(after, "masques_event_loop_lag_seconds_count") > sample(
        before, "masques_event_loop_lag_seconds_count"
    )
    assert match_id not in after and token not in after  # no label names a match or a seat


def test_the_event_loops_lag_shows_a_loop_held_up(tmp_path: Path) -> None:
    """A process near its capacity shows first in how late its timers run: a loop held for 0.3 s
    (blocking work, a long collector pause) is seen as a lag over 0.1 s, and a loop that runs
    freely as lags under 50 ms."""

    async def scenario() -> tuple[float, float, float]:
        async with support.sqlite_registry(tmp_path) as registry:
            await registry.start()
            try:
                metrics = registry.metrics.registry
                await asyncio.sleep(0.5)  # free: a few timers on time
                free = metrics.get_sample_value("masques_event_loop_lag_seconds_bucket", {"le": "0.05"}) or 0
                time.sleep(0.3)  # held, as by work that does not yield
                await asyncio.sleep(0.25)
                count = metrics.get_sample_value("masques_event_loop_lag_seconds_count") or 0
                under = metrics.get_sample_value("masques_event_loop_lag_seconds_bucket", {"le": "0.1"}) or 0
                return free, count, under
            finally:
                await registry.stop()

    free, count, under = support.run_async(scenario())
    assert free >= 3  # every 0.1 s while the loop ran freely
    assert count - under >= 1  # the held loop: a timer ran more than 0.1 s late
