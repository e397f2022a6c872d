"""Fixtures for the end-to-end tests of the browser client: a live server (uvicorn in a thread,
configured as ``masques serve``, SQLite in a temporary directory) serving the built client, and
headless Chromium (Debian's ``/usr/bin/chromium``) driven by Playwright.

``e2e.py`` (the shared helpers: creating a match from the lobby, playing turns, screenshots,
recording WebSocket frames) is loaded from its path as ``masques_web_e2e``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest
from playwright.sync_api import Browser, Page, Playwright, expect, sync_playwright

from local_modules import load_beside

ROOT = Path(__file__).resolve().parents[2]


def _load() -> tuple[ModuleType, ModuleType]:
    anchor = str(ROOT / "tests" / "server" / "conftest.py")
    server = load_beside(anchor, "support.py", "masques_server_support")
    return server, load_beside(__file__, "e2e.py", "masques_web_e2e")


server_support, e2e = _load()

# Assertions wait as long as actions do: a loaded machine may take more than Playwright's 5 s to show
# what a passing page shows.  A failing assertion still fails, later.
expect.set_options(timeout=e2e.TIMEOUT_MS)


@pytest.fixture(scope="session")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """The app with the freshly built client, on a free loopback port with its own SQLite file."""
    subprocess.run(["bash", str(ROOT / "scripts" / "build_web.sh")], check=True, cwd=ROOT)
    url = f"sqlite:///{tmp_path_factory.mktemp('web') / 'masques.sqlite3'}"
    # The easy bot analyses: the pages are under test here, not the expert's judgement (and its time).
    limits = replace(server_support.RELAXED, analysis_level="easy")
    running = server_support.ThreadServer(url, bot_workers=1, limits=limits).start()
    yield running
    running.stop()


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = e2e.launch(playwright)
    yield browser
    browser.close()


@pytest.fixture
def people(browser: Browser) -> Iterator[object]:
    """Devices (browser contexts) for tests with several people; see ``e2e.People``."""
    crowd = e2e.People(browser)
    yield crowd
    crowd.close()


@pytest.fixture
def page(browser: Browser, web_server: object) -> Iterator[Page]:
    """A fresh browser context (its own localStorage) at laptop size, bot moves shown at once and
    without animations (``e2e.STILL``); fails the test on a page error."""
    context = browser.new_context(viewport=e2e.LAPTOP, locale="en-GB", reduced_motion=e2e.STILL)
    context.add_init_script(e2e.INSTANT_BOTS)
    page = context.new_page()
    errors = e2e.watch_errors(page)
    yield page
    context.close()
    assert not errors, f"errors in the page: {errors}"
