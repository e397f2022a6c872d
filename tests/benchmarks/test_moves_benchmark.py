"""Smoke run of ``benchmarks/moves.py``: people's moves through the server's registry, timed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_moves_benchmark_plays_tables_through_their_games_and_times_each_move() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "moves.py"),
            *("--tables", "3", "--moves", "150", "--json"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout)["installed"]
    assert 0 < figures["best_cpu_ms_per_move"] <= figures["cpu_ms_per_move"] < 1000, figures
    assert figures["wall_ms_per_move"] > 0
