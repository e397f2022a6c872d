"""Bad input over HTTP and WebSocket: each gets a clear error with a code and a reason, and changes
nothing (the version and the record stay as they were; the connection stays usable).

Most tests use a match of two human seats, so that nothing moves unless the test moves it."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as support
import pytest

from masques.server.app import MAX_BODY, MAX_MESSAGE


@dataclass
class Table:
    """A running Masker match of two human seats, both connected, and a spectator."""

    match_id: str
    tokens: dict[int, str]
    conns: dict[int | None, support.Conn]

    @property
    def mover(self) -> support.Conn:
        return next(c for s, c in self.conns.items() if s is not None and c.state and c.state["your_turn"])

    @property
    def waiter(self) -> support.Conn:
        return next(
            c for s, c in self.conns.items() if s is not None and c.state and not c.state["your_turn"]
        )

    @property
    def version(self) -> int:
        state = self.conns[None].state
        assert state is not None
        return int(state["version"])


def _open_table(server: Any, api: httpx.Client, seed: int = 21) -> Table:
    created = support.create_match(api, "masker", {"players": 2}, ["human", "human"], seed=seed)
    tokens = {s: support.join(api, created["id"], f"p{s}", s)["token"] for s in (0, 1)}
    seat_conns = support.seat_conns(server.ws_url, created["id"], tokens)
    conns: dict[int | None, support.Conn] = dict(zip((0, 1), seat_conns, strict=True))
    conns[None] = support.Conn(server.ws_url, created["id"])
    conns[None].first_state()
    return Table(created["id"], tokens, conns)


@pytest.fixture
def table(server: Any, api: httpx.Client) -> Iterator[Table]:
    """The table after two acknowledged moves (so that stale versions exist)."""
    table = _open_table(server, api)
    support.play_to_end(list(table.conns.values()), random.Random(0), stop_after=2)
    yield table
    for conn in table.conns.values():
        conn.close()


def _snapshot(api: httpx.Client, table: Table) -> tuple[int, Any, Any]:
    """The version and the records (spectator's and each seat's): what must not change."""
    version = support.summary(api, table.match_id)["version"]
    spectator = api.get(f"/api/matches/{table.match_id}/record").json()
    seat = api.get(f"/api/matches/{table.match_id}/record", params={"token": table.tokens[0]}).json()
    return version, spectator, seat


def _still_usable(conn: support.Conn, version: int) -> None:
    """The connection still answers, with the same version."""
    conn.send({"type": "sync"})
    state = conn.recv_type("state")
    assert state["version"] == version


def _expect_error(conn: support.Conn, payload: Any, code: str) -> dict[str, Any]:
    error = conn.refused(payload)
    assert set(error) == {"type", "code", "message", "version"}, error
    assert error["code"] == code, (payload, error)
    assert isinstance(error["message"], str) and len(error["message"]) > 5
    return error


BAD_MESSAGES: list[tuple[str, Any, str]] = [
    ("malformed JSON", '{"type": "action", "action": 3,', "bad_json"),
    ("not JSON at all", "e4", "bad_json"),
    ("empty text", "", "bad_json"),
    ("a number", "12", "bad_message"),
    ("an array", '[{"type": "action", "action": 1, "version": 2}]', "bad_message"),
    ("null", "null", "bad_message"),
    ("no type", {"action": 1, "version": 2}, "bad_message"),
    ("unknown type", {"type": "move", "action": 1, "version": 2}, "bad_message"),
    ("type not a string", {"type": ["action"], "action": 1, "version": 2}, "bad_message"),
    ("unknown field", {"type": "action", "action": 1, "version": 2, "seat": 1}, "bad_message"),
    ("unknown field: token", {"type": "action", "action": 1, "version": 2, "token": "x"}, "bad_message"),
    ("action as string", {"type": "action", "action": "1", "version": 2}, "bad_action"),
    ("action as square", {"type": "action", "action": "a1", "version": 2}, "bad_action"),
    ("action as float", {"type": "action", "action": 1.0, "version": 2}, "bad_action"),
    ("action as bool", {"type": "action", "action": True, "version": 2}, "bad_action"),
    ("action as null", {"type": "action", "action": None, "version": 2}, "bad_action"),
    ("action as object", {"type": "action", "action": {"step": "a1"}, "version": 2}, "bad_action"),
    ("action missing", {"type": "action", "version": 2}, "bad_action"),
    ("version as float", {"type": "action", "action": 1, "version": 2.0}, "bad_version"),
    ("version as bool", {"type": "action", "action": 1, "version": True}, "bad_version"),
    ("version as string", {"type": "action", "action": 1, "version": "2"}, "bad_version"),
    ("version missing", {"type": "action", "action": 1}, "bad_version"),
    ("version NaN", '{"type": "action", "action": 1, "version": NaN}', "bad_version"),
    ("huge action", '{"type": "action", "action": 1e999, "version": 2}', "bad_action"),
]


@pytest.mark.parametrize(("what", "payload", "code"), BAD_MESSAGES, ids=[m[0] for m in BAD_MESSAGES])
def test_malformed_messages_are_refused_and_change_nothing(
    table: Table, api: httpx.Client, what: str, payload: Any, code: str
) -> None:
    before = _snapshot(api, table)
    assert before[0] == table.version == 2
    for conn in (table.mover, table.waiter, table.conns[None]):
        if code in ("bad_action", "bad_version") and conn is table.conns[None]:
            code_here = "spectator"  # a spectator is refused before its message is looked at
        else:
            code_here = code
        error = _expect_error(conn, payload, code_here)
        assert error["version"] == 2
        _still_usable(conn, 2)
    assert _snapshot(api, table) == before


def test_out_of_range_and_illegal_actions(table: Table, api: httpx.Client) -> None:
    before = _snapshot(api, table)
    mover = table.mover
    assert mover.state is not None
    legal = {a["id"] for a in mover.state["legal"]}
    illegal = next(a for a in range(36) if a not in legal)
    for action, words in (
        (-1, "out of range"),
        (41, "out of range"),
        (10**30, "out of range"),
        (illegal, ""),
    ):
        error = _expect_error(mover, {"type": "action", "action": action, "version": 2}, "illegal_action")
        assert words in error["message"]
    _still_usable(mover, 2)
    assert _snapshot(api, table) == before


def test_out_of_turn_stale_and_duplicate_actions(table: Table, api: httpx.Client) -> None:
    before = _snapshot(api, table)
    mover, waiter = table.mover, table.waiter
    assert mover.state is not None
    good = mover.state["legal"][0]["id"]
    # the other seat's token cannot act when it is not its turn, whatever it sends
    _expect_error(waiter, {"type": "action", "action": good, "version": 2}, "not_your_turn")
    # stale and future versions
    for version in (0, 1, 3, 10**9, -1):
        _expect_error(mover, {"type": "action", "action": good, "version": version}, "stale_version")
    # the spectator cannot act
    _expect_error(table.conns[None], {"type": "action", "action": good, "version": 2}, "spectator")
    assert _snapshot(api, table) == before

    # a duplicate submission: the first is acknowledged, the second is refused as stale
    mover.act(good, 2)
    mover.send({"type": "action", "action": good, "version": 2})
    for conn in table.conns.values():
        conn.wait_version(3)
    error = mover.recv_type("error")
    assert error["code"] == "stale_version" and error["version"] == 3
    later = mover.drain(0.3)
    assert all(m["type"] == "presence" or m["version"] == 3 for m in later), later
    after = _snapshot(api, table)
    assert after[0] == 3
    assert after[1]["observations"][:3] == before[1]["observations"]
    assert after[1]["observations"][-1]["moves"] == [*before[1]["observations"][-1]["moves"], good]


def test_oversize_messages_are_refused(server: Any, table: Table, api: httpx.Client) -> None:
    before = _snapshot(api, table)
    mover = table.mover
    assert mover.state is not None
    good = mover.state["legal"][0]["id"]
    padded = json.dumps({"type": "action", "action": good, "version": 2, "pad": "x" * MAX_MESSAGE})
    error = _expect_error(mover, padded, "too_large")
    assert str(MAX_MESSAGE) in error["message"]
    _still_usable(mover, 2)
    # beyond the WebSocket frame limit (4 x the message limit) the connection is closed: 1009
    conn = support.Conn(server.ws_url, table.match_id, table.tokens[0], 0)
    conn.first_state()
    conn.send(json.dumps({"type": "action", "action": good, "version": 2, "pad": "x" * (MAX_MESSAGE * 5)}))
    assert conn.closed_code() == 1009
    assert _snapshot(api, table) == before


def test_oversize_messages_are_measured_in_bytes(table: Table, api: httpx.Client) -> None:
    """The limit is 4 KiB of message: a message of more than 4096 bytes in UTF-8 is refused as too
    large even when it has fewer than 4096 characters (here 2 100 x 'é' = 4 200 bytes, and with
    4-byte characters a message up to 16 KiB would be parsed)."""
    before = _snapshot(api, table)
    mover = table.mover
    for pad in ("é" * 2100, "\U0001f600" * 1500):
        text = json.dumps({"type": "action", "action": 0, "version": 2, "pad": pad}, ensure_ascii=False)
        assert len(text) <= MAX_MESSAGE < len(text.encode("utf-8"))
        _expect_error(mover, text, "too_large")
    assert _snapshot(api, table) == before


def test_binary_frames_get_an_error_and_keep_the_connection(table: Table, api: httpx.Client) -> None:
    """A binary frame is bad input like any other: an error with a code, not a dropped connection
    (today the handler raises KeyError('text') and the connection dies without a close frame)."""
    before = _snapshot(api, table)
    mover = table.mover
    payload = json.dumps({"type": "action", "action": 0, "version": 2}).encode()
    error = mover.refused(payload)
    assert error["code"] in ("bad_message", "bad_json"), error
    _still_usable(mover, 2)
    assert _snapshot(api, table) == before


def test_deeply_nested_json_gets_an_error_and_keeps_the_connection(table: Table, api: httpx.Client) -> None:
    """Under 4 KiB but nested 1 500 deep: json.loads raises RecursionError (not JSONDecodeError), which
    today escapes the handler and drops the connection."""
    before = _snapshot(api, table)
    mover = table.mover
    nested = "[" * 1500 + "]" * 1500
    assert len(nested) <= MAX_MESSAGE
    error = mover.refused(nested)
    assert error["code"] in ("bad_json", "bad_message"), error
    _still_usable(mover, 2)
    assert _snapshot(api, table) == before


def test_unknown_match_and_bad_tokens_on_the_websocket(server: Any, api: httpx.Client, table: Table) -> None:
    before = _snapshot(api, table)
    conn = support.Conn(server.ws_url, "0123456789abcdef")
    error = conn.recv()
    assert error["type"] == "error" and error["code"] == "no_match" and error["message"]
    assert conn.closed_code() == 4404
    conn = support.Conn(server.ws_url, "x" * 200, table.tokens[0])
    assert conn.recv()["code"] == "no_match"
    assert conn.closed_code() == 4404
    # a token of match A used on match B
    other = support.create_match(api, "masker", {"players": 2}, ["human", "human"])
    foreign = support.join(api, other["id"], "mallory", 0)["token"]
    for token in (foreign, "guess", table.tokens[0][:-1], table.tokens[0] + "x"):
        conn = support.Conn(server.ws_url, table.match_id, token)
        error = conn.recv()
        assert error["code"] == "bad_token", error
        assert set(error) == {"type", "code", "message"}
        assert conn.closed_code() == 4403
    # and the other way round: match A's seat token does not act on match B
    conn = support.Conn(server.ws_url, other["id"], table.tokens[0])
    assert conn.recv()["code"] == "bad_token"
    assert conn.closed_code() == 4403
    assert _snapshot(api, table) == before


def test_actions_before_the_start_and_after_the_end(server: Any, api: httpx.Client) -> None:
    created = support.create_match(api, "blokus3d", {"players": 2, "structure": "A"}, ["human", "human"])
    alice = support.join(api, created["id"], "alice", 0)
    conn = support.Conn(server.ws_url, created["id"], alice["token"], 0)
    state = conn.first_state()
    assert state["match"]["status"] == "open" and state["legal"] == [] and not state["your_turn"]
    _expect_error(conn, {"type": "action", "action": 0, "version": 0}, "not_running")
    assert support.summary(api, created["id"])["version"] == 0
    bob = support.join(api, created["id"], "bob", 1)
    assert conn.recv_type("state")["match"]["status"] == "running"  # the join is broadcast
    other = support.Conn(server.ws_url, created["id"], bob["token"], 1)
    other.first_state()
    conns = [conn, other]
    support.play_to_end(conns, random.Random(3))
    final = support.summary(api, created["id"])
    assert final["status"] == "finished"
    record = api.get(f"/api/matches/{created['id']}/record", params={"full": "true"}).json()
    for c in conns:
        _expect_error(c, {"type": "action", "action": 0, "version": final["version"]}, "not_running")
    assert api.get(f"/api/matches/{created['id']}/record", params={"full": "true"}).json() == record
    for c in conns:
        c.close()


def test_http_bodies_over_64_kib_are_refused(api: httpx.Client) -> None:
    before = {m["id"] for m in api.get("/api/matches").json()}
    body = json.dumps({"game": "masker", "options": {}, "pad": "x" * MAX_BODY}).encode()
    response = api.post("/api/matches", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 413, response.text
    assert response.json()["code"] == "too_large"
    created = support.create_match(api, "masker", {}, ["human", "human"])
    response = api.post(
        f"/api/matches/{created['id']}/join",
        content=json.dumps({"name": "x" * (MAX_BODY + 1)}).encode(),
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 413
    assert not any(s["taken"] for s in support.summary(api, created["id"])["seats"])
    assert {m["id"] for m in api.get("/api/matches").json()} == before | {created["id"]}


@pytest.mark.parametrize("depth", [40, 500, 600, 900, 1000])
def test_options_nested_at_any_depth_are_refused_as_options_or_json(api: httpx.Client, depth: int) -> None:
    """A small body of deeply nested options once reached a copy that overflowed the recursion
    limit: a server error, and a traceback of 140 KB in the log for each request."""
    before = {m["id"] for m in api.get("/api/matches").json()}
    nested = "[" * depth + "]" * depth
    bodies = {
        "masker": f'{{"zzz":{nested}}}',
        "blokus3d": f'{{"structure":"custom","custom_structure":{nested}}}',
    }
    for game, options in bodies.items():
        body = f'{{"game":"{game}","options":{options}}}'
        response = api.post("/api/matches", content=body, headers={"content-type": "application/json"})
        assert response.status_code == 400, response.text
        assert response.json()["code"] in ("bad_options", "bad_json")
    assert {m["id"] for m in api.get("/api/matches").json()} == before


def test_http_bodies_over_64_kib_are_refused_without_a_content_length(api: httpx.Client) -> None:
    """A chunked request has no Content-Length: the body limit must still hold (today the body
    middleware only looks at the header, so a 100 KiB chunked body is read and parsed)."""
    body = json.dumps({"game": "masker", "options": {}, "seats": None, "pad": "x" * (100 * 1024)}).encode()

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(body), 8192):
            yield body[start : start + 8192]

    response = api.post("/api/matches", content=chunks(), headers={"content-type": "application/json"})
    assert response.request.headers.get("transfer-encoding") == "chunked"
    assert response.status_code == 413, (response.status_code, response.text)


LONE = "\\ud800"
"""A JSON escape of half a surrogate pair, alone: JSON decodes it, but it is no character."""


@pytest.mark.parametrize(
    "body",
    [
        '{"game": "blokus3d", "options": {"structure": "custom", "custom_structure": '
        '{"name": "x' + LONE + '", "heights": ["22"]}}}',
        '{"game": "masker", "options": {"variant": "' + LONE + '"}}',
        '{"game": "masker' + LONE + '"}',
        '{"game": "masker", "options": {"' + LONE + '": 1}}',
        # after a field nested as deep as the decoder allows: the text is still looked at
        '{"game": "masker", "clock": {"a": '
        + "[" * 850
        + "]" * 850
        + '}, "options": {"variant": "'
        + LONE
        + '"}}',
    ],
)
def test_text_that_is_not_unicode_is_refused_and_stores_nothing(api: httpx.Client, body: str) -> None:
    """Such text could be neither stored nor written into an answer: one request once left a match
    that broke the lobby's listing for everyone."""
    before = {m["id"] for m in api.get("/api/matches").json()}
    response = api.post("/api/matches", content=body.encode(), headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "bad_json"
    listing = api.get("/api/matches")
    assert listing.status_code == 200 and {m["id"] for m in listing.json()} == before
    name = '{"name": "\\ud83d\\ude00 ann"}'
    created = support.create_match(api, "masker", {}, ["human", "human"])
    joined = api.post(  # a pair of surrogate escapes is one character: it is fine
        f"/api/matches/{created['id']}/join",
        content=name.encode(),
        headers={"content-type": "application/json"},
    )
    assert (
        joined.status_code == 200
        and support.summary(api, created["id"])["seats"][0]["name"] == "\U0001f600 ann"
    )


def test_a_hello_whose_token_is_not_unicode_is_refused(server: Any, api: httpx.Client) -> None:
    created = support.create_match(api, "masker", {"players": 2}, ["human", "human"])
    conn = support.Conn(server.ws_url, created["id"], via="nothing")
    conn.ws.send('{"type": "hello", "token": "' + LONE + '"}')
    error = conn.recv()
    assert (error["type"], error["code"]) == ("error", "bad_hello")
    assert conn.closed_code() == 4400


def test_secrets_that_are_not_ascii_are_refused_like_wrong_ones(server: Any, api: httpx.Client) -> None:
    """An invite code or a CSRF token is compared in constant time, whatever text a client sends."""
    private = api.post(
        "/api/matches", json={"game": "masker", "seats": [{"kind": "human"}] * 2, "private": True}
    ).json()
    for invite in ("café", "\U0001f600" * 8):
        refused = api.post(f"/api/matches/{private['id']}/join", json={"name": "x", "invite": invite})
        assert refused.status_code == 403 and refused.json()["code"] == "bad_invite", refused.text
    assert not any(s["taken"] for s in support.summary(api, private["id"])["seats"])
    with support.browser(server) as guest:
        support.signed(guest, guest.post("/api/guest", json={"name": "g"}))
        body = {"game": "masker", "seats": [{"kind": "human"}] * 2}
        forged = guest.post("/api/matches", json=body, headers={"x-csrf-token": "été".encode("latin-1")})
        assert forged.status_code == 403 and forged.json()["code"] == "csrf", forged.text


@pytest.mark.parametrize(
    ("method", "path", "content", "status", "code"),
    [
        ("GET", "/api/nothing-here", None, 404, "not_found"),
        # a trailing slash: not found, not an empty redirect to the Host the request named
        ("GET", "/api/matches/?status=open", None, 404, "not_found"),
        ("POST", "/api/matches/", b'{"game": "masker"}', 404, "not_found"),
        ("GET", "/api/games/", None, 404, "not_found"),
        ("DELETE", "/api/matches", None, 405, "method_not_allowed"),
        ("POST", "/api/matches", b'{"game": "masker", "seed": ' + b"9" * 5000 + b"}", 400, "bad_json"),
        ("POST", "/api/matches", b'{"game": "masker", "options": {"a": \xff}}', 400, "bad_json"),
        ("POST", "/api/matches", b"[" * 100_00 + b"]" * 100_00, 400, "bad_json"),
        ("POST", "/api/matches", b'{"game": "mas', 400, "bad_json"),
    ],
)
def test_the_frameworks_own_refusals_have_the_apis_shape(
    api: httpx.Client, *, method: str, path: str, content: bytes | None, status: int, code: str
) -> None:
    response = api.request(method, path, content=content, headers={"content-type": "application/json"})
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"code", "message"} and body["code"] == code and body["message"], body


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ({"clock": {"kind": "fischer", "base": 60, "incremnt": 30}}, "'incremnt'"),
        ({"clock": {"kind": "correspondence", "days": 1, "hours": 5}}, "'hours'"),
        ({"turn_seconds": 30, "at_zero": "lose"}, "at_zero"),
        ({"clock": {"kind": "turn", "seconds": 30}, "at_zero": "bot"}, "at_zero"),
        ({"at_zero": "lose"}, "at_zero"),
        ({"clock": {"kind": "turn", "seconds": 3601}}, "1..3600"),
        ({"clock": {"kind": "turn", "seconds": True}}, "1..3600"),
    ],
)
def test_a_time_control_is_taken_as_asked_or_refused(
    api: httpx.Client, extra: dict[str, Any], fragment: str
) -> None:
    """Nothing of a clock request is dropped in silence: a misspelt field or an ``at_zero`` that the
    clock does not use would have made another match than the one asked for."""
    before = {m["id"] for m in api.get("/api/matches").json()}
    response = api.post("/api/matches", json={"game": "masker", **extra})
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "bad_clock" and fragment in response.json()["message"]
    assert {m["id"] for m in api.get("/api/matches").json()} == before


