"""The HTTP protocol the server runs under uvicorn: uvicorn's own (httptools), except that a
connection upgraded to a WebSocket lets go of its HTTP parser.

The parser calls back into the protocol object and the protocol holds the parser.  When a connection
closes, uvicorn breaks that cycle; when the WebSocket protocol takes a connection over, it does not,
and the pair (with its buffers, headers and events) waits for the cycle collector.  Every game's
players open connections, so a busy server's collector had thousands of such objects to free at
once, all while the event loop and every move waited for it."""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class UpgradeReleasingProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, which forgets its parser once the WebSocket protocol has the
    connection (the parser's work is done: the request it parsed was the upgrade)."""

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        self.parser = None  # type: ignore[assignment]


def http_protocol() -> type[asyncio.Protocol]:
    """The protocol class to give uvicorn's ``http`` setting."""
    return UpgradeReleasingProtocol
