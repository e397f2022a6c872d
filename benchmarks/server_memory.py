"""Server memory over many created and finished matches, against a ``masques serve`` subprocess.

Usage: python benchmarks/server_memory.py [--matches 10000] [--concurrency 8] [--every N] [--src CHECKOUT]
       [--bot-workers N] [--database URL] [--json]

The server starts as in ``benchmarks/server.py`` (free port of 127.0.0.1, SQLite in a temporary
directory, ``--src``, ``MASQUES_RATE_LIMITS=off``), with ``MASQUES_MAX_BOT_MATCHES=100000`` since every
match comes from one address.  Each match is Masker, 2 players, 2D, seats random, random: created,
running at once, finished after about 35 bot actions (the cheapest whole life of a match).  A few run
at a time; each is followed by polling its summary until it is finished.  Every ``--every`` finished
matches the resident memory (VmRSS of /proc/PID/status) of the server process and, separately, of its
child processes (bot workers, multiprocessing helpers) is sampled.

Reported: a table of RSS against matches finished, and the growth per 1,000 matches over the second
half (least squares slope), for the server and for its children.  Every loop is bounded in count and
in time, and only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from server import MASKER_2P, Server, add_source_arguments, json_safe, note, source_line, source_of

ENV = {"MASQUES_MAX_BOT_MATCHES": "100000"}
POLL = 0.1  # seconds between two looks at a running match's summary
MATCH_TIMEOUT = 120.0  # seconds one match may take before it counts as stuck
PAGE = 4096


def rss_kib(pid: int) -> int | None:
    """VmRSS of a process in KiB, or None if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return 0  # a zombie has no VmRSS line


def descendants(root: int) -> list[tuple[int, str]]:
    """Every process below ``root`` (pid and short command line), from /proc."""
    parents: dict[int, list[int]] = {}
    names: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
        names[int(entry.name)] = cmdline.strip()
    found: list[tuple[int, str]] = []
    todo = [root]
    for _ in range(10_000):
        if not todo:
            break
        for child in parents.get(todo.pop(), []):
            found.append((child, short_name(names.get(child, ""))))
            todo.append(child)
    return found


def short_name(cmdline: str) -> str:
    if "resource_tracker" in cmdline:
        return "resource tracker"
    if "spawn_main" in cmdline or "forkserver" in cmdline:
        return "worker"
    return cmdline[:40] or "?"


@dataclass
class Sample:
    finished: int
    seconds: float
    server_kib: int
    children_kib: int
    children: list[tuple[str, int]]  # (name, KiB) of each child


@dataclass
class Progress:
    total: int
    every: int
    pid: int
    began: float
    started: int = 0
    finished: int = 0
    refused: int = 0
    failed: int = 0
    stuck: int = 0
    samples: list[Sample] = field(default_factory=list)

    def sample(self) -> None:
        children = [(name, rss_kib(pid) or 0) for pid, name in descendants(self.pid)]
        sample = Sample(
            self.finished,
            time.monotonic() - self.began,
            rss_kib(self.pid) or 0,
            sum(kib for _, kib in children),
            children,
        )
        self.samples.append(sample)
        rate = self.finished / sample.seconds if sample.seconds > 0 else 0.0
        left = (self.total - self.finished) / rate if rate > 0 else float("nan")
        note(
            f"  {self.finished:6d} finished  {sample.seconds:7.1f} s  ({rate:5.1f}/s, ~{left:5.0f} s left)  "
            f"server {sample.server_kib / 1024:7.1f} MiB  children {sample.children_kib / 1024:7.1f} MiB "
            f"({len(children)})"
        )


async def slot(api: httpx.AsyncClient, progress: Progress) -> None:
    """Create matches one after another, each followed to its end, until the total is started."""
    body = {"game": "masker", "options": MASKER_2P, "seats": [{"kind": "random"}, {"kind": "random"}]}
    loop = asyncio.get_running_loop()
    for _ in range(10 * progress.total + 100):
        if progress.started >= progress.total:
            return
        progress.started += 1
        response = await api.post("/api/matches", json=body)
        if response.status_code == 429:
            progress.refused += 1
            progress.started -= 1
            await asyncio.sleep(min(10.0, max(0.1, float(response.headers.get("retry-after", "1")))))
            continue
        if response.status_code != 201:
            progress.failed += 1
            progress.started -= 1
            await asyncio.sleep(0.5)
            continue
        match_id = response.json()["id"]
        deadline = loop.time() + MATCH_TIMEOUT
        for _ in range(int(MATCH_TIMEOUT / POLL) + 1):
            await asyncio.sleep(POLL)
            summary = await api.get(f"/api/matches/{match_id}")
            if summary.status_code == 200 and summary.json()["status"] == "finished":
                break
            if loop.time() >= deadline:
                progress.stuck += 1
                break
        progress.finished += 1
        if progress.finished % progress.every == 0 or progress.finished == progress.total:
            progress.sample()


