"""Smoke run of ``benchmarks/cores.py``: bot decisions in one process, then in two at once."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_cores_benchmark_makes_decisions_in_one_process_and_in_two() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "cores.py"), "--seconds", "1", "--level", "easy"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rates = [float(r) for r in re.findall(r"([\d.]+) decisions/s,", done.stdout)]
    assert len(rates) == 2 and all(rate > 0 for rate in rates), done.stdout
    assert "2 over 1:" in done.stdout
