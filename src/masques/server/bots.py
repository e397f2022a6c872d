"""Bots in the server: a fair queue in front of the worker processes, and fallbacks so that a bot that
fails never stops a match.

Bot decisions run in a process pool so they never block the event loop.  The queue hands the pool's
slots out round-robin between clients (the client that created each match), and while several
clients wait no client holds more than its share of the slots: one client's six expert matches
cannot make another client's bot wait behind all of them.  A decision that raises, returns an
illegal action or outlives its time is tried once more, then played by the next lower level; the
last resort, a random legal move, is drawn in the server process itself, so the match always goes on.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import random
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..ai import make_bot
from ..engine import load_game
from .workers import leave_with_parent, stop_pool

log = logging.getLogger("masques.server.bots")

LOWER_LEVEL = {"expert": "hard", "hard": "medium", "medium": "easy", "easy": "greedy", "greedy": "random"}
"""The level that plays a decision when a bot fails it twice."""

Job = Callable[[], Any]
"""Work for a worker process: a bot decision (an action id), or an analysis's judgement."""


@dataclass(frozen=True)
class Labelled:
    """A job with the log fields that say what it is for (its match and seat): a worker on another
    machine names them in its own log lines about the job."""

    job: Job
    fields: Mapping[str, Any]

    def __call__(self) -> Any:
        return self.job()


def bot_move(
    game_name: str,
    options: dict[str, Any],
    kind: str,
    seat: int,
    *,
    observation: Any,
    legal: list[int],
    rng: random.Random,
) -> int:
    """Runs in a worker process: one bot decision from the seat's observation alone."""
    game = load_game(game_name, options)
    bot = make_bot(kind, game_name)
    return bot.act(game, seat, [observation], legal, rng)


class BotError(Exception):
    """A bot decision that cannot be used (it raised, timed out or chose an illegal action)."""


@dataclass(eq=False)
class _Queued:
    owner: str
    job: Job
    future: asyncio.Future[Any]
    started: float | None = None
    timer: asyncio.TimerHandle | None = None


@dataclass
class FairQueue:
    """Round-robin between owners over ``slots`` worker slots, each owner at most its fair share."""

    slots: int
    timeout: float
    pool_factory: Callable[[], concurrent.futures.Executor]
    pool: concurrent.futures.Executor = field(init=False)
    waiting: dict[str, deque[_Queued]] = field(default_factory=dict)
    running: Counter[str] = field(default_factory=Counter)
    in_flight: set[_Queued] = field(default_factory=set)
    order: deque[str] = field(default_factory=deque)
    observe: Callable[[float], None] | None = None
    """Told how long each finished job ran (the think-time metric)."""

    def __post_init__(self) -> None:
        self.pool = self._adopt(self.pool_factory())
        self.generation = 0

    def _adopt(self, pool: concurrent.futures.Executor) -> concurrent.futures.Executor:
        """A pool that knows its capacity (workers elsewhere that come and go) sets the slots."""
        if hasattr(pool, "on_capacity"):
            pool.on_capacity = self.resize
        return pool

    def resize(self, slots: int) -> None:
        """The pool's capacity changed: hand out that many slots from now on."""
        self.slots = max(1, slots)
        with contextlib.suppress(RuntimeError):  # no running loop: the next job dispatches
            self._dispatch()

    def run(self, owner: str, job: Job) -> asyncio.Future[Any]:
        """Queue ``job`` for ``owner``; the future fails with TimeoutError if it runs too long."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting.setdefault(owner, deque()).append(_Queued(owner, job, future))
        if owner not in self.order:
            self.order.append(owner)
        self._dispatch()
        return future

    def share(self) -> int:
        """How many slots one owner may hold: its fair part while others wait, and never the last free
        slot, so that a client who comes next starts at once instead of behind a long decision."""
        active = set(self.order) | {owner for owner, n in self.running.items() if n}
        fair = max(1, self.slots // max(1, len(active)))
        return fair if self.slots == 1 else min(fair, self.slots - 1)

    def _next(self) -> _Queued | None:
        share = self.share()
        for _ in range(len(self.order)):
            owner = self.order[0]
            self.order.rotate(-1)
            queue = self.waiting.get(owner)
            while queue and queue[0].future.done():  # given up by its caller
                queue.popleft()
            if not queue:
                self.order.remove(owner)
                self.waiting.pop(owner, None)
                continue
            if self.running[owner] >= share:
                continue
            item = queue.popleft()
            if not queue:
                self.order.remove(owner)
                self.waiting.pop(owner, None)
            return item
        return None

    def _dispatch(self) -> None:
        loop = asyncio.get_running_loop()
        while len(self.in_flight) < self.slots:
            item = self._next()
            if item is None:
                return
            self.in_flight.add(item)
            self.running[item.owner] += 1
            item.started = time.monotonic()
            item.timer = loop.call_later(self.timeout, self._expire, item)
            try:
                done = asyncio.wrap_future(self.pool.submit(item.job))
            except (BrokenProcessPool, RuntimeError) as exc:  # a dead pool: make a new one
                self._finish(item, None, exc)
                self._restart_pool("the worker pool was broken")
                continue
            done.add_done_callback(partial(self._completed, item, self.generation))

    def _completed(self, item: _Queued, generation: int, done: asyncio.Future[Any]) -> None:
        exc = None if done.cancelled() else done.exception()  # read, so it is never reported unread
        if generation != self.generation:
            return  # its pool was replaced; the item was settled then
        if self.observe is not None and item.started is not None:
            self.observe(time.monotonic() - item.started)
        if done.cancelled() or isinstance(exc, BrokenProcessPool):
            self._finish(item, None, BotError("the worker process died"))
            self._restart_pool("a worker process died")
        else:
            self._finish(item, None if exc else done.result(), exc)
        self._dispatch()

    def _finish(self, item: _Queued, result: Any, exc: BaseException | None) -> None:
        if item in self.in_flight:
            self.in_flight.discard(item)
            self.running[item.owner] -= 1
            if not self.running[item.owner]:
                del self.running[item.owner]
        if item.timer is not None:
            item.timer.cancel()
        if not item.future.done():
            if exc is not None:
                item.future.set_exception(exc)
            else:
                assert result is not None
                item.future.set_result(result)

    def _expire(self, item: _Queued) -> None:
        """The caller stops waiting; the slot stays taken until the worker is really free, and a
        worker still busy at twice the time is stuck: the pool is replaced.  With no worker alive
        at all (workers elsewhere), nothing holds the job: its slot is free at once."""
        if not item.future.done():
            item.future.set_exception(TimeoutError(f"no decision within {self.timeout:g} s"))
        if self.workerless():
            self._finish(item, None, None)
            self._dispatch()
            return
        item.timer = asyncio.get_running_loop().call_later(self.timeout, self._stuck, item)

    def workerless(self) -> bool:
        """Whether the pool's workers are elsewhere and none is alive: a decision that timed out
        waited for a worker, and so would a lower level's."""
        return bool(getattr(self.pool, "workerless", False))

    def _stuck(self, item: _Queued) -> None:
        if item in self.in_flight:
            self._restart_pool("a bot decision ran for twice its time")
            self._dispatch()

    def _restart_pool(self, why: str) -> None:
        log.warning("restarting the bot worker pool: %s", why)
        old = self.pool
        self.generation += 1
        for item in list(self.in_flight):
            self._finish(item, None, BotError(why))
        if isinstance(old, concurrent.futures.ProcessPoolExecutor):
            # Its workers are ended off the event loop: waiting for them would stall every match.
            threading.Thread(target=stop_executor, args=(old,), name="masques-old-pool", daemon=True).start()
        else:  # a queue of workers elsewhere lets go of its tasks and connections on the loop
            stop_executor(old)
        self.pool = self._adopt(self.pool_factory())

    def close(self) -> None:
        """Stop every worker now (their decisions are lost; a restart replays the log)."""
        for queue in self.waiting.values():
            for item in queue:
                item.future.cancel()
        self.waiting.clear()
        self.order.clear()
        for item in list(self.in_flight):
            if item.timer is not None:
                item.timer.cancel()
            item.future.cancel()
        self.in_flight.clear()
        self.running.clear()
        stop_executor(self.pool)


