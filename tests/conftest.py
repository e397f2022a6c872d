"""Test-wide settings: CI runs hypothesis derandomized, so a run is reproducible; and Pips, the
test-only game under ``extra_games/``, is installed the way another distribution would add a game
(its ``.dist-info`` declares a ``masques.games`` entry point), so every test that walks the registered
games walks it too.  Subprocesses get it through ``EXTRA_GAMES_PATH`` on their ``PYTHONPATH``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

EXTRA_GAMES_PATH = str(Path(__file__).with_name("extra_games"))
"""Where the test-only games and their distribution metadata live."""

if EXTRA_GAMES_PATH not in sys.path:
    sys.path.insert(0, EXTRA_GAMES_PATH)
