"""The deployed topology without containers: two ``masques serve`` processes on PostgreSQL and Redis
behind Debian's nginx with the site's own proxy rules (``deploy/masques-locations.conf``); a whole
match is played through the proxy, its WebSockets passed through, and both processes serve it."""

from __future__ import annotations

import json
import os
import random
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import masques_server_support as support
import pytest

from masques.server.limits import client_key
from masques.server.storage import Storage

ROOT = Path(__file__).resolve().parents[2]
LOCATIONS = ROOT / "deploy" / "masques-locations.conf"
TEMPLATE = ROOT / "deploy" / "loopback-nginx.conf.template"


def nginx_conf(folder: Path, port: int, upstreams: list[int]) -> Path:
    """``deploy/loopback-nginx.conf.template`` filled in, as the server benchmark fills it."""
    servers = "\n".join(f"        server 127.0.0.1:{p};" for p in upstreams)
    conf = folder / "nginx.conf"
    text = TEMPLATE.read_text("utf-8").format(
        user="user root;" if os.geteuid() == 0 else "",
        folder=folder,
        connections=256,
        upstream_count=len(upstreams),
        servers=servers,
        port=port,
        locations=LOCATIONS,
    )
    conf.write_text(text, "utf-8")
    return conf


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[tuple[str, list[support.ServerProcess]]]:
    nginx = os.environ.get("MASQUES_TEST_NGINX")
    redis_url = os.environ.get("MASQUES_TEST_REDIS_URL")
    assert nginx and redis_url, "run the tests with scripts/test.sh (it installs nginx and starts Redis)"
    url = support.fresh_database_url("postgresql", tmp_path)
    first = support.ServerProcess(url, support.free_port(), tmp_path / "a.log", redis_url=redis_url).start()
    second = support.ServerProcess(url, support.free_port(), tmp_path / "b.log", redis_url=redis_url).start()
    port = support.free_port()
    conf = nginx_conf(tmp_path, port, [first.port, second.port])
    process = subprocess.Popen(
        [nginx, "-c", str(conf), "-p", str(tmp_path), "-e", str(tmp_path / "error.log")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            assert process.poll() is None, (tmp_path / "error.log").read_text("utf-8", errors="replace")
            try:
                if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        yield base, [first, second]
    finally:
        process.terminate()
        process.wait(timeout=15)
        first.stop()
        second.stop()


def access_lines(server: support.ServerProcess) -> list[dict[str, object]]:
    lines = []
    for text in server.log_path.read_text("utf-8", errors="replace").splitlines():
        if text.startswith("{"):
            line = json.loads(text)
            if line.get("event") == "access":
                lines.append(line)
    return lines


@pytest.mark.slow
def test_a_match_plays_through_nginx_in_front_of_two_processes(
    proxy: tuple[str, list[support.ServerProcess]],
) -> None:
    base, servers = proxy
    ws_base = base.replace("http://", "ws://")
    with httpx.Client(base_url=base, timeout=support.TIMEOUT) as api:
        ready = api.get("/readyz")
        assert ready.status_code == 200 and ready.json() == {
            "status": "ready",
            "database": "ok",
            "redis": "ok",
        }
        assert len(ready.headers["x-request-id"]) == 32  # nginx's $request_id, kept by the server
        # a browser's page on the proxy's own port: its Origin matches the Host the servers are given
        page = {"origin": base}
        guest = api.post("/api/guest", json={"name": "Pat"}, headers=page)
        assert guest.status_code == 200, guest.text
        made = api.post(
            "/api/matches", json={"game": "masker"}, headers={**page, "x-csrf-token": guest.json()["csrf"]}
        )
        assert made.status_code == 201, made.text
        api.cookies.clear()
        match = support.create_match(api, "masker", {"players": 3}, ["human", "human", "easy"], seed=5)
        tokens = {seat: support.join(api, match["id"], f"p{seat}", seat)["token"] for seat in (0, 1)}
        conns = support.seat_conns(ws_base, match["id"], tokens)
        acked = support.play_to_end(conns, random.Random(5))
        for conn in conns:
            conn.close()
        assert acked and support.summary(api, match["id"])["status"] == "finished"
    for _ in range(400):  # a connection's access line is written when it closes (20 s at most)
        served = [access_lines(server) for server in servers]
        sockets = [line for lines in served for line in lines if line["method"] == "WS"]
        if len(sockets) >= 2:
            break
        time.sleep(0.05)
    # the seats gave their tokens in the WebSocket's query (?token=): no log line keeps one
    logged = "".join(server.log_path.read_text("utf-8", errors="replace") for server in servers)
    assert f"/ws/matches/{match['id']}" in logged
    assert not [token for token in tokens.values() if token in logged]
    # one match, one process: every request and WebSocket of the match reached the same process
    ours = [[line for line in lines if match["id"] in str(line["path"])] for lines in served]
    assert sorted(len(lines) > 0 for lines in ours) == [False, True], "the match's requests were split"
    owner = servers[[len(lines) > 0 for lines in ours].index(True)]
    # the rest are spread: both processes serve the lobby
    with httpx.Client(base_url=base, timeout=support.TIMEOUT) as api:
        for _ in range(24):
            assert api.get("/api/games").status_code == 200
    for _ in range(400):
        lobby = [
            [line for line in access_lines(server) if line["path"] == "/api/games"] for server in servers
        ]
        if sum(map(len, lobby)) >= 24:
            break
        time.sleep(0.05)
    assert all(lobby), "nginx sent every lobby request to one process"
    # the match's process gone, nginx hands its requests to the other, which reads it from storage
    owner.stop()
    with httpx.Client(base_url=base, timeout=support.TIMEOUT) as api:
        assert support.summary(api, match["id"])["status"] == "finished"
    # the proxy names the client: a request from another address is counted as that client's
    with httpx.Client(base_url=base, transport=httpx.HTTPTransport(local_address="127.0.0.3")) as other:
        assert other.get("/api/matches/ffffffffffffffff").status_code == 404
    for _ in range(400):
        lines = [line for server in servers for line in access_lines(server)]
        theirs = [line for line in lines if line["path"] == "/api/matches/ffffffffffffffff"]
        if theirs:
            break
        time.sleep(0.05)
    # both processes name a client alike: a hash keyed with their database's secret, not the plain one
    storage = Storage(servers[0].database_url)
    secret = storage.site_secret("client_key")
    storage.dispose()
    assert [line["client"] for line in theirs] == [client_key("127.0.0.3", secret)]
    assert {line["client"] for line in lines if line is not theirs[0]} == {client_key("127.0.0.1", secret)}
    assert client_key("127.0.0.1", secret) != client_key("127.0.0.1", b"")
    assert len(sockets) >= 2 and all(line["status"] == 101 for line in sockets)
