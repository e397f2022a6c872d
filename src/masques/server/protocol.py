"""The HTTP protocol the server runs under uvicorn: uvicorn's own (httptools), except that a
connection upgraded to a WebSocket lets go of its HTTP parser, a request the parser refuses
gets the API's JSON error rather than uvicorn's line of text, and a request must be whole (its
head and its body) within REQUEST_SECONDS of its first byte, or of the connection's opening.

Without that deadline a client that sends half a request and waits holds its connection (and,
with its body half read, the request's task) for as long as it likes: a few thousand such
clients use up the process's file descriptors.  A proxy in front (nginx) has its own deadlines;
the server run alone, as ``masques serve`` is out of the box, needs this one.

The parser calls back into the protocol object and the protocol holds the parser.  When a connection
closes, uvicorn breaks that cycle; when the WebSocket protocol takes a connection over, it does not,
and the pair (with its buffers, headers and events) waits for the cycle collector.  Every game's
players open connections, so a busy server's collector had thousands of such objects to free at
once, all while the event loop and every move waited for it."""

from __future__ import annotations

import asyncio
import json

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState

REQUEST_SECONDS = 30.0
"""How long a request may take to arrive whole; nginx allows 60 s between two reads of a head or a
body, and the API's requests are at most 64 KiB."""
MAX_HEAD = 64 * 1024
"""Bytes a request's head (its target and header lines) may have: the parser keeps a head whole in
memory until it ends, and without a limit one client's head of hundreds of megabytes was held (nginx
allows about 32 KiB)."""
STALLED_SECONDS = 20.0
"""How long a connection may leave what is written to it unread (its buffer past the high-water
mark) before it is cut: an answer or a view waiting for a client that never reads holds the
server's memory for as long as the connection lives."""
WRITE_NOW = "masques.write_now"
"""The scope extension (``{"write": method}``, as ASGI's extensions are dicts) holding a WebSocket
connection's :meth:`GuardedWebSocketProtocol.write_now`."""
PONG_BACKLOG = 64 * 1024
"""Bytes waiting to be sent past which a WebSocket ping is not answered but the connection cut: a
client that sends pings and reads nothing would otherwise have the pongs pile up in memory."""


class StallGuard(asyncio.Protocol):
    """Cuts a connection whose written bytes have waited unread for ``STALLED_SECONDS`` (the
    transport's flow control calls ``pause_writing`` and ``resume_writing``).  ``close`` would
    wait for those bytes to be sent, for ever; ``abort`` drops them.  Put before the protocol it
    guards among the bases."""

    stall_timer: asyncio.TimerHandle | None = None
    transport: asyncio.Transport

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.stall_timer is None:
            self.stall_timer = asyncio.get_running_loop().call_later(STALLED_SECONDS, self._stalled)

    def resume_writing(self) -> None:
        self._writing_resumed()
        super().resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self._writing_resumed()
        super().connection_lost(exc)

    def _writing_resumed(self) -> None:
        if self.stall_timer is not None:
            self.stall_timer.cancel()
            self.stall_timer = None

    def _stalled(self) -> None:
        self.stall_timer = None
        self.transport.abort()