async def run(base_url: str, pid: int, total: int, concurrency: int, every: int) -> Progress:
    limits = httpx.Limits(max_connections=concurrency + 2)
    async with httpx.AsyncClient(base_url=base_url, timeout=60, limits=limits) as api:
        progress = Progress(total, every, pid, time.monotonic())
        progress.sample()
        await asyncio.gather(*(slot(api, progress) for _ in range(concurrency)))
    return progress


def slope_per_1000(samples: list[Sample], key: str) -> float:
    """Least squares growth in MiB per 1,000 finished matches."""
    if len(samples) < 2:
        return float("nan")
    xs = [float(s.finished) for s in samples]
    ys = [getattr(s, key) / 1024 for s in samples]
    if len(set(xs)) < 2:
        return float("nan")
    return 1000 * statistics.linear_regression(xs, ys).slope


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=10_000, help="matches to play (default 10000)")
    parser.add_argument("--concurrency", type=int, default=8, help="matches running at a time (default 8)")
    parser.add_argument("--every", type=int, default=0, help="sample every N matches (default: matches/20)")
    add_source_arguments(parser)
    parser.add_argument(
        "--bot-workers", type=int, default=None, help="server bot processes (default: the server's default)"
    )
    parser.add_argument("--database", default="", help="SQLAlchemy URL (default: SQLite in a temp dir)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if not 1 <= args.matches <= 1_000_000 or not 1 <= args.concurrency <= 200 or args.every < 0:
        parser.error("--matches is 1..1000000, --concurrency 1..200, --every >= 0")
    every = args.every or max(1, args.matches // 20)
    source = source_of(args)
    described = source.describe()
    line = source_line(described)
    note(line)
    with tempfile.TemporaryDirectory(prefix="masques-memory-") as tmp:
        database = args.database or f"sqlite:///{Path(tmp) / 'memory.sqlite3'}"
        load_before = os.getloadavg()[0]
        server = Server(Path(tmp), args.bot_workers, database, source=source, env=ENV)
        try:
            server.wait_ready()
            progress = asyncio.run(
                run(server.base_url, server.proc.pid, args.matches, args.concurrency, every)
            )
        finally:
            server.stop()
    samples = progress.samples
    half = [s for s in samples if s.finished >= args.matches / 2]
    seconds = samples[-1].seconds if samples else float("nan")
    figures: dict[str, Any] = {
        "source": described,
        "cpus": os.cpu_count(),
        "game": "masker 2 players 2d, seats random,random",
        "matches": args.matches,
        "concurrency": args.concurrency,
        "database": database.split(":", 1)[0],
        "seconds": seconds,
        "matches_per_s": progress.finished / seconds if seconds > 0 else float("nan"),
        "finished": progress.finished,
        "loadavg": [load_before, os.getloadavg()[0]],  # other work on the machine skews the rate
        "refused_429": progress.refused,
        "failed": progress.failed,
        "stuck": progress.stuck,
        "samples": [
            {
                "finished": s.finished,
                "seconds": round(s.seconds, 2),
                "server_mib": round(s.server_kib / 1024, 2),
                "children_mib": round(s.children_kib / 1024, 2),
                "children": [{"name": n, "mib": round(k / 1024, 2)} for n, k in s.children],
            }
            for s in samples
        ],
        "server_growth_mib_per_1000": slope_per_1000(half, "server_kib"),
        "children_growth_mib_per_1000": slope_per_1000(half, "children_kib"),
    }
    if args.json:
        print(json.dumps(json_safe(figures), indent=1, allow_nan=False))
        return
    print(line)
    print(
        f"{figures['game']}: {progress.finished} matches finished in {seconds:.0f} s "
        f"({figures['matches_per_s']:.1f}/s, {args.concurrency} at a time) on {figures['database']}; "
        f"refused {progress.refused}, failed {progress.failed}, stuck {progress.stuck}; machine load "
        f"(1 min) {figures['loadavg'][0]:.1f} at the start, {figures['loadavg'][1]:.1f} at the end"
    )
    print(f"  {'finished':>8}  {'seconds':>8}  {'server MiB':>10}  {'children MiB':>12}  children")
    for s in samples:
        kids = ", ".join(f"{n} {k / 1024:.0f}" for n, k in s.children)
        print(
            f"  {s.finished:8d}  {s.seconds:8.1f}  {s.server_kib / 1024:10.1f}  "
            f"{s.children_kib / 1024:12.1f}  {kids}"
        )
    print(
        f"  growth per 1,000 matches over the second half ({len(half)} samples): "
        f"server {figures['server_growth_mib_per_1000']:.2f} MiB, "
        f"children {figures['children_growth_mib_per_1000']:.2f} MiB"
    )


if __name__ == "__main__":
    main()
