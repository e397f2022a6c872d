"""Bots on worker processes anywhere: decisions go through a job queue in Redis (arq).

A site that outgrows one machine runs ``masques serve --bot-queue redis`` for web traffic and
``masques worker`` on as many machines as it likes for bots.  The web process only enqueues jobs (the
same pickled calls the embedded pool runs: bot decisions and analyses) and applies their results;
its :class:`~masques.server.bots.FairQueue` keeps two slots per live worker (the decision a worker
thinks about and its next), so adding a worker anywhere adds capacity.  Redis must be trusted: jobs
and results are pickles.

A worker pushes each result onto its web process's own reply list, which that process waits on with
``BLPOP``: a result is applied as soon as it exists, and nothing polls while the bots think.  (arq's
stored result stays a fallback, swept every second, for a job that ended without a reply.)

A worker holds a job under a short lease that it renews while it thinks.  A worker that dies
(``kill -9``, a lost machine) stops renewing; when the lease runs out the job is back in the queue
and another worker takes it, so the decision is made and the match goes on.  A worker that is only
slow past its lease may see its job run twice: decisions are pure, the first result counts.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import pickle
import signal
import time
import uuid
from collections.abc import Callable
from functools import partial
from typing import Any

from ..extras import require
from .bots import Labelled
from .workers import leave_with_parent

log = logging.getLogger("masques.server.bot_queue")

QUEUE = "masques:bots"
"""The arq queue bot jobs go through."""
WORKERS_KEY = "masques:bots:workers"
"""A sorted set: each live worker's id, scored by the time it last renewed its leases."""
LEASE_SECONDS = 3.0
"""How long a job stays with a worker that stopped answering before another may take it."""
POLL_SECONDS = 0.01
"""How often an idle worker looks for a job."""
RESULT_SECONDS = 300
"""The longest a job may run; and how long a reply list outlives its last reply."""
KEPT_SECONDS = 60
"""How long arq keeps a job's result, the fallback for a reply that never came."""
SWEEP_SECONDS = 1.0
"""How often the web process looks for such results."""
JOBS_PER_WORKER = 2
"""Jobs a web process keeps out per live worker: each worker's current decision and its next, already
waiting in the queue, so that no worker idles while a result travels back and the next job comes."""
REPLIES = "masques:bots:replies:"
"""Each web process's reply list: this prefix and the process's own id."""
JOB_TRIES = 3
"""Workers one job may be given to (after the first died, the second ...)."""
SHORTEST_EXPIRY = 0.01
"""Seconds: the least time a job is left in the queue for (Redis refuses a key with no time to live)."""


def _queue_unavailable() -> None:
    require("redis", "bot workers on a queue in Redis")
    require("arq", "bot workers on a queue in Redis")


# -- the worker side ----------------------------------------------------------------------------


async def run_job(
    ctx: dict[str, Any],
    job: Callable[[], Any],
    reply_to: str | None = None,
    fields: dict[str, Any] | None = None,
) -> Any:
    """A queued job, run in a thread so that the worker's loop keeps renewing its lease; its result
    (or its error) is pushed onto ``reply_to``, the list its web process waits on.  ``fields``: what
    the job is for (its match and seat), in this worker's log lines about it."""
    about = "".join(f" {name} {value}" for name, value in (fields or {}).items())
    if ctx.get("job_try", 1) > 1:
        log.info("bot job %s taken over (try %d):%s", ctx.get("job_id"), ctx["job_try"], about, extra=fields)
    try:
        result = await asyncio.to_thread(job)
    except Exception as exc:
        log.warning("bot job %s failed:%s: %s", ctx.get("job_id"), about, type(exc).__name__, extra=fields)
        if reply_to:
            await _reply(ctx, reply_to, (ctx.get("job_id"), False, exc))
        raise
    if reply_to:
        await _reply(ctx, reply_to, (ctx.get("job_id"), True, result))
    return result


async def _reply(ctx: dict[str, Any], reply_to: str, reply: tuple[Any, bool, Any]) -> None:
    try:
        body = pickle.dumps(reply)
    except Exception:  # an error that does not pickle goes back as its text
        body = pickle.dumps((reply[0], False, RuntimeError(repr(reply[2]))))
    async with ctx["redis"].pipeline(transaction=False) as pipe:
        pipe.rpush(reply_to, body)
        pipe.expire(reply_to, RESULT_SECONDS)
        await pipe.execute()


