"""Server load scenarios over HTTP and WebSocket on loopback, against a ``masques serve`` subprocess.

Usage: python benchmarks/server.py [--scenario matches|bots|spectators|site|all] [--src CHECKOUT] [--json]
       [--driver python|node]
       [--matches 100] [--duration 30] [--think-spread 0.5] [--stagger 8] [--chat-every 10]
       [--bot-workers N]
       [--bots-duration 90 --bots-loaded-duration 240] [--spectators 1000] [--spectators-duration 60]
       [--processes 2 --database postgresql+psycopg://... --redis redis://...]
       [--scenario site --database postgresql+psycopg://... --redis redis://HOST/DB --nginx PATH
        --site-humans 25,50,100 --site-bot-matches 6 --site-duration 20]

Each scenario starts its own server on a free port of 127.0.0.1 (SQLite in a temporary directory
unless ``--database``), from ``--src CHECKOUT/src`` when given (so one script measures two versions of
the code; the source file and git commit that ran are printed), with ``MASQUES_RATE_LIMITS=off`` and
``MASQUES_MAX_SPECTATORS=5000`` so that limits do not spoil what is not being measured (a server
without such limits ignores them).  Scripted humans act 200 ms after their turn begins (a ``state``
message saying it is their turn; in ``matches`` and ``site``, 100 to 300 ms, drawn anew each time:
``--think-spread``); a round trip is an action sent -> the sender's updated view.  In ``matches``
and ``site`` the tables' first games begin at random over ``--stagger`` seconds, and the window
opens after them, so that it measures the tables' steady state.

``matches`` (the default): N concurrent matches of Masker, 4 players, 2D, seats human, easy, human,
  easy (``--seats``: all human, for people's moves alone); a finished game is replaced at the same
  table.  Each table's games are dealt from fixed seeds (``MASQUES_ANY_SEED=1``), and each scripted
  seat draws its moves from its own fixed generator, so two runs play the same games (their seeded
  bots too) and differ only in the server's speed.
  Sustained actions/s, the humans' actions/s and their round trip p50 / p99 / max.  With
  ``--chat-every S`` each human also says a chat line every S seconds on its match's connection.
  (``MASQUES_MAX_BOT_MATCHES=100000``: all matches come from one address.)
``bots``: client B (127.0.0.1) plays Masker 2 players, seats human, hard.  B's wait for the bot runs
  from B's last action of a turn acknowledged (its own updated view) to the view where it is B's
  turn again; p50 / p90 / max over the bot replies (a wait still open at the end is shown apart, and
  counted as a lower bound in ``wait_with_pending``).  Two phases, each on a fresh server after a
  warm-up in which B plays alone (the bot pool starts): B alone, then B while client A (source
  address 127.0.0.2, HTTP and WebSocket) keeps six all-expert Masker matches going from a second
  before the window (a finished one is replaced; a refused one, 429, is counted and tried again
  after its Retry-After).  The loaded/unloaded ratio is the figure (the server's own per-client bot
  cap stays as configured).
``spectators``: one Masker 2-player match of two scripted humans, who connect first; then 1,000
  spectators connect (no token) from separate client processes (two; no keepalive pings of their
  own), with bounded concurrency and a connection timeout, and stay while the humans play the game
  (to its end, or the duration).  The humans' round trip p50 / p99 / max, failed spectator
  connections, connect latency and messages received per spectator.

``site`` (not in ``all``): the deployed topology, three times: one web process with one bot worker,
  one with two, two web processes with two workers; always PostgreSQL (a fresh database each time on
  the server of ``--database``) and Redis (the database of ``--redis``, emptied before each: give it
  one of its own) behind nginx with ``deploy/masques-locations.conf``, bots on ``masques worker``
  (``--bot-queue redis``).  For each: a ladder of all-human Masker 4-player matches (``--site-humans``,
  the ``matches`` scenario's scripted humans, through the proxy), moves/s and round trip p50 / p99 at
  each step; then ``--site-bot-matches`` all-bot Masker 2-player matches (medium), each from a client
  address of its own, kept going: bot actions/s from the web processes' metrics.  Reported: bot
  actions/s with two workers over one, the all-human rate each topology held at p99 < 100 ms (the
  highest step of the ladder that did), two web processes over one, and one web process at p99 < 50 ms.

``--driver node`` (``matches`` and ``site``, seat tokens only, no chat): the scripted people are played
  by ``benchmarks/humans.mjs`` on Node.js (``ws`` from the web client's packages), the same play for
  about half the load generator's CPU per move, which on a small machine is the server's to use.
``matches`` and ``site`` also say where the CPU went over the measured window, in milliseconds per
  person's move: the server (or web) processes, bot workers, nginx, PostgreSQL, Redis, this load
  generator, and "other" (the rest of the machine); and how busy the machine was.  On one small
  machine the load generator and the services share the cores with the server: these figures tell
  whether a rate is the server's limit or the machine's.

Every loop is bounded in count and in time, and only 127.0.0.x is ever contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import random
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from typing import Any

import httpx
import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

HOST = "127.0.0.1"
OTHER_HOST = "127.0.0.2"  # client A of the bots scenario: another address for the server
SEATS = ["human", "easy", "human", "easy"]
OPTIONS = {"players": 4, "variant": "2d"}
MASKER_2P = {"players": 2, "variant": "2d"}
STOP = 36  # Masker's "stop the turn" action id
THINK = 0.2  # seconds a scripted human waits after its turn begins (on average: THINK_SPREAD)
THINK_SPREAD = 0.5
"""``matches`` and ``site``: each wait of a scripted person is drawn anew, uniformly within THINK
times 1 +- THINK_SPREAD (0.1 to 0.3 s), as people's do (``--think-spread``).  With every wait exactly
0.2 s, the tables, which all start together, went on moving in step: the moves came in waves a
round trip and a wait apart (in one 30 s run, 0 to 137 moves in a 50 ms window, for 49 on average),
and the round trips measured how the server drains a burst at more than twice the rate, not how it
holds the rate.  0 gives that fixed wait back."""


STAGGER = 8.0
"""``matches`` and ``site``: each table's first game begins at a random moment of the first STAGGER
seconds (about one game of Masker), and the measured window opens after them (``--stagger``).
Begun together, the tables' games also ended together, a few seconds apart each time: every such
wave made, closed and joined hundreds of matches at once (a fifth of the server's work in a few
hundred milliseconds), and the slowest round trips of a run all came from those waves."""


@dataclass
class Pace:
    """How the scripted people wait and begin: ``main`` sets it from ``--think-spread`` and
    ``--stagger``."""

    spread: float = THINK_SPREAD
    stagger: float = STAGGER


def first_delay(table: int) -> float:
    """When ``table``'s first game begins, in seconds after the first one may (see :data:`STAGGER`)."""
    return PACE.stagger * random.Random(f"stagger {table}").random()


PACE = Pace()
RECV_TIMEOUT = 30.0
MAX_GAMES_PER_TABLE = 1000
MAX_MESSAGES = 100_000  # per WebSocket session
MAX_SIZE = 2**22
OPEN_FILES = 8192
FLEET_GRACE = 300.0  # seconds the spectators may take to connect, beyond the play's duration
ATTACKER_MATCHES = 6

BASE_ENV = {"MASQUES_RATE_LIMITS": "off", "MASQUES_MAX_SPECTATORS": "5000"}
SCENARIO_ENV = {
    # fixed deals (seeds), so that two runs, of two versions of the code, play the same games
    "matches": {"MASQUES_MAX_BOT_MATCHES": "100000", "MASQUES_ANY_SEED": "1"},
    "bots": {},  # the per-client bot cap is part of what is measured
    "spectators": {},
    "site": {},
}
SCENARIOS = ("matches", "bots", "spectators", "site")


