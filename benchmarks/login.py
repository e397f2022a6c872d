"""The cost of one log-in: the server's Argon2id hash and verification, and a whole ``POST /api/login``
through the app (an in-process server on a temporary SQLite file).

Usage: python benchmarks/login.py [--rounds 20] [--json]

Prints the Argon2id parameters in force, the CPU and wall time of one hash and one verification (best
and median of the rounds), and the wall time of a log-in request end to end.  A log-in costs one
verification: the figure says how many log-ins per second one core can take, which the log-in rate
limit and backoff keep far above any honest use.
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from masques.server.accounts import HASHER
from masques.server.app import create_app
from masques.server.limits import Limits


def timed(job: Any, rounds: int) -> dict[str, float]:
    walls, cpus = [], []
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        job()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return {
        "wall_ms_best": 1000 * min(walls),
        "wall_ms_median": 1000 * statistics.median(walls),
        "cpu_ms_best": 1000 * min(cpus),
        "cpu_ms_median": 1000 * statistics.median(cpus),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rounds = max(1, min(args.rounds, 1000))
    password = "bench-" + secrets.token_hex(8)
    stored = HASHER.hash(password)
    figures: dict[str, Any] = {
        "argon2": {
            "type": "argon2id",
            "time_cost": HASHER.time_cost,
            "memory_kib": HASHER.memory_cost,
            "parallelism": HASHER.parallelism,
        },
        "hash": timed(lambda: HASHER.hash(password), rounds),
        "verify": timed(lambda: HASHER.verify(stored, password), rounds),
    }
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(f"sqlite:///{Path(tmp) / 'login.sqlite3'}", bot_workers=1, limits=Limits(rates={}))
        with TestClient(app) as client:
            credentials = {"username": "timer", "password": password}
            client.post("/api/signup", json=credentials).raise_for_status()
            client.cookies.clear()

            def login() -> None:
                client.cookies.clear()
                client.post("/api/login", json=credentials).raise_for_status()

            figures["login_request"] = timed(login, rounds)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    a = figures["argon2"]
    print(
        f"Argon2id: {a['memory_kib']} KiB, {a['time_cost']} passes, {a['parallelism']} lane(s); "
        f"{rounds} rounds"
    )
    for key, label in (("hash", "hash"), ("verify", "verify"), ("login_request", "POST /api/login")):
        f = figures[key]
        print(
            f"  {label:16} wall best {f['wall_ms_best']:7.1f} ms  median {f['wall_ms_median']:7.1f} ms"
            f"   cpu best {f['cpu_ms_best']:7.1f} ms  median {f['cpu_ms_median']:7.1f} ms"
        )


if __name__ == "__main__":
    main()
