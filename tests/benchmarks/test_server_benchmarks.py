"""Smoke runs of the server benchmarks (``benchmarks/server.py``, ``benchmarks/server_memory.py``) with
tiny sizes, against this checkout's server: every scenario runs end to end and reports its figures.
The figures themselves are timings and are not asserted; the counts that do not depend on speed are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(script: str, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), "--src", str(ROOT), "--json", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures: dict[str, Any] = json.loads(done.stdout)
    assert figures["source"]["package"] == str(ROOT / "src" / "masques")
    return figures


@pytest.mark.slow
def test_every_server_scenario_runs_and_reports() -> None:
    figures = run(
        "server.py",
        # a window of a few seconds: in one, a busy machine may see no person's move at all
        *("--scenario", "all", "--matches", "2", "--duration", "3", "--stagger", "1"),
        *("--bots-warmup", "1", "--bots-duration", "2", "--bots-loaded-duration", "2"),
        *("--spectators", "20", "--spectators-duration", "2"),
    )
    matches = figures["scenarios"]["matches"]
    assert (matches["matches"], matches["errors"], matches["timeouts"]) == (2, 0, 0)
    assert matches["cpu_ms_per_move"]["server"] > 0 and 0 < matches["machine_busy"] <= 1
    assert 0 < matches["server_p50_ms_at_most"] <= matches["server_p99_ms_at_most"]

    bots = figures["scenarios"]["bots"]
    assert bots["unloaded"]["errors"] == {} and bots["loaded"]["errors"] == {}
    attacker = bots["loaded"]["attacker"]
    assert attacker["first_accepted"] + attacker["first_refused_429"] == 6  # A's first six, all answered
    assert attacker["accepted"] >= attacker["first_accepted"]
    assert {"p50_ms", "p90_ms", "max_ms"} <= set(bots["loaded"]["wait"])

    spectators = figures["scenarios"]["spectators"]
    assert (spectators["connected"], spectators["failed_connections"]) == (20, 0)
    assert spectators["messages_per_spectator"]["min"] >= 1  # at least the view sent on connect
    assert {"p50_ms", "p99_ms", "max_ms"} <= set(spectators["rtt"])


@pytest.mark.slow
def test_the_site_scenario_runs_every_topology_behind_nginx() -> None:
    postgres, nginx = os.environ.get("MASQUES_TEST_POSTGRES_URL"), os.environ.get("MASQUES_TEST_NGINX")
    redis = os.environ.get("MASQUES_TEST_REDIS_URL")
    assert postgres and nginx and redis, "run the tests with scripts/test.sh (PostgreSQL, Redis, nginx)"
    own_redis = redis.rsplit("/", 1)[0] + "/11"  # the scenario empties its Redis database
    figures = run(
        "server.py",
        *("--scenario", "site", "--database", postgres, "--redis", own_redis, "--nginx", nginx),
        *("--site-humans", "2", "--site-bot-matches", "2", "--site-duration", "2", "--bots-warmup", "2"),
        *("--stagger", "1"),
    )
    site = figures["scenarios"]["site"]
    shape = [(row["web_processes"], row["workers"]) for row in site["topologies"]]
    assert shape == [(1, 1), (1, 2), (2, 2)]
    for row in site["topologies"]:
        assert row["bot_actions_per_s"] > 0, row  # the bots moved, on the workers
        assert row["bot_cpu_ms_per_action"]["bot workers"] > 0, row
        (step,) = row["humans"]
        assert (step["matches"], step["errors"], step["timeouts"]) == (2, 0, 0), row
        assert step["moves_per_s"] > 0, row
        assert step["server_p99_ms_at_most"] > 0, step  # the servers' own histogram moved
        cpu = step["cpu_ms_per_move"]  # where the CPU of a move went, by role
        assert {"web", "bot workers", "nginx", "postgresql", "redis", "load generator", "other"} <= set(cpu)
        assert cpu["web"] > 0 and cpu["load generator"] > 0, cpu  # (a tiny run may not tick the others)
        assert 0 < step["machine_busy"] <= 1
    assert {
        "bots_two_workers_over_one",
        "humans_two_webs_over_one_at_peak",
        "humans_held_p99_50ms_one_web",
    } <= set(site)


@pytest.mark.slow
def test_memory_benchmark_samples_the_server_and_its_children() -> None:
    figures = run("server_memory.py", "--matches", "6", "--concurrency", "3", "--every", "3")
    assert (figures["finished"], figures["failed"], figures["stuck"]) == (6, 0, 0)
    assert [s["finished"] for s in figures["samples"]] == [0, 3, 6]
    last = figures["samples"][-1]
    assert last["server_mib"] > 0
    # every child is sampled (random bots decide in the server itself, so no worker need have started)
    assert last["children"] and all(child["mib"] > 0 for child in last["children"])
    assert {child["name"] for child in last["children"]} <= {"worker", "resource tracker"}


@pytest.mark.slow
def test_the_matches_scenario_plays_with_the_node_seats() -> None:
    """``--driver node``: the seats played by benchmarks/humans.mjs, counted as the Python ones are,
    its CPU counted as the load generator's.  Five seconds: on a loaded machine the Node seats'
    start took the whole of a two-second run once, and nothing was counted."""
    figures = run(
        "server.py",
        *("--scenario", "matches", "--matches", "3", "--duration", "5", "--driver", "node", "--stagger", "1"),
        *("--seats", "human,human,human,human"),
    )
    matches = figures["scenarios"]["matches"]
    assert (matches["driver"], matches["matches"], matches["errors"], matches["timeouts"]) == (
        "node",
        3,
        0,
        0,
    )
    assert matches["human_actions_per_s"] > 0 and matches["round_trips"] > 0
    assert matches["cpu_ms_per_move"]["load generator"] > 0


def test_the_delivery_benchmark_times_both_ways_of_writing_a_view() -> None:
    script = str(ROOT / "benchmarks" / "delivery.py")
    done = subprocess.run(
        [sys.executable, script, "--connections", "5", "--messages", "50", "--rounds", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout)
    assert figures["connections"] == 5 and figures["view_bytes"] > 0
    assert set(figures["loop_us_per_message"]) == {"at once", "queued"}
    assert all(value > 0 for value in figures["loop_us_per_message"].values())
