"""The one error type the server refuses a request with."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy import exc as db_errors
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("masques.server")


class ServerError(Exception):
    """A refused request: an HTTP-like status, a stable code and a reason for the client.

    ``retry_after`` (seconds) goes with a 429: the HTTP layer sends it as ``Retry-After`` and the
    WebSocket error message carries it as ``retry_after``.
    """

    def __init__(self, status: int, code: str, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "error", "code": self.code, "message": self.message}
        if self.retry_after is not None:
            out["retry_after"] = self.retry_after
        return out

    def headers(self) -> dict[str, str] | None:
        return None if self.retry_after is None else {"Retry-After": str(self.retry_after)}


class WriterLostError(RuntimeError):
    """The process that writes to the database stopped before it answered: the write may or may
    not have been committed, as when a database's connection is cut."""


DATABASE_AWAY: tuple[type[Exception], ...] = (
    db_errors.OperationalError,
    db_errors.InterfaceError,
    db_errors.TimeoutError,
    WriterLostError,
)
"""The database errors that say it cannot be reached or used just now (down, restarting, its
connections cut, a lock held too long, the pool exhausted), as opposed to a fault of the server's."""
UNAVAILABLE_RETRY = 5


REFUSED_OR_AWAY: tuple[type[Exception], ...] = (ServerError, *DATABASE_AWAY)
"""What a WebSocket's start turns into a refusal sent before its close."""


def unavailable(where: str, exc: Exception) -> ServerError:
    """The refusal of a request the database could not serve just now (nothing was done), logged
    as a warning with the error's type only: the driver's message may name the database's host."""
    log.warning("the database could not serve %s: %s", where, type(exc).__name__)
    return ServerError(
        503,
        "unavailable",
        "the server cannot reach its database just now: nothing was done, try again in a moment",
        retry_after=UNAVAILABLE_RETRY,
    )


EMPTY_BODIES = frozenset({b"", b"{}", b"null"})


async def no_body(request: Request) -> None:
    """For a route that takes no body: anything but none (or ``{}``) is refused before the route
    acts, as a route with a body refuses one it cannot read.  A resignation sent with a body that
    says otherwise, or with JSON that does not parse, must not go through."""
    if (await request.body()).strip() not in EMPTY_BODIES:
        raise ServerError(400, "bad_request", "this route takes no body: send none (or {})")


class Unhandled:
    """The last answer to a fault no route expected: a JSON 500 in the API's shape (an HTTP request)
    or a 1011 close (a WebSocket), logged once with its trace, counted as ``server_error``.

    It sits inside the security headers and the access log, so such an answer has its headers, its
    request id and its real status; Starlette's own last resort, outside them all, has none."""

    def __init__(self, app: ASGIApp, count: Callable[[], None] | None = None) -> None:
        self.app = app
        self.count = count

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] in ("http.response.start", "websocket.accept", "websocket.close"):
                started = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception:
            log.exception("unexpected error on %s", scope.get("path", ""))
            if self.count is not None:
                self.count()
            if scope["type"] == "websocket":
                with contextlib.suppress(Exception):  # the socket may be gone already
                    await send({"type": "websocket.close", "code": 1011})
                return
            if started:
                raise  # part of the answer is out: only the connection can be dropped
            body = {"code": "server_error", "message": "the server failed to answer; try again later"}
            await JSONResponse(body, 500)(scope, receive, send)
