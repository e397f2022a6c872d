"""Masker: secret colours, a runner that captures crosses (spec: masker.md)."""

from .game import COLOURS, MaskerGame, MaskerState, consistent_tokens

__all__ = ["COLOURS", "MaskerGame", "MaskerState", "consistent_tokens"]
