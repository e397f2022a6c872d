"""The arena on a Ray cluster: a local head started by the test, on the loopback interface."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from masques.cli.main import app

RAY = str(Path(sys.executable).with_name("ray"))
# A loopback cluster of the test's own, without token authentication: Ray turns it on for a cluster
# started where a token was once saved (~/.ray/auth_token, by any earlier local ray.init), and this
# test's client would then connect without it.
SETTINGS = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_AUTH_MODE": "disabled",
}
ENV = {**os.environ, **SETTINGS}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def ray_head() -> Iterator[str]:
    assert shutil.which(RAY), "the ray command comes with the ray package (dev extra)"
    port = free_port()
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # Ray's socket paths must stay short
    started = subprocess.run(
        [
            RAY,
            "start",
            "--head",
            "--node-ip-address=127.0.0.1",
            f"--port={port}",
            "--num-cpus=2",
            "--include-dashboard=false",
            "--disable-usage-stats",
            f"--temp-dir={temp}",
        ],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert started.returncode == 0, started.stderr[-2000:]
    try:
        yield f"127.0.0.1:{port}"
    finally:
        subprocess.run([RAY, "stop", "--force"], env=ENV, capture_output=True, timeout=120, check=False)
        shutil.rmtree(temp, ignore_errors=True)


@pytest.mark.slow
def test_arena_runs_its_games_on_a_ray_cluster(
    ray_head: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in SETTINGS.items():
        monkeypatch.setenv(key, value)
    out = tmp_path / "masker"
    result = CliRunner().invoke(
        app,
        ["arena", "masker", "--bots", "greedy,random", "--games", "6", "--ray", ray_head, "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.with_suffix(".json").read_text("utf-8"))
    assert len(data["results"]) == 6
    assert sorted(r["spec"]["seed"] for r in data["results"]) == list(range(6))
