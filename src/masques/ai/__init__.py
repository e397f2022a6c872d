"""Bots: they act from their seat's observation history and the legal actions, never the true state."""

from .bots import BOT_KINDS, LEVELS, Bot, RandomBot, make_bot

__all__ = ["BOT_KINDS", "LEVELS", "Bot", "RandomBot", "make_bot"]
