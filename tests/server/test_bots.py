"""Bots in the server: the fair queue in front of the workers, and a bot that fails never stops a match
(it is tried again, then a lower level plays, and at last a random move is drawn in the server)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import logging
import random
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as support
import pytest

from masques.server import bots, matches
from masques.server.bots import FairQueue, decide


def _threads(slots: int) -> Callable[[], concurrent.futures.Executor]:
    return lambda: concurrent.futures.ThreadPoolExecutor(max_workers=slots)


def test_the_queue_gives_a_waiting_client_the_next_slot() -> None:
    """One client's six decisions cannot make another client's one wait behind all of them."""
    started: list[str] = []
    release = threading.Event()

    def job(name: str) -> Callable[[], int]:
        def run() -> int:
            started.append(name)
            release.wait(10)
            return 0

        return run

    async def started_at_least(count: int) -> None:
        """The jobs handed to the pool have begun (a loaded machine starts a thread late)."""
        deadline = time.monotonic() + 10
        while len(started) < count:
            assert time.monotonic() < deadline, started
            await asyncio.sleep(0.01)

    async def scenario() -> None:
        queue = FairQueue(2, 30.0, _threads(2))
        greedy = [queue.run("a", job(f"a{i}")) for i in range(6)]
        await started_at_least(1)
        await asyncio.sleep(0.1)  # time for a second job to begin, were one handed out
        assert started == ["a0"]  # alone, a client leaves a slot free for the next one
        other = queue.run("b", job("b0"))
        await started_at_least(2)
        assert started == ["a0", "b0"]  # which starts at once
        release.set()
        await asyncio.wait_for(asyncio.gather(*greedy, other), 10)
        queue.close()

    support.run_async(scenario())
    assert started[:3] == ["a0", "b0", "a1"], started


def test_a_client_holds_no_more_than_its_share_while_others_wait() -> None:
    starts: list[tuple[str, int]] = []  # (owner, how many of a's jobs run, this one included)
    queued = threading.Event()  # b's jobs are queued: no job of a's ends before (however slow the loop)

    async def scenario() -> None:
        queue = FairQueue(4, 30.0, _threads(4))
        running = {"a": 0, "b": 0}
        lock = threading.Lock()

        def job(owner: str) -> Callable[[], int]:
            def run() -> int:
                with lock:
                    running[owner] += 1
                    starts.append((owner, running["a"]))
                queued.wait(10)
                time.sleep(0.05)
                with lock:
                    running[owner] -= 1
                return 0

            return run

        futures = [queue.run("a", job("a")) for _ in range(12)]
        await asyncio.sleep(0.01)
        futures += [queue.run("b", job("b")) for _ in range(12)]
        queued.set()
        await asyncio.wait_for(asyncio.gather(*futures), 20)
        queue.close()

    support.run_async(scenario())
    first_b = next(i for i, (owner, _) in enumerate(starts) if owner == "b")
    later_a = [count for owner, count in starts[first_b:] if owner == "a"]
    assert later_a and max(later_a) <= 2  # with b waiting too, a holds at most half of the 4 slots
    assert [owner for owner, _ in starts[:4]] == ["a", "a", "a", "b"]  # alone, a left one slot free


def test_a_decision_that_runs_too_long_times_out() -> None:
    async def scenario() -> None:
        queue = FairQueue(1, 0.2, _threads(1))
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(queue.run("a", lambda: time.sleep(1) or 0), 5)
        queue.close()

    support.run_async(scenario())


def test_a_decision_that_fails_after_its_pool_was_replaced_is_not_reported_as_lost() -> None:
    """A stuck decision makes the queue replace its pool; when the old worker ends at last, with an
    error, the queue reads that error (it settled the decision at the restart) instead of leaving
    it to the event loop's "exception was never retrieved" traceback."""

    def late_failure() -> int:
        time.sleep(0.5)
        raise RuntimeError("the old worker's error")

    async def scenario() -> list[str]:
        reports: list[str] = []
        asyncio.get_running_loop().set_exception_handler(lambda _loop, ctx: reports.append(ctx["message"]))
        queue = FairQueue(1, 0.1, _threads(1))
        with pytest.raises(TimeoutError):
            await queue.run("a", late_failure)
        await asyncio.sleep(0.2)
        assert queue.generation == 1  # stuck for twice its time: the pool was replaced
        await asyncio.sleep(0.5)  # the old worker fails meanwhile
        gc.collect()
        await asyncio.sleep(0.05)
        queue.close()
        return reports

    assert support.run_async(scenario()) == []


def test_a_failing_level_gives_way_to_the_next_lower_one(caplog: pytest.LogCaptureFixture) -> None:
    tried: list[str] = []

    def make_job(level: str) -> Callable[[], int]:
        def run() -> int:
            tried.append(level)
            if level == "expert":
                raise RuntimeError("boom")
            if level == "hard":
                return 99  # not a legal action
            return 3

        return run

    async def scenario() -> tuple[int, str]:
        queue = FairQueue(1, 5.0, _threads(1))
        try:
            return await decide(
                queue, "a", make_job, kind="expert", legal=[1, 3], fallback_rng=random.Random(0), where="t"
            )
        finally:
            queue.close()

    with caplog.at_level(logging.WARNING, logger="masques.server.bots"):
        assert support.run_async(scenario()) == (3, "medium")
    assert tried == ["expert", "expert", "hard", "medium"]  # tried twice, then once per level
    assert "RuntimeError" in caplog.text and "boom" not in caplog.text


