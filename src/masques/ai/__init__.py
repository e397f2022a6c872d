"""Bots: they act from their seat's observation history and the legal actions, never the true state."""

from .bots import BOT_KINDS, Bot, RandomBot, make_bot
from .parts import DEFAULT_BOT_PARTS, BotParts, bot_parts

__all__ = ["BOT_KINDS", "DEFAULT_BOT_PARTS", "Bot", "BotParts", "RandomBot", "bot_parts", "make_bot"]
