"""Shared helpers of the end-to-end tests: the browser, the lobby, turns, screenshots, frames.

The match page tells tests where it is through attributes of ``.match-page``: ``data-turn`` is
``connecting``, ``open`` (waiting for players), ``waiting`` (another seat moves), ``mine`` or
``over``, and ``data-version`` is the version of the view on screen.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    ViewportSize,
    WebSocket,
    expect,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

CHROMIUM = "/usr/bin/chromium"
LAPTOP: ViewportSize = {"width": 1366, "height": 820}
PHONE: ViewportSize = {"width": 390, "height": 844}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
TIMEOUT_MS = 20_000
PASSWORD = "plum-orchard-42"
"""The password of the accounts the tests sign up."""
GAME_TIMEOUT = 240.0
"""Seconds a whole game through the browser may take."""

# Chromium flags for a closed network and no display (WebGL through SwiftShader, on the CPU).  The
# pages themselves are rasterized and composited by Skia on the CPU: through SwiftShader's emulated GPU,
# each frame came so late that the browser tests took nearly twice as long (and their frames' work
# kept the CPU from the tests beside them).
ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--disable-gpu-rasterization",
    "--disable-gpu-compositing",
]


def launch(playwright: Playwright) -> Browser:
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)


CSP_REPORT = """document.addEventListener("securitypolicyviolation", (e) => console.error(
`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`
));"""
"""Reports each Content-Security-Policy violation of a page on its console (installed before any page
script runs)."""


def watch_errors(page: Page) -> list[str]:
    """What must not happen in a page, collected as it happens: uncaught exceptions, violations of the
    server's Content-Security-Policy, and a seat token in any URL the page requests (HTTP or
    WebSocket; tokens travel in a header or the WebSocket's hello, since URLs land in logs)."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.add_init_script(CSP_REPORT)

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error" and (
            "CSP violation" in message.text or "Content Security Policy" in message.text
        ):
            errors.append(message.text)

    def on_url(url: str) -> None:
        if "token" in url.lower():
            errors.append(f"a token in a URL: {url}")

    page.on("console", on_console)
    page.on("request", lambda request: on_url(request.url))
    page.on("websocket", lambda ws: on_url(ws.url))
    page.set_default_timeout(TIMEOUT_MS)
    return errors


# -- the lobby ----------------------------------------------------------------------------------


def create_match(
    page: Page,
    base_url: str,
    game: str,
    *,
    options: dict[str, str | bool] | None = None,
    seats: list[str] | None = None,
    name: str = "Ada",
    private: bool = False,
) -> str:
    """In the lobby: choose ``game``, set its options and seats ("you", "human" or a bot level), the
    private checkbox, create the match, and return its id once the match page shows.  A browser with
    no session becomes a guest called ``name``; an account's name is its username."""
    page.goto(base_url + "/")
    choose_game(page, game)
    form = page.get_by_test_id("create-form")
    for option, value in (options or {}).items():
        if isinstance(value, bool):
            form.locator(f"input[name={option}]").set_checked(value)
        else:
            form.locator(f"select[name={option}]").select_option(value)
    for i, kind in enumerate(seats or []):
        form.locator(f"select[name=seat-{i}]").select_option(kind)
    form.get_by_test_id("private").set_checked(private)
    if form.locator("input[name=player-name]").count():  # an account plays under its username
        form.locator("input[name=player-name]").fill(name)
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r"/match/[0-9a-f]{16}$"))
    match_id = page.url.rsplit("/", 1)[1]
    wait_ready(page)
    return match_id


def choose_game(page: Page, game: str) -> None:
    """Choose ``game`` in the lobby.  The lobby's lists arrive after it is drawn ("my matches" above
    the games), and a click made as they arrive can land beside the button it aimed at: the click
    is made again until the game is chosen."""
    button = page.get_by_test_id(f"choose-{game}")
    for _ in range(3):
        button.click()
        try:
            button.and_(page.locator("[aria-pressed=true]")).wait_for(timeout=3_000)
            return
        except PlaywrightTimeoutError:
            continue
    expect(button).to_have_attribute("aria-pressed", "true")


# -- turns --------------------------------------------------------------------------------------


def turn_state(page: Page) -> str:
    return str(page.locator(".match-page").get_attribute("data-turn"))