def test_when_every_level_fails_a_random_legal_move_is_drawn() -> None:
    def broken(_level: str) -> Callable[[], int]:
        def run() -> int:
            raise ValueError("never")

        return run

    async def scenario() -> tuple[int, str]:
        queue = FairQueue(1, 5.0, _threads(1))
        try:
            return await decide(
                queue, "a", broken, kind="hard", legal=[4, 8, 15], fallback_rng=random.Random(1), where="t"
            )
        finally:
            queue.close()

    action, level = support.run_async(scenario())
    assert level == "random" and action in (4, 8, 15)


class _NoWorkerAlive(concurrent.futures.Executor):
    """Workers elsewhere, none of them alive: a job waits, never taken."""

    workerless = True

    def __init__(self) -> None:
        self.jobs: list[concurrent.futures.Future[Any]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        self.jobs.append(concurrent.futures.Future())
        return self.jobs[-1]


def test_a_queue_of_workers_elsewhere_is_let_go_of_on_the_event_loop_when_replaced() -> None:
    """A pool that is not this process's own (the Redis queue's tasks and connections belong to the
    event loop) is shut down on the loop when a stuck decision replaces it, not on a thread where
    its tasks could not be cancelled nor its connections closed."""

    stopped_on: list[str] = []

    class LoopBound(concurrent.futures.ThreadPoolExecutor):
        def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
            try:
                asyncio.get_running_loop()
                stopped_on.append("loop")
            except RuntimeError:
                stopped_on.append("another thread")
            super().shutdown(wait=False, cancel_futures=cancel_futures)

    async def scenario() -> list[str]:
        queue = FairQueue(1, 0.1, lambda: LoopBound(max_workers=1))
        with pytest.raises(TimeoutError):
            await queue.run("a", partial(time.sleep, 0.5))
        await asyncio.sleep(0.3)
        assert queue.generation == 1  # stuck for twice its time: the pool was replaced
        queue.close()
        return stopped_on

    assert support.run_async(scenario()) == ["loop", "loop"]


def test_with_no_worker_alive_a_timed_out_decision_is_drawn_at_once_and_frees_its_slot() -> None:
    """No lower level would be taken either: after one bot timeout the move is drawn here, and the
    slot that waited is free for the next match's decision (not held for a second timeout)."""

    async def scenario() -> None:
        pool = _NoWorkerAlive()
        queue = FairQueue(1, 0.2, lambda: pool)
        try:
            moves = [
                decide(
                    queue,
                    owner,
                    lambda level: int,
                    kind="hard",
                    legal=[4, 8],
                    fallback_rng=random.Random(2),
                    where="t",
                )
                for owner in ("a", "b")
            ]
            for action, level in await asyncio.wait_for(asyncio.gather(*moves), 5):
                assert level == "random" and action in (4, 8)
            assert len(pool.jobs) == 2  # one try each, side by side in turn through the one slot
            assert not queue.in_flight
        finally:
            queue.close()

    support.run_async(scenario())


@pytest.mark.parametrize("backend", support.BACKENDS)
def test_a_bot_that_raises_does_not_hang_its_match(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Hard always raises; medium outlives its time on its first three decisions and raises after:
    every decision falls down the levels, and the match is played to its end anyway.  (Only the first
    few time out: a timeout costs its whole time, and a match has dozens of decisions.)"""
    real = bots.bot_move
    timeouts = [3]  # medium decisions left to time out

    def flaky(game: str, options: dict[str, Any], kind: str, seat: int, **kw: Any) -> int:
        if kind == "hard":
            raise RuntimeError("a bug in the bot")
        if kind == "medium":
            if timeouts[0] <= 0:
                raise RuntimeError("another bug in the bot")
            timeouts[0] -= 1
            time.sleep(2)
        return real(game, options, kind, seat, **kw)

    monkeypatch.setattr(matches, "bot_move", flaky)
    url = support.fresh_database_url(backend, tmp_path)
    limits = support.RELAXED.__class__(**{**support.RELAXED.__dict__, "bot_timeout": 0.5})
    server = support.ThreadServer(url, limits=limits, bot_pool=_threads(4)).start()
    try:
        with (
            caplog.at_level(logging.WARNING, logger="masques.server.bots"),
            httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api,
        ):
            match_id = support.create_match(api, "masker", {"players": 2}, ["hard", "hard"])["id"]
            deadline = time.monotonic() + support.GAME_TIMEOUT
            while support.summary(api, match_id)["status"] != "finished":
                assert time.monotonic() < deadline, "the match hung"
                time.sleep(0.2)
            # Every failure names its match and seat as fields.  The patched bot_move is the
            # module's, so the test session's shared server logs failures of its own matches here
            # too: the checks below read this match's.
            failed = [r for r in caplog.records if r.getMessage().startswith("bot ")]
            assert all(
                isinstance(getattr(r, "seat", None), int) and getattr(r, "match", None) for r in failed
            )
            mine = [r.getMessage() for r in failed if r.match == match_id]  # type: ignore[attr-defined]
            assert {r.seat for r in failed if r.match == match_id} == {0, 1}  # type: ignore[attr-defined]
            assert any(m.startswith("bot hard failed") for m in mine)
            medium = [m for m in mine if m.startswith("bot medium")]
            assert [m.endswith("TimeoutError") for m in medium[:4]] == [True, True, True, False]
            record = api.get(f"/api/matches/{match_id}/record", params={"full": "true"}).json()
            assert record["actions"] == support.committed_actions(url, match_id)
    finally:
        server.stop()