class UpgradeReleasingProtocol(StallGuard, HttpToolsProtocol):
    """uvicorn's httptools protocol, which forgets its parser once the WebSocket protocol has the
    connection (the parser's work is done: the request it parsed was the upgrade), closes a
    connection whose request does not arrive in time, and cuts one that leaves its answer unread
    (a replay asked for again and again on sockets never read held megabytes each)."""

    read_deadline: asyncio.TimerHandle | None = None
    reading = False  # a request has begun and is not whole yet
    cycle_before: RequestResponseCycle | None = None  # the request's cycle until its head is read
    in_head = True  # a request's head is being read (or the first one awaited)
    head_bytes = 0  # the bytes received of the head being read
    ended_here = False  # a request ended in the bytes being parsed (they are not all the next head's)
    head_parsed = 0  # the bytes of the head's target and header lines the parser has handed over
    head_too_large = False

    def data_received(self, data: bytes) -> None:
        self.ended_here = False
        super().data_received(data)
        if not self.in_head or self.ended_here or self.transport.is_closing():
            return  # a request's end, then another's beginning: only the next bytes are counted
        self.head_bytes += len(data)
        if self.head_bytes > MAX_HEAD:
            self.head_too_large = True
            self.send_400_response("head too large")

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()  # a connection that never sends a byte is closed as well

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.in_head, self.head_bytes, self.head_parsed = True, 0, 0
        self.reading = True
        self.cycle_before = self.cycle
        if self.read_deadline is None:
            self._arm()

    def on_url(self, url: bytes) -> None:
        self._count_head(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count_head(len(name) + len(value) + 4)  # ": " and the line's end
        super().on_header(name, value)

    def _count_head(self, size: int) -> None:
        """Count the head as the parser reads it: ``data_received`` counts the reads of a head
        that does not end in them, and this the read that ends it, which it never saw as a head.
        An exception in a parser's callback fails the parse, which ``send_400_response`` answers."""
        self.head_parsed += size
        if self.head_parsed > MAX_HEAD:
            self.head_too_large = True
            raise ValueError("head too large")

    def on_headers_complete(self) -> None:
        self.in_head = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self.ended_here = True
        self.reading = False
        self.cycle_before = None
        self._disarm()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()  # the WebSocket protocol keeps its own time from here
        super().handle_websocket_upgrade()
        self.parser = None  # type: ignore[assignment]

    def _arm(self) -> None:
        self.read_deadline = self.loop.call_later(REQUEST_SECONDS, self._too_slow)

    def _disarm(self) -> None:
        if self.read_deadline is not None:
            self.read_deadline.cancel()
            self.read_deadline = None

    def _too_slow(self) -> None:
        """The deadline passed with the request not whole: a 408 if it had begun and nothing has
        been answered to it yet, then the connection closed.  A request whose body was still
        coming sees its client gone, and what it would answer is dropped."""
        self.read_deadline = None
        if self.transport.is_closing():
            return
        cycle = self.cycle if self.reading and self.cycle is not self.cycle_before else None
        if self.reading and (cycle is None or not cycle.response_started):
            message = f"the request did not arrive whole within {REQUEST_SECONDS:.0f} s"
            self._write_refusal(b"408 Request Timeout", "too_slow", message)
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True
            cycle.message_event.set()
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        """A request that is not valid HTTP (a control character in a header, a negative length):
        refused in the API's shape, before any of the app runs, and the connection closed; so is a
        head over ``MAX_HEAD`` bytes (431)."""
        if self.head_too_large:
            message = f"a request's head (its target and header lines) is limited to {MAX_HEAD} bytes"
            self._write_refusal(b"431 Request Header Fields Too Large", "head_too_large", message)
        else:
            self._write_refusal(b"400 Bad Request", "bad_http", MALFORMED)
        self.transport.close()

    def _write_refusal(self, status: bytes, code: str, message: str) -> None:
        """An answer in the API's shape written straight to the connection (saying it will close)."""
        body = json.dumps({"code": code, "message": message}).encode()
        head = [b"HTTP/1.1 " + status + b"\r\n"]
        head += [name + b": " + value + b"\r\n" for name, value in self.server_state.default_headers]
        head += [
            b"content-type: application/json\r\n",
            b"x-content-type-options: nosniff\r\n",
            b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
            b"connection: close\r\n\r\n",
        ]
        self.transport.write(b"".join(head) + body)


MALFORMED = "the request is not valid HTTP (a header with a character HTTP does not allow, or a bad length)"


class GuardedWebSocketProtocol(StallGuard, WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (the one it picks by default), which cuts a connection that
    leaves what is sent to it unread, and one that floods pings while reading nothing: uvicorn
    writes each pong without waiting for the socket, and pings are not counted by the server's
    limits on messages."""

    def handle_ping(self) -> None:
        if self.transport.get_write_buffer_size() > PONG_BACKLOG:
            self.transport.abort()
            return
        super().handle_ping()

    async def run_asgi(self) -> None:
        self.scope["extensions"][WRITE_NOW] = {"write": self.write_now}
        await super().run_asgi()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        scope = getattr(self, "scope", None)  # none if the handshake never came
        if scope is not None:  # the scope no longer keeps the protocol alive
            scope.get("extensions", {}).pop(WRITE_NOW, None)

    def write_now(self, text: str) -> bool:
        """Write a text message to the socket now, if the connection is open and takes it without
        waiting; False otherwise (it is then sent the ASGI way, which waits for the socket).

        Sending through ASGI costs a task's turn and a coroutine per middleware layer for each
        message, and every move sends one view per seat: written here, a view leaves in the move's
        own step.  The caller keeps the order: it writes here only when nothing of the connection's
        waits to be sent the other way."""
        if (
            self.disconnected
            or self.close_sent
            or not self.handshake_complete
            or self.initial_response is not None
            or not self.writable.is_set()
            or self.transport.is_closing()
        ):
            return False
        try:
            self.conn.send_text(text.encode())
        except InvalidState:
            return False
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True


def http_protocol() -> type[asyncio.Protocol]:
    """The protocol class to give uvicorn's ``http`` setting."""
    return UpgradeReleasingProtocol


def ws_protocol() -> type[asyncio.Protocol]:
    """The protocol class to give uvicorn's ``ws`` setting."""
    return GuardedWebSocketProtocol
