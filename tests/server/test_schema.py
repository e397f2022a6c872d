"""The OpenAPI schema documents what each route really answers: every status a request can get from
it (the error body ``{code, message}`` for the refusals, 429 with Retry-After on every ``/api``
route), and not FastAPI's 422, which the server never sends (malformed input is a 400)."""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as support

from masques.server.accounts import COOKIE
from masques.server.app import MAX_BODY
from masques.server.limits import Limits

NO_MATCH = "0123456789abcdef"


@contextmanager
def default_server(folder: Path) -> Iterator[httpx.Client]:
    """A client of a server with the default limits and rules (the shared one relaxes them)."""
    server = support.ThreadServer(support.fresh_database_url("sqlite", folder), limits=Limits()).start()
    try:
        with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as client:
            yield client
    finally:
        server.stop()


def test_the_schema_documents_exactly_the_statuses_each_route_answers(
    api: httpx.Client, tmp_path: Path
) -> None:
    schema = api.get("/openapi.json").json()
    documented = {
        (method.upper(), path): set(operation["responses"])
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
    }
    produced: dict[tuple[str, str], set[str]] = defaultdict(set)

    def hit(
        method: str, route: str, url: str, status: int, client: httpx.Client = api, **kwargs: Any
    ) -> httpx.Response:
        response = client.request(method, url, **kwargs)
        assert response.status_code == status, (method, url, response.text)
        if status >= 400:
            assert set(response.json()) == {"code", "message"}, response.text
        produced[(method, route)].add(str(status))
        return response

    big = {"json": {"name": "x" * (MAX_BODY + 1)}}
    matches, one, join_, leave, record, replay = (
        "/api/matches",
        "/api/matches/{match_id}",
        "/api/matches/{match_id}/join",
        "/api/matches/{match_id}/leave",
        "/api/matches/{match_id}/record",
        "/api/matches/{match_id}/replay",
    )
    hit("GET", "/api/games", "/api/games", 200)

    two_humans = {"game": "masker", "options": {"players": 2}, "seats": [{"kind": "human"}] * 2}
    opened = hit("POST", matches, matches, 201, json=two_humans).json()["id"]
    hit("POST", matches, matches, 400, json={**two_humans, "options": {"players": 9}})
    hit("POST", matches, matches, 404, json={**two_humans, "game": "chess"})
    hit("POST", matches, matches, 413, **big)

    hit("GET", matches, matches, 200)
    hit("GET", matches, matches, 400, params={"status": "lost"})
    hit("GET", one, f"{matches}/{opened}", 200)
    hit("GET", one, f"{matches}/{NO_MATCH}", 404)

    token = hit("POST", join_, f"{matches}/{opened}/join", 200, json={"name": "ann", "seat": 0}).json()[
        "token"
    ]
    hit("POST", join_, f"{matches}/{opened}/join", 400, json={"name": ""})
    hit("POST", join_, f"{matches}/{NO_MATCH}/join", 404, json={"name": "bob"})
    hit("POST", join_, f"{matches}/{opened}/join", 404, json={"name": "bob", "seat": 5})
    hit("POST", join_, f"{matches}/{opened}/join", 409, json={"name": "bob", "seat": 0})
    hit("POST", join_, f"{matches}/{opened}/join", 413, **big)

    hit("POST", leave, f"{matches}/{opened}/leave", 400, json={"token": ""})
    hit("POST", leave, f"{matches}/{opened}/leave", 403, json={"token": "not-a-token"})
    with support.browser(api) as stale:
        stale.cookies.set(COOKIE, "forged")
        hit("POST", leave, f"{matches}/{opened}/leave", 401, client=stale, json={})
        hit("POST", join_, f"{matches}/{opened}/join", 401, client=stale, json={"name": "x"})
        hit("POST", matches, matches, 401, client=stale, json=two_humans)
    hit("POST", leave, f"{matches}/{NO_MATCH}/leave", 404, json={"token": token})
    hit("POST", leave, f"{matches}/{opened}/leave", 413, **big)
    hit("POST", leave, f"{matches}/{opened}/leave", 204, json={"token": token})
    tokens = [support.join(api, opened, f"p{seat}", seat)["token"] for seat in (0, 1)]  # now running
    hit("POST", leave, f"{matches}/{opened}/leave", 409, json={"token": tokens[0]})

    for route, path in ((record, "record"), (replay, "replay")):
        url = f"{matches}/{opened}/{path}"
        hit("GET", route, url, 200, headers={"X-Seat-Token": tokens[1]})
        hit("GET", route, url, 400, params={"token": "x" * 201})
        hit("GET", route, url, 403, headers={"X-Seat-Token": "not-a-token"})
        hit("GET", route, f"{matches}/{NO_MATCH}/{path}", 404)
    hit("GET", record, f"{matches}/{opened}/record", 409, params={"full": "true"})

    _lifecycle_routes(hit, api, big)
    _people_routes(hit, api, big)
    _analysis_routes(hit, api, big)
    rules, lessons, after = "/api/rules/{game}", "/api/lessons/{game}", "/api/lessons/{game}/{step}/after"
    hit("GET", rules, "/api/rules/masker", 200, params={"lang": "fr"})
    hit("GET", rules, "/api/rules/masker", 400, params={"lang": "de"})
    hit("GET", rules, "/api/rules/chess", 404)
    hit("GET", lessons, "/api/lessons/masker", 200)
    hit("GET", lessons, "/api/lessons/masker", 400, params={"lang": "de"})
    hit("GET", lessons, "/api/lessons/chess", 404)
    first = api.get("/api/lessons/masker").json()["steps"][0]["right"][0]
    hit("GET", after, "/api/lessons/masker/0/after", 200, params={"action": first})
    hit("GET", after, "/api/lessons/masker/0/after", 400, params={"action": 999})
    hit("GET", after, "/api/lessons/masker/9/after", 404, params={"action": 0})

    # a chosen seed for a match of two people: refused by a server with the default rules
    with default_server(tmp_path) as strict:
        hit("POST", matches, matches, 403, client=strict, json={**two_humans, "seed": 1})

    assert set(produced) == set(documented), "a route answered that the schema does not list, or back"
    for operation, statuses in documented.items():
        assert statuses == produced[operation] | {"429"} | SHOWN_ELSEWHERE.get(operation, set()), operation


