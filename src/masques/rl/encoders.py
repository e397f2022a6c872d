"""The encoder of each game, by name."""

from __future__ import annotations

from typing import Any

from ..engine import Game
from .encoding import Encoder


def encoder_for(game: Game) -> Encoder[Any]:
    """The observation encoder of ``game`` (one per game, shaped by its options)."""
    if game.name == "masker":
        from ..games.masker.game import MaskerGame
        from .masker import MaskerEncoder

        assert isinstance(game, MaskerGame)
        return MaskerEncoder(game)
    if game.name == "mascarade":
        from ..games.mascarade.game import MascaradeGame
        from .mascarade import MascaradeEncoder

        assert isinstance(game, MascaradeGame)
        return MascaradeEncoder(game)
    if game.name == "maske":
        from ..games.maske.game import MaskeGame
        from .maske import MaskeEncoder

        assert isinstance(game, MaskeGame)
        return MaskeEncoder(game)
    if game.name == "blokus3d":
        from ..games.blokus3d.game import Blokus3DGame
        from .blokus3d import Blokus3DEncoder

        assert isinstance(game, Blokus3DGame)
        return Blokus3DEncoder(game)
    raise ValueError(f"no encoder for game {game.name!r}")
