"""Seat tokens stay out of URLs: the REST routes take them in the ``X-Seat-Token`` header, and the
WebSocket in its first message ``{"type": "hello", "token": ...}``.  ``?token=`` keeps working for
API clients; a client that says no hello is a spectator once the server has waited a bounded time."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import masques_server_support as support
import pytest

from masques.server.app import HELLO_TIMEOUT


@dataclass
class Seated:
    match_id: str
    tokens: dict[int, str]


@pytest.fixture
def seated(api: httpx.Client) -> Iterator[Seated]:
    """A running Masker match of two people (nothing moves until they do)."""
    match = support.create_match(api, "masker", {"players": 2}, ["human", "human"])
    tokens = {seat: support.join(api, match["id"], f"p{seat}", seat)["token"] for seat in (0, 1)}
    yield Seated(match["id"], tokens)


@pytest.mark.parametrize("route", ["record", "replay"])
def test_a_token_in_the_header_reads_as_its_seat(api: httpx.Client, seated: Seated, route: str) -> None:
    url = f"/api/matches/{seated.match_id}/{route}"
    for seat, token in seated.tokens.items():
        by_header = api.get(url, headers={"X-Seat-Token": token})
        assert by_header.status_code == 200, by_header.text
        assert by_header.json() == api.get(url, params={"token": token}).json()  # as the query reads it
        body: Any = by_header.json()
        seats = {body["seat"]} if route == "record" else {view["seat"] for view in body}
        assert seats == {seat}
    spectator = api.get(url).json()
    assert (spectator["seat"] if route == "record" else spectator[0]["seat"]) is None
    refused = api.get(url, headers={"X-Seat-Token": "not-a-seat"})
    assert refused.status_code == 403 and refused.json()["code"] == "bad_token"
    both = api.get(url, headers={"X-Seat-Token": seated.tokens[0]}, params={"token": seated.tokens[1]})
    assert both.status_code == 400 and "X-Seat-Token" in both.json()["message"]
    same = api.get(url, headers={"X-Seat-Token": seated.tokens[0]}, params={"token": seated.tokens[0]})
    assert same.status_code == 200


def test_hello_with_a_token_gets_the_seats_view(server: Any, seated: Seated) -> None:
    conns = {}
    for seat, token in seated.tokens.items():
        by_hello = support.Conn(server.ws_url, seated.match_id, token, seat, via="hello")
        by_query = support.Conn(server.ws_url, seated.match_id, token, seat, via="query")
        view, same = by_hello.first_state(), by_query.first_state()
        assert view["seat"] == seat and view["observation"] == same["observation"]
        assert view["legal"] == same["legal"] and view["your_turn"] == same["your_turn"]
        conns[seat] = by_hello
        by_query.close()
    # the hello seat plays: its move is acknowledged to both seats
    mover = next(c for c in conns.values() if c.state is not None and c.state["your_turn"])
    assert mover.state is not None
    mover.act(mover.state["legal"][0]["id"], mover.state["version"])
    for conn in conns.values():
        assert conn.wait_version(1)["version"] == 1
        for message in conn.messages:
            assert all(token not in str(message) for token in seated.tokens.values())
        conn.close()


def test_hello_with_another_matchs_token_is_refused_as_bad_token(
    server: Any, api: httpx.Client, seated: Seated
) -> None:
    other = support.create_match(api, "masker", {"players": 2}, ["human", "human"])
    stray = support.Conn(server.ws_url, other["id"], seated.tokens[0], via="hello")
    error = stray.recv()
    assert error["type"] == "error" and error["code"] == "bad_token"
    assert stray.closed_code() == 4403


def test_hello_without_a_token_is_a_spectator(server: Any, seated: Seated) -> None:
    watcher = support.Conn(server.ws_url, seated.match_id, via="hello")
    view = watcher.first_state()
    assert view["seat"] is None and view["legal"] == []
    watcher.close()


@pytest.mark.parametrize(
    "hello",
    [
        {"type": "hello", "token": 12},
        {"type": "hello", "token": ""},
        {"type": "hello", "token": "x" * 201},
        {"type": "hello", "seat": 0},
    ],
)
def test_a_malformed_hello_is_refused_and_closes(server: Any, seated: Seated, hello: dict[str, Any]) -> None:
    conn = support.Conn(server.ws_url, seated.match_id, via="nothing")
    conn.send(hello)
    error = conn.recv()
    assert error["type"] == "error" and error["code"] == "bad_hello"
    assert conn.closed_code() == 4400


def test_a_hello_after_the_first_message_is_refused_and_changes_nothing(server: Any, seated: Seated) -> None:
    conn = support.Conn(server.ws_url, seated.match_id, seated.tokens[0], 0, via="hello")
    conn.first_state()
    error = conn.refused({"type": "hello", "token": seated.tokens[1]})
    assert error["code"] == "bad_message" and "first message" in error["message"]
    conn.send({"type": "sync"})
    assert conn.recv_type("state")["seat"] == 0  # still seat 0
    conn.close()


def test_a_client_that_sends_no_hello_is_a_spectator(server: Any, seated: Seated) -> None:
    silent = support.Conn(server.ws_url, seated.match_id, via="nothing")
    view = silent.recv(timeout=HELLO_TIMEOUT + support.TIMEOUT)
    assert view["type"] == "state" and view["seat"] is None
    silent.close()
    # one whose first message is something else is a spectator at once, and that message is answered
    eager = support.Conn(server.ws_url, seated.match_id, via="nothing")
    eager.send({"type": "sync"})
    first, second = eager.recv_type("state"), eager.recv_type("state")  # on connect, then the sync's
    assert first["seat"] is None and second["seat"] is None
    eager.close()