def test_refusals_are_documented_with_the_error_body_and_429_with_retry_after(api: httpx.Client) -> None:
    schema = api.get("/openapi.json").json()
    text = json.dumps(schema)
    assert '"422"' not in text and "HTTPValidationError" not in text and "ValidationError" not in text
    body = schema["components"]["schemas"]["ErrorBody"]
    assert set(body["properties"]) == {"code", "message"} and set(body["required"]) == {"code", "message"}
    retry = schema["components"]["schemas"]["RetryBody"]
    assert set(retry["properties"]) == set(retry["required"]) == {"code", "message", "retry_after"}
    api_operations = 0
    for path, operations in schema["paths"].items():
        for operation in operations.values():
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    ref = response["content"]["application/json"]["schema"]["$ref"]
                    body_name = "RetryBody" if status == "429" else "ErrorBody"
                    assert ref == f"#/components/schemas/{body_name}", (path, status)
                    assert response["description"], (path, status)
            if path.startswith("/api/"):
                api_operations += 1
                too_many = operation["responses"]["429"]
                assert too_many["headers"]["Retry-After"]["schema"]["type"] == "integer"
    assert api_operations == 32
    params = {
        p["name"]: p["in"] for p in schema["paths"]["/api/matches/{match_id}/record"]["get"]["parameters"]
    }
    assert params["x-seat-token"] == "header"


Hit = Any

