"""The shipped games; importing this package registers each of them."""

from ..engine.registry import register
from .blokus3d import Blokus3DGame
from .mascarade import MascaradeGame
from .maske import MaskeGame
from .masker import MaskerGame

register(Blokus3DGame)
register(MaskerGame)
register(MascaradeGame)
register(MaskeGame)

__all__ = ["Blokus3DGame", "MascaradeGame", "MaskeGame", "MaskerGame"]
