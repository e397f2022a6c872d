"""Bots: they act from their seat's observation history and the legal actions, never the true state."""

from .bots import BOTS, Bot, RandomBot, make_bot

__all__ = ["BOTS", "Bot", "RandomBot", "make_bot"]
