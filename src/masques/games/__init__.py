"""The shipped games; importing this package registers each of them."""

from ..engine.registry import register
from .blokus3d import Blokus3DGame

register(Blokus3DGame)

__all__ = ["Blokus3DGame"]
