"""The encoder of each game, by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine import Game
from .blokus3d import Blokus3DEncoder
from .encoding import Encoder
from .mascarade import MascaradeEncoder
from .maske import MaskeEncoder
from .masker import MaskerEncoder

ENCODERS: dict[str, Callable[[Any], Encoder[Any]]] = {
    "blokus3d": Blokus3DEncoder,
    "mascarade": MascaradeEncoder,
    "maske": MaskeEncoder,
    "masker": MaskerEncoder,
}


def encoder_for(game: Game) -> Encoder[Any]:
    """The observation encoder of ``game`` (one per game, shaped by its options)."""
    try:
        make = ENCODERS[game.name]
    except KeyError:
        raise ValueError(f"no encoder for game {game.name!r}") from None
    return make(game)
