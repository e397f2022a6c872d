"""Bots on ``masques worker`` processes fed through Redis: jobs run there, capacity follows the live
workers, a worker killed mid-move has its job taken by another, and no match hangs."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import suppress
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as support  # type: ignore[import-not-found]
import pytest
import redis
from typer.testing import CliRunner

from masques.cli.main import app as cli
from masques.engine import load_game
from masques.server import bot_queue
from masques.server.app import create_app
from masques.server.bot_queue import JOBS_PER_WORKER, QUEUE, WORKERLESS_SLOTS, WORKERS_KEY, RedisBotQueue
from masques.server.bots import FairQueue, bot_move

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A Redis database of its own for each test worker (12 to 15), emptied before and after: no
    other test may use these (test_scale_out's own is 10, test_accounts' 9, the benchmarks' 11)."""
    base = os.environ.get("MASQUES_TEST_REDIS_URL")
    assert base, "MASQUES_TEST_REDIS_URL is not set: run the tests with scripts/test.sh (it starts Redis)"
    index = 12 + int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0) % 4
    url = f"{base.rsplit('/', 1)[0]}/{index}"
    client = redis.Redis.from_url(url)
    client.flushdb()
    yield url
    client.flushdb()
    client.close()


class Workers:
    """``masques worker`` processes (one decision at a time each), each in its own process group."""

    def __init__(self, redis_url: str, folder: Path) -> None:
        self.redis_url = redis_url
        self.folder = folder
        self.procs: list[subprocess.Popen[bytes]] = []
        self.redis = redis.Redis.from_url(redis_url)

    def start(self) -> subprocess.Popen[bytes]:
        before = self.redis.zcard(WORKERS_KEY)
        log = (self.folder / f"worker{len(self.procs)}.log").open("ab")
        command = [sys.executable, "-m", "masques.cli.main", "worker", "--redis", self.redis_url]
        proc = subprocess.Popen(
            [*command, "--processes", "1", "--log-format", "text"],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            cwd=ROOT,
        )
        self.procs.append(proc)
        deadline = time.monotonic() + WAIT
        while self.redis.zcard(WORKERS_KEY) <= before:  # it says it is alive once it is ready
            assert proc.poll() is None, self.log(len(self.procs) - 1)
            assert time.monotonic() < deadline, "the worker did not come up"
            time.sleep(0.05)
        return proc

    def log(self, index: int) -> str:
        return (self.folder / f"worker{index}.log").read_text("utf-8", errors="replace")

    def stop(self) -> None:
        for proc in self.procs:
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGCONT)
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        self.redis.close()


@pytest.fixture
def workers(redis_url: str, tmp_path: Path) -> Iterator[Workers]:
    pool = Workers(redis_url, tmp_path)
    yield pool
    pool.stop()


def a_decision(level: str, seed: int) -> partial[int]:
    """A real bot decision on a Masker position: what the server sends to the workers."""
    state = load_game("masker", {}).new_initial_state(seed)
    seat = state.current_player
    return partial(
        bot_move,
        "masker",
        {},
        level,
        seat,
        observation=state.observation(seat),
        legal=state.legal_actions(),
        rng=random.Random(seed),
    )


def in_progress(client: redis.Redis) -> set[bytes]:
    return {key.removeprefix(b"arq:in-progress:") for key in client.keys("arq:in-progress:*")}


