"""Smoke runs of the benchmarks that measure checkouts in turn (``benchmarks/checkouts.py``):
``storage.py`` (a table's game of writes, by kind), ``moves.py`` (people's moves through the
server's registry) and ``lobby.py`` (a table's next game made and connected, on a real server)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def figures_of(script: str, *args: str) -> dict[str, Any]:
    """The installed package's figures, from one round printed as JSON."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args, "--rounds", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "round 1/1: installed done" in done.stderr
    figures: dict[str, Any] = json.loads(done.stdout)["installed"]
    return figures


def test_the_storage_benchmark_times_every_kind_of_write_of_a_game() -> None:
    figures = figures_of("storage.py", "--games", "4", "--batch", "2")
    kinds = ("create", "claim", "start", "moves", "last move")
    assert all(figures[f"{kind} cpu"] > 0 and figures[f"{kind} wall"] > 0 for kind in kinds), figures
    assert figures["game cpu"] > figures["create cpu"] + 4 * figures["claim cpu"]


def test_the_moves_benchmark_plays_tables_through_their_games_and_times_each_move() -> None:
    figures = figures_of("moves.py", "--tables", "3", "--moves", "150")
    assert 0 < figures["best_cpu_ms_per_move"] <= figures["cpu_ms_per_move"] < 1000, figures
    assert figures["wall_ms_per_move"] > 0 and len(figures["rounds_cpu_ms"]) == 1


def test_the_lobby_benchmark_makes_tables_and_times_their_http_and_websocket_work() -> None:
    figures = figures_of("lobby.py", "--games", "3")
    assert figures["http_ms_per_table"] >= 0 and figures["ws_ms_per_table"] >= 0, figures
    assert figures["ms_per_table"] > 0 and len(figures["rounds_ms_per_table"]) == 1
    assert figures["best_ms_per_table"] <= figures["ms_per_table"]
