"""Fixtures for the server tests: one in-process server (uvicorn in a thread, SQLite in a temporary
directory) shared by the session, and an HTTP client for it.

``support.py`` is loaded from its path as ``masques_server_support`` (``tests`` has no packages).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import httpx
import pytest

_NAME = "masques_server_support"


def _load_support() -> ModuleType:
    if _NAME in sys.modules:
        return sys.modules[_NAME]
    spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).with_name("support.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[_NAME] = module
    spec.loader.exec_module(module)
    return module


support = _load_support()


@pytest.fixture(scope="session", params=support.BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """The app served on a free loopback port, once on SQLite and once on PostgreSQL."""
    url = support.fresh_database_url(request.param, tmp_path_factory.mktemp("server"))
    running = support.ThreadServer(url, bot_workers=2).start()
    yield running
    running.stop()


@pytest.fixture
def api(server: object) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base_url, timeout=support.TIMEOUT) as client:  # type: ignore[attr-defined]
        yield client
