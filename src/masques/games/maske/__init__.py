"""Maske (Mask): masks, sticks and auctioned action cards (spec: maske.md)."""

from .data import CARDS, MASKS
from .game import MaskeGame, MaskeState

__all__ = ["CARDS", "MASKS", "MaskeGame", "MaskeState"]
