"""The OpenAPI schema documents what each route really answers: every status a request can get from
it (the error body ``{code, message}`` for the refusals, 429 with Retry-After on every ``/api``
route), and not FastAPI's 422, which the server never sends (malformed input is a 400)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import masques_server_support as support

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
    matches, one, join_, leave, rematch, record, replay = (
        "/api/matches",
        "/api/matches/{match_id}",
        "/api/matches/{match_id}/join",
        "/api/matches/{match_id}/leave",
        "/api/matches/{match_id}/rematch",
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

    hit("POST", leave, f"{matches}/{opened}/leave", 400, json={})
    hit("POST", leave, f"{matches}/{opened}/leave", 403, json={"token": "not-a-token"})
    hit("POST", leave, f"{matches}/{NO_MATCH}/leave", 404, json={"token": token})
    hit("POST", leave, f"{matches}/{opened}/leave", 413, **big)
    hit("POST", leave, f"{matches}/{opened}/leave", 204, json={"token": token})
    tokens = [support.join(api, opened, f"p{seat}", seat)["token"] for seat in (0, 1)]  # now running
    hit("POST", leave, f"{matches}/{opened}/leave", 409, json={"token": tokens[0]})

    hit("POST", rematch, f"{matches}/{opened}/rematch", 201)
    hit("POST", rematch, f"{matches}/{NO_MATCH}/rematch", 404)
    hit("POST", rematch, f"{matches}/{opened}/rematch", 413, **big)

    for route, path in ((record, "record"), (replay, "replay")):
        url = f"{matches}/{opened}/{path}"
        hit("GET", route, url, 200, headers={"X-Seat-Token": tokens[1]})
        hit("GET", route, url, 400, params={"token": "x" * 201})
        hit("GET", route, url, 403, headers={"X-Seat-Token": "not-a-token"})
        hit("GET", route, f"{matches}/{NO_MATCH}/{path}", 404)
    hit("GET", record, f"{matches}/{opened}/record", 409, params={"full": "true"})

    # a chosen seed for a match of two people: refused by a server with the default rules
    with default_server(tmp_path) as strict:
        hit("POST", matches, matches, 403, client=strict, json={**two_humans, "seed": 1})

    assert set(produced) == set(documented), "a route answered that the schema does not list, or back"
    for operation, statuses in documented.items():
        assert statuses == produced[operation] | {"429"}, operation


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
    assert api_operations == 9
    params = {
        p["name"]: p["in"] for p in schema["paths"]["/api/matches/{match_id}/record"]["get"]["parameters"]
    }
    assert params["x-seat-token"] == "header"
