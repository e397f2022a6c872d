"""What an operator watches: Prometheus metrics of one server process, served at ``/metrics``.

Each app has its own collector registry (several apps in one process, as in the tests, never mix
their counts).  Live figures (matches and connections in memory, the bot queue) are read when
scraped; counters and histograms are updated where the work happens.  No label carries a match,
a player or anything of a position: only kinds, levels and error codes.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

if TYPE_CHECKING:
    from .matches import Registry

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
COMMIT_BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
THINK_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
LAG_BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
LAG_EVERY_SECONDS = 0.1
"""How often :meth:`Metrics.watch_loop` looks at how late the event loop runs a timer."""


class Metrics:
    """The process's metrics; ``watch`` binds the live figures to a registry of matches."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.actions = Counter(
            "masques_actions", "Actions committed, by who made them", ["by"], registry=self.registry
        )
        self.move_latency = Histogram(
            "masques_human_move_seconds",
            "From a person's action message to the last view of it handed to the connections",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.move_commit = Histogram(
            "masques_move_commit_seconds",
            "From an action (a person's or a bot's) handed to the database writer to its commit "
            "acknowledged: the part of a move's latency spent waiting for the disk and the writer",
            buckets=COMMIT_BUCKETS,
            registry=self.registry,
        )
        self.bot_think = Histogram(
            "masques_bot_think_seconds",
            "Time a bot decision (or an analysis's judgement) took in a worker",
            buckets=THINK_BUCKETS,
            registry=self.registry,
        )
        self.errors = Counter(
            "masques_errors", "Requests and messages refused, by error code", ["code"], registry=self.registry
        )
        self.live_matches = Gauge(
            "masques_live_matches", "Matches in this process's memory", registry=self.registry
        )
        self.connections = Gauge("masques_connections", "Open WebSocket connections", registry=self.registry)
        self.bot_queue = Gauge(
            "masques_bot_queue_depth", "Bot decisions waiting for a worker", registry=self.registry
        )
        self.bots_running = Gauge(
            "masques_bots_running", "Bot decisions running in the workers", registry=self.registry
        )
        self.loop_lag = Histogram(
            "masques_event_loop_lag_seconds",
            "How late the event loop ran a timer due every 0.1 s: every message and request waits "
            "as long, so a process near its capacity shows it here first",
            buckets=LAG_BUCKETS,
            registry=self.registry,
        )
        self.bot_slots = Gauge(
            "masques_bot_slots",
            "Bot decisions this process lets run at once: its worker processes, or on the Redis "
            "queue two per live `masques worker` process (one thought about, the next waiting)",
            registry=self.registry,
        )

    def watch(self, matches: Registry) -> None:
        """Read the live figures from ``matches`` at each scrape."""

        self.live_matches.set_function(lambda: len(matches.matches))
        self.connections.set_function(lambda: sum(len(m.clients) for m in list(matches.matches.values())))
        self.bot_queue.set_function(lambda: sum(len(q) for q in list(matches.bots.waiting.values())))
        self.bots_running.set_function(lambda: len(matches.bots.in_flight))
        self.bot_slots.set_function(lambda: matches.bots.slots)

    async def watch_loop(self, every_seconds: float = LAG_EVERY_SECONDS) -> None:
        """Observe the event loop's lag for as long as the process serves."""
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(every_seconds)
            self.loop_lag.observe(max(0.0, time.perf_counter() - asked - every_seconds))

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
