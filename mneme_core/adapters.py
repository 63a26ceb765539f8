"""Where `Incoming`, `Adapter` and `split_reply` used to live: they are in the bot layer now
(`mneme_core.bot`); this module keeps old imports working."""

from __future__ import annotations

from .bot.incoming import Adapter, Incoming, platform_of, spoken, subject_for
from .bot.split import split_reply
from .loopback import is_loopback

subject_of = subject_for

__all__ = ["Adapter", "Incoming", "is_loopback", "platform_of", "split_reply", "spoken", "subject_of"]