# -- the server under test ------------------------------------------------------------------------
@dataclass
class Source:
    """Which code the server runs: this interpreter with ``CHECKOUT/src`` first on PYTHONPATH, or
    whatever ``masques`` the interpreter imports."""

    python: str
    checkout: Path | None

    def env(self, extra: dict[str, str]) -> dict[str, str]:
        env = {**os.environ, **BASE_ENV, **extra}
        if self.checkout is not None:
            env["PYTHONPATH"] = str(self.checkout / "src")
        return env

    def describe(self) -> dict[str, Any]:
        """The ``masques`` package the server will import and the git commit it belongs to; exits if
        ``--src`` was given but another copy would be imported."""
        probe = subprocess.run(
            [
                self.python,
                "-c",
                "import masques, sys; print(masques.__file__); print(sys.version.split()[0])",
            ],
            env=self.env({}),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if probe.returncode != 0:
            raise SystemExit(f"cannot import masques with {self.python}: {probe.stderr.strip()}")
        module_file, python_version = probe.stdout.split()
        package = Path(module_file).resolve().parent
        if self.checkout is not None and not package.is_relative_to((self.checkout / "src").resolve()):
            raise SystemExit(f"--src {self.checkout}: the server would import {package} instead")
        root = self.checkout or package
        commit = _git(root, "rev-parse", "HEAD")
        dirty = _git(root, "status", "--porcelain", "--untracked-files=no", "--", "src")
        return {
            "package": str(package),
            "commit": commit or "unknown",
            "dirty": bool(dirty),
            "python": python_version,
        }


def _git(where: Path, *args: str) -> str:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(
            ["git", "-C", str(where), *args], capture_output=True, text=True, timeout=30, check=False
        )
        if done.returncode == 0:
            return done.stdout.strip()
    return ""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


class Server:
    """``masques serve`` on loopback, in its own process group (its bot workers go with it)."""

    def __init__(
        self,
        workdir: Path,
        bot_workers: int | None,
        database: str,
        redis: str | None = None,
        *,
        source: Source | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        source = source or Source(sys.executable, None)
        self.port = free_port()
        self.log_path = workdir / f"server-{self.port}.log"
        self.log = self.log_path.open("wb")
        command = [
            source.python,
            "-m",
            "masques.cli.main",
            "serve",
            "--host",
            HOST,
            "--port",
            str(self.port),
            "--database",
            database,
            *(["--bot-workers", str(bot_workers)] if bot_workers is not None else []),
            *(["--redis", redis] if redis else []),
        ]
        self.proc = subprocess.Popen(
            command,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=source.env(env or {}),
        )
        self.base_url = f"http://{HOST}:{self.port}"
        self.ws_url = f"ws://{HOST}:{self.port}"

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = self.log_path.read_text(errors="replace")[-2000:]
                raise SystemExit(f"masques serve exited with {self.proc.returncode}:\n{tail}")
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


def raise_open_files(wanted: int = OPEN_FILES) -> int:
    """Raise this process's soft limit on open files (children inherit it); returns the new limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        return target
    return soft


def note(text: str) -> None:
    """Progress, on stderr (stdout carries the figures)."""
    print(text, file=sys.stderr, flush=True)


def json_safe(value: Any) -> Any:
    """The figures with NaN (no sample) and infinity (a quantile past a histogram's last edge) as
    null, so the output is strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ms(values: list[float], *qs: float) -> dict[str, float]:
    """p50 / p90 / p99 ... and max of durations in seconds, as milliseconds."""
    out = {f"p{round(q * 100)}_ms": 1000 * percentile(values, q) for q in qs}
    out["max_ms"] = 1000 * max(values) if values else float("nan")
    out["mean_ms"] = 1000 * statistics.fmean(values) if values else float("nan")
    return out


async def new_match(
    api: httpx.AsyncClient,
    seats: list[str] | None = None,
    options: dict[str, Any] | None = None,
    players: dict[int, httpx.AsyncClient] | None = None,
    seed: int | None = None,
) -> tuple[str, dict[int, str]]:
    """Create a Masker match and join every human seat; the seats' tokens.  With ``players`` (a
    logged-in client per human seat), each joins as its account and plays by its session cookie."""
    seats = seats or SEATS
    body: dict[str, Any] = {
        "game": "masker",
        "options": options or OPTIONS,
        "seats": [{"kind": k} for k in seats],
    }
    if seed is not None:
        body["seed"] = seed
    response = await api.post("/api/matches", json=body)
    response.raise_for_status()
    match_id = response.json()["id"]
    tokens = {}
    for seat, kind in enumerate(seats):
        if kind == "human":
            joiner = api if players is None else players[seat]
            joined = await joiner.post(
                f"/api/matches/{match_id}/join", json={"name": f"bench {seat}", "seat": seat}
            )
            joined.raise_for_status()
            tokens[seat] = joined.json()["token"]
    return match_id, tokens


async def sign_up(base_url: str, name: str) -> httpx.AsyncClient:
    """A client logged in to a new account (its cookie jar holds the session; its CSRF header set)."""
    # no kept-alive connection: the server closes idle ones after 5 s, and a join may come much later
    fresh = httpx.Limits(max_keepalive_connections=0)
    client = httpx.AsyncClient(base_url=base_url, timeout=60, limits=fresh)
    response = await client.post("/api/signup", json={"username": name, "password": "bench-Password-1"})
    response.raise_for_status()
    client.headers["x-csrf-token"] = response.json()["csrf"]
    return client


def session_headers(client: httpx.AsyncClient | None, base_url: str) -> dict[str, str] | None:
    """The WebSocket handshake headers a logged-in browser sends (its cookie, its origin)."""
    if client is None:
        return None
    cookie = "; ".join(f"{name}={value}" for name, value in client.cookies.items())
    return {"cookie": cookie, "origin": base_url}


def random_action(legal: list[dict[str, Any]], rng: random.Random) -> int:
    return int(rng.choice(legal)["id"])


def longest_action(legal: list[dict[str, Any]], rng: random.Random) -> int:
    """One step a turn, then stop: the longest Masker game (about 55 actions with two players)."""
    ids = [int(a["id"]) for a in legal]
    return STOP if STOP in ids else rng.choice(ids)


# -- where the CPU goes ----------------------------------------------------------------------------
def _process_seconds(pid: int) -> float:
    """CPU seconds (user + system) a process has used, 0.0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _machine_seconds() -> tuple[float, float]:
    """CPU seconds the whole machine has been busy, and idle, summed over its CPUs."""
    ticks = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle, iowait
    busy = sum(ticks[:8]) - idle  # up to steal; guest time is already in user
    return busy / os.sysconf("SC_CLK_TCK"), idle / os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    """A process and all its children, theirs, and so on."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{current}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
    return found


def named(*names: str) -> list[int]:
    """The processes whose command is one of ``names`` (PostgreSQL's, Redis's)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if (entry / "comm").read_text().strip() in names:
                    found.append(int(entry.name))
    return found


Roles = Callable[[], dict[str, list[int]]]
"""Each role's processes now (looked up at each snapshot: servers start helpers, PostgreSQL a
backend per connection)."""


def cpu_snapshot(roles: Roles) -> dict[str, dict[int, float]]:
    """CPU seconds so far of each role's processes, this load generator's, and the machine's."""
    taken = {role: {pid: _process_seconds(pid) for pid in pids} for role, pids in roles().items()}
    taken.setdefault("load generator", {})[0] = time.process_time()
    busy, idle = _machine_seconds()
    taken["machine"], taken["idle"] = {0: busy}, {0: idle}
    return taken


async def measure_cpu(window: tuple[float, float], roles: Roles, stats: Stats) -> None:
    """The CPU each role used over the measured window; "other" is the rest of the machine's (other
    programs, and processes that ended within the window)."""
    loop = asyncio.get_running_loop()
    await asyncio.sleep(max(0.0, window[0] - loop.time()))
    before, started = cpu_snapshot(roles), loop.time()
    await asyncio.sleep(max(0.0, window[1] - loop.time()))
    after = cpu_snapshot(roles)
    used = {
        role: sum(max(0.0, seconds - before.get(role, {}).get(pid, 0.0)) for pid, seconds in pids.items())
        for role, pids in after.items()
    }
    used["other"] = used["machine"] - sum(v for k, v in used.items() if k not in ("machine", "idle"))
    stats.cpu_seconds, stats.window_seconds = used, loop.time() - started


MOVE_HISTOGRAM = "masques_human_move_seconds"
COMMIT_HISTOGRAM = "masques_move_commit_seconds"


def histogram_buckets(server_urls: list[str], names: tuple[str, ...]) -> dict[str, dict[float, float]]:
    """The servers' own histograms, each summed over the servers: how many observations took at most
    each bucket's seconds.  A server without one of them gives it empty."""
    totals: dict[str, dict[float, float]] = {name: {} for name in names}
    for url in server_urls:
        for line in httpx.get(f"{url}/metrics", timeout=10).text.splitlines():
            name, _, rest = line.partition("_bucket{")
            if name in totals:
                edge = float(rest.split('le="', 1)[1].split('"', 1)[0])
                totals[name][edge] = totals[name].get(edge, 0.0) + float(line.split()[-1])
    return totals


async def measure_server_latency(window: tuple[float, float], server_urls: list[str], stats: Stats) -> None:
    """The servers' histograms over the window (see :func:`bucket_quantile`): people's moves
    (message in, last view handed out), and every action's wait for its commit."""
    loop = asyncio.get_running_loop()
    names = (MOVE_HISTOGRAM, COMMIT_HISTOGRAM)
    await asyncio.sleep(max(0.0, window[0] - loop.time()))
    before = await asyncio.to_thread(histogram_buckets, server_urls, names)
    await asyncio.sleep(max(0.0, window[1] - loop.time()))
    after = await asyncio.to_thread(histogram_buckets, server_urls, names)
    counts = {
        name: {edge: n - before[name].get(edge, 0.0) for edge, n in after[name].items()} for name in names
    }
    stats.server_latency, stats.commit_latency = counts[MOVE_HISTOGRAM], counts[COMMIT_HISTOGRAM]


def bucket_quantile(buckets: dict[float, float], q: float) -> float:
    """The upper edge of the histogram bucket that holds quantile ``q`` (inf past the last edge)."""
    total = buckets.get(math.inf, 0.0)
    if not total:
        return float("nan")
    for edge in sorted(buckets):
        if buckets[edge] >= q * total:
            return edge
    return math.inf


def bucket_shares(buckets: dict[float, float]) -> dict[str, float]:
    """The share of observations within each bucket's edge, in milliseconds (the edges up to
    the first that holds them all)."""
    total = buckets.get(math.inf, 0.0)
    shares: dict[str, float] = {}
    if not total:
        return shares
    for edge in sorted(buckets):
        shares[f"{1000 * edge:g}"] = buckets[edge] / total
        if buckets[edge] >= total:
            break
    return shares


def cpu_per_move(stats: Stats) -> dict[str, float]:
    """Milliseconds of CPU per person's move in the window, by role (from :func:`measure_cpu`)."""
    if not stats.human_actions or not stats.cpu_seconds:
        return {}
    return {
        role: 1000 * seconds / stats.human_actions
        for role, seconds in stats.cpu_seconds.items()
        if role != "idle"
    }


# -- scenario: matches ----------------------------------------------------------------------------
@dataclass
class Stats:
    actions: int = 0  # committed actions seen in the window (the counting seat's client counts them)
    human_actions: int = 0
    round_trips: list[float] = field(default_factory=list)
    errors: int = 0
    error_codes: Counter[str] = field(default_factory=Counter)
    timeouts: int = 0
    games: int = 0
    chat_sent: int = 0
    chat_received: int = 0
    cpu_seconds: dict[str, float] = field(default_factory=dict)  # over the window, by role
    server_latency: dict[float, float] = field(default_factory=dict)  # the servers' histogram, the window's
    commit_latency: dict[float, float] = field(default_factory=dict)  # the same, of the commits
    window_seconds: float = 0.0

    def refused(self, message: dict[str, Any]) -> bool:
        """Count an ``error`` message (True) by its code."""
        if message["type"] != "error":
            return False
        self.errors += 1
        self.error_codes[str(message.get("code"))] += 1
        return True


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
    counts: bool,
    choose: Callable[[list[dict[str, Any]], random.Random], int] = random_action,
    headers: dict[str, str] | None = None,
    chat_every: float = 0.0,
) -> bool:
    """Play one seat until the game ends (True) or the window closes (False).  The counting seat's
    client also counts every committed action and finished game.  With ``headers`` (a logged-in
    player's cookie) the seat is found by its session: no token is sent.  With ``chat_every``, the
    seat also says a chat line every that many seconds (the first at a random moment of the first
    period)."""
    loop = asyncio.get_running_loop()
    start, end = window
    url = f"{ws_url}/ws/matches/{match_id}" + ("" if headers else f"?token={token}")
    async with connect(url, max_size=MAX_SIZE, additional_headers=headers) as ws:
        if headers:
            await ws.send(json.dumps({"type": "hello"}))
        first = random.random() * chat_every  # chat timing needs no replay: not the seat's generator
        talk = loop.create_task(_talk(ws, seat, chat_every, first, stats)) if chat_every else None
        try:
            return await _play(
                ws, loop=loop, start=start, end=end, stats=stats, rng=rng, counts=counts, choose=choose
            )
        finally:
            if talk is not None:
                talk.cancel()


async def _talk(ws: ClientConnection, seat: int, every: float, first: float, stats: Stats) -> None:
    await asyncio.sleep(first)
    for n in range(MAX_MESSAGES):
        await ws.send(json.dumps({"type": "chat", "text": f"seat {seat} says line {n}: good game so far"}))
        stats.chat_sent += 1
        await asyncio.sleep(every)


def think_time(pauses: random.Random) -> float:
    """A scripted person's wait before a move (see :data:`THINK_SPREAD`)."""
    return THINK * (1 + PACE.spread * (2 * pauses.random() - 1))


async def _play(
    ws: ClientConnection,
    *,
    loop: asyncio.AbstractEventLoop,
    start: float,
    end: float,
    stats: Stats,
    rng: random.Random,
    counts: bool,
    choose: Callable[[list[dict[str, Any]], random.Random], int],
) -> bool:
    acted = -1
    last_version: int | None = None
    sent_at: float | None = None
    sent_version = -1
    pauses = random.Random(hash(rng.getstate()))  # apart: the moves drawn are those of fixed waits
    for _ in range(MAX_MESSAGES):
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
        message = orjson.loads(raw)
        if stats.refused(message):
            continue
        if message["type"] == "chat":
            stats.chat_received += len(message["lines"])
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
            await asyncio.sleep(think_time(pauses))
            if loop.time() >= end:
                return False
            action = choose(message["legal"], rng)
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
    players: dict[int, httpx.AsyncClient] | None = None,
    chat_every: float = 0.0,
    seats: list[str] | None = None,
) -> None:
    """One table: a match, then a new one each time a game ends, until the window closes."""
    loop = asyncio.get_running_loop()
    await asyncio.sleep(first_delay(number))
    match_id, tokens = first
    counting = min(tokens)
    for game in range(MAX_GAMES_PER_TABLE):
        # each seat its own choices, so that a game replays whatever order the messages come in
        rngs = {seat: random.Random((table_seed(number, game) - DEAL_BASE) * 10 + seat) for seat in tokens}
        results = await asyncio.gather(
            *(
                human(
                    ws_url=ws_urls[(number + seat) % len(ws_urls)],  # the two humans on different servers
                    match_id=match_id,
                    seat=seat,
                    token=token,
                    stats=stats,
                    window=window,
                    rng=rngs[seat],
                    counts=seat == counting,
                    headers=session_headers(None if players is None else players[seat], str(api.base_url)),
                    chat_every=chat_every,
                )
                for seat, token in tokens.items()
            )
        )
        if not all(results) or loop.time() >= window[1]:
            return
        match_id, tokens = await new_match(api, seats, players=players, seed=table_seed(number, game + 1))


