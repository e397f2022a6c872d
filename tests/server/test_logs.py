"""Structured logs: JSON lines with the request and match ids, an access log without query strings,
and nothing secret in a whole game's logs — no seat token, password, session or CSRF token, the
match's secret or seed, nor any seat's hidden cards."""

from __future__ import annotations

import json
import logging
import random
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import masques_server_support as support
import pytest

from masques.engine.chance import derive_seed
from masques.server.accounts import COOKIE
from masques.server.logs import JsonFormatter, NoQueries, Stamp, TextFormatter, match_id, request_id
from masques.server.storage import Storage


class Lines(logging.Handler):
    """Every record, formatted as the server writes it."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []
        self.addFilter(Stamp())
        self.setFormatter(JsonFormatter())

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(("masques", "uvicorn")):  # the server's, not the test clients'
            self.lines.append(self.format(record))


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> Iterator[Lines]:
    caplog.set_level(logging.INFO)
    handler = Lines()
    logging.getLogger().addHandler(handler)
    yield handler
    logging.getLogger().removeHandler(handler)


def test_a_line_is_json_with_the_request_and_match_it_belongs_to() -> None:
    record = logging.LogRecord(
        "masques.server", logging.WARNING, __file__, 1, "bot %s failed", ("hard",), None
    )
    tokens = request_id.set("r-1"), match_id.set("00000000000000ab")
    try:
        Stamp().filter(record)
    finally:
        request_id.reset(tokens[0])
        match_id.reset(tokens[1])
    line = json.loads(JsonFormatter().format(record))
    assert line["level"] == "warning" and line["message"] == "bot hard failed"
    assert (line["request_id"], line["match"], line["logger"]) == (
        "r-1",
        "00000000000000ab",
        "masques.server",
    )


def test_a_text_line_is_one_line_whatever_the_client_sent() -> None:
    """In the text format, a path (or any text a client chose) holding a line break or another
    control character is written escaped: a request to ``/api/players/x%0a<a forged line>`` must
    not add a line of its own to the log.  A traceback still takes the lines it needs."""
    formatter = TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s")  # --log-format text
    forged = "/api/players/x\n2026-01-01 00:00:00,000 CRITICAL masques.server: wiped\r\x00\u2028"
    record = logging.LogRecord(
        "masques.access", logging.INFO, __file__, 1, "%s %s %s", ("GET", forged, 404), None
    )
    line = formatter.format(record)
    assert len(line.splitlines()) == 1, line
    assert "x\\n2026-01-01" in line and "wiped\\r\\x00\\u2028 404" in line
    try:
        raise ValueError("boom")
    except ValueError:
        failed = logging.LogRecord("masques.server", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    assert "Traceback (most recent call last)" in formatter.format(failed).splitlines()[1]


def test_a_line_never_keeps_a_query_string() -> None:
    """uvicorn names each WebSocket with its path and query, where an API client may put its token."""
    record = logging.LogRecord(
        "uvicorn.error",
        logging.INFO,
        __file__,
        1,
        '%s - "WebSocket %s" [accepted]',
        ("127.0.0.1:5000", "/ws/matches/00000000000000ab?token=s3cret&x=1"),
        None,
    )
    NoQueries().filter(record)
    assert record.getMessage() == '127.0.0.1:5000 - "WebSocket /ws/matches/00000000000000ab" [accepted]'
    plain = logging.LogRecord("masques", logging.INFO, __file__, 1, "GET /api/x?token=s3cret done?", (), None)
    NoQueries().filter(plain)
    assert plain.getMessage() == "GET /api/x done?"


def test_a_whole_game_logs_its_requests_and_no_secret(server: Any, api: httpx.Client, logged: Lines) -> None:
    password = support.PASSWORD
    with support.browser(server) as ann:
        body = support.signup(ann, support.unique("ann"))
        csrf, cookie = body["csrf"], ann.cookies[COOKIE]
    match_id_ = support.create_match(api, "mascarade", {"players": 2}, ["human", "human"])["id"]
    tokens = {seat: support.join(api, match_id_, f"p{seat}", seat)["token"] for seat in (0, 1)}
    conns = support.seat_conns(server.ws_url, match_id_, tokens)
    support.play_to_end(conns, random.Random(2))
    for conn in conns:
        conn.close()
    given = api.get(
        f"/api/matches/{match_id_}/replay", params={"token": tokens[0]}, headers={"x-request-id": "trace-7"}
    )
    assert given.status_code == 200 and given.headers["x-request-id"] == "trace-7"
    row = Storage(server.database_url).match(match_id_)
    assert row is not None and row.secret is not None

    def replay_logged() -> bool:  # the access line is written once the answer is sent, not before
        return any(
            line.get("event") == "access"
            and line["path"] == f"/api/matches/{match_id_}/replay"
            and line["request_id"] == "trace-7"
            for line in map(json.loads, list(logged.lines))
        )

    deadline = time.monotonic() + support.TIMEOUT
    while not replay_logged():
        assert time.monotonic() < deadline, "no access line for the replay"
        time.sleep(0.05)
    lines = [json.loads(text) for text in logged.lines]
    access = [line for line in lines if line.get("event") == "access"]
    assert all(line["match"] == match_id_ for line in access if match_id_ in line["path"])
    assert any(line.get("event") == "match_finished" and line["match"] == match_id_ for line in lines)
    assert all("?" not in line["path"] for line in access)

    text = "\n".join(logged.lines)
    secrets = [
        *tokens.values(),
        password,
        csrf,
        cookie,
        row.secret,
        str(derive_seed(int(row.secret, 16), "game")),
    ]
    for secret in secrets:
        assert secret not in text
    final = support.Replay(support.full_record(server.database_url, match_id_)).final
    for line in lines:
        assert "hand" not in line and "observation" not in line and "cards" not in line
    assert final.is_terminal()


def test_a_websocket_refused_after_its_accept_logs_the_close_code(
    server: Any, api: httpx.Client, logged: Lines
) -> None:
    """A refusal made after the handshake (a wrong token, another site's page) is not a connection
    that went well: its access line says how it was closed."""
    match_id_ = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
    refused = support.Conn(server.ws_url, match_id_, token="not-a-seat-token")
    assert refused.closed_code() == 4403
    watcher = support.Conn(server.ws_url, match_id_)
    watcher.first_state()
    watcher.close()

    def access_lines() -> list[dict[str, Any]]:
        lines = [json.loads(text) for text in logged.lines]
        return [
            line
            for line in lines
            if line.get("event") == "access" and line["method"] == "WS" and match_id_ in line["path"]
        ]

    deadline = time.monotonic() + 5
    while len(access_lines()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    closes = sorted((line["status"], line.get("close", 0)) for line in access_lines())
    assert closes == [(101, 0), (101, 4403)]  # the spectator closed it itself


def test_debug_logs_keep_no_websocket_frames_nor_raw_addresses(tmp_path: Any) -> None:
    """At debug level uvicorn would write every WebSocket frame (a hello carries the seat token, a
    state a seat's view) and each connection's raw address: neither reaches the log."""
    log = tmp_path / "serve.log"
    server = support.ServerProcess(
        f"sqlite:///{tmp_path / 'matches.db'}",
        support.free_port(),
        log,
        env={"MASQUES_LOG_LEVEL": "debug", "MASQUES_LOG_FORMAT": "json"},
    ).start()
    try:
        with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
            match_id_ = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
            tokens = {seat: support.join(api, match_id_, f"p{seat}", seat)["token"] for seat in (0, 1)}
            conns = support.seat_conns(server.ws_url, match_id_, tokens)
            support.play_to_end(conns, random.Random(3), stop_after=6)
            for conn in conns:
                conn.close()
            time.sleep(0.5)
    finally:
        server.stop()
    text = log.read_text("utf-8", errors="replace")
    assert '"event": "access"' in text and '"level": "debug"' in text  # the level was debug
    for token in tokens.values():
        assert token not in text
    assert "TEXT '" not in text and ' - "WebSocket ' not in text


def test_a_text_frame_that_is_not_utf8_is_a_warning_without_a_trace(tmp_path: Any) -> None:
    """The connection is closed (1007) and nothing failed in the server: a client cannot write
    errors with traces into the log at will."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    log = tmp_path / "serve.log"
    server = support.ServerProcess(
        f"sqlite:///{tmp_path / 'matches.db'}", support.free_port(), log, env={"MASQUES_LOG_FORMAT": "json"}
    ).start()
    try:
        with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as api:
            match_id_ = support.create_match(api, "masker", {"players": 2}, ["human", "human"])["id"]
        with connect(f"{server.ws_url}/ws/matches/{match_id_}", open_timeout=support.TIMEOUT) as ws:
            ws.recv(timeout=support.TIMEOUT)  # the spectator's first state
            ws.send(b'{"type": "chat", "text": "\xff\xfe"}', text=True)
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(timeout=support.TIMEOUT)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007
        time.sleep(0.3)
    finally:
        server.stop()
    lines = [json.loads(line) for line in log.read_text("utf-8").splitlines() if line.startswith("{")]
    said = [line for line in lines if "UTF-8" in line["message"]]
    assert [line["level"] for line in said] == ["warning"], said
    assert not any("traceback" in line for line in said)
    assert not any(line["level"] in ("error", "critical") for line in lines), lines
