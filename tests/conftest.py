"""Test-wide settings: CI runs hypothesis derandomized, so a run is reproducible; and Pips, the
test-only game under ``extra_games/``, is installed the way another distribution would add a game
(its ``.dist-info`` declares a ``masques.games`` entry point), so every test that walks the registered
games walks it too.  Subprocesses get it through ``EXTRA_GAMES_PATH`` on their ``PYTHONPATH``."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

EXTRA_GAMES_PATH = str(Path(__file__).with_name("extra_games"))
"""Where the test-only games and their distribution metadata live."""

if EXTRA_GAMES_PATH not in sys.path:
    sys.path.insert(0, EXTRA_GAMES_PATH)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests (marked ``slow``) first, the others in their order: the workers start on the
    long ones and end on short ones, so no worker is left running a long test while the others wait."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def _logging_as_it_was() -> Iterator[None]:
    """``masques serve`` and ``masques worker`` set the process's logging up (``logs.configure``:
    the root logger's one handler, on the stderr of the moment).  A test that runs them in this
    process gets the logging it found back, or every later line of the session's shared server would
    go to a stream the test runner has closed."""
    names = ("", "uvicorn", "uvicorn.error", "uvicorn.access")
    kept = {
        name: (
            list(logging.getLogger(name).handlers),
            logging.getLogger(name).level,
            logging.getLogger(name).propagate,
            logging.getLogger(name).disabled,
        )
        for name in names
    }
    yield
    for name, (handlers, level, propagate, disabled) in kept.items():
        logger = logging.getLogger(name)
        logger.handlers[:] = handlers
        logger.setLevel(level)
        logger.propagate, logger.disabled = propagate, disabled
