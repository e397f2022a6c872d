"""SIGTERM on ``masques serve`` while its bots are thinking: the server, its bot workers and the
multiprocessing helper (the resource tracker) all end within a bounded time, and nothing reports
leaked semaphores."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx
import masques_server_support as support
import pytest

GONE_WITHIN = 30.0
"""Seconds after SIGTERM by which no process of the server's session may be left."""


def session_members(sid: int) -> list[tuple[int, str]]:
    """(pid, command line) of every live (not zombie) process of session ``sid``, from Linux's /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # it ended meanwhile
        state, _ppid, _pgrp, session = stat.rsplit(")", 1)[1].split()[:4]
        if int(session) == sid and state != "Z":
            members.append((int(entry.name), cmdline))
    return members


def all_gone(sid: int, signal_name: str) -> None:
    """Wait until no process of session ``sid`` is left, for at most GONE_WITHIN seconds."""
    deadline = time.monotonic() + GONE_WITHIN
    while left := session_members(sid):
        assert time.monotonic() < deadline, f"still running {GONE_WITHIN} s after {signal_name}: {left}"
        time.sleep(0.2)


def thinking_bots(server: support.ServerProcess, sid: int) -> None:
    """Two matches of expert bots under way on the server, both of its workers busy."""
    # two clients (two addresses): one client's bots may hold only one of the two worker slots
    other = httpx.HTTPTransport(local_address="127.0.0.2")
    with (
        httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api,
        httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT, transport=other) as api_b,
    ):
        matches = [  # Masker's expert thinks long enough to be stopped mid-move, and starts quickly
            support.create_match(client, "masker", {"players": 2}, ["expert"] * 2, seed=seed)["id"]
            for client, seed in ((api, 1), (api_b, 2))
        ]
        deadline = time.monotonic() + 300  # a first expert move on a loaded machine: workers start cold
        while not all(support.summary(api, m)["version"] >= 1 for m in matches):
            assert time.monotonic() < deadline, "the bots made no move"
            time.sleep(0.2)
    workers = [cmd for _, cmd in session_members(sid) if "spawn_main" in cmd]
    helpers = [cmd for _, cmd in session_members(sid) if "resource_tracker" in cmd]
    assert len(workers) == 2 and len(helpers) == 1, session_members(sid)


@pytest.mark.slow
def test_sigterm_stops_the_server_its_bot_workers_and_helpers(tmp_path: Path) -> None:
    url = support.fresh_database_url("sqlite", tmp_path)
    log = tmp_path / "server.log"
    server = support.ServerProcess(url, support.free_port(), log, bot_workers=2).start()
    assert server.proc is not None
    sid = server.proc.pid  # started in a session of its own
    try:
        thinking_bots(server, sid)
        server.proc.send_signal(signal.SIGTERM)  # both workers are in the middle of an expert's move
        server.proc.wait(timeout=GONE_WITHIN)
        all_gone(sid, "SIGTERM")
        output = log.read_text("utf-8", errors="replace")
        assert "leaked" not in output, output
        assert "Traceback" not in output, output
    finally:
        server.kill()  # whatever a failed run left in the group


@pytest.mark.slow
def test_a_server_killed_outright_leaves_no_bot_worker_behind(tmp_path: Path) -> None:
    """SIGKILL gives the server no chance to stop its workers: they notice it is gone and end, and
    the resource tracker with them, instead of waiting for work for ever across restarts."""
    url = support.fresh_database_url("sqlite", tmp_path)
    server = support.ServerProcess(url, support.free_port(), tmp_path / "server.log", bot_workers=2).start()
    assert server.proc is not None
    sid = server.proc.pid
    try:
        thinking_bots(server, sid)
        os.kill(sid, signal.SIGKILL)  # the server alone, not its process group
        server.proc.wait(timeout=GONE_WITHIN)
        all_gone(sid, "SIGKILL")
    finally:
        server.kill()