def version(page: Page) -> int:
    return int(page.locator(".match-page").get_attribute("data-version") or -1)


def wait_ready(page: Page, timeout: float = TIMEOUT_MS) -> str:
    """Wait until the page has a view (any state but connecting); returns data-turn."""
    page.wait_for_selector(".match-page:not([data-turn=connecting])", timeout=timeout)
    return turn_state(page)


def wait_turn_or_end(page: Page, timeout: float = TIMEOUT_MS) -> str:
    """Wait until it is this page's turn or the game is over; returns "mine" or "over"."""
    page.wait_for_selector(".match-page[data-turn=mine], .match-page[data-turn=over]", timeout=timeout)
    return turn_state(page)


def wait_version_above(page: Page, seen: int, timeout: float = TIMEOUT_MS) -> None:
    page.wait_for_function(
        "v => Number(document.querySelector('.match-page')?.dataset.version ?? -1) > v",
        arg=seen,
        timeout=timeout,
    )


Move = Callable[[Page], None]


def play_to_end(
    page: Page,
    move: Move,
    *,
    on_turn: Callable[[Page, int], None] | None = None,
    timeout: float = GAME_TIMEOUT,
) -> int:
    """Play this page's seat to the end: on each of its turns call ``move`` (which must make exactly
    one action through the UI) and wait for the next view.  ``on_turn(page, n)`` runs before the n-th
    move (e.g. a mid-game screenshot).  Returns the number of moves made."""
    deadline = time.monotonic() + timeout
    made = 0
    while True:
        left_ms = (deadline - time.monotonic()) * 1000
        if left_ms <= 0:
            raise TimeoutError(f"the game did not end within {timeout} s ({made} moves made)")
        if wait_turn_or_end(page, timeout=left_ms) == "over":
            return made
        if on_turn is not None:
            on_turn(page, made)
        seen = version(page)
        move(page)
        try:
            wait_version_above(page, seen)
        except PlaywrightTimeoutError as exc:
            raise AssertionError(f"move {made + 1} made no new view: {page_said(page)}") from exc
        made += 1


def page_said(page: Page) -> str:
    """What a page shows of its state and its alerts: the clue when a move gets no answer."""
    alerts = [t for t in page.locator("[role=alert]").all_inner_texts() if t.strip()]
    return f"turn {turn_state(page)!r}, version {version(page)}, alerts {alerts}"


def play_pages_to_end(
    pages: list[Page], move: Move, *, timeout: float = GAME_TIMEOUT, moves: int | None = None
) -> int:
    """Several people in one match, each on their own page: whoever's turn it is makes one move
    through the UI, until every page shows the end (or ``moves`` moves are made).  Returns the number
    of moves made."""
    deadline = time.monotonic() + timeout
    made = 0
    while time.monotonic() < deadline:
        if moves is not None and made >= moves:
            return made
        states = [turn_state(p) for p in pages]
        if all(state == "over" for state in states):
            return made
        mover = next((p for p, state in zip(pages, states, strict=True) if state == "mine"), None)
        if mover is None:
            pages[0].wait_for_timeout(50)
            continue
        seen = version(mover)
        move(mover)
        try:
            wait_version_above(mover, seen)
        except PlaywrightTimeoutError as exc:
            said = "; ".join(f"page {pages.index(p)}: {page_said(p)}" for p in pages)
            where = f"move {made + 1} (page {pages.index(mover)})"
            raise AssertionError(f"{where} made no new view: {said}") from exc
        made += 1
    raise TimeoutError(f"the game did not end within {timeout} s ({made} moves made)")


def generic_move(rng: random.Random) -> Move:
    """A move for ``play_to_end`` in the generic view (a game without a view module of its own):
    click one of the legal moves' buttons, drawn with ``rng``."""

    def move(page: Page) -> None:
        buttons = page.get_by_test_id("generic-move")
        buttons.first.wait_for()
        buttons.nth(rng.randrange(buttons.count())).click()

    return move


def legal_ids_on_screen(page: Page) -> set[int]:
    """The action ids the game view offers (every element marked ``data-action``)."""
    return {
        int(a)
        for a in page.locator(".game-view [data-action]").evaluate_all(
            "els => els.map(e => e.getAttribute('data-action'))"
        )
    }