NODE_HUMANS = Path(__file__).with_name("humans.mjs")


async def node_humans(
    base_url: str,
    ws_urls: list[str],
    *,
    first: list[tuple[str, dict[int, str]]],
    seats: list[str],
    stats: Stats,
    window: tuple[float, float],
    cpu_roles: Roles,
    server_urls: list[str],
) -> None:
    """The tables' seats played by one Node.js process (``humans.mjs``), which costs the machine
    several times less CPU per move than this script's own seats: on a small machine, more of it is
    left to the server.  Its CPU counts as the load generator's."""
    node = shutil.which("node")
    if node is None or not (NODE_HUMANS.parents[1] / "web" / "node_modules" / "ws").is_dir():
        raise SystemExit(
            "--driver node needs Node.js and the web client's packages (bash scripts/build_web.sh)"
        )
    loop = asyncio.get_running_loop()
    to_epoch = time.time() - loop.time()
    plan = {
        "base_url": base_url,
        "ws_urls": ws_urls,
        "start_epoch": window[0] + to_epoch,
        "end_epoch": window[1] + to_epoch,
        "think": THINK,
        "think_spread": PACE.spread,
        "recv_timeout": RECV_TIMEOUT,
        "seats": seats,
        "options": OPTIONS,
        "deal_base": str(DEAL_BASE),  # past what a JSON number holds in JavaScript
        "tables": [
            {"number": i, "match_id": match_id, "tokens": tokens, "delay": first_delay(i)}
            for i, (match_id, tokens) in enumerate(first)
        ],
    }
    proc = await asyncio.create_subprocess_exec(
        node,
        *os.environ.get("MASQUES_BENCH_NODE_FLAGS", "").split(),
        str(NODE_HUMANS),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )

    def roles() -> dict[str, list[int]]:
        return {**cpu_roles(), "load generator": [proc.pid]}

    meters = [loop.create_task(measure_cpu(window, roles, stats))]
    if server_urls:
        meters.append(loop.create_task(measure_server_latency(window, server_urls, stats)))
    try:
        out, _ = await asyncio.wait_for(
            proc.communicate(json.dumps(plan).encode()), window[1] - loop.time() + 90
        )
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    await asyncio.gather(*meters)
    if proc.returncode != 0:
        raise SystemExit(f"humans.mjs failed (exit {proc.returncode})")
    played = json.loads(out)
    stats.actions, stats.human_actions, stats.games = (
        played["actions"],
        played["human_actions"],
        played["games"],
    )
    stats.round_trips, stats.errors, stats.timeouts = (
        played["round_trips"],
        played["errors"],
        played["timeouts"],
    )
    stats.error_codes.update(played["error_codes"])


DEAL_BASE = 1 << 127
"""The tables' deals are chosen as an event's should be, 128 bits long (a smaller seed dealing
several people is warned of in the server's log)."""


def table_seed(table: int, game: int) -> int:
    """The deal of a table's game-th match: the same in every run."""
    return DEAL_BASE + table * 1000 + game


async def run_matches(
    base_url: str,
    ws_urls: list[str],
    matches: int,
    duration: float,
    *,
    accounts: bool = False,
    chat_every: float = 0.0,
    seats: list[str] | None = None,
    cpu_roles: Roles | None = None,
    server_urls: list[str] | None = None,
    driver: str = "python",
) -> Stats:
    """Play ``matches`` matches at once, starting new games as games end, and count what happens in
    a window of ``duration`` seconds; with ``cpu_roles`` (a role's process ids), also where the CPU
    went in that window, and with ``server_urls`` the servers' own latency of a move in it.  With
    ``driver="node"`` the seats are played by ``benchmarks/humans.mjs`` (tokens only, no chat)."""
    stats = Stats()
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=base_url, timeout=60, limits=limits) as api:
        tables: list[dict[int, httpx.AsyncClient] | None] = [None] * matches
        if accounts:
            setup = time.perf_counter()
            humans = [seat for seat, kind in enumerate(seats or SEATS) if kind == "human"]
            run = random.Random().getrandbits(32)
            signing = asyncio.Semaphore(8)

            async def player(i: int, seat: int) -> httpx.AsyncClient:
                async with signing:
                    return await sign_up(base_url, f"b{run:08x}t{i}s{seat}")

            clients = await asyncio.gather(*(player(i, seat) for i in range(matches) for seat in humans))
            tables = [
                dict(zip(humans, clients[i * len(humans) : (i + 1) * len(humans)], strict=True))
                for i in range(matches)
            ]
            note(f"  {len(clients)} accounts signed up in {time.perf_counter() - setup:.1f} s")
        setup = time.perf_counter()
        first = await asyncio.gather(
            *(new_match(api, seats, players=tables[i], seed=table_seed(i, 0)) for i in range(matches))
        )
        note(f"  {matches} matches created and joined in {time.perf_counter() - setup:.1f} s")
        loop = asyncio.get_running_loop()
        # the clients connect and the bot pool warms up first, and every table has begun
        start = loop.time() + 2.0 + PACE.stagger
        window = (start, start + duration)
        if driver == "node":
            if accounts or chat_every:
                raise SystemExit("--driver node plays by seat tokens, without chat")
            await node_humans(
                base_url,
                ws_urls,
                first=first,
                seats=seats or SEATS,
                stats=stats,
                window=window,
                cpu_roles=cpu_roles or dict,
                server_urls=server_urls or [],
            )
            return stats
        meters = [loop.create_task(measure_cpu(window, cpu_roles or dict, stats))]
        if server_urls:
            meters.append(loop.create_task(measure_server_latency(window, server_urls, stats)))
        await asyncio.gather(
            *meters,
            *(
                table(
                    i,
                    api=api,
                    ws_urls=ws_urls,
                    first=first[i],
                    stats=stats,
                    window=window,
                    players=tables[i],
                    chat_every=chat_every,
                    seats=seats,
                )
                for i in range(matches)
            ),
        )
        for players in tables:
            for client in (players or {}).values():
                await client.aclose()
    return stats


