"""Smoke run of ``benchmarks/storage.py``: one table's game of writes, timed by kind, as JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_storage_benchmark_times_every_kind_of_write_of_a_game() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "storage.py"),
            *("--games", "4", "--batch", "2", "--json"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout)["installed"]
    kinds = ("create", "claim", "start", "moves", "last move")
    assert all(figures[f"{kind} cpu"] > 0 and figures[f"{kind} wall"] > 0 for kind in kinds), figures
    assert figures["game cpu"] > figures["create cpu"] + 4 * figures["claim cpu"]