SHOWN_ELSEWHERE = {
    ("POST", "/api/matches/{match_id}/claim"): {"200"},
    ("POST", "/api/matches/{match_id}/seats/{seat}/bot"): {"200"},
    ("GET", "/api/matches/{match_id}/analysis"): {"202", "503"},
    ("POST", "/api/matches/{match_id}/hint"): {"503"},
}
"""Answers that need a player away past the grace period (two minutes here): test_lifecycle.py gets
them from a server whose grace period is one second; and an analysis or a hint whose bot fails:
test_analysis.py makes it fail."""


def _lifecycle_routes(hit: Hit, api: httpx.Client, big: dict[str, Any]) -> None:
    """Resign, abort, claim, a seat to a bot, rematch and private joins: each status they answer."""
    matches = "/api/matches"
    resign, abort, claim, to_bot, rematch, join_ = (
        "/api/matches/{match_id}/resign",
        "/api/matches/{match_id}/abort",
        "/api/matches/{match_id}/claim",
        "/api/matches/{match_id}/seats/{seat}/bot",
        "/api/matches/{match_id}/rematch",
        "/api/matches/{match_id}/join",
    )
    two = {"game": "masker", "options": {"players": 2}, "seats": [{"kind": "human"}] * 2}
    first = hit("POST", matches, matches, 201, json=two).json()["id"]
    second = hit("POST", matches, matches, 201, json=two).json()["id"]
    tokens = {m: [support.join(api, m, f"p{s}", s)["token"] for s in (0, 1)] for m in (first, second)}
    mine = {"headers": {"x-seat-token": tokens[first][0]}}
    with support.browser(api) as stale:
        stale.cookies.set(COOKIE, "forged")
        for route in (resign, abort, claim, rematch):
            hit("POST", route, f"{matches}/{first}/{route.rsplit('/', 1)[1]}", 401, client=stale)
        hit("POST", to_bot, f"{matches}/{first}/seats/1/bot", 401, client=stale)
    for route in (resign, abort, claim, rematch):
        name = route.rsplit("/", 1)[1]
        hit("POST", route, f"{matches}/{first}/{name}", 400, content=b"{not json", **mine)
        hit("POST", route, f"{matches}/{first}/{name}", 403)
        hit("POST", route, f"{matches}/{NO_MATCH}/{name}", 404, **mine)
        hit("POST", route, f"{matches}/{first}/{name}", 413, **big)
    hit("POST", to_bot, f"{matches}/{first}/seats/1/bot", 403)
    hit("POST", to_bot, f"{matches}/{first}/seats/x/bot", 400, **mine)
    hit("POST", to_bot, f"{matches}/{first}/seats/9/bot", 404, **mine)
    hit("POST", to_bot, f"{matches}/{first}/seats/1/bot", 409, **mine)
    hit("POST", to_bot, f"{matches}/{first}/seats/1/bot", 413, **big)
    hit("POST", claim, f"{matches}/{first}/claim", 409, **mine)
    hit("POST", rematch, f"{matches}/{first}/rematch", 409, **mine)
    hit("POST", abort, f"{matches}/{second}/abort", 200, headers={"x-seat-token": tokens[second][0]})
    hit("POST", resign, f"{matches}/{first}/resign", 200, **mine)
    hit("POST", resign, f"{matches}/{first}/resign", 409, **mine)
    hit("POST", abort, f"{matches}/{first}/abort", 409, **mine)
    hit("POST", rematch, f"{matches}/{first}/rematch", 400, json={"accept": "yes"}, **mine)
    hit("POST", rematch, f"{matches}/{first}/rematch", 200, **mine)
    private = hit("POST", matches, matches, 201, json={**two, "private": True}).json()
    hit("POST", join_, f"{matches}/{private['id']}/join", 403, json={"name": "eve"})