def scenario_matches(args: argparse.Namespace, source: Source, tmp: Path) -> dict[str, Any]:
    database = args.database or f"sqlite:///{tmp / 'matches.sqlite3'}"
    servers = [
        Server(tmp, args.bot_workers, database, args.redis, source=source, env=SCENARIO_ENV["matches"])
        for _ in range(args.processes)
    ]
    try:
        for server in servers:
            server.wait_ready()
        stats = asyncio.run(
            run_matches(
                servers[0].base_url,
                [s.ws_url for s in servers],
                args.matches,
                args.duration,
                accounts=args.players == "accounts",
                chat_every=args.chat_every,
                seats=args.seats.split(","),
                cpu_roles=lambda: {
                    "server": [pid for server in servers for pid in descendants(server.proc.pid)],
                    "postgresql": named("postgres"),
                    "redis": named("redis-server"),
                },
                server_urls=[server.base_url for server in servers],
                driver=args.driver,
            )
        )
    finally:
        for server in servers:
            server.stop()
    rtt = stats.round_trips
    duration = args.duration
    return {
        "matches": args.matches,
        "driver": args.driver,
        "think_s": THINK,
        "think_spread": PACE.spread,
        "stagger_s": PACE.stagger,
        "seats": args.seats,
        "players": args.players,
        "processes": args.processes,
        "database": database.split(":", 1)[0],
        "duration_s": duration,
        "actions_per_s": stats.actions / duration,
        "human_actions_per_s": stats.human_actions / duration,
        "rtt_p50_ms": 1000 * percentile(rtt, 0.50),
        "rtt_p99_ms": 1000 * percentile(rtt, 0.99),
        "rtt_max_ms": 1000 * max(rtt) if rtt else float("nan"),
        "rtt_mean_ms": 1000 * statistics.fmean(rtt) if rtt else float("nan"),
        "round_trips": len(rtt),
        "games_finished": stats.games,
        "errors": stats.errors,
        "error_codes": dict(stats.error_codes),
        "timeouts": stats.timeouts,
        "chat_every_s": args.chat_every,
        "chat_sent": stats.chat_sent,
        "chat_received": stats.chat_received,
        "cpu_ms_per_move": cpu_per_move(stats),
        "machine_busy": machine_busy(stats),
        "server_p50_ms_at_most": 1000 * bucket_quantile(stats.server_latency, 0.50),
        "server_p99_ms_at_most": 1000 * bucket_quantile(stats.server_latency, 0.99),
        "server_within_ms": bucket_shares(stats.server_latency),
        "commit_within_ms": bucket_shares(stats.commit_latency),
        "commit_p50_ms_at_most": 1000 * bucket_quantile(stats.commit_latency, 0.50),
        "commit_p99_ms_at_most": 1000 * bucket_quantile(stats.commit_latency, 0.99),
    }


def print_matches(f: dict[str, Any]) -> None:
    print(
        f"matches: Masker 4 players 2D ({f['seats'].replace(',', ', ')}), {f['matches']} concurrent matches, "
        f"{f['duration_s']:g} s, {f['processes']} server process(es) on {f['database']}, "
        f"humans by {f.get('players', 'tokens')}, played by {f.get('driver', 'python')}, "
        f"waits {f.get('think_s', THINK):g} s +- {100 * f.get('think_spread', 0):.0f}%"
    )
    print(f"  actions/s (all seats)    {f['actions_per_s']:10.1f}")
    print(f"  human actions/s          {f['human_actions_per_s']:10.1f}")
    print(
        f"  human round trip (ms)    p50 {f['rtt_p50_ms']:.1f}   p99 {f['rtt_p99_ms']:.1f}"
        f"   max {f['rtt_max_ms']:.1f}   ({f['round_trips']} actions)"
    )
    print(
        f"  games finished {f['games_finished']}, errors {f['errors']} {f['error_codes'] or ''}, "
        f"receive timeouts {f['timeouts']}"
    )
    if f.get("server_p99_ms_at_most") is not None:
        print(
            f"  the server's own time (message in, last view out), from its histogram: p50 at most "
            f"{f['server_p50_ms_at_most']:g} ms, p99 at most {f['server_p99_ms_at_most']:g} ms"
        )
    if f.get("commit_p99_ms_at_most") is not None:
        print(
            f"  an action waiting for its commit (every action), from its histogram: p50 at most "
            f"{f['commit_p50_ms_at_most']:g} ms, p99 at most {f['commit_p99_ms_at_most']:g} ms"
        )
    for what, key in (("server's own time", "server_within_ms"), ("wait for the commit", "commit_within_ms")):
        if f.get(key):
            shares = ", ".join(f"{100 * share:.1f}% <= {edge} ms" for edge, share in f[key].items())
            print(f"    {what}: {shares}")
    if f.get("cpu_ms_per_move"):
        roles = "  ".join(f"{role} {ms:.2f}" for role, ms in f["cpu_ms_per_move"].items())
        print(f"  CPU per human action (ms): {roles}; machine {100 * f['machine_busy']:.0f}% busy")
    if f.get("chat_every_s"):
        print(
            f"  chat: a line per human every {f['chat_every_s']:g} s: {f['chat_sent']} sent, "
            f"{f['chat_received']} lines received"
        )


# -- scenario: bots -------------------------------------------------------------------------------
@dataclass
class BotWaits:
    waits: list[float] = field(default_factory=list)  # B's last action acknowledged -> B's turn again
    pending: list[float] = field(default_factory=list)  # waits still open when the window closed
    round_trips: list[float] = field(default_factory=list)  # B's action sent -> acknowledged
    moves: int = 0
    games: int = 0
    skipped: int = 0  # acknowledgements that arrived already past the bot's move (not measured)
    errors: Counter[str] = field(default_factory=Counter)
    timeouts: int = 0


@dataclass
class Attacker:
    first_accepted: int = 0  # of the first ATTACKER_MATCHES simultaneous creations
    first_refused: int = 0
    accepted: int = 0
    refused: int = 0  # 429
    other_refusals: Counter[str] = field(default_factory=Counter)
    finished: int = 0
    running: int = 0
    max_running: int = 0
    running_samples: list[int] = field(default_factory=list)


async def play_against_bot(
    ws: ClientConnection, *, out: BotWaits, window: tuple[float, float], rng: random.Random
) -> bool:
    """B's seat until the game ends (True) or the window closes (False)."""
    loop = asyncio.get_running_loop()
    start, end = window
    acted = last_version = sent_version = -1
    sent_at: float | None = None
    wait_from: float | None = None
    for _ in range(MAX_MESSAGES):
        now = loop.time()
        if now >= end:
            if wait_from is not None and wait_from >= start:
                out.pending.append(now - wait_from)
            return False
        try:
            raw = await asyncio.wait_for(ws.recv(), timeout=min(end - now, RECV_TIMEOUT))
        except TimeoutError:
            if loop.time() < end:
                out.timeouts += 1
            continue
        now = loop.time()
        message = orjson.loads(raw)
        if message["type"] == "error":
            out.errors[str(message.get("code"))] += 1
            continue
        if message["type"] != "state" or message["version"] <= last_version:
            continue
        version = last_version = message["version"]
        if sent_at is not None and version > sent_version:
            if version == sent_version + 1:
                if sent_at >= start:
                    out.moves += 1
                    out.round_trips.append(now - sent_at)
                if not message["your_turn"] and message["to_move"] is not None:
                    wait_from = now  # the bot is to move
            else:
                out.skipped += 1
            sent_at = None
        elif wait_from is not None and message["your_turn"]:
            if wait_from >= start:
                out.waits.append(now - wait_from)
            wait_from = None
        if message["to_move"] is None:
            out.games += 1
            return True
        if message["your_turn"] and version > acted:
            acted = version
            await asyncio.sleep(THINK)
            if loop.time() >= end:
                continue
            action = random_action(message["legal"], rng)
            sent_at, sent_version = loop.time(), version
            await ws.send(json.dumps({"type": "action", "action": action, "version": version}))
    return False


async def player_b(base_url: str, ws_url: str, window: tuple[float, float], out: BotWaits) -> None:
    """Client B: human against a hard bot, a new match after each game, until the window closes."""
    rng = random.Random(17)
    loop = asyncio.get_running_loop()
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as api:
        for _ in range(MAX_GAMES_PER_TABLE):
            if loop.time() >= window[1]:
                return
            try:
                match_id, tokens = await new_match(api, ["human", "hard"], MASKER_2P)
            except httpx.HTTPStatusError as exc:  # e.g. 429: counted, tried again after Retry-After
                out.errors[f"create {exc.response.status_code}"] += 1
                await asyncio.sleep(retry_after(exc.response))
                continue
            url = f"{ws_url}/ws/matches/{match_id}?token={tokens[0]}"
            try:
                async with connect(url, max_size=MAX_SIZE, open_timeout=RECV_TIMEOUT) as ws:
                    if not await play_against_bot(ws, out=out, window=window, rng=rng):
                        return
            except (ConnectionClosed, OSError, InvalidHandshake) as exc:
                out.errors[f"connection: {type(exc).__name__}"] += 1  # a new match


def retry_after(response: httpx.Response) -> float:
    """The response's Retry-After in seconds, within 1..10."""
    try:
        return min(max(float(response.headers.get("retry-after", "1")), 1.0), 10.0)
    except ValueError:
        return 1.0


async def attacker_slot(
    number: int, api: httpx.AsyncClient, ws_url: str, stop_at: float, out: Attacker
) -> None:
    """One of client A's six all-expert matches: created, watched to its end, replaced; a refusal is
    counted and tried again after its Retry-After (1..10 s)."""
    loop = asyncio.get_running_loop()
    body = {"game": "masker", "options": MASKER_2P, "seats": [{"kind": "expert"}, {"kind": "expert"}]}
    for attempt in range(10_000):
        if loop.time() >= stop_at:
            return
        try:
            response = await api.post("/api/matches", json=body)
        except httpx.HTTPError as exc:
            out.other_refusals[type(exc).__name__] += 1
            await asyncio.sleep(1.0)
            continue
        if response.status_code != 201:
            if response.status_code == 429:
                out.refused += 1
                out.first_refused += attempt == 0
            else:
                out.other_refusals[str(response.status_code)] += 1
            await asyncio.sleep(min(retry_after(response), max(0.0, stop_at - loop.time())))
            continue
        out.accepted += 1
        out.first_accepted += attempt == 0
        out.running += 1
        out.max_running = max(out.max_running, out.running)
        try:
            await watch_until_finished(api, ws_url, response.json()["id"], stop_at)
        finally:
            out.running -= 1
        if loop.time() < stop_at:
            out.finished += 1


async def watch_until_finished(api: httpx.AsyncClient, ws_url: str, match_id: str, stop_at: float) -> None:
    """Follow a match as a spectator from A's address; if the WebSocket fails, poll the summary."""
    loop = asyncio.get_running_loop()
    with contextlib.suppress(ConnectionClosed, OSError, InvalidHandshake, TimeoutError):
        async with connect(
            f"{ws_url}/ws/matches/{match_id}",
            max_size=MAX_SIZE,
            open_timeout=RECV_TIMEOUT,
            local_addr=(OTHER_HOST, 0),
        ) as ws:
            for _ in range(MAX_MESSAGES):
                left = stop_at - loop.time()
                if left <= 0:
                    return
                with contextlib.suppress(TimeoutError):
                    message = json.loads(await asyncio.wait_for(ws.recv(), timeout=min(left, 5.0)))
                    if message.get("type") == "state" and message.get("to_move") is None:
                        return
    for _ in range(10_000):
        if loop.time() >= stop_at:
            return
        with contextlib.suppress(httpx.HTTPError):
            summary = await api.get(f"/api/matches/{match_id}")
            if summary.status_code != 200 or summary.json().get("status") == "finished":
                return
        await asyncio.sleep(1.0)


