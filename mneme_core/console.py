"""Where the console adapter used to live: it is in the bot layer now (`mneme_core.bot.console`); this
module keeps old imports working."""

from __future__ import annotations

from .bot.console import QUIT, ConsoleAdapter, achat

__all__ = ["QUIT", "ConsoleAdapter", "achat"]
