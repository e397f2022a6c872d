"""The HTTP protocol the server runs under uvicorn: uvicorn's own (httptools), except that a
connection upgraded to a WebSocket lets go of its HTTP parser, and a request the parser refuses
gets the API's JSON error rather than uvicorn's line of text.

The parser calls back into the protocol object and the protocol holds the parser.  When a connection
closes, uvicorn breaks that cycle; when the WebSocket protocol takes a connection over, it does not,
and the pair (with its buffers, headers and events) waits for the cycle collector.  Every game's
players open connections, so a busy server's collector had thousands of such objects to free at
once, all while the event loop and every move waited for it."""

from __future__ import annotations

import asyncio
import json

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class UpgradeReleasingProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, which forgets its parser once the WebSocket protocol has the
    connection (the parser's work is done: the request it parsed was the upgrade)."""

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        self.parser = None  # type: ignore[assignment]

    def send_400_response(self, msg: str) -> None:
        """A request that is not valid HTTP (a control character in a header, a negative length):
        refused in the API's shape, before any of the app runs, and the connection closed."""
        body = json.dumps({"code": "bad_http", "message": MALFORMED}).encode()
        head = [b"HTTP/1.1 400 Bad Request\r\n"]
        head += [name + b": " + value + b"\r\n" for name, value in self.server_state.default_headers]
        head += [
            b"content-type: application/json\r\n",
            b"x-content-type-options: nosniff\r\n",
            b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
            b"connection: close\r\n\r\n",
        ]
        self.transport.write(b"".join(head) + body)
        self.transport.close()


MALFORMED = "the request is not valid HTTP (a header with a character HTTP does not allow, or a bad length)"


def http_protocol() -> type[asyncio.Protocol]:
    """The protocol class to give uvicorn's ``http`` setting."""
    return UpgradeReleasingProtocol
