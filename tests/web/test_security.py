"""The client under the server's Content-Security-Policy: the lobby, a match page of every game (the
SVG boards, Blokus 3D's three.js scene, inline styles set from script), a move and the replay viewer
run with no violation, and no seat token appears in a URL the browser requests (``e2e.watch_errors``
collects both; every end-to-end test's page is watched so, through whole games).  The API docs page
runs Swagger UI from the server under its own policy."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import masques_web_e2e as e2e
import pytest
from playwright.sync_api import Browser, Page, Route, expect

GAMES: dict[str, tuple[dict[str, str | bool], list[str], str]] = {
    "masker": ({"players": "2"}, ["you", "random"], ".mk-board svg"),
    "maske": ({"players": "3", "masks": "3"}, ["you", "random", "random"], ".ms-plate"),
    "mascarade": ({"players": "2"}, ["you", "random"], ".mc-board svg"),
    "blokus3d": ({"players": "2"}, ["you", "random"], ".b3-scene canvas"),
}


@pytest.fixture
def watched(browser: Browser) -> Iterator[tuple[Page, list[str]]]:
    """A page of its own and what its watcher collects (the test asserts on it)."""
    context = browser.new_context(viewport=e2e.LAPTOP, locale="en-GB")
    page = context.new_page()
    errors = e2e.watch_errors(page)
    yield page, errors
    context.close()


def _loopback(url: str) -> bool:
    """Whether a request stays on this machine (127.0.0.0/8, ::1, localhost) or is a data: URL."""
    parts = urlsplit(url)
    if parts.scheme == "data":
        return True
    host = parts.hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _policy(page: Page, url: str) -> str:
    response = page.goto(url)
    assert response is not None and response.ok
    csp = response.headers.get("content-security-policy", "")
    assert "script-src 'self';" in csp and "frame-ancestors 'none'" in csp, "the page is under the policy"
    return csp


def test_the_watcher_sees_a_violation(watched: tuple[Page, list[str]], web_server: Any) -> None:
    """The checks below can fail: an inline script on the lobby is blocked, and reported."""
    page, errors = watched
    _policy(page, web_server.base_url + "/")
    page.evaluate("""() => {
        const s = document.createElement("script");
        s.textContent = "window.injected = true";
        document.body.append(s);
    }""")
    assert page.evaluate("() => window.injected") is None, "the inline script did not run"
    page.wait_for_timeout(300)
    assert any("script-src" in e for e in errors), errors


@pytest.mark.parametrize("game", list(GAMES))
def test_the_lobby_a_match_and_its_replay_run_under_the_policy(
    watched: tuple[Page, list[str]], web_server: Any, game: str
) -> None:
    page, errors = watched
    _policy(page, web_server.base_url + "/")
    page.wait_for_selector(".game-card")
    options, seats, board = GAMES[game]
    match_id = e2e.create_match(page, web_server.base_url, game, options=options, seats=seats)
    page.wait_for_selector(board)
    e2e.wait_turn_or_end(page)
    page.reload()  # the seat comes back through the hello, not the URL
    e2e.wait_ready(page)
    assert page.locator(".match-page").get_attribute("data-seat") == "0"
    _policy(page, f"{web_server.base_url}/match/{match_id}/replay")
    page.wait_for_selector(".game-view")
    page.get_by_test_id("replay-first").click()
    page.wait_for_timeout(300)  # late violations (styles, images) have time to arrive
    assert errors == [], errors


def test_the_docs_page_runs_swagger_ui_from_the_server_under_its_own_policy(
    watched: tuple[Page, list[str]], web_server: Any
) -> None:
    """The API docs page draws the API with the server's own copy of Swagger UI on a machine without
    internet: every request to a host outside loopback is aborted, and the page still renders; it
    asks nothing of another site, its inline script runs by its hash, and nothing is blocked."""
    page, errors = watched
    base = web_server.base_url
    elsewhere: list[str] = []

    def offline(route: Route) -> None:
        if _loopback(route.request.url):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort("internetdisconnected")

    page.route("**/*", offline)
    response = page.goto(base + "/docs")
    assert response is not None and response.ok
    csp = response.headers["content-security-policy"]
    assert "script-src 'self' 'sha256-" in csp and "https:" not in csp, csp
    paths = page.locator(".swagger-ui .opblock-summary-path")
    expect(paths.filter(has_text="/api/leaderboard")).to_have_count(1)
    assert elsewhere == [], elsewhere
    assert errors == [], errors
