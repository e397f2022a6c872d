"""The app: a table's routes are tried first (moving them changed no answer), and FastAPI's own
OpenTelemetry is off."""

from __future__ import annotations

import httpx
import pytest

from masques.server.app import TABLE_PATHS


def test_a_tables_routes_are_tried_before_the_others(server: object) -> None:
    """A join, a new match and a connection are matched without going past the pages and the
    account routes (each included router scans its own routes every time)."""
    paths = [getattr(route, "path", "") for route in server.app.router.routes]  # type: ignore[attr-defined]
    tables = [path.startswith(TABLE_PATHS) for path in paths]
    assert "/api/matches/{match_id}/join" in paths and "/ws/matches/{match_id}" in paths
    assert tables == sorted(tables, reverse=True), paths


def test_routes_after_the_tables_still_answer(api: httpx.Client) -> None:
    assert api.get("/api/games").status_code == 200
    assert api.get("/api/me").status_code in (200, 401)
    assert api.get("/api/leaderboard", params={"game": "masker"}).status_code == 200
    assert api.get("/rules").status_code == 200
    assert api.get("/healthz").status_code == 200
    assert api.get("/openapi.json").status_code == 200
    missing = api.get("/api/nothing")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


def test_a_method_no_route_of_a_path_takes_is_refused_with_every_method_the_path_takes(
    api: httpx.Client,
) -> None:
    """One route per method may share a path: the refusal names them all, not the first one's."""
    refused = api.put("/api/matches")
    assert refused.status_code == 405 and refused.json()["code"] == "method_not_allowed"
    assert refused.headers["allow"] == "GET, HEAD, POST"
    refused = api.delete("/api/matches/0123456789abcdef/analysis")
    assert refused.status_code == 405 and refused.headers["allow"] == "GET, HEAD, POST"
    refused = api.post("/rules")
    assert refused.status_code == 405 and refused.headers["allow"] == "GET, HEAD"
    refused = api.delete("/api/matches/0123456789abcdef/join")
    assert refused.status_code == 405 and refused.headers["allow"] == "POST"
    # the routes of the included routers (accounts, boards, lessons) too
    refused = api.delete("/api/me")
    assert refused.status_code == 405 and refused.headers["allow"] == "GET, HEAD"
    refused = api.get("/api/login")
    assert refused.status_code == 405 and refused.headers["allow"] == "POST"


def test_a_method_the_static_files_do_not_take_is_refused_with_the_methods_they_take(
    api: httpx.Client,
) -> None:
    """The built client's assets and the API docs' files are read with GET and HEAD: a 405 there
    names them, as on every other path (it said ``Allow:`` with nothing)."""
    for path in ("/docs/assets/swagger-ui.css", "/docs/assets/nothing.css", "/assets/index.js"):
        for method in ("POST", "DELETE", "OPTIONS"):
            refused = api.request(method, path)
            assert refused.status_code == 405 and refused.json()["code"] == "method_not_allowed", path
            assert refused.headers["allow"] == "GET, HEAD", (method, path)


def test_head_on_the_apis_get_routes_answers_as_get_without_a_body(api: httpx.Client) -> None:
    """Monitors and link checkers send HEAD: the same status and headers as GET, no body."""
    for path in ("/api/games", "/api/matches", "/api/leaderboard?game=masker"):
        got, head = api.get(path), api.head(path)
        assert head.status_code == got.status_code == 200, path
        assert head.content == b"", path
        assert head.headers["content-type"] == got.headers["content-type"]
        assert head.headers["content-length"] == got.headers["content-length"], path
    missing = api.head("/api/matches/0123456789abcdef")
    assert missing.status_code == 404 and missing.content == b""
    refused = api.head("/api/matches/0123456789abcdef/join")  # a POST route answers no HEAD
    assert refused.status_code == 405 and refused.headers["allow"] == "POST"


def test_fastapis_own_open_telemetry_is_off_and_requests_never_consult_its_providers(
    api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server reports through its Prometheus metrics and JSON logs; FastAPI releases with
    their own OpenTelemetry would otherwise look up OpenTelemetry's global providers on every
    request and every connection, to see whether one was set."""
    import inspect

    from fastapi import FastAPI

    from masques.server.app import NO_OPEN_TELEMETRY

    if "telemetry" not in inspect.signature(FastAPI.__init__).parameters:
        assert NO_OPEN_TELEMETRY == {}  # a FastAPI without it: nothing to turn off
        return
    assert NO_OPEN_TELEMETRY == {"telemetry": {"tracing": False, "metrics": False, "logs": False}}
    from opentelemetry import trace

    looked_up: list[int] = []
    real = trace.get_tracer_provider

    def counted() -> object:
        looked_up.append(1)
        return real()

    monkeypatch.setattr(trace, "get_tracer_provider", counted)
    assert api.get("/api/games").status_code == 200
    assert looked_up == []