def test_jobs_wait_for_a_worker_run_on_the_workers_and_the_slots_follow_them(
    redis_url: str, workers: Workers
) -> None:
    async def scenario() -> None:
        queue = FairQueue(1, WAIT, partial(RedisBotQueue, redis_url))
        assert isinstance(queue.pool, RedisBotQueue)
        queue.pool.start()
        try:
            waiting = queue.run("ann", a_decision("easy", 1))
            await asyncio.sleep(1.0)
            assert not waiting.done(), "no worker runs: the job waits in the queue"
            deadline = time.monotonic() + WAIT
            while not queue.pool.workerless:  # counted: none alive, decisions wait side by side
                assert time.monotonic() < deadline, "the workers were not counted"
                await asyncio.sleep(0.05)
            assert queue.slots == WORKERLESS_SLOTS
            await asyncio.to_thread(workers.start)
            assert await asyncio.wait_for(waiting, WAIT) in a_decision("easy", 1).keywords["legal"]

            await asyncio.to_thread(workers.start)
            deadline = time.monotonic() + WAIT
            while queue.slots < 2 * JOBS_PER_WORKER:  # the second worker is counted: two at once
                assert time.monotonic() < deadline, "the second worker was not counted"
                await asyncio.sleep(0.05)
            jobs = [queue.run(owner, a_decision("hard", seed)) for owner, seed in (("ann", 2), ("bob", 3))]
            both = False
            while not all(job.done() for job in jobs) and not both:
                both = len(in_progress(workers.redis)) == 2  # each worker holds one of them
                await asyncio.sleep(0.005)
            assert both, "the two decisions never ran at the same time on the two workers"
            for job, seed in zip(jobs, (2, 3), strict=True):
                assert await asyncio.wait_for(job, WAIT) in a_decision("hard", seed).keywords["legal"]

            with pytest.raises(ValueError, match="invalid literal"):  # a job's error comes back
                await asyncio.wait_for(queue.run("ann", partial(int, "x")), WAIT)
        finally:
            queue.close()

    support.run_async(scenario())


