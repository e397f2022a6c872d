"""The server's own HTTP and WebSocket protocols: a WebSocket connection leaves no HTTP protocol
object for the cycle collector, requests must arrive whole in time, clients that read nothing are
cut, and a WebSocket connection can be written to in the caller's own step."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar, cast

import httpx
import masques_server_support as support
import pytest
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from masques.server import protocol
from masques.server.matches import OUTBOX_BYTES, Client

T = TypeVar("T")


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


def _read_all(sock: socket.socket) -> bytes:
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    return answer


@pytest.fixture
def quick_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[support.ThreadServer]:
    """A server whose requests must arrive whole within a second."""
    monkeypatch.setattr(protocol, "REQUEST_SECONDS", 1.0)
    server = support.ThreadServer(f"sqlite:///{tmp_path / 'db.sqlite3'}", bot_workers=1).start()
    yield server
    server.stop()


def _address(server: support.ThreadServer) -> tuple[str, int]:
    host, port = server.base_url.removeprefix("http://").split(":")
    return host, int(port)


@pytest.mark.parametrize(
    "sent",
    [
        b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Half: a",  # a head never finished
        b"POST /api/matches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"game": "masker", ',  # a body shorter than it said
    ],
)
def test_a_request_that_does_not_arrive_whole_in_time_gets_408_and_is_closed(
    quick_server: support.ThreadServer, sent: bytes
) -> None:
    with socket.create_connection(_address(quick_server), timeout=30) as sock:
        sock.sendall(sent)
        started = time.monotonic()
        answer = _read_all(sock)  # returns when the server closes the connection
        waited = time.monotonic() - started
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 "), answer
    assert json.loads(body)["code"] == "too_slow"
    assert waited < 20, waited  # closed by the deadline, not by the read's own timeout
    with httpx.Client(base_url=quick_server.base_url, timeout=30) as api:
        assert api.get("/api/matches?status=all").json() == []  # the half request made nothing


HEAD_START = b"GET /api/games HTTP/1.1\r\nHost: x\r\n"


@pytest.mark.parametrize(
    "sent",
    [
        b"GET /api/games?pad=" + b"a" * (protocol.MAX_HEAD + 1000),  # a target too long
        b"GET /api/games HTTP/1.1\r\nHost: x\r\n" + b"X-Pad: " + b"a" * (protocol.MAX_HEAD + 1000),  # a line
        b"GET /api/games HTTP/1.1\r\nHost: x\r\n"
        + b"X-Pad: aaaaaaaaa\r\n" * (protocol.MAX_HEAD // 16),  # lines
        # whole heads, each sent at once: the read that ends a head is counted too
        HEAD_START + b"X-Pad: " + b"a" * (protocol.MAX_HEAD + 1000) + b"\r\nConnection: close\r\n\r\n",
        b"GET /api/games?pad=" + b"a" * (protocol.MAX_HEAD + 10) + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        HEAD_START + b"X-Pad: aaaaaaaaa\r\n" * (protocol.MAX_HEAD // 16) + b"\r\n",
    ],
)
def test_a_request_head_over_the_limit_gets_431_and_is_closed(
    quick_server: support.ThreadServer, sent: bytes
) -> None:
    """A request's head (its target and header lines) is kept in memory whole until it ends: one
    that goes past the limit is refused there, not read on (the server held 300 MB of one client's
    header lines, and kept the memory), and nothing runs.  A head below the limit is served."""
    with socket.create_connection(_address(quick_server), timeout=30) as sock:
        sock.sendall(sent)  # a head that never ends, or one over the limit that does
        answer = _read_all(sock)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert json.loads(body)["code"] == "head_too_large"
    with httpx.Client(base_url=quick_server.base_url, timeout=30) as api:
        big = {"x-pad": "a" * (protocol.MAX_HEAD // 2)}
        assert api.get("/healthz", headers=big).status_code == 200


def test_a_connection_that_sends_nothing_is_closed_without_an_answer(
    quick_server: support.ThreadServer,
) -> None:
    with socket.create_connection(_address(quick_server), timeout=30) as sock:
        assert _read_all(sock) == b""


def test_a_body_cut_short_by_the_client_leaving_is_not_acted_on(quick_server: support.ThreadServer) -> None:
    """The part that came is valid JSON, but it is not the body the request announced."""
    with socket.create_connection(_address(quick_server), timeout=30) as sock:
        body = b'{"game": "masker", "seats": [{"kind": "human"}, {"kind": "human"}]}'
        sock.sendall(
            b"POST /api/matches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: " + str(len(body) + 10).encode() + b"\r\n\r\n" + body
        )
        time.sleep(0.3)  # the app has the part and waits for the rest
    time.sleep(0.3)
    with httpx.Client(base_url=quick_server.base_url, timeout=30) as api:
        assert api.get("/api/matches?status=all").json() == []


def test_the_deadline_leaves_websockets_and_whole_requests_alone(quick_server: support.ThreadServer) -> None:
    with httpx.Client(base_url=quick_server.base_url, timeout=30) as api:
        match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
        watcher = support.Conn(quick_server.ws_url, match_id)
        first = watcher.first_state()
        time.sleep(2.5)  # past the deadline, twice over
        watcher.send({"type": "sync"})
        again = watcher.recv_type("state")
        assert again["version"] == first["version"]
        watcher.close()
        assert api.get("/healthz").status_code == 200


@pytest.fixture
def impatient_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[support.ThreadServer]:
    """A server that cuts a connection leaving what it is sent unread for a second."""
    monkeypatch.setattr(protocol, "STALLED_SECONDS", 1.0)
    server = support.ThreadServer(f"sqlite:///{tmp_path / 'db.sqlite3'}", bot_workers=1).start()
    yield server
    server.stop()


def _slow_reader(server: support.ThreadServer) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the server's writes back up at once
    sock.settimeout(10)
    sock.connect(_address(server))
    return sock


def _read_until_closed(sock: socket.socket) -> int:
    """Bytes read until the server closes or cuts the connection (or nothing comes for 10 s)."""
    total = 0
    with contextlib.suppress(OSError):
        while chunk := sock.recv(1 << 16):
            total += len(chunk)
    return total


def test_a_client_that_leaves_its_answers_unread_is_cut(impatient_server: support.ThreadServer) -> None:
    """Answers asked for and never read held the server's memory for as long as the client kept
    its socket open: the connection is cut once they have waited unread long enough."""
    asked = 150
    size = len(httpx.get(f"{impatient_server.base_url}/openapi.json", timeout=30).content)
    with _slow_reader(impatient_server) as sock:
        sock.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n" * asked)
        time.sleep(4)  # reading nothing
        received = _read_until_closed(sock)
    assert received < asked * size  # cut before the answers were all sent
    assert httpx.get(f"{impatient_server.base_url}/healthz", timeout=30).status_code == 200


def test_a_websocket_client_that_floods_pings_and_reads_nothing_is_cut(
    impatient_server: support.ThreadServer,
) -> None:
    """Each ping's pong waited in the server's memory for a client that reads nothing: such a
    client is cut once its pongs back up, long before it has sent much."""
    with httpx.Client(base_url=impatient_server.base_url, timeout=30) as api:
        match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
    ping = bytes([0x89, 0x80 | 125]) + b"\0\0\0\0" + b"p" * 125  # masked with a key of zeros
    sent = 0
    with _slow_reader(impatient_server) as sock:
        sock.sendall(
            f"GET /ws/matches/{match_id} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        assert sock.recv(4096).startswith(b"HTTP/1.1 101 ")
        with contextlib.suppress(OSError):
            while sent < 64 * 1024 * 1024:
                sock.sendall(ping * 256)
                sent += len(ping) * 256
    assert sent < 64 * 1024 * 1024, "the server kept answering pings nobody read"
    assert httpx.get(f"{impatient_server.base_url}/healthz", timeout=30).status_code == 200


def _in_loop(loop: asyncio.AbstractEventLoop, work: Callable[[], T]) -> T:
    """``work`` run in the server's event loop (its objects are that loop's alone)."""

    async def run() -> T:
        return work()

    return asyncio.run_coroutine_threadsafe(run(), loop).result(30)


def _only_client(server: support.ThreadServer, match_id: str) -> Client:
    registry = server.app.state.registry
    deadline = time.monotonic() + 10
    while match_id not in registry.matches or not registry.matches[match_id].clients:
        assert time.monotonic() < deadline, "the connection did not reach its match"
        time.sleep(0.02)
    (client,) = registry.matches[match_id].clients
    return cast(Client, client)


def test_a_websocket_connection_is_written_at_once_and_lets_go_of_its_protocol_when_closed(
    tmp_path: Path,
) -> None:
    """The server's protocol gives each connection a way to write a message in the caller's own
    step; a message sent that way arrives, and a closed connection's scope no longer holds it."""
    server = support.ThreadServer(f"sqlite:///{tmp_path / 'db.sqlite3'}", bot_workers=1).start()
    try:
        with httpx.Client(base_url=server.base_url, timeout=30) as api:
            match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
        watcher = support.Conn(server.ws_url, match_id)
        watcher.first_state()
        client = _only_client(server, match_id)
        assert client.write_now is not None
        connection = cast(protocol.GuardedWebSocketProtocol, getattr(client.write_now, "__self__", None))
        assert isinstance(connection, protocol.GuardedWebSocketProtocol)

        def deliver() -> tuple[bool, int]:
            return client.deliver('{"type": "note", "n": 1}'), client.outbox.qsize()

        assert _in_loop(connection.loop, deliver) == (True, 0)  # written, not queued
        assert watcher.recv_type("note") == {"type": "note", "n": 1}

        watcher.close()
        deadline = time.monotonic() + 10
        while not connection.disconnected:
            assert time.monotonic() < deadline, "the server did not see the close"
            time.sleep(0.02)
        assert protocol.WRITE_NOW not in connection.scope["extensions"]
        assert _in_loop(connection.loop, lambda: connection.write_now("late")) is False
    finally:
        server.stop()