def test_a_per_turn_clock_takes_the_same_seconds_either_way(api: httpx.Client) -> None:
    by_field = api.post("/api/matches", json={"game": "masker", "turn_seconds": 5})
    by_clock = api.post("/api/matches", json={"game": "masker", "clock": {"kind": "turn", "seconds": 5}})
    assert by_field.status_code == by_clock.status_code == 201, (by_field.text, by_clock.text)
    assert by_field.json()["turn_seconds"] == by_clock.json()["turn_seconds"] == 5


@pytest.mark.parametrize(
    ("content", "kind", "fragment"),
    [
        (None, None, "the body: Field required"),
        (b'{"game": "masker"}', "text/plain", "Content-Type: application/json"),
    ],
)
def test_a_missing_body_or_one_not_sent_as_json_is_named_as_such(
    api: httpx.Client, content: bytes | None, kind: str | None, fragment: str
) -> None:
    headers = {"content-type": kind} if kind else {}
    response = api.post("/api/matches", content=content, headers=headers)
    assert response.status_code == 400 and response.json()["code"] == "bad_request", response.text
    assert fragment in response.json()["message"]


def test_an_asset_of_a_client_that_is_not_built_is_not_found(tmp_path: Path) -> None:
    """A copy without the built client answers its assets 404, as JSON, not with a server error."""
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from masques.server.app import HashedFiles

    app = FastAPI()
    app.mount(
        "/assets", HashedFiles(directory=tmp_path / "static" / "assets", check_dir=False), name="assets"
    )
    with TestClient(app, raise_server_exceptions=True) as client:
        for path in ("/assets/index.js", "/assets/../secrets.txt"):
            assert client.get(path).status_code == 404


