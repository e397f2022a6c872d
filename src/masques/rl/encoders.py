"""The encoder of a game: the game's own ``"rl"`` part, or the generic default.

A game names its encoder in ``Game.parts["rl"]`` as ``"package.module:FACTORY"``, where the factory
takes the game (options applied) and returns an :class:`~masques.rl.encoding.Encoder` — usually the
encoder class itself.  A game without one gets :class:`~masques.rl.default.GenericEncoder`, built from
its observations' numeric fields.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from ..engine import Game, game_part
from .default import GenericEncoder
from .encoding import Encoder

EncoderFactory: TypeAlias = Callable[[Game], Encoder[Any]]
"""What a game's ``"rl"`` part is: the game in, its encoder out."""


def encoder_for(game: Game) -> Encoder[Any]:
    """The observation encoder of ``game`` (one per game, shaped by its options)."""
    make: EncoderFactory | None = game_part(game.name, "rl")
    if make is None:
        return GenericEncoder(game)
    return make(game)
