"""The compiled twin of each game that has one, by name (see :mod:`masques.rl.compiled`)."""

from __future__ import annotations

from typing import Any

from ..engine import Game
from .compiled import AVAILABLE, Core

COMPILED_GAMES = ("maske", "masker")


def has_core(game: Game) -> bool:
    """Whether ``game`` has a compiled twin here (numba installed)."""
    return AVAILABLE and game.name in COMPILED_GAMES


def core_for(game: Game) -> Core[Any, Any] | None:
    """The compiled twin of ``game``, or None (no twin for this game, or numba is not installed)."""
    if not has_core(game):
        return None
    core: Core[Any, Any]
    if game.name == "masker":
        from .masker_core import MaskerCore

        core = MaskerCore(game)  # type: ignore[arg-type]
    else:
        from .maske_core import MaskeCore

        core = MaskeCore(game)  # type: ignore[arg-type]
    core.warm_up()
    return core
