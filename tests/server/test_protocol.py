"""A WebSocket connection leaves no HTTP protocol object for the cycle collector: the parser that
read its upgrade request is let go once the WebSocket protocol has the connection."""

from __future__ import annotations

import gc
import time
from pathlib import Path

import httpx
import masques_server_support as support
import pytest
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from masques.server import protocol


def _watch_and_leave(tmp_path: Path, times: int) -> int:
    """How many HTTP protocol objects ``times`` spectators' connections, opened and closed, leave
    for the cycle collector (kept only by a cycle)."""
    server = support.ThreadServer(f"sqlite:///{tmp_path / 'db.sqlite3'}", bot_workers=1).start()
    try:
        with httpx.Client(base_url=server.base_url, timeout=30) as api:
            match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
        gc.collect()
        gc.disable()  # what the connections leave stays until the count below
        try:
            for _ in range(times):
                watcher = support.Conn(server.ws_url, match_id)
                watcher.first_state()
                watcher.close()
            time.sleep(0.5)  # the server sees each close
            gc.set_debug(gc.DEBUG_SAVEALL)
            gc.collect()
            return sum(isinstance(o, HttpToolsProtocol) for o in gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
    finally:
        server.stop()


def test_a_websocket_connection_lets_go_of_its_http_parser(tmp_path: Path) -> None:
    assert _watch_and_leave(tmp_path, 5) == 0


def test_uvicorns_own_protocol_leaves_the_cycle_this_one_breaks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check above can fail: with uvicorn's protocol as it is, each connection leaves one."""
    monkeypatch.setattr(protocol, "http_protocol", lambda: HttpToolsProtocol)
    monkeypatch.setattr(support, "http_protocol", lambda: HttpToolsProtocol)
    assert _watch_and_leave(tmp_path, 5) == 5


@pytest.mark.parametrize(
    "header",
    [b"Cookie: masques_session=\x7f\x01", b"X-Request-Id: \x01bad", b"Content-Length: -5"],
)
def test_a_request_that_is_not_valid_http_gets_the_apis_json_error(tmp_path: Path, header: bytes) -> None:
    """The parser refuses it before the app runs; the answer still has the API's shape."""
    import json
    import socket

    server = support.ThreadServer(f"sqlite:///{tmp_path / 'db.sqlite3'}", bot_workers=1).start()
    try:
        host, port = server.base_url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=30) as sock:
            sock.sendall(b"GET /api/me HTTP/1.1\r\nHost: x\r\n" + header + b"\r\n\r\n")
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400 "), answer
        assert b"content-type: application/json" in head.lower()
        refusal = json.loads(body)
        assert refusal["code"] == "bad_http" and "not valid HTTP" in refusal["message"]
        with httpx.Client(base_url=server.base_url, timeout=30) as api:  # and the server serves on
            assert api.get("/healthz").status_code == 200
    finally:
        server.stop()
