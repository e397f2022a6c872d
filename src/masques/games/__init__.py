"""The shipped games; importing this package registers each of them."""

from ..engine.registry import register
from .blokus3d import Blokus3DGame
from .masker import MaskerGame

register(Blokus3DGame)
register(MaskerGame)

__all__ = ["Blokus3DGame", "MaskerGame"]