def make_worker(redis_url: str, worker_id: str | None = None) -> Any:
    """An arq worker for bot jobs, one job at a time, whose leases last :data:`LEASE_SECONDS`."""
    _queue_unavailable()
    from arq.connections import RedisSettings
    from arq.constants import in_progress_key_prefix
    from arq.worker import Worker, func

    name = worker_id or f"{os.uname().nodename}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
    lease_ms = int(LEASE_SECONDS * 1000)

    class BotWorker(Worker):
        """Renews the lease of its running job (arq's own lasts the job's whole time limit) and says
        it is alive, so the web processes count it."""

        def __init__(self) -> None:
            super().__init__(
                functions=[func(run_job, name="run_job")],
                redis_settings=RedisSettings.from_dsn(redis_url),
                queue_name=QUEUE,
                max_jobs=1,
                poll_delay=POLL_SECONDS,
                job_timeout=RESULT_SECONDS,
                keep_result=KEPT_SECONDS,
                max_tries=JOB_TRIES,
                handle_signals=True,
            )
            self.in_progress_timeout_s = LEASE_SECONDS
            self.worker_name = name
            self._renewed = 0.0

        async def heart_beat(self) -> None:
            await super().heart_beat()
            now = time.time()
            if now - self._renewed < LEASE_SECONDS / 4:
                return
            self._renewed = now
            async with self.pool.pipeline(transaction=False) as pipe:
                for job_id in self.tasks:
                    pipe.pexpire(in_progress_key_prefix + job_id, lease_ms)
                pipe.zadd(WORKERS_KEY, {self.worker_name: now})
                await pipe.execute()

        async def close(self) -> None:
            with contextlib.suppress(Exception):
                await self.pool.zrem(WORKERS_KEY, self.worker_name)
            await super().close()

    return BotWorker()


def run_worker(redis_url: str, worker_id: str | None = None, logs: tuple[str, str] | None = None) -> None:
    """One worker in this process until SIGTERM or SIGINT; ``logs`` (level, format) sets its
    logging up as its parent's (a child process starts without it)."""
    if logs is not None:
        from .logs import configure

        configure(*logs)
    logging.getLogger("arq").setLevel(logging.WARNING)  # arq logs every job at info
    worker = make_worker(redis_url, worker_id)
    log.info("bot worker %s ready", worker.worker_name)
    worker.run()


def run_workers(
    redis_url: str, processes: int, *, restart_seconds: float = 1.0, logs: tuple[str, str] | None = None
) -> None:
    """``processes`` workers, each a child process kept running until SIGTERM or SIGINT stops them
    all: one that dies (its Redis went away, say) is replaced, also when there is only one.  Children
    that die young are replaced less and less often (up to every 30 s), so that a Redis that stays
    down costs no stream of new processes."""
    _queue_unavailable()
    context = multiprocessing.get_context("spawn")
    children: list[tuple[Any, float]] = []  # (process, when it started)
    stopping = False
    wait = restart_seconds

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        while not stopping:
            now = time.monotonic()
            died_young = any(not c.is_alive() and now - born < YOUNG_SECONDS for c, born in children)
            wait = min(MAX_RESTART_WAIT, wait * 2) if died_young else restart_seconds
            children = [(c, born) for c, born in children if c.is_alive()]
            if len(children) < processes and died_young:
                log.warning("a bot worker stopped soon after its start: the next in %.0f s", wait)
                until = time.monotonic() + wait
                while not stopping and time.monotonic() < until:
                    time.sleep(0.2)
                if stopping:
                    break
            while len(children) < processes:
                child = context.Process(
                    target=_supervised_worker, args=(os.getpid(), redis_url, logs), daemon=False
                )
                child.start()
                children.append((child, time.monotonic()))
            time.sleep(restart_seconds)
    finally:
        for child, _ in children:
            if child.is_alive() and child.pid is not None:
                os.kill(child.pid, signal.SIGTERM)
        for child, _ in children:
            child.join(timeout=10)
            if child.is_alive():
                child.kill()


def _supervised_worker(supervisor: int, redis_url: str, logs: tuple[str, str] | None) -> None:
    """A worker of :func:`run_workers`: it ends with its supervisor, killed or not."""
    leave_with_parent(supervisor)
    run_worker(redis_url, None, logs)