def test_results_come_back_on_the_reply_list_and_without_one_through_the_sweep(
    redis_url: str, workers: Workers, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker pushes each result to its web process's reply list, which the process waits on: no
    sweep is needed.  A result stored without a reply (a job queued with none) is swept up."""
    workers.start()
    monkeypatch.setattr(bot_queue, "SWEEP_SECONDS", 3600.0)

    async def scenario() -> None:
        queue = RedisBotQueue(redis_url)
        queue.start()
        try:
            await asyncio.sleep(0.2)  # the poller's first sweep, before any job
            decision = a_decision("easy", 4)
            action = await asyncio.wait_for(asyncio.wrap_future(queue.submit(decision)), WAIT)
            assert action in decision.keywords["legal"]
            deadline = time.monotonic() + WAIT
            while not workers.redis.keys("arq:result:*"):  # arq stores it once the job has returned
                assert time.monotonic() < deadline, "the worker stored no result"
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.3)
            assert workers.redis.keys("arq:result:*"), "the result came back although nothing swept for it"

            monkeypatch.setattr(bot_queue, "SWEEP_SECONDS", 0.2)
            pool = await queue._connection()
            future: concurrent.futures.Future[int] = concurrent.futures.Future()
            queue.pending["no-reply"] = future
            await pool.enqueue_job("run_job", decision, None, _job_id="no-reply", _queue_name=QUEUE)
            assert await asyncio.wait_for(asyncio.wrap_future(future), WAIT) in decision.keywords["legal"]
            assert not workers.redis.exists("arq:result:no-reply"), "a swept result is deleted"
        finally:
            queue.shutdown()

    support.run_async(scenario())


@pytest.mark.slow
def test_a_worker_killed_mid_move_has_its_job_taken_by_another_and_no_match_hangs(
    redis_url: str, workers: Workers, tmp_path: Path
) -> None:
    victim = workers.start()  # alone at first: any job held is its own
    url = support.fresh_database_url("sqlite", tmp_path)
    server = support.ServerProcess(
        url,
        support.free_port(),
        tmp_path / "server.log",
        redis_url=redis_url,
        env={"MASQUES_BOT_QUEUE": "redis", "MASQUES_LOG_FORMAT": "text"},
    ).start()
    try:
        # Two clients (two loopback addresses): one client's bots may hold all slots but one.
        clients = [
            httpx.Client(
                base_url=server.base_url,
                timeout=support.TIMEOUT,
                transport=httpx.HTTPTransport(local_address=address),
            )
            for address in ("127.0.0.1", "127.0.0.2")
        ]
        with clients[0] as api, clients[1] as other:
            matches = [
                support.create_match(client, "masker", {}, ["medium", "medium"], seed=seed)["id"]
                for client, seed in ((api, 5), (other, 6))
            ]
            taken = _freeze_a_worker_holding_a_job(workers, victim)
            survivor = workers.start()
            os.killpg(victim.pid, signal.SIGKILL)  # the frozen worker dies without a word
            victim.wait(timeout=10)

            deadline = time.monotonic() + 180
            while not all(support.summary(api, m)["status"] == "finished" for m in matches):
                assert time.monotonic() < deadline, f"a match hung:\n{server.log()}"
                time.sleep(0.25)
        assert survivor.poll() is None
        # The worker names what the job was for: its match and seat.
        took_over = rf"bot job {taken.decode()} taken over \(try 2\): match (\w+) seat (\d)"
        took = re.search(took_over, workers.log(1))
        assert took is not None and took[1] in matches and took[2] in "01", workers.log(1)
        log = (tmp_path / "server.log").read_text("utf-8")
        assert " failed at " not in log, "every decision came from its own level: none was replayed lower"
    finally:
        server.stop()


def _children(pid: int) -> set[int]:
    """The worker processes a ``masques worker`` started (not multiprocessing's helpers)."""
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False)
    workers = set()
    for child in map(int, found.stdout.split()):
        with suppress(OSError):
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                workers.add(child)
    return workers


def test_a_single_worker_that_dies_is_replaced(workers: Workers) -> None:
    """``masques worker --processes 1`` keeps its one worker running: one that dies (its Redis went
    away a moment, say) is replaced, as with several."""
    supervisor = workers.start()
    [first] = _children(supervisor.pid)
    before = workers.redis.zcard(WORKERS_KEY)
    os.kill(first, signal.SIGKILL)
    deadline = time.monotonic() + WAIT
    while not (_children(supervisor.pid) - {first}) or workers.redis.zcard(WORKERS_KEY) <= before:
        assert supervisor.poll() is None, workers.log(0)
        assert time.monotonic() < deadline, "no new worker came up"
        time.sleep(0.1)


def _freeze_a_worker_holding_a_job(workers: Workers, victim: subprocess.Popen[bytes]) -> bytes:
    """Stop ``victim``, the only worker, while it holds a job, and return that job's id.  (With two
    workers, telling which one held a job by which job outlived the other's took a job that the
    victim had just finished for the victim's, on a busy machine.)"""
    for _ in range(20):
        deadline = time.monotonic() + WAIT
        while not in_progress(workers.redis):
            assert time.monotonic() < deadline, "the worker never held a job"
            time.sleep(0.002)
        os.killpg(victim.pid, signal.SIGSTOP)
        held = in_progress(workers.redis)  # its lease outlives it a few seconds: read at once
        if len(held) == 1:
            return held.pop()
        os.killpg(victim.pid, signal.SIGCONT)  # it finished just before: try again
    raise AssertionError("could not catch the worker in the middle of a decision")


def test_the_redis_queue_needs_a_redis_url_and_the_worker_needs_its_redis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from masques.server import logs

    # the command would point the process's log handlers at the runner's stream, closed afterwards
    monkeypatch.setattr(logs, "configure", lambda level, fmt: None)
    url = f"sqlite:///{tmp_path / 'm.db'}"
    with pytest.raises(ValueError, match="Redis URL"):
        create_app(url, bot_queue="redis")
    with pytest.raises(ValueError, match="embedded, redis"):
        create_app(url, bot_queue="cloud")
    runner = CliRunner()
    refused = runner.invoke(cli, ["worker"], env={"MASQUES_REDIS_URL": ""})
    assert refused.exit_code == 2
    assert "--redis" in refused.output
    refused = runner.invoke(cli, ["serve", "--database", url, "--bot-queue", "redis"])
    assert refused.exit_code == 2
    assert "Redis URL" in refused.output


def test_a_queue_whose_redis_stays_away_fails_each_job_after_its_patience_and_tries_again_for_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The job tries again while Redis may come back, then fails (its bot falls back a level);
    the next job connects afresh."""
    monkeypatch.setattr(bot_queue, "ENQUEUE_RETRY_SECONDS", 0.05)

    async def scenario() -> None:
        # nothing listens there
        queue = RedisBotQueue(f"redis://127.0.0.1:{support.free_port()}/0", patience=0.5)
        tries = 0
        connect = queue._connect

        async def counted() -> Any:
            nonlocal tries
            tries += 1
            return await connect()

        queue._connect = counted  # type: ignore[method-assign]
        try:
            for job in range(1, 3):
                with pytest.raises(redis.ConnectionError):
                    await asyncio.wait_for(asyncio.wrap_future(queue.submit(os.getpid)), WAIT)
                assert tries > 2 * job, "the job did not try again"
                assert queue._connecting is None  # the next job connects afresh
        finally:
            queue.shutdown()

    support.run_async(scenario())


def test_a_decision_waits_for_redis_to_come_back(
    redis_url: str, workers: Workers, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis away a moment (a restart): the decision is made when it is back, by the bot asked
    for, rather than failing at once and being played a level lower."""
    monkeypatch.setattr(bot_queue, "ENQUEUE_RETRY_SECONDS", 0.05)
    workers.start()

    async def scenario() -> None:
        queue = RedisBotQueue(redis_url, patience=WAIT)
        away = 3
        connect = queue._connect

        async def comes_back() -> Any:
            nonlocal away
            if away:
                away -= 1
                raise redis.ConnectionError("Redis is restarting")
            return await connect()

        queue._connect = comes_back  # type: ignore[method-assign]
        queue.start()
        try:
            decided = await asyncio.wait_for(asyncio.wrap_future(queue.submit(a_decision("easy", 4))), WAIT)
            assert decided in a_decision("easy", 4).keywords["legal"] and away == 0
        finally:
            queue.shutdown()

    support.run_async(scenario())


def test_a_job_given_up_while_no_worker_was_alive_is_skipped_by_the_worker_that_comes_later(
    redis_url: str, workers: Workers, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A decision nobody took in its time was played otherwise: the job expires in the queue, the
    web process lets go of it, and a worker that starts later does not think for nobody."""
    monkeypatch.setattr(bot_queue, "SWEEP_SECONDS", 0.1)
    monkeypatch.setattr(bot_queue, "LEASE_SECONDS", 0.3)
    given_up, still_wanted = tmp_path / "given-up", tmp_path / "still-wanted"

    async def scenario() -> None:
        late = RedisBotQueue(redis_url, patience=0.5)
        patient = RedisBotQueue(redis_url, patience=WAIT)
        late.start()
        patient.start()
        try:
            skipped = asyncio.wrap_future(late.submit(partial(os.makedirs, str(given_up))))
            with pytest.raises(TimeoutError, match="expired"):
                await asyncio.wait_for(skipped, WAIT)
            assert not late.pending and not late.deadlines
            await asyncio.sleep(0.3)  # the job's time in the queue is over
            wanted = asyncio.wrap_future(patient.submit(partial(os.makedirs, str(still_wanted))))
            await asyncio.to_thread(workers.start)
            await asyncio.wait_for(wanted, WAIT)  # taken after the expired one, which went first
        finally:
            late.shutdown()
            patient.shutdown()

    support.run_async(scenario())
    assert still_wanted.is_dir() and not given_up.exists()
    assert "expired" in workers.log(0)
