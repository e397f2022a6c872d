"""Structured logs: one JSON object per line, each with the request and the match it belongs to.

A middleware gives every HTTP request and WebSocket connection an id (the client's ``X-Request-ID``
when it is a short plain token, else a new one, sent back in the response) and notes the match its
path names; both ride in context variables, so any log line written while serving it carries them.
The access log is written here, once per request: method, path without its query (a token may be
in one), status, duration, and the client's hashed key — never headers, cookies or bodies.  What
the modules log never includes tokens, passwords, seeds, secrets or any part of a position.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .limits import client_key

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
match_id: ContextVar[str | None] = ContextVar("match_id", default=None)

access = logging.getLogger("masques.access")

GIVEN_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
MATCH_PATH = re.compile(r"^/(?:api/matches|ws/matches|match)/([0-9a-f]{16})(?:/|$)")
FIELDS = (
    "event",
    "method",
    "path",
    "status",
    "close",
    "ms",
    "client",
    "match",
    "seat",
    "game",
    "level",
    "code",
)
"""Extra fields a log call may pass (``extra={...}``) that the JSON line keeps."""


class JsonFormatter(logging.Formatter):
    """A record as one line of JSON: time, level, logger, message, the request and match ids, and
    the known extra fields; an exception's type and traceback when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = getattr(record, "request_id", None) or request_id.get()
        mid = getattr(record, "match", None) or match_id.get()
        if rid is not None:
            line["request_id"] = rid
        if mid is not None:
            line["match"] = mid
        for name in FIELDS:
            if name == "match":
                continue
            value = record.__dict__.get(name)
            if value is not None:
                line[name] = value
        if record.exc_info:
            line["error"] = record.exc_info[0].__name__ if record.exc_info[0] else None
            line["traceback"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


UNSHOWN = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
"""Characters that would break or hide a text line: controls (a line break first of all) and the
line and paragraph separators."""


class TextFormatter(logging.Formatter):
    """A record as one line of plain text: its message escapes line breaks and other control
    characters, so that a client's text in it (a request's path) cannot end the line and forge
    another one.  A traceback, written after the message, keeps its lines."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        text = super().formatMessage(record)
        return UNSHOWN.sub(lambda found: repr(found.group())[1:-1], text)


QUERY = re.compile(r"(/[^\s?\"']*)\?[^\s\"']*")
"""A path's query string in a log line: it may hold a seat token (``/ws/matches/ID?token=...``)."""


class NoAddresses(logging.Filter):
    """Drops uvicorn's own lines about each WebSocket (``ADDRESS - "WebSocket PATH" [accepted]``):
    they name the client's raw address, and the access log already writes each connection, with
    the client's key instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (
            record.name.startswith("uvicorn")
            and isinstance(record.msg, str)
            and record.msg.startswith('%s - "WebSocket ')
        )


class NoQueries(logging.Filter):
    """Cuts query strings from every line: uvicorn names each WebSocket it accepts or refuses with
    its full path, and an API client may give its seat token there."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and "?" in record.msg:
            record.msg = QUERY.sub(r"\1", record.msg)
        if isinstance(record.args, tuple) and any(isinstance(a, str) and "?" in a for a in record.args):
            record.args = tuple(QUERY.sub(r"\1", a) if isinstance(a, str) else a for a in record.args)
        return True


class ClientFaults(logging.Filter):
    """uvicorn logs a client's text frame that is not UTF-8 as a server error with its trace; the
    connection is closed (1007) and the server is fine, so it is a warning, without the trace: a
    client must not be able to fill the error log at will."""

    LINES = frozenset({"Invalid UTF-8 sequence received from client."})

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.WARNING and record.msg in self.LINES:
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info, record.exc_text = None, None
        return True


class Stamp(logging.Filter):
    """Writes the request and match ids on each record as it is made (a handler may format it later,
    out of the request's context)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = request_id.get()
        if getattr(record, "match", None) is None:
            record.match = match_id.get()
        return True


def configure(level: str = "info", fmt: str = "json") -> None:
    """Send every log line (the server's, uvicorn's) to stderr, as JSON lines or as plain text."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(Stamp())
    handler.addFilter(NoAddresses())
    handler.addFilter(NoQueries())
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True
    uvicorn_error = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, ClientFaults) for f in uvicorn_error.filters):
        uvicorn_error.addFilter(ClientFaults())
    # At debug level uvicorn's WebSocket protocol writes every frame it receives and sends (seat
    # tokens in hellos, each seat's view): its own lines stop at info, whatever the level.
    for name in ("uvicorn.error", "websockets"):
        logging.getLogger(name).setLevel(max(logging.INFO, root.level))
    logging.getLogger("uvicorn.access").disabled = True  # the access log is ours (no query strings)


class RequestLog:
    """Ids for each request and connection, and the access log."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")
        rid = given if GIVEN_ID.fullmatch(given) else uuid.uuid4().hex
        path: str = scope.get("path", "")
        found = MATCH_PATH.match(path)
        tokens = request_id.set(rid), match_id.set(found.group(1) if found else None)
        started = time.perf_counter()
        status = 0
        closed: int | None = None  # a WebSocket's close code, ours: a refusal after accept shows here

        async def sending(message: Message) -> None:
            nonlocal status, closed
            if message["type"] == "http.response.start":
                status = int(message["status"])
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", rid.encode("latin-1"))]
            elif message["type"] == "websocket.accept":
                status = 101
            elif message["type"] == "websocket.close":
                closed = int(message.get("code", 1000))
                status = status or 403
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            client = scope.get("client")
            fields = {
                "event": "access",
                "method": scope.get("method", "WS"),
                "path": path,
                "status": status,
                "ms": round((time.perf_counter() - started) * 1000, 1),
                "client": client_key(client[0] if client else None),
            }
            if closed is not None:
                fields["close"] = closed
            access.info(
                "%s %s %s%s",
                scope.get("method", "WS"),
                path,
                status,
                "" if closed is None else f" close {closed}",
                extra=fields,
            )
            request_id.reset(tokens[0])
            match_id.reset(tokens[1])