async def run_bots_phase(
    server: Server, duration: float, *, loaded: bool, warmup: float
) -> tuple[BotWaits, Attacker | None]:
    """B plays alone for ``warmup`` seconds (the server's bot pool starts), then, when ``loaded``, A
    starts its six matches; the window opens a second later, and only B's waits that begin in it
    count."""
    loop = asyncio.get_running_loop()
    b = BotWaits()
    head = 1.0 if loaded else 0.0  # A's six are created before the window opens
    start = loop.time() + warmup + head
    window = (start, start + duration)
    tasks = [player_b(server.base_url, server.ws_url, window, b)]
    attacker: Attacker | None = None
    if loaded:
        attacker = Attacker()
        tasks.append(client_a(server, window, warmup, attacker))
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=warmup + head + duration + 2 * RECV_TIMEOUT + 30)
    return b, attacker


async def client_a(server: Server, window: tuple[float, float], delay: float, out: Attacker) -> None:
    """Client A, from 127.0.0.2: after ``delay`` seconds, six all-expert matches kept going."""
    await asyncio.sleep(delay)
    transport = httpx.AsyncHTTPTransport(local_address=OTHER_HOST, limits=httpx.Limits(max_connections=20))
    async with httpx.AsyncClient(base_url=server.base_url, timeout=60, transport=transport) as a_api:
        await asyncio.gather(
            *(attacker_slot(i, a_api, server.ws_url, window[1], out) for i in range(ATTACKER_MATCHES)),
            sample_running(out, window),
        )


async def sample_running(attacker: Attacker, window: tuple[float, float]) -> None:
    """How many of A's matches run, once a second during the window."""
    loop = asyncio.get_running_loop()
    await asyncio.sleep(max(0.0, window[0] - loop.time()))
    for _ in range(100_000):
        if loop.time() >= window[1]:
            return
        attacker.running_samples.append(attacker.running)
        await asyncio.sleep(1.0)


def bot_figures(b: BotWaits, duration: float) -> dict[str, Any]:
    return {
        "duration_s": duration,
        "bot_replies": len(b.waits),
        "wait": ms(b.waits, 0.5, 0.9),
        "pending_at_end_ms": [round(1000 * p, 1) for p in b.pending],
        # with the waits still open at the end counted as their time so far: lower bounds
        "wait_with_pending": ms(b.waits + b.pending, 0.5, 0.9),
        "b_moves": b.moves,
        "b_round_trip": ms(b.round_trips, 0.5, 0.99),
        "b_games_finished": b.games,
        "skipped": b.skipped,
        "errors": dict(b.errors),
        "timeouts": b.timeouts,
    }


def scenario_bots(args: argparse.Namespace, source: Source, tmp: Path) -> dict[str, Any]:
    """Each phase on a fresh server: B's match left unfinished by the first phase must not count
    against B's own bot cap in the second."""
    phases: list[tuple[BotWaits, Attacker | None]] = []
    for loaded, duration in ((False, args.bots_duration), (True, args.bots_loaded_duration)):
        database = args.database or f"sqlite:///{tmp / f'bots-{int(loaded)}.sqlite3'}"
        server = Server(tmp, args.bot_workers, database, args.redis, source=source, env=SCENARIO_ENV["bots"])
        try:
            server.wait_ready()
            if loaded:
                note(f"  bots: B with A's {ATTACKER_MATCHES} expert matches for {duration:g} s")
            else:
                note(f"  bots: B alone for {duration:g} s")
            phases.append(
                asyncio.run(run_bots_phase(server, duration, loaded=loaded, warmup=args.bots_warmup))
            )
        finally:
            server.stop()
    (alone, _), (loaded_b, attacker) = phases
    assert attacker is not None
    unloaded_f = bot_figures(alone, args.bots_duration)
    loaded_f = bot_figures(loaded_b, args.bots_loaded_duration)
    samples = attacker.running_samples
    loaded_f["attacker"] = {
        "first_accepted": attacker.first_accepted,
        "first_refused_429": attacker.first_refused,
        "accepted": attacker.accepted,
        "refused_429": attacker.refused,
        "other_refusals": dict(attacker.other_refusals),
        "finished": attacker.finished,
        "max_running": attacker.max_running,
        "mean_running": statistics.fmean(samples) if samples else float("nan"),
    }

    def ratio(key: str, which: str = "wait") -> float:
        alone_ms, loaded_ms = unloaded_f[which][key], loaded_f[which][key]
        return float(loaded_ms / alone_ms) if alone_ms > 0 else float("nan")  # nan stays nan

    return {
        "game": "masker 2 players 2d, seats human,hard (B); A: expert,expert x6",
        "bot_workers": args.bot_workers if args.bot_workers is not None else "server default",
        "unloaded": unloaded_f,
        "loaded": loaded_f,
        "ratio_p50": ratio("p50_ms"),
        "ratio_p90": ratio("p90_ms"),
        "ratio_mean": ratio("mean_ms"),
        "ratio_p50_with_pending": ratio("p50_ms", "wait_with_pending"),
    }


def print_bots(f: dict[str, Any]) -> None:
    print(f"bots: {f['game']}, bot workers: {f['bot_workers']}")
    for name in ("unloaded", "loaded"):
        p = f[name]
        w = p["wait"]
        print(
            f"  {name:9} B's wait for the bot (ms)  p50 {w['p50_ms']:.0f}   p90 {w['p90_ms']:.0f}"
            f"   max {w['max_ms']:.0f}   mean {w['mean_ms']:.0f}   ({p['bot_replies']} replies, "
            f"{p['b_moves']} moves of B in {p['duration_s']:g} s)"
        )
        if p["pending_at_end_ms"]:
            v = p["wait_with_pending"]
            print(
                f"            still waiting at the end: {p['pending_at_end_ms']} ms; with these as lower "
                f"bounds p50 {v['p50_ms']:.0f}   p90 {v['p90_ms']:.0f}   max {v['max_ms']:.0f}"
            )
        if p["errors"] or p["timeouts"] or p["skipped"]:
            print(f"            errors {p['errors']}, timeouts {p['timeouts']}, skipped {p['skipped']}")
    a = f["loaded"]["attacker"]
    print(
        f"  A (127.0.0.2): {a['first_accepted']} of {ATTACKER_MATCHES} first matches accepted "
        f"({a['first_refused_429']} refused with 429); over the run {a['accepted']} accepted, "
        f"{a['refused_429']} refused (429), other {a['other_refusals'] or 0}, {a['finished']} finished, "
        f"running max {a['max_running']}, mean {a['mean_running']:.1f}"
    )
    print(
        f"  loaded/unloaded: p50 {f['ratio_p50']:.2f}x   p90 {f['ratio_p90']:.2f}x   "
        f"mean {f['ratio_mean']:.2f}x   p50 with the open waits {f['ratio_p50_with_pending']:.2f}x   "
        "(target: under 2x)"
    )


# -- scenario: spectators -------------------------------------------------------------------------
@dataclass(frozen=True)
class FleetPlan:
    ws_url: str
    match_id: str
    count: int
    concurrency: int  # connections opened at a time
    connect_timeout: float
    max_seconds: float  # the longest the fleet stays, whatever happens


def spectator_fleet(plan: FleetPlan, stop: EventType, results: Any) -> None:
    """Runs in its own process (so 1,000 sockets do not slow the players' client): connects the
    spectators, reports ``connected``, keeps them until ``stop`` is set, then reports the counts."""
    raise_open_files(plan.count + 256)
    asyncio.run(_fleet(plan, stop, results))


async def _fleet(plan: FleetPlan, stop: EventType, results: Any) -> None:
    ws_url, match_id, count = plan.ws_url, plan.match_id, plan.count
    connect_timeout, max_seconds = plan.connect_timeout, plan.max_seconds
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(plan.concurrency)
    failures: Counter[str] = Counter()
    latencies: list[float] = []
    messages = [0] * count
    presence = [0] * count
    opened = [False] * count
    closed_early = 0
    close_codes: Counter[str] = Counter()
    connected_all = asyncio.Event()
    pending = count
    release = asyncio.Event()

    def attempt_done() -> None:
        nonlocal pending
        pending -= 1
        if pending == 0:
            connected_all.set()

    async def spectator(i: int) -> None:
        nonlocal closed_early
        async with gate:
            began = loop.time()
            try:
                async with asyncio.timeout(connect_timeout):
                    ws = await connect(
                        f"{ws_url}/ws/matches/{match_id}",
                        max_size=MAX_SIZE,
                        open_timeout=None,
                        ping_interval=None,
                    )
            except TimeoutError:
                failures["timeout"] += 1
                attempt_done()
                return
            except InvalidStatus as exc:
                failures[f"http {exc.response.status_code}"] += 1
                attempt_done()
                return
            except (OSError, InvalidHandshake) as exc:
                failures[type(exc).__name__] += 1
                attempt_done()
                return
            # As the browser does: the first message says who this is (a spectator). A server from
            # before the hello answers it with an error message, which is counted and ignored.
            with contextlib.suppress(ConnectionClosed):
                await ws.send('{"type": "hello"}')
            latencies.append(loop.time() - began)
            opened[i] = True
        attempt_done()
        try:
            for _ in range(10 * MAX_MESSAGES):
                receive = asyncio.ensure_future(ws.recv())
                stopping = asyncio.ensure_future(release.wait())
                done, _ = await asyncio.wait({receive, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if receive not in done:
                    receive.cancel()
                    with contextlib.suppress(asyncio.CancelledError, ConnectionClosed):
                        await receive
                    return
                stopping.cancel()
                raw = receive.result()
                messages[i] += 1
                if '"presence"' in raw[:40]:
                    presence[i] += 1
        except ConnectionClosed as exc:
            closed_early += 1
            code = exc.rcvd.code if exc.rcvd is not None else "none"
            close_codes[f"{code} {exc.rcvd.reason if exc.rcvd is not None else ''}".strip()] += 1
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), timeout=5.0)

    began = loop.time()
    tasks = [asyncio.ensure_future(spectator(i)) for i in range(count)]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(connected_all.wait(), timeout=max_seconds)
    at_connect = list(messages)
    results.put(
        {
            "phase": "connected",
            "connect_seconds": loop.time() - began,
            "connected": len(latencies),
            "failed": sum(failures.values()),
        }
    )
    for _ in range(int(max_seconds * 10)):
        if stop.is_set():
            break
        await asyncio.sleep(0.1)
    release.set()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), timeout=30.0)
    received = [messages[i] for i in range(count) if opened[i]]
    during_play = [messages[i] - at_connect[i] for i in range(count) if opened[i]]
    results.put(
        {
            "phase": "done",
            "connect_seconds": None,
            "connected": len(latencies),
            "failed": sum(failures.values()),
            "failures": dict(failures),
            "connect_latencies": latencies,
            "messages": received,
            "presence": [presence[i] for i in range(count) if opened[i]],
            "during_play": during_play,
            "closed_early": closed_early,
            "close_codes": dict(close_codes),
        }
    )