def screenshot(page: Page, game: str) -> Path:
    """A full-page screenshot of the match page, written to docs/screenshots/<game>.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{game}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


# -- frames -------------------------------------------------------------------------------------


class Frames:
    """Every WebSocket frame a page receives, as parsed JSON (recorded from the page's connections)."""

    def __init__(self, page: Page) -> None:
        self.raw: list[str] = []
        self._parsed: list[dict[str, Any]] = []
        page.on("websocket", self._on_socket)

    def _on_socket(self, ws: WebSocket) -> None:
        ws.on("framereceived", lambda payload: self.raw.append(payload if isinstance(payload, str) else ""))

    def messages(self) -> list[dict[str, Any]]:
        for text in self.raw[len(self._parsed) :]:
            self._parsed.append(json.loads(text) if text else {})
        return [m for m in self._parsed if m]

    def last_state(self) -> dict[str, Any]:
        return next(m for m in reversed(self.messages()) if m.get("type") == "state")


# -- people: devices, accounts ------------------------------------------------------------------

NO_STORAGE = """Object.defineProperty(window, "localStorage", {
  configurable: true,
  get() { throw new DOMException("storage is blocked", "SecurityError"); },
});"""
"""An init script: this page has no localStorage at all (as with storage blocked by the browser)."""


INSTANT_BOTS = "try { localStorage.setItem('masques.pace', '0'); } catch (e) {}"
"""An init script: bot moves shown as they come (the pace setting at "at once"), so that tests of
whole games against bots stay quick; the pacing has its own tests (test_follow.py)."""

STILL = "reduce"
"""The ``reduced_motion`` of the devices that play whole games: no move animations and no marching
highlights, which Chromium would otherwise redraw on the CPU all game long (slowing every click of
the test and the other tests beside it); the animations have their own tests (test_follow.py)."""


class People:
    """Browser contexts, each one device (its own cookies and storage, bot moves shown at once,
    no animations); every page is watched, and the errors found in any fail the test."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.contexts: list[BrowserContext] = []
        self.watched: list[list[str]] = []

    def device(self, *, clipboard: bool = False, storage: bool = True) -> Page:
        """A page on a new device; ``storage=False``: a browser with no localStorage at all."""
        context = self.browser.new_context(
            viewport=LAPTOP,
            locale="en-GB",
            permissions=["clipboard-read", "clipboard-write"] if clipboard else [],
            reduced_motion=STILL,
        )
        if not storage:
            context.add_init_script(NO_STORAGE)
        else:
            context.add_init_script(INSTANT_BOTS)
        self.contexts.append(context)
        return self.tab(context)

    def tab(self, context: BrowserContext) -> Page:
        """Another tab of a device (the same cookies)."""
        page = context.new_page()
        self.watched.append(watch_errors(page))
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()
        errors = [e for found in self.watched for e in found]
        assert not errors, f"errors in the pages: {errors}"


def submit_auth(page: Page, mode: str, username: str, password: str) -> None:
    """Open the top bar's sign-up or log-in form, fill it and send it; the bar then names the player."""
    page.get_by_test_id(f"{mode}-open").click()
    form = page.get_by_test_id("auth-form")
    expect(form).to_have_attribute("data-mode", mode)
    form.locator("input[name=username]").fill(username)
    form.locator("input[name=password]").fill(password)
    page.get_by_test_id("auth-submit").click()
    expect(page.get_by_test_id("me-name")).to_have_text(username)


def sign_up(page: Page, base: str, username: str, password: str = PASSWORD) -> None:
    page.goto(base + "/")
    submit_auth(page, "signup", username, password)
    expect(page.get_by_test_id("identity")).to_have_attribute("data-kind", "account")


def log_in(page: Page, username: str, password: str = PASSWORD) -> None:
    submit_auth(page, "login", username, password)


# -- Masker ---------------------------------------------------------------------------------------


def masker_move(rng: random.Random) -> Move:
    """One Masker action by mouse: a highlighted choice, sometimes Stop."""

    def move(page: Page) -> None:
        choices = page.locator(".game-view [data-action]")
        choices.first.wait_for()  # the page may say "your turn" a moment before the view draws it
        stop = page.get_by_test_id("mk-stop")
        if stop.count() and rng.random() < 0.4:
            stop.click()
            return
        choices.nth(rng.randrange(choices.count())).click()

    return move