def _people_routes(hit: Hit, api: httpx.Client, big: dict[str, Any]) -> None:
    """Guests, sign-up, log-in and out, passwords, my matches and player pages."""
    me, guest, signup, login, logout, password, mine, player = (
        "/api/me",
        "/api/guest",
        "/api/signup",
        "/api/login",
        "/api/logout",
        "/api/password",
        "/api/me/matches",
        "/api/players/{player_id}",
    )
    name = support.unique("Sam")
    creds = {"username": name, "password": support.PASSWORD}
    with support.browser(api) as sam, support.browser(api) as gus, support.browser(api) as stale:
        stale.cookies.set(COOKIE, "forged")
        hit("GET", me, me, 200, client=stale)
        for route in (guest, signup, login, logout, password):
            hit("POST", route, route, 413, client=sam, **big)
        hit("POST", guest, guest, 400, client=gus, json={"name": ""})
        body = hit("POST", guest, guest, 200, client=gus, json={"name": "Gus"}).json()
        hit("POST", guest, guest, 403, client=gus, json={})  # a session, no CSRF token
        gus.headers["x-csrf-token"] = body["csrf"]
        hit("POST", password, password, 403, client=gus, json={"old_password": "x", "new_password": "y"})

        hit("POST", signup, signup, 400, client=sam, json={**creds, "username": "x"})
        # a cookie whose session ended stands in no one's way: a new account, then a new guest
        with support.browser(api) as ended:
            ended.cookies.set(COOKIE, "forged")
            hit("POST", signup, signup, 201, client=ended, json={**creds, "username": support.unique("Stu")})
        hit("POST", signup, signup, 403, client=sam, json=creds, headers={"origin": "https://evil.example"})
        sam.headers["x-csrf-token"] = hit("POST", signup, signup, 201, client=sam, json=creds).json()["csrf"]
        hit("POST", guest, guest, 409, client=gus, json={"name": name})  # an account's name
        with support.browser(api) as other:
            hit("POST", signup, signup, 409, client=other, json=creds)
            hit("POST", login, login, 400, client=other, json={"username": name})
            hit("POST", login, login, 401, client=other, json={**creds, "password": "wrong-password"})
            hit(
                "POST",
                login,
                login,
                403,
                client=other,
                json=creds,
                headers={"origin": "https://evil.example"},
            )
            hit("POST", login, login, 200, client=other, json=creds)
        hit("POST", password, password, 400, client=sam, json={"old_password": support.PASSWORD})
        hit("POST", password, password, 401, client=api, json={"old_password": "a", "new_password": "b"})
        change = {"old_password": support.PASSWORD, "new_password": "Fresh-Password-5"}
        support.signed(sam, hit("POST", password, password, 200, client=sam, json=change))
        hit("GET", mine, mine, 200, client=sam)
        with support.browser(api) as ended:
            ended.cookies.set(COOKIE, "forged")
            hit("GET", mine, mine, 401, client=ended)
            hit("POST", guest, guest, 200, client=ended, json={})
        player_id = sam.get(me).json()["player"]["id"]
        hit("GET", player, f"/api/players/{player_id}", 200)
        hit("GET", player, f"/api/players/{NO_MATCH}", 404)
        hit("POST", logout, logout, 403, client=sam, headers={"x-csrf-token": "forged"})
        hit("POST", logout, logout, 400, client=sam, json={"everywhere": False})  # takes no body
        hit("POST", logout, logout, 204, client=stale)  # a session that had ended still logs out
        hit("POST", logout, logout, 204, client=sam)
        _rating_routes(hit, api, player_id)


