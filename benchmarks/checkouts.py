"""Measuring several checkouts of the source in turn, each in a process of its own, so that two
versions are compared on the same machine within the same minutes (a shared machine's speed drifts
more between hours than a small change moves a figure).  Used by ``storage.py``, ``moves.py`` and
``lobby.py``: each runs itself with ``--worker`` to measure once, and prints its figures as JSON."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--src", action="append", default=[], help="a checkout to measure (repeatable)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)


def in_turn(
    script: str, checkouts: list[str], rounds: int, worker_args: list[str]
) -> dict[str, list[dict[str, Any]]]:
    """Each round, ``script --worker WORKER_ARGS`` once per checkout (its ``src`` first on the path;
    none given: the installed package, named ``installed``); every round's figures by checkout."""
    chosen: list[str | None] = list(checkouts) or [None]
    figures: dict[str, list[dict[str, Any]]] = {c or "installed": [] for c in chosen}
    for number in range(max(1, rounds)):
        for checkout in chosen:
            env = dict(os.environ)
            if checkout:
                env["PYTHONPATH"] = str(Path(checkout) / "src")
            done = subprocess.run(
                [sys.executable, script, "--worker", *worker_args],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            name = checkout or "installed"
            if done.returncode != 0:
                raise SystemExit(f"{name}: {done.stderr.strip()[-2000:]}")
            figures[name].append(json.loads(done.stdout))
            print(f"round {number + 1}/{rounds}: {name} done", file=sys.stderr)
    return figures
