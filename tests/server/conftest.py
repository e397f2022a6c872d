"""Fixtures for the server tests: one in-process server (uvicorn in a thread, SQLite in a temporary
directory) shared by the session, and an HTTP client for it.

``support.py`` is loaded from its path as ``masques_server_support`` (``tests`` has no packages).
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import httpx
import pytest

from local_modules import load_beside

_NAME = "masques_server_support"


def _load_support() -> ModuleType:
    return load_beside(__file__, "support.py", _NAME)


support = _load_support()


@pytest.fixture(scope="session", params=support.BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """The app served on a free loopback port, once on SQLite and once on PostgreSQL."""
    url = support.fresh_database_url(request.param, tmp_path_factory.mktemp("server"))
    running = support.ThreadServer(url, bot_workers=2).start()
    yield running
    running.stop()


@pytest.fixture(autouse=True)
def _fresh_login_backoff(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test starts with no failed log-in counted: the server is shared by the whole session,
    and every test's client is 127.0.0.1, so one test's wrong passwords would hold up the next's."""
    yield
    if "server" in request.fixturenames:
        request.getfixturevalue("server").app.state.login_guard.forget()


@pytest.fixture
def api(server: object) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as client:  # type: ignore[attr-defined]
        yield client
