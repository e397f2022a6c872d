"""The scripted people's pace in ``benchmarks/server.py``: waits drawn anew each turn around the
mean, and tables that begin at random over the stagger, so that the measured window sees the tables'
steady state, not waves of tables moving, ending and starting in step."""

from __future__ import annotations

import random
import statistics
from pathlib import Path

import pytest

from local_modules import load_beside

ROOT = Path(__file__).resolve().parents[2]
server_bench = load_beside(str(ROOT / "benchmarks" / "server.py"), "server.py", "bench_server")


def test_waits_spread_around_the_mean_and_a_spread_of_zero_is_the_fixed_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    think = server_bench.THINK
    waits = [server_bench.think_time(random.Random(n)) for n in range(2000)]
    assert think * 0.5 <= min(waits) < think * 0.55 and think * 1.45 < max(waits) <= think * 1.5
    assert statistics.fmean(waits) == pytest.approx(think, rel=0.02)  # the same rate of moves
    monkeypatch.setattr(server_bench.PACE, "spread", 0.0)
    assert {server_bench.think_time(random.Random(n)) for n in range(50)} == {think}


def test_tables_begin_at_random_over_the_stagger_and_a_stagger_of_zero_begins_them_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stagger = server_bench.STAGGER
    delays = [server_bench.first_delay(table) for table in range(500)]
    assert all(0 <= d < stagger for d in delays)
    assert max(delays) - min(delays) > 0.9 * stagger  # spread over the whole stagger
    assert server_bench.first_delay(7) == server_bench.first_delay(7)  # the same in every run
    monkeypatch.setattr(server_bench.PACE, "stagger", 0.0)
    assert {server_bench.first_delay(table) for table in range(50)} == {0.0}
