"""Server load: N concurrent matches over WebSocket on loopback, against a ``masques serve`` subprocess.

Usage: python benchmarks/server.py [--matches 100] [--duration 30] [--bot-workers 0] [--json]
       [--processes 2 --database postgresql+psycopg://... --redis redis://...]

Each match is Masker, 4 players, 2D: seats human, easy, human, easy (two teams, each a scripted
human and an easy bot).  Each human is a WebSocket client that acts 200 ms after its turn begins (a
``state`` message saying it is its turn), with a random legal action.  A finished game is replaced
by a new match at the same table until the time is up.  The server runs on a free port of
127.0.0.1 with SQLite in a temporary directory.

Reported: sustained actions per second over the measurement window (every committed action:
humans' and bots'), the humans' actions per second, and the round trip of a human action (sent ->
the sender's updated view received), p50 / p99 / max.  Every loop is bounded in count and in time,
and only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed

try:
    from websockets.asyncio.client import connect
except ImportError:  # websockets < 13
    from websockets import connect

HOST = "127.0.0.1"
SEATS = ["human", "easy", "human", "easy"]
OPTIONS = {"players": 4, "variant": "2d"}
THINK = 0.2  # seconds a scripted human waits after its turn begins
RECV_TIMEOUT = 30.0
MAX_GAMES_PER_TABLE = 1000


@dataclass
class Stats:
    actions: int = 0  # committed actions seen in the window (seat 0's client counts them)
    human_actions: int = 0
    round_trips: list[float] = field(default_factory=list)
    errors: int = 0
    timeouts: int = 0
    games: int = 0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


class Server:
    """``masques serve`` on loopback, in its own process group (its bot workers go with it)."""

    def __init__(self, workdir: Path, bot_workers: int, database: str, redis: str | None = None) -> None:
        self.port = free_port()
        self.log = (workdir / f"server-{self.port}.log").open("wb")
        command = [
            sys.executable,
            "-m",
            "masques.cli.main",
            "serve",
            "--host",
            HOST,
            "--port",
            str(self.port),
            "--database",
            database,
            "--bot-workers",
            str(bot_workers),
            *(["--redis", redis] if redis else []),
        ]
        self.proc = subprocess.Popen(
            command,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.base_url = f"http://{HOST}:{self.port}"
        self.ws_url = f"ws://{HOST}:{self.port}"

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"masques serve exited with {self.proc.returncode}")
            try:
                if httpx.get(f"{self.base_url}/api/games", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise SystemExit("masques serve did not start")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # leftover bot workers of this server only
        self.log.close()


async def new_match(api: httpx.AsyncClient) -> tuple[str, dict[int, str]]:
    body = {"game": "masker", "options": OPTIONS, "seats": [{"kind": k} for k in SEATS]}
    response = await api.post("/api/matches", json=body)
    response.raise_for_status()
    match_id = response.json()["id"]
    tokens = {}
    for seat, kind in enumerate(SEATS):
        if kind == "human":
            joined = await api.post(
                f"/api/matches/{match_id}/join", json={"name": f"bench {seat}", "seat": seat}
            )
            joined.raise_for_status()
            tokens[seat] = joined.json()["token"]
    return match_id, tokens


async def human(**kwargs: Any) -> bool:
    """One seat's session; a dropped connection counts as an error and ends the table."""
    try:
        return await _session(**kwargs)
    except (ConnectionClosed, OSError) as exc:
        print(f"connection lost: {exc!r}", file=sys.stderr)
        kwargs["stats"].errors += 1
        return False


async def _session(
    *,
    ws_url: str,
    match_id: str,
    seat: int,
    token: str,
    stats: Stats,
    window: tuple[float, float],
    rng: random.Random,
) -> bool:
    """Play one seat until the game ends (True) or the window closes (False)."""
    loop = asyncio.get_running_loop()
    start, end = window
    counts = seat == min(s for s, k in enumerate(SEATS) if k == "human")
    async with connect(f"{ws_url}/ws/matches/{match_id}?token={token}", max_size=2**22) as ws:
        acted = -1
        last_version: int | None = None
        sent_at: float | None = None
        sent_version = -1
        for _ in range(100_000):
            left = end - loop.time()
            if left <= 0:
                return False
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=min(left, RECV_TIMEOUT))
            except TimeoutError:
                if loop.time() < end:
                    stats.timeouts += 1
                return False
            now = loop.time()
            message = json.loads(raw)
            if message["type"] == "error":
                stats.errors += 1
                continue
            if message["type"] != "state":
                continue
            version = message["version"]
            if sent_at is not None and version > sent_version:
                if sent_at >= start:
                    stats.round_trips.append(now - sent_at)
                    stats.human_actions += 1
                sent_at = None
            if counts:
                if last_version is not None and version > last_version and now >= start:
                    stats.actions += version - last_version
                last_version = version if last_version is None else max(last_version, version)
            if message["to_move"] is None:
                if counts:
                    stats.games += 1
                return True
            if message["your_turn"] and version > acted:
                acted = version
                await asyncio.sleep(THINK)
                if loop.time() >= end:
                    return False
                action = rng.choice(message["legal"])["id"]
                sent_at, sent_version = loop.time(), version
                await ws.send(json.dumps({"type": "action", "action": action, "version": version}))
    return False