YOUNG_SECONDS = 10.0
"""A worker that stops sooner than this after its start died young (its Redis was not there)."""
MAX_RESTART_WAIT = 30.0
WORKERLESS_SLOTS = 64
"""Decisions queued at once while no worker runs: each waits for one (up to the bot timeout) side by
side, not in turn behind the others' timeouts."""
ENQUEUE_RETRY_SECONDS = 0.5
"""How often a job that Redis could not take tries again."""


def _redis_away() -> tuple[type[Exception], ...]:
    """The errors that say Redis cannot be reached (the extra is there once a queue exists)."""
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    return (OSError, RedisConnectionError, RedisTimeoutError)


# -- the web side -------------------------------------------------------------------------------


class RedisBotQueue(concurrent.futures.Executor):
    """An executor whose jobs run on the workers: ``submit`` enqueues, one poller collects results.

    It lives on the server's event loop (``submit`` is called from it) and tells ``on_capacity`` how
    many workers are alive whenever that changes.
    """

    def __init__(self, redis_url: str, patience: float = 60.0) -> None:
        _queue_unavailable()
        self.redis_url = redis_url
        self.patience = patience  # how long a job waits for Redis to take it (the bots' timeout)
        self.pending: dict[str, concurrent.futures.Future[Any]] = {}
        self.deadlines: dict[str, float] = {}  # each pending job's give-up time (monotonic)
        self.on_capacity: Callable[[int], None] | None = None
        self.workers = 0
        self.counted = False  # the workers have been counted once
        self.replies = REPLIES + uuid.uuid4().hex
        self._pool: Any = None
        self._connecting: asyncio.Future[Any] | None = None
        self._poller: asyncio.Task[None] | None = None
        self._closed = False

    # Executor
    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        if self._closed:
            raise RuntimeError("the bot queue is closed")
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        future.set_running_or_notify_cancel()
        loop = asyncio.get_running_loop()
        job = partial(fn, *args, **kwargs) if args or kwargs else fn
        task = loop.create_task(self._enqueue(job, future))
        task.add_done_callback(partial(self._enqueue_done, future))
        self._start(loop)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._closed = True
        for future in self.pending.values():
            future.cancel()
        self.pending.clear()
        self.deadlines.clear()
        if self._poller is not None:
            self._poller.cancel()
        if self._pool is not None:
            pool, self._pool = self._pool, None
            with contextlib.suppress(RuntimeError):  # no loop left: the connections just go
                asyncio.get_running_loop().create_task(pool.aclose())

    def start(self) -> None:
        """Begin counting the workers (the server calls this once its loop runs)."""
        self._start(asyncio.get_running_loop())

    # internals
    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._poller is None and not self._closed:
            self._poller = loop.create_task(self._poll_forever())

    async def _connection(self) -> Any:
        if self._pool is None:
            if self._connecting is None:
                self._connecting = asyncio.ensure_future(self._connect())
            try:
                self._pool = await asyncio.shield(self._connecting)
            except Exception:
                self._connecting = None  # Redis was away: the next call tries again
                raise
        return self._pool

    async def _connect(self) -> Any:
        from arq import create_pool
        from arq.connections import RedisSettings

        settings = RedisSettings.from_dsn(self.redis_url)
        settings.conn_retries = 0  # the job's own loop tries again (see _enqueue)
        return await create_pool(settings, default_queue_name=QUEUE)

    async def _enqueue(self, job: Callable[[], Any], future: concurrent.futures.Future[Any]) -> None:
        """Hand the job to Redis; with Redis away, try again until it is back or ``patience`` has
        passed (then the job fails, and the bot falls back a level), as a decision waits for a
        worker: an outage of a few seconds must not turn the bots' moves into weaker ones."""
        give_up = time.monotonic() + self.patience
        told = False
        while True:
            try:
                await self._enqueue_once(job, future, give_up)
                return
            except _redis_away() as exc:
                if self._closed or future.done() or time.monotonic() + ENQUEUE_RETRY_SECONDS > give_up:
                    raise
                if not told:
                    log.warning("the bot queue's Redis is away (%s): decisions wait", type(exc).__name__)
                    told = True
                await asyncio.sleep(ENQUEUE_RETRY_SECONDS)

    async def _enqueue_once(
        self, job: Callable[[], Any], future: concurrent.futures.Future[Any], give_up: float
    ) -> None:
        """Queue the job to expire when its decision is given up: a worker that comes later (none was
        alive, or all were busy) skips it instead of thinking for nobody."""
        pool = await self._connection()
        job_id = uuid.uuid4().hex
        self.pending[job_id] = future
        self.deadlines[job_id] = give_up
        fields = dict(job.fields) if isinstance(job, Labelled) else None
        try:
            queued = await pool.enqueue_job(
                "run_job",
                job,
                self.replies,
                fields,
                _job_id=job_id,
                _queue_name=QUEUE,
                _expires=max(SHORTEST_EXPIRY, give_up - time.monotonic()),
            )
        except BaseException:
            self._forget(job_id)
            raise
        if queued is None:  # cannot happen with a fresh id; say so rather than wait forever
            self._forget(job_id)
            raise RuntimeError("the bot queue refused a job")

    def _forget(self, job_id: str) -> concurrent.futures.Future[Any] | None:
        self.deadlines.pop(job_id, None)
        return self.pending.pop(job_id, None)

    def _forget_expired(self) -> None:
        """Let go of the jobs whose decision was given up: expired in the queue, a worker that takes
        one later only records that (see :meth:`_collect`), and with no worker at all nothing ever
        answers for them."""
        now = time.monotonic()
        for job_id in [j for j, give_up in self.deadlines.items() if give_up + LEASE_SECONDS < now]:
            future = self._forget(job_id)
            if future is not None and not future.done():
                future.set_exception(TimeoutError("the bot job expired in the queue"))

    def _enqueue_done(self, future: concurrent.futures.Future[Any], task: asyncio.Task[None]) -> None:
        if task.cancelled():
            future.cancel()
        elif (exc := task.exception()) is not None and not future.done():
            future.set_exception(exc)

    async def _poll_forever(self) -> None:
        """Wait for replies; between them (at least every third of a lease) count the workers and
        sweep for results that came without a reply."""
        last_count = last_sweep = 0.0
        while not self._closed:
            try:
                pool = await self._connection()
                now = time.monotonic()
                if now - last_count >= LEASE_SECONDS / 3:
                    last_count = now
                    await self._count_workers(pool)
                if self.pending and now - last_sweep >= SWEEP_SECONDS:
                    last_sweep = now
                    await self._collect(pool)
                    self._forget_expired()
                popped = await pool.blpop([self.replies], timeout=min(SWEEP_SECONDS, LEASE_SECONDS / 3))
                if popped is not None:  # the next waiting reply comes at once on the next round
                    self._settle(*pickle.loads(popped[1]))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away a moment: results wait in Redis, try again
                log.warning("bot queue: %s", type(exc).__name__)
                await asyncio.sleep(1.0)

    def _settle(self, job_id: str, success: bool, result: Any) -> None:
        future = self._forget(job_id)
        if future is None or future.done():
            return  # a job run twice (its first worker was only slow), or one swept already
        if success:
            future.set_result(result)
        elif isinstance(result, BaseException):
            future.set_exception(result)
        else:
            future.set_exception(RuntimeError(f"the bot job failed: {result!r}"))

    async def _count_workers(self, pool: Any) -> None:
        now = time.time()
        async with pool.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(WORKERS_KEY, "-inf", now - 4 * LEASE_SECONDS)
            pipe.zcount(WORKERS_KEY, now - 2 * LEASE_SECONDS, "+inf")
            _, alive = await pipe.execute()
        if alive != self.workers or not self.counted:
            if not alive:
                log.warning("no bot worker is running: bot moves wait for one")
            self.workers = int(alive)
            self.counted = True
            if self.on_capacity is not None:
                self.on_capacity(self.workers * JOBS_PER_WORKER if self.workers else WORKERLESS_SLOTS)

    @property
    def workerless(self) -> bool:
        """Whether no worker is alive (as last counted): a job queued now waits for one to start."""
        return self.counted and not self.workers

    async def _collect(self, pool: Any) -> None:
        from arq.constants import result_key_prefix
        from arq.jobs import deserialize_result

        ids = list(self.pending)
        found = await pool.mget([result_key_prefix + job_id for job_id in ids])
        done = [(job_id, raw) for job_id, raw in zip(ids, found, strict=True) if raw is not None]
        if not done:
            return
        await pool.delete(*(result_key_prefix + job_id for job_id, _ in done))
        for job_id, raw in done:
            try:
                result = deserialize_result(raw)
            except Exception as exc:
                self._settle(job_id, False, exc)
                continue
            self._settle(job_id, result.success, result.result)
