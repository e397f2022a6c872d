"""Blokus 3D (Rumis): pieces, structures, rules and the solitaire solver (spec: blokus3d.md)."""

from .game import Blokus3DGame, Blokus3DState
from .pieces import COLOURS

__all__ = ["COLOURS", "Blokus3DGame", "Blokus3DState"]