def _rating_routes(hit: Hit, api: httpx.Client, player_id: str) -> None:
    """Turn alerts, leaderboards, rating histories and the chat of a match."""
    waiting, board, ratings, chat = (
        "/api/me/waiting",
        "/api/leaderboard",
        "/api/players/{player_id}/ratings",
        "/api/matches/{match_id}/chat",
    )
    with support.browser(api) as una:
        hit("GET", waiting, waiting, 401, client=una)
        support.signup(una, support.unique("Una"))
        hit("GET", waiting, waiting, 200, client=una)
    hit("GET", board, board, 200, params={"game": "masker"})
    hit("GET", board, board, 400, params={"game": "masker", "family": "solo"})
    hit("GET", board, board, 404, params={"game": "chess"})
    hit(
        "GET",
        ratings,
        f"/api/players/{player_id}/ratings",
        200,
        params={"game": "maske", "family": "multi-player"},
    )
    hit("GET", ratings, f"/api/players/{player_id}/ratings", 400, params={"game": "maske", "family": "x"})
    hit("GET", ratings, f"/api/players/{NO_MATCH}/ratings", 404, params={"game": "maske"})
    two = {"game": "masker", "options": {"players": 2}, "seats": [{"kind": "human"}] * 2}
    opened = hit("POST", "/api/matches", "/api/matches", 201, json=two).json()["id"]
    hit("GET", chat, f"/api/matches/{opened}/chat", 200)
    hit("GET", chat, f"/api/matches/{opened}/chat", 400, headers={"X-Seat-Token": "x" * 201})
    hit("GET", chat, f"/api/matches/{opened}/chat", 403, headers={"X-Seat-Token": "not-a-token"})
    hit("GET", chat, f"/api/matches/{NO_MATCH}/chat", 404)


def _analysis_routes(hit: Hit, api: httpx.Client, big: dict[str, Any]) -> None:
    """Analyses (asked for, read, shared) and hints: each status they answer."""
    matches = "/api/matches"
    analyse, share, hint = (
        "/api/matches/{match_id}/analysis",
        "/api/matches/{match_id}/analysis/share",
        "/api/matches/{match_id}/hint",
    )
    against_bot = {
        "game": "masker",
        "options": {"players": 2},
        "seats": [{"kind": "human"}, {"kind": "random"}],
    }
    match = hit("POST", matches, matches, 201, json=against_bot).json()["id"]
    mine = {"headers": {"x-seat-token": support.join(api, match, "ann", 0)["token"]}}
    urls = {
        analyse: f"{matches}/{match}/analysis",
        share: f"{matches}/{match}/analysis/share",
        hint: f"{matches}/{match}/hint",
    }
    with support.browser(api) as stale:
        stale.cookies.set(COOKIE, "forged")
        for route, url in urls.items():
            hit("POST", route, url, 401, client=stale)
    for route, url in urls.items():
        hit("POST", route, url, 403)
        hit("POST", route, url.replace(match, NO_MATCH), 404, **mine)
        hit("POST", route, url, 413, **big)
        hit("POST", route, url, 400, params={"seat": "x"}, **mine)
    hit("POST", analyse, urls[analyse], 409, **mine)  # not over yet
    deadline = time.monotonic() + 120  # a hard bot's hint, in a bot process a busy machine runs last
    while api.post(urls[hint], timeout=120, **mine).status_code != 200:  # refused (409) until the seat's turn
        assert time.monotonic() < deadline, "no hint"
        time.sleep(0.05)
    hit("POST", hint, urls[hint], 200, timeout=120, **mine)
    api.post(f"{matches}/{match}/resign", **mine)
    hit("POST", hint, urls[hint], 409, **mine)  # over

    hit("GET", analyse, urls[analyse], 200, **mine)  # never asked for: {"status": "none"}
    hit("GET", analyse, urls[analyse].replace(match, NO_MATCH), 404)
    hit("GET", analyse, urls[analyse], 400)  # whose?
    hit("GET", analyse, urls[analyse], 403, params={"seat": 0})  # not shared
    hit("POST", share, urls[share], 404, **mine)  # nothing to share yet
    hit("POST", analyse, urls[analyse], 202, **mine)
    for _ in range(400):
        if api.get(urls[analyse], **mine).status_code == 200:
            break
        time.sleep(0.05)
    hit("GET", analyse, urls[analyse], 200, **mine)
    hit("POST", analyse, urls[analyse], 200, **mine)
    hit("POST", share, urls[share], 200, **mine)