def merge_fleet_reports(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """One report from the spectator processes' own: counts and lists added up, the longest time."""
    merged: dict[str, Any] = {}
    for report in reports:
        for key, value in report.items():
            if key == "connect_seconds":
                merged[key] = max(merged.get(key, 0.0), value or 0.0)
            elif isinstance(value, dict):
                merged[key] = dict(Counter(merged.get(key, {})) + Counter(value))
            elif isinstance(value, list | int) and not isinstance(value, bool):
                merged[key] = merged.get(key, type(value)()) + value
            else:
                merged[key] = value
    return merged


@dataclass
class Spectated:
    """The humans' side of the spectators scenario."""

    stats: Stats = field(default_factory=Stats)
    connected: int = 0
    lost: int = 0  # humans' connections that dropped
    played_s: float = 0.0


async def spectated_human(
    ws_url: str,
    match_id: str,
    seat: int,
    token: str,
    *,
    out: Spectated,
    go: asyncio.Event,
    give_up: float,
    duration: float,
) -> None:
    """One human: connected before the spectators arrive, reading every message all along (a client
    that stops reading would hold up the server's sends), and playing once ``go`` is set, to the end
    of the game or ``duration`` seconds."""
    loop = asyncio.get_running_loop()
    rng = random.Random(seat)
    stats = out.stats
    async with connect(
        f"{ws_url}/ws/matches/{match_id}?token={token}", max_size=MAX_SIZE, open_timeout=RECV_TIMEOUT
    ) as ws:
        out.connected += 1
        end: float | None = None
        latest: dict[str, Any] | None = None
        acted = -1
        sent_at: float | None = None
        sent_version = -1
        for _ in range(100 * MAX_MESSAGES):
            now = loop.time()
            if end is None and go.is_set():
                end = now + duration
            if (end is not None and now >= end) or now >= give_up:
                return
            # A turn to play: the latest view says so, and the play has begun.
            if end is not None and latest is not None and latest["your_turn"] and latest["version"] > acted:
                acted = latest["version"]
                await asyncio.sleep(THINK)
                if loop.time() >= end:
                    return
                action = longest_action(latest["legal"], rng)
                sent_at, sent_version = loop.time(), acted
                await ws.send(json.dumps({"type": "action", "action": action, "version": acted}))
                continue
            left = (end if end is not None else give_up) - now
            try:
                raw = await asyncio.wait_for(
                    ws.recv(), timeout=min(left, 0.25 if end is None else RECV_TIMEOUT)
                )
            except TimeoutError:
                if end is not None and loop.time() < end:
                    stats.timeouts += 1
                    return
                continue
            now = loop.time()
            message = orjson.loads(raw)
            if stats.refused(message):
                continue
            if message["type"] != "state" or (latest is not None and message["version"] < latest["version"]):
                continue
            latest = message
            if sent_at is not None and message["version"] > sent_version:
                stats.round_trips.append(now - sent_at)
                stats.human_actions += 1
                sent_at = None
            if message["to_move"] is None:
                stats.games += seat == 0
                return


async def run_spectators(
    args: argparse.Namespace, server: Server, launch: Callable[[str], Awaitable[dict[str, Any]]]
) -> tuple[Spectated, dict[str, Any]]:
    """Create the match, connect the humans, let ``launch`` bring the spectators (it returns once they
    are connected), then play; the humans' figures and the spectators' connect report."""
    async with httpx.AsyncClient(base_url=server.base_url, timeout=60) as api:
        match_id, tokens = await new_match(api, ["human", "human"], MASKER_2P)
    out = Spectated()
    go = asyncio.Event()
    loop = asyncio.get_running_loop()
    give_up = loop.time() + args.spectators_duration + FLEET_GRACE

    async def guarded(seat: int, token: str) -> None:
        try:
            await spectated_human(
                server.ws_url,
                match_id,
                seat,
                token,
                out=out,
                go=go,
                give_up=give_up,
                duration=args.spectators_duration,
            )
        except (ConnectionClosed, OSError) as exc:
            print(f"connection lost: {exc!r}", file=sys.stderr)
            out.lost += 1

    humans = [asyncio.ensure_future(guarded(seat, token)) for seat, token in tokens.items()]
    for _ in range(int(RECV_TIMEOUT / 0.05)):
        if out.connected + out.lost >= len(tokens):
            break
        await asyncio.sleep(0.05)
    connected = await launch(match_id)
    note(
        f"  spectators: {connected['connected']} connected, {connected['failed']} failed, "
        f"in {connected['connect_seconds']:.1f} s; the humans play"
    )
    began = loop.time()
    go.set()
    await asyncio.gather(*humans)
    out.played_s = loop.time() - began
    return out, connected


def scenario_spectators(args: argparse.Namespace, source: Source, tmp: Path) -> dict[str, Any]:
    limit = raise_open_files(args.spectators + 1024)  # the server inherits it
    database = args.database or f"sqlite:///{tmp / 'spectators.sqlite3'}"
    server = Server(
        tmp, args.bot_workers, database, args.redis, source=source, env=SCENARIO_ENV["spectators"]
    )
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    results = context.Queue()
    fleets: list[multiprocessing.process.BaseProcess] = []
    max_seconds = args.spectators_duration + FLEET_GRACE

    async def launch(match_id: str) -> dict[str, Any]:
        shares = [
            len(range(i, args.spectators, args.spectator_processes)) for i in range(args.spectator_processes)
        ]
        for share in shares:
            plan = FleetPlan(
                server.ws_url,
                match_id,
                share,
                max(1, args.spectator_concurrency * share // args.spectators),
                args.spectator_timeout,
                max_seconds,
            )
            fleets.append(context.Process(target=spectator_fleet, args=(plan, stop, results)))
            fleets[-1].start()
        reports = [await asyncio.to_thread(results.get, True, max_seconds + 60) for _ in fleets]
        return merge_fleet_reports(reports)

    try:
        server.wait_ready()
        humans, connected = asyncio.run(run_spectators(args, server, launch))
        stop.set()
        done = merge_fleet_reports([results.get(timeout=120) for _ in fleets])
        for fleet in fleets:
            fleet.join(timeout=60)
    finally:
        stop.set()
        for fleet in fleets:
            if fleet.is_alive():
                fleet.kill()
                fleet.join(timeout=10)
        server.stop()
    stats = humans.stats
    played = humans.played_s
    received = done["messages"]
    return {
        "game": "masker 2 players 2d, seats human,human (one step a turn, then stop)",
        "spectators": args.spectators,
        "concurrency": args.spectator_concurrency,
        "client_processes": args.spectator_processes,
        "connect_timeout_s": args.spectator_timeout,
        "open_files_limit": limit,
        "connect_phase_s": connected["connect_seconds"],
        "connected": done["connected"],
        "failed_connections": done["failed"],
        "failures": done["failures"],
        "closed_early": done["closed_early"],
        "close_codes": done["close_codes"],
        "connect_latency": ms(done["connect_latencies"], 0.5, 0.99),
        "played_s": played,
        "game_over": stats.games > 0,
        "moves": stats.human_actions,
        "rtt": ms(stats.round_trips, 0.5, 0.99),
        "errors": stats.errors,
        "error_codes": dict(stats.error_codes),
        "timeouts": stats.timeouts,
        "humans_connected": humans.connected,
        "humans_lost": humans.lost,
        "messages_per_spectator": {
            "mean": statistics.fmean(received) if received else float("nan"),
            "min": min(received, default=0),
            "max": max(received, default=0),
            "presence_mean": statistics.fmean(done["presence"]) if received else float("nan"),
            "during_play_mean": statistics.fmean(done["during_play"]) if received else float("nan"),
        },
    }


def print_spectators(f: dict[str, Any]) -> None:
    m = f["messages_per_spectator"]
    c = f["connect_latency"]
    r = f["rtt"]
    print(f"spectators: {f['game']}")
    print(
        f"  {f['spectators']} spectators ({f['client_processes']} client processes, {f['concurrency']} "
        f"connecting at a time, timeout "
        f"{f['connect_timeout_s']:g} s): {f['connected']} connected, {f['failed_connections']} failed "
        f"{f['failures'] or ''}, in {f['connect_phase_s']:.1f} s; connect latency p50 {c['p50_ms']:.0f} "
        f"p99 {c['p99_ms']:.0f} max {c['max_ms']:.0f} ms; closed early {f['closed_early']} "
        f"{f['close_codes'] or ''}"
    )
    print(
        f"  humans' round trip (ms)  p50 {r['p50_ms']:.1f}   p99 {r['p99_ms']:.1f}   max {r['max_ms']:.1f}"
        f"   ({f['moves']} moves in {f['played_s']:.1f} s, game over: {f['game_over']}; "
        f"errors {f['errors']}, timeouts {f['timeouts']}, humans connected {f['humans_connected']}, "
        f"lost {f['humans_lost']})"
    )
    print(
        f"  messages per spectator: mean {m['mean']:.1f} (min {m['min']}, max {m['max']}), "
        f"presence {m['presence_mean']:.1f}, while the humans played {m['during_play_mean']:.1f}"
    )
    print("  targets: p99 under 50 ms, no failed connection")


# -- main -----------------------------------------------------------------------------------------

# -- the site: web processes and bot workers behind nginx ------------------------------------------
SITE_TOPOLOGIES = ((1, 1), (1, 2), (2, 2))
"""(web processes, ``masques worker`` processes) of the ``site`` scenario, in the order they run."""
ALL_HUMAN = ["human"] * 4
SITE_BOT_SEATS = [{"kind": "medium"}, {"kind": "medium"}]
LOCATIONS = Path(__file__).resolve().parents[1] / "deploy" / "masques-locations.conf"
BOT_MATCH_POLL = 2.0
"""Seconds between a bot match's client's looks at its match: the workers have a backlog of the other
matches' decisions meanwhile, and the load generator should load the site, not itself."""
BOT_CLIENTS = "127.0.0.{}"  # the bot matches' clients: one address each, 127.0.0.10 and up


class BotWorkers:
    """``masques worker`` processes, one decision at a time each, each in its own process group."""

    def __init__(self, workdir: Path, count: int, redis: str, source: Source) -> None:
        self.procs: list[subprocess.Popen[bytes]] = []
        for i in range(count):
            log = (workdir / f"worker-{i}-{free_port()}.log").open("wb")
            command = [source.python, "-m", "masques.cli.main", "worker", "--redis", redis]
            self.procs.append(
                subprocess.Popen(
                    [*command, "--processes", "1", "--log-level", "warning"],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                    env=source.env({}),
                )
            )

    def stop(self) -> None:
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


def loopback_nginx(folder: Path, port: int, upstreams: list[int], *, connections: int) -> str:
    """The nginx configuration of ``deploy/loopback-nginx.conf.template`` for these ports."""
    template = (LOCATIONS.parent / "loopback-nginx.conf.template").read_text("utf-8")
    return template.format(
        user="user root;" if os.geteuid() == 0 else "",
        folder=folder,
        connections=connections,
        upstream_count=len(upstreams),
        servers="\n".join(f"        server {HOST}:{p};" for p in upstreams),
        port=port,
        locations=LOCATIONS,
    )


class Proxy:
    """Debian's nginx on loopback with the site's own rules (``deploy/masques-locations.conf``)."""

    def __init__(self, workdir: Path, nginx: str, upstreams: list[int]) -> None:
        self.port = free_port()
        folder = workdir / f"nginx-{self.port}"
        folder.mkdir()
        conf = folder / "nginx.conf"
        conf.write_text(loopback_nginx(folder, self.port, upstreams, connections=4096), "utf-8")
        self.proc = subprocess.Popen(
            [nginx, "-c", str(conf)], stdin=subprocess.DEVNULL, start_new_session=True
        )
        self.base_url = f"http://{HOST}:{self.port}"
        self.ws_url = f"ws://{HOST}:{self.port}"
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base_url}/api/games", timeout=2).status_code == 200:
                    return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"nginx did not start: {(folder / 'error.log').read_text(errors='replace')}")
            time.sleep(0.1)

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait(timeout=10)