AWKWARD_VALUES: list[Any] = [
    "a\x00b",  # PostgreSQL's text holds no NUL
    "\x00",
    2**63,  # beyond a 64-bit column
    -(2**63) - 1,
    2**64,
    1e308,
    "9" * 400,
    {"a": "\x00"},
    ["\x00"],
    None,
    "",
]
"""Values that databases and parsers choke on, for any field of any route."""


def _schema(document: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = document["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _plain(document: dict[str, Any], node: dict[str, Any]) -> Any:
    """An ordinary value of a field's type, so that a body gets past its other fields' checks."""
    node = _schema(document, node)
    for choice in node.get("anyOf", []):
        if choice.get("type") != "null":
            return _plain(document, choice)
    return {"string": "Plain-Value1", "integer": 1, "number": 1, "boolean": False, "array": []}.get(
        node.get("type", "object"), {}
    )


def _routes(document: dict[str, Any]) -> Iterator[tuple[str, str, list[str], dict[str, Any]]]:
    """Each route of the schema: its method, path, query parameters and an ordinary JSON body (each
    of its fields with an ordinary value)."""
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            query = [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]
            content = operation.get("requestBody", {}).get("content", {}).get("application/json")
            properties = _schema(document, content["schema"]).get("properties", {}) if content else {}
            body = {name: _plain(document, node) for name, node in properties.items()}
            yield method.upper(), path, query, body


def test_every_route_answers_awkward_values_in_every_field_with_a_clear_error(server: Any) -> None:
    """Every field of every route's body and query, given each awkward value in turn (the body's other
    fields ordinary; signed in as a guest, on a real match), gets an answer below 500 with a code and
    a message, on both databases: a NUL in a log-in's username once failed PostgreSQL's query (500)."""
    with support.browser(server) as client:
        support.signed(client, client.post("/api/guest", json={"name": "Odd"}))
        match_id = support.create_match(client, "masker", {"players": 2}, ["human", "human"])["id"]
        document = client.get("/openapi.json").json()
        asked = 0
        for method, path, query, plain in _routes(document):
            url = (
                path.replace("{match_id}", match_id)
                .replace("{player_id}", "nobody")
                .replace("{game}", "masker")
                .replace("{seat}", "0")
                .replace("{step}", "0")
            )
            tries: list[tuple[dict[str, Any], Any]] = [
                ({name: value}, None) for name in query for value in ("\x00", "9" * 30)
            ]
            tries += [({}, {**plain, name: value}) for name in plain for value in AWKWARD_VALUES]
            for params, body in tries:
                content = None if body is None else json.dumps(body)
                headers = {"content-type": "application/json"}
                response = client.request(method, url, params=params, content=content, headers=headers)
                asked += 1
                where = (method, path, params, body)
                assert response.status_code < 500, (where, response.text)
                if response.status_code >= 400:
                    answer = response.json()
                    assert answer.get("code") and answer.get("message"), (where, response.text)
        assert asked > 200  # the schema was read: its routes and their fields