def stop_executor(pool: concurrent.futures.Executor) -> None:
    """End a pool at once: a process pool's workers are terminated (a decision in progress is
    abandoned); a thread pool is left to finish on its own."""
    if isinstance(pool, concurrent.futures.ProcessPoolExecutor):
        stop_pool(pool)
    else:
        pool.shutdown(wait=False, cancel_futures=True)


WORKER_NICENESS = 10
"""How much lower the bot workers run than the server process: when the cores are busy, moves,
views and lobby requests come first and bots think in the time that is left."""


def _background() -> None:
    """A pool worker's start: below the server's priority, and gone with the server."""
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    leave_with_parent()


def process_pool(workers: int) -> Callable[[], concurrent.futures.Executor]:
    """A factory of spawn-context process pools (no state inherited from the server process)."""

    def make() -> concurrent.futures.Executor:
        return concurrent.futures.ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn"), initializer=_background
        )

    return make


async def decide(
    queue: FairQueue,
    owner: str,
    make_job: Callable[[str], Job],
    *,
    kind: str,
    legal: Sequence[int],
    fallback_rng: random.Random,
    where: str,
    fields: Mapping[str, Any] | None = None,
) -> tuple[int, str]:
    """A legal action for a bot seat, and the level that chose it.

    ``make_job(level)`` builds the decision at that level; ``kind`` is tried twice, then each lower
    level once, then a random legal move is drawn here.  Failures are logged with ``where`` (the match
    and seat, also given as the log line's ``fields``) and the error's type only: nothing of the
    position goes to the log.
    """
    level = kind
    tries = 2
    while level != "random":
        for _ in range(tries):
            try:
                job = make_job(level)
                action = await queue.run(owner, Labelled(job, dict(fields)) if fields else job)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("bot %s failed at %s: %s", level, where, type(exc).__name__, extra=fields)
                if isinstance(exc, TimeoutError) and queue.workerless():
                    return legal[fallback_rng.randrange(len(legal))], "random"  # no worker to wait for
                continue
            if isinstance(action, int) and action in legal:
                return action, level
            log.warning("bot %s chose an illegal action at %s", level, where, extra=fields)
        level = LOWER_LEVEL.get(level, "random")
        tries = 1
    return legal[fallback_rng.randrange(len(legal))], "random"
