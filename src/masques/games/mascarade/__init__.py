"""Mascarade: matching mask cards on a 10x10 board (spec: mascarade.md)."""

from .game import CARDS, FEATURE_TABLE, MascaradeGame, MascaradeState

__all__ = ["CARDS", "FEATURE_TABLE", "MascaradeGame", "MascaradeState"]