def test_a_websocket_client_that_reads_nothing_has_its_messages_queued_then_is_dropped(
    tmp_path: Path,
) -> None:
    """Writing at once stops when the socket backs up: the messages then wait in the connection's
    bounded outbox, and a client that still reads nothing is dropped (not buffered for ever)."""
    server = support.ThreadServer(f"sqlite:///{tmp_path / 'db.sqlite3'}", bot_workers=1).start()
    try:
        with httpx.Client(base_url=server.base_url, timeout=30) as api:
            match_id = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
        hello = b'{"type": "hello"}'
        with _slow_reader(server) as sock:
            sock.sendall(
                f"GET /ws/matches/{match_id} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n".encode()
                + bytes([0x81, 0x80 | len(hello)])
                + b"\0\0\0\0"  # masked with a key of zeros
                + hello
            )
            client = _only_client(server, match_id)
            connection = cast(protocol.GuardedWebSocketProtocol, getattr(client.write_now, "__self__", None))
            big = json.dumps({"type": "note", "text": "x" * (256 * 1024)})

            def flood() -> tuple[int, int, bool]:
                at_once = queued = 0
                while client.deliver(big):
                    if client.outbox.empty():
                        at_once += 1
                    else:
                        queued += 1
                    assert at_once + queued < 1000, "the server took far more than a slow client may hold"
                return at_once, queued, client.dropped

            at_once, queued, dropped = _in_loop(connection.loop, flood)
        assert at_once >= 1 and queued >= 1 and dropped
        assert queued * len(big) <= OUTBOX_BYTES
    finally:
        server.stop()