def postgres_database(base: str, name: str, *, drop: bool = False) -> str:
    """Create (or drop) the database ``name`` on the server of ``base``; its URL."""
    from sqlalchemy import create_engine, text

    engine = create_engine(base, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        if not drop:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return base.rsplit("/", 1)[0] + "/" + name


def bot_actions(servers: list[Server]) -> float:
    """Bot actions committed so far, summed over the web processes' metrics."""
    total = 0.0
    for server in servers:
        for line in httpx.get(f"{server.base_url}/metrics", timeout=10).text.splitlines():
            if line.startswith('masques_actions_total{by="bot"}'):
                total += float(line.split()[-1])
    return total


async def bot_load(
    proxy: Proxy, servers: list[Server], matches: int, warmup: float, duration: float, *, roles: Roles
) -> tuple[float, dict[str, float], float]:
    """Bot actions/s while ``matches`` all-bot matches (each from a client address of its own) are
    kept going (a finished match is replaced by its client); the CPU per bot action by role, and how
    busy the machine was."""
    clients = [
        httpx.AsyncClient(
            base_url=proxy.base_url,
            timeout=60,
            transport=httpx.AsyncHTTPTransport(local_address=BOT_CLIENTS.format(10 + i)),
        )
        for i in range(matches)
    ]
    body = {"game": "masker", "options": MASKER_2P, "seats": SITE_BOT_SEATS}

    async def keep_going(client: httpx.AsyncClient, stop_at: float) -> None:
        loop = asyncio.get_running_loop()
        while loop.time() < stop_at:
            response = await client.post("/api/matches", json=body)
            response.raise_for_status()
            match_id = response.json()["id"]
            while loop.time() < stop_at:
                await asyncio.sleep(BOT_MATCH_POLL)
                summary = await client.get(f"/api/matches/{match_id}")
                if summary.json().get("status") == "finished":
                    break

    try:
        loop = asyncio.get_running_loop()
        stop_at = loop.time() + warmup + duration + 1
        keepers = asyncio.gather(*(keep_going(c, stop_at) for c in clients))
        await asyncio.sleep(warmup)
        before = await asyncio.to_thread(bot_actions, servers)
        meter = Stats()
        window = (loop.time(), loop.time() + duration)
        await measure_cpu(window, roles, meter)
        after = await asyncio.to_thread(bot_actions, servers)
        await keepers
    finally:
        for client in clients:
            await client.aclose()
    meter.human_actions = round(after - before)  # per bot action, here
    return (after - before) / duration, cpu_per_move(meter), machine_busy(meter)


def site_roles(servers: list[Server], pool: BotWorkers, proxy: Proxy) -> Roles:
    """The processes of the deployed topology, by role."""
    return lambda: {
        "web": [pid for server in servers for pid in descendants(server.proc.pid)],
        "bot workers": [pid for proc in pool.procs for pid in descendants(proc.pid)],
        "nginx": descendants(proxy.proc.pid),
        "postgresql": named("postgres"),
        "redis": named("redis-server"),
    }


def machine_busy(stats: Stats) -> float:
    """The share of the machine's CPU time that was busy in the window (0..1)."""
    used = stats.cpu_seconds
    total = used.get("machine", 0.0) + used.get("idle", 0.0)
    return used.get("machine", 0.0) / total if total else float("nan")


def scenario_site(args: argparse.Namespace, source: Source, tmp: Path) -> dict[str, Any]:
    if not (args.redis and args.database.startswith("postgresql")):
        raise SystemExit("site: needs --database postgresql+psycopg://... and --redis redis://...")
    nginx = args.nginx or shutil.which("nginx") or "/usr/sbin/nginx"
    import redis as redis_client

    steps = [int(n) for n in args.site_humans.split(",")]
    rows: list[dict[str, Any]] = []
    for webs, workers in SITE_TOPOLOGIES:
        note(f"  {webs} web process(es), {workers} worker(s)")
        redis_client.Redis.from_url(args.redis).flushdb()  # the scenario's own Redis database
        name = f"masques_bench_site_{os.getpid()}"
        database = postgres_database(args.database, name)
        env = {**SCENARIO_ENV["matches"], "MASQUES_BOT_QUEUE": "redis", "MASQUES_LOG_LEVEL": "warning"}
        pool = BotWorkers(tmp, workers, args.redis, source)
        servers: list[Server] = []
        proxy = None
        try:
            for _ in range(webs):  # one after the other: the first migrates the database
                servers.append(Server(tmp, None, database, args.redis, source=source, env=env))
                servers[-1].wait_ready()
            proxy = Proxy(tmp, nginx, [s.port for s in servers])
            humans = []
            for n in steps:
                stats = asyncio.run(
                    run_matches(
                        proxy.base_url,
                        [proxy.ws_url],
                        n,
                        args.site_duration,
                        seats=ALL_HUMAN,
                        cpu_roles=site_roles(servers, pool, proxy),
                        server_urls=[server.base_url for server in servers],
                        driver=args.driver,
                    )
                )
                rtt = stats.round_trips
                humans.append(
                    {
                        "matches": n,
                        "moves_per_s": stats.human_actions / args.site_duration,
                        "rtt_p50_ms": 1000 * percentile(rtt, 0.50),
                        "rtt_p99_ms": 1000 * percentile(rtt, 0.99),
                        "errors": stats.errors,
                        "timeouts": stats.timeouts,
                        "cpu_ms_per_move": cpu_per_move(stats),
                        "machine_busy": machine_busy(stats),
                        "server_p99_ms_at_most": 1000 * bucket_quantile(stats.server_latency, 0.99),
                    }
                )
                note(
                    f"    {n} all-human matches: {humans[-1]['moves_per_s']:.0f} moves/s, "
                    f"p99 {humans[-1]['rtt_p99_ms']:.0f} ms, machine {100 * machine_busy(stats):.0f}% busy"
                )
            rate, bot_cpu, bot_busy = asyncio.run(
                bot_load(
                    proxy,
                    servers,
                    args.site_bot_matches,
                    args.bots_warmup,
                    args.site_duration,
                    roles=site_roles(servers, pool, proxy),
                )
            )
            note(
                f"    {args.site_bot_matches} all-bot matches: {rate:.1f} bot actions/s, "
                f"machine {100 * bot_busy:.0f}% busy"
            )
        finally:
            if proxy is not None:
                proxy.stop()
            for server in servers:
                server.stop()
            pool.stop()
            postgres_database(args.database, name, drop=True)
        rows.append(
            {
                "web_processes": webs,
                "workers": workers,
                "bot_actions_per_s": rate,
                "bot_cpu_ms_per_action": bot_cpu,
                "bot_machine_busy": bot_busy,
                "humans": humans,
            }
        )

    def held(row: dict[str, Any], p99_ms: float) -> float:
        """The largest all-human rate of the ladder whose p99 round trip stayed under ``p99_ms``."""
        ok = [h["moves_per_s"] for h in row["humans"] if h["rtt_p99_ms"] < p99_ms and not h["timeouts"]]
        return max(ok, default=0.0)

    def held_by_server(row: dict[str, Any], p99_ms: float) -> float:
        """The same, by the servers' own p99 (message in, last view out) instead of the round trip."""
        ok = [h["moves_per_s"] for h in row["humans"] if h["server_p99_ms_at_most"] <= p99_ms]
        return max(ok, default=0.0)

    def peak(row: dict[str, Any]) -> float:
        """The highest all-human rate of the ladder, whatever its round trip."""
        return max((h["moves_per_s"] for h in row["humans"]), default=0.0)

    one, two, two_web = rows
    one_web = max(held(one, 100), held(two, 100))  # people's moves need no bot worker
    return {
        "game": "masker 2D; bots: 2 players medium,medium; humans: 4 players, all human",
        "driver": args.driver,
        "think_s": THINK,
        "think_spread": PACE.spread,
        "stagger_s": PACE.stagger,
        "duration_s": args.site_duration,
        "bot_matches": args.site_bot_matches,
        "topologies": rows,
        "bots_two_workers_over_one": two["bot_actions_per_s"] / one["bot_actions_per_s"]
        if one["bot_actions_per_s"]
        else float("nan"),
        "humans_held_p99_100ms": {f"{r['web_processes']}w{r['workers']}k": held(r, 100) for r in rows},
        "humans_held_p99_50ms_one_web": max(held(one, 50), held(two, 50)),
        "humans_held_server_p99_50ms_one_web": max(held_by_server(one, 50), held_by_server(two, 50)),
        "humans_two_webs_over_one": held(two_web, 100) / one_web if one_web else float("nan"),
        "humans_two_webs_over_one_at_peak": peak(two_web) / max(peak(one), peak(two))
        if max(peak(one), peak(two))
        else float("nan"),
    }


def print_site(f: dict[str, Any]) -> None:
    print(f"site: {f['game']}, behind nginx, PostgreSQL + Redis, bots on `masques worker`")
    print(
        "  web  workers  bot actions/s   all-human matches: moves/s (round trip p99 ms; the servers' own "
        "p99 at most, ms)"
    )
    for row in f["topologies"]:
        ladder = "  ".join(
            f"{h['matches']}: {h['moves_per_s']:.0f} ({h['rtt_p99_ms']:.0f};<={h['server_p99_ms_at_most']:g})"
            for h in row["humans"]
        )
        print(
            f"  {row['web_processes']:>3}  {row['workers']:>7}  {row['bot_actions_per_s']:>13.1f}   {ladder}"
        )
    print("  CPU per person's move (ms), at each topology's largest step, and how busy the machine was:")
    for row in f["topologies"]:
        last = row["humans"][-1]
        roles = "  ".join(f"{role} {ms:.2f}" for role, ms in last["cpu_ms_per_move"].items())
        print(
            f"  {row['web_processes']}w{row['workers']}k at {last['matches']} matches: {roles}; "
            f"machine {100 * last['machine_busy']:.0f}% busy"
        )
    print("  CPU per bot action (ms), and how busy the machine was:")
    for row in f["topologies"]:
        roles = "  ".join(f"{role} {ms:.1f}" for role, ms in row["bot_cpu_ms_per_action"].items())
        busy = 100 * row["bot_machine_busy"]
        print(f"  {row['web_processes']}w{row['workers']}k: {roles}; machine {busy:.0f}% busy")

    def ratio(value: float | None) -> str:
        return "none" if value is None or math.isnan(value) else f"{value:.2f}x"

    print(f"  bot actions/s, two workers over one: {ratio(f['bots_two_workers_over_one'])}")
    held = f["humans_held_p99_100ms"]
    print(f"  all-human moves/s held at p99 < 100 ms: {held}")
    print(f"  two web processes over one (p99 < 100 ms): {ratio(f['humans_two_webs_over_one'])}")
    print(f"  two web processes over one (top of the ladder): {ratio(f['humans_two_webs_over_one_at_peak'])}")
    print(f"  one web process at p99 < 50 ms: {f['humans_held_p99_50ms_one_web']:.0f} moves/s")
    print(
        f"  one web process at the server's own p99 <= 50 ms: "
        f"{f['humans_held_server_p99_50ms_one_web']:.0f} moves/s"
    )


RUNNERS: dict[str, Callable[[argparse.Namespace, Source, Path], dict[str, Any]]] = {
    "matches": scenario_matches,
    "bots": scenario_bots,
    "spectators": scenario_spectators,
    "site": scenario_site,
}
PRINTERS: dict[str, Callable[[dict[str, Any]], None]] = {
    "matches": print_matches,
    "bots": print_bots,
    "spectators": print_spectators,
    "site": print_site,
}


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--src",
        type=Path,
        default=None,
        help="run the server from CHECKOUT/src (default: the installed masques)",
    )
    parser.add_argument(
        "--python", default=sys.executable, help="interpreter for the server (default: this one)"
    )