async def table(
    number: int,
    *,
    api: httpx.AsyncClient,
    ws_urls: list[str],
    first: tuple[str, dict[int, str]],
    stats: Stats,
    window: tuple[float, float],
) -> None:
    """One table: a match, then a new one each time a game ends, until the window closes."""
    rng = random.Random(number)
    loop = asyncio.get_running_loop()
    match_id, tokens = first
    for _ in range(MAX_GAMES_PER_TABLE):
        results = await asyncio.gather(
            *(
                human(
                    ws_url=ws_urls[(number + seat) % len(ws_urls)],  # the two humans on different servers
                    match_id=match_id,
                    seat=seat,
                    token=token,
                    stats=stats,
                    window=window,
                    rng=rng,
                )
                for seat, token in tokens.items()
            )
        )
        if not all(results) or loop.time() >= window[1]:
            return
        match_id, tokens = await new_match(api)


async def run(base_url: str, ws_urls: list[str], matches: int, duration: float) -> tuple[Stats, float]:
    stats = Stats()
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=base_url, timeout=60, limits=limits) as api:
        setup = time.perf_counter()
        first = await asyncio.gather(*(new_match(api) for _ in range(matches)))
        print(f"{matches} matches created and joined in {time.perf_counter() - setup:.1f} s", flush=True)
        loop = asyncio.get_running_loop()
        start = loop.time() + 2.0  # the clients connect and the bot pool warms up first
        window = (start, start + duration)
        await asyncio.gather(
            *(
                table(i, api=api, ws_urls=ws_urls, first=first[i], stats=stats, window=window)
                for i in range(matches)
            )
        )
    return stats, duration


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=100, help="concurrent matches (default 100)")
    parser.add_argument("--duration", type=float, default=30.0, help="measurement seconds (default 30)")
    parser.add_argument("--bot-workers", type=int, default=0, help="server bot processes (0: one per core)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--processes", type=int, default=1, help="server processes (more need --redis)")
    parser.add_argument("--database", default="", help="SQLAlchemy URL (default: SQLite in a temp dir)")
    parser.add_argument("--redis", default=None, help="Redis URL for several processes")
    args = parser.parse_args()
    if args.processes > 1 and not (args.redis and args.database.startswith("postgresql")):
        parser.error("several processes need --database postgresql+psycopg://... and --redis redis://...")
    if not 1 <= args.matches <= 2000 or not 0 < args.duration <= 3600:
        parser.error("--matches is 1..2000 and --duration 0..3600 seconds")
    with tempfile.TemporaryDirectory(prefix="masques-bench-") as tmp:
        database = args.database or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        servers = [Server(Path(tmp), args.bot_workers, database, args.redis) for _ in range(args.processes)]
        try:
            for server in servers:
                server.wait_ready()
            stats, duration = asyncio.run(
                run(servers[0].base_url, [s.ws_url for s in servers], args.matches, args.duration)
            )
        finally:
            for server in servers:
                server.stop()
    rtt = stats.round_trips
    figures: dict[str, Any] = {
        "matches": args.matches,
        "processes": args.processes,
        "database": database.split(":", 1)[0],
        "duration_s": duration,
        "cpus": os.cpu_count(),
        "actions_per_s": stats.actions / duration,
        "human_actions_per_s": stats.human_actions / duration,
        "rtt_p50_ms": 1000 * percentile(rtt, 0.50),
        "rtt_p99_ms": 1000 * percentile(rtt, 0.99),
        "rtt_max_ms": 1000 * max(rtt) if rtt else float("nan"),
        "rtt_mean_ms": 1000 * statistics.fmean(rtt) if rtt else float("nan"),
        "games_finished": stats.games,
        "errors": stats.errors,
        "timeouts": stats.timeouts,
    }
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    print(
        f"Masker 4 players 2D (human, easy, human, easy), {args.matches} concurrent matches, "
        f"{duration:g} s on {figures['cpus']} CPUs, {args.processes} server process(es) "
        f"on {figures['database']}"
    )
    print(f"  actions/s (all seats)    {figures['actions_per_s']:10.1f}")
    print(f"  human actions/s          {figures['human_actions_per_s']:10.1f}")
    print(
        f"  human round trip (ms)    p50 {figures['rtt_p50_ms']:.1f}   p99 {figures['rtt_p99_ms']:.1f}"
        f"   max {figures['rtt_max_ms']:.1f}   ({len(rtt)} actions)"
    )
    print(f"  games finished {stats.games}, errors {stats.errors}, receive timeouts {stats.timeouts}")


if __name__ == "__main__":
    main()