def source_line(described: dict[str, Any]) -> str:
    """The line that says which code the measured server ran."""
    return (
        f"server source: {described['package']} (commit {described['commit'][:12]}"
        f"{', modified' if described['dirty'] else ''}; Python {described['python']}), "
        f"{os.cpu_count()} CPUs"
    )


def source_of(args: argparse.Namespace) -> Source:
    return Source(args.python, args.src.resolve() if args.src is not None else None)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="matches")
    add_source_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--driver",
        choices=["python", "node"],
        default="python",
        help="matches, site: who plays the scripted seats: this script, or benchmarks/humans.mjs "
        "on Node.js (less CPU per move; seat tokens only, no chat)",
    )
    parser.add_argument(
        "--bot-workers", type=int, default=None, help="server bot processes (default: the server's default)"
    )
    parser.add_argument("--matches", type=int, default=100, help="matches: concurrent matches (default 100)")
    parser.add_argument(
        "--seats",
        default=",".join(SEATS),
        help="matches: the four seats of Masker's matches (default human,easy,human,easy; all human: "
        "human,human,human,human)",
    )
    parser.add_argument(
        "--players",
        choices=["tokens", "accounts"],
        default="tokens",
        help="matches: humans hold seat tokens (API clients), or are logged-in accounts whose seats "
        "follow their session cookie (each signs up first)",
    )
    parser.add_argument(
        "--duration", type=float, default=30.0, help="matches: measurement seconds (default 30)"
    )
    parser.add_argument(
        "--think-spread",
        type=float,
        default=THINK_SPREAD,
        help=f"matches, site: scripted people wait {THINK:g} s times 1 +- this before each move, drawn "
        f"anew each time (default {THINK_SPREAD:g}; 0: always {THINK:g} s, and the tables move in step)",
    )
    parser.add_argument(
        "--stagger",
        type=float,
        default=STAGGER,
        help=f"matches, site: the tables' first games begin at random over this many seconds, before "
        f"the window opens (default {STAGGER:g}; 0: all at once, and their games end in waves)",
    )
    parser.add_argument(
        "--chat-every",
        type=float,
        default=0.0,
        help="matches: each human also says a chat line every this many seconds (0: no chat)",
    )
    parser.add_argument(
        "--processes", type=int, default=1, help="matches: server processes (more need --redis)"
    )
    parser.add_argument("--database", default="", help="SQLAlchemy URL (default: SQLite in a temp dir)")
    parser.add_argument("--redis", default=None, help="Redis URL for several processes")
    parser.add_argument(
        "--bots-duration", type=float, default=90.0, help="bots: seconds of B alone (default 90)"
    )
    parser.add_argument(
        "--bots-loaded-duration", type=float, default=240.0, help="bots: seconds of B with A (default 240)"
    )
    parser.add_argument(
        "--bots-warmup", type=float, default=5.0, help="bots: seconds before each phase counts (default 5)"
    )
    parser.add_argument("--nginx", default=None, help="site: the nginx program (default: nginx on PATH)")
    parser.add_argument(
        "--site-humans",
        default="25,50,100",
        help="site: the ladder of all-human matches played at once, one step after the other",
    )
    parser.add_argument("--site-bot-matches", type=int, default=6, help="site: all-bot matches kept going")
    parser.add_argument("--site-duration", type=float, default=20.0, help="site: seconds of each step (20)")
    parser.add_argument("--spectators", type=int, default=1000, help="spectators: how many (default 1000)")
    parser.add_argument(
        "--spectators-duration",
        type=float,
        default=60.0,
        help="spectators: most seconds of play (default 60)",
    )
    parser.add_argument("--spectator-concurrency", type=int, default=50, help="connections opened at a time")
    parser.add_argument(
        "--spectator-processes", type=int, default=2, help="client processes for the spectators (default 2)"
    )
    parser.add_argument("--spectator-timeout", type=float, default=10.0, help="seconds a connection may take")
    args = parser.parse_args()
    if not 0 <= args.think_spread < 1:
        parser.error("--think-spread is 0 or more and less than 1")
    if not 0 <= args.stagger <= 600:
        parser.error("--stagger is 0 to 600 seconds")
    PACE.spread, PACE.stagger = args.think_spread, args.stagger
    if args.processes > 1 and not (args.redis and args.database.startswith("postgresql")):
        parser.error("several processes need --database postgresql+psycopg://... and --redis redis://...")
    if not 1 <= args.matches <= 2000 or not 0 < args.duration <= 3600:
        parser.error("--matches is 1..2000 and --duration 0..3600 seconds")
    if (
        not 0 <= args.bots_warmup <= 600
        or not 0 < args.bots_duration <= 3600
        or not 0 < args.bots_loaded_duration <= 3600
        or not 0 < args.spectators_duration <= 3600
    ):
        parser.error("--bots-duration and --spectators-duration are 0..3600 s, --bots-warmup 0..600 s")
    if not 1 <= args.spectators <= 20000 or not 1 <= args.spectator_concurrency <= 1000:
        parser.error("--spectators is 1..20000 and --spectator-concurrency 1..1000")
    if not 0 < args.spectator_timeout <= 600 or not 1 <= args.spectator_processes <= min(16, args.spectators):
        parser.error(
            "--spectator-timeout is 0..600 seconds, --spectator-processes 1..16 (and <= --spectators)"
        )
    source = source_of(args)
    described = source.describe()
    line = source_line(described)
    note(line)
    chosen = [n for n in SCENARIOS if n != "site"] if args.scenario == "all" else [args.scenario]
    figures: dict[str, Any] = {"source": described, "cpus": os.cpu_count(), "scenarios": {}}
    with tempfile.TemporaryDirectory(prefix="masques-bench-") as tmp:
        for name in chosen:
            note(f"scenario {name} ...")
            load_before = os.getloadavg()[0]
            figures["scenarios"][name] = RUNNERS[name](args, source, Path(tmp))
            # other work on the machine skews every figure: the 1-minute load, before and after
            figures["scenarios"][name]["loadavg"] = [load_before, os.getloadavg()[0]]
    if args.json:
        print(json.dumps(json_safe(figures), indent=1, allow_nan=False))
        return
    print(line)
    for name in chosen:
        PRINTERS[name](figures["scenarios"][name])
        before, after = figures["scenarios"][name]["loadavg"]
        print(f"  machine load (1 min) {before:.1f} at the start, {after:.1f} at the end")


if __name__ == "__main__":
    main()
