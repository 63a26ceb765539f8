"""WeChat and QQ for Mneme: a OneBot v11/v12 adapter (`mneme run onebot`).

Personal WeChat and QQ are reached through bridges (NapCat, LLOneBot, Lagrange for QQ; OneBot bridges for
WeChat) that speak OneBot. This adapter is the server they connect to by reverse WebSocket (or push events
to by HTTP POST); see `examples/onebot_bridge.md` for pointing a bridge at it.

Registered through the entry-point group `mneme` (`onebot = "mneme_onebot"`), like a third party's
plugin; installed with the `onebot` extra (aiohttp). aiohttp is imported only when the adapter starts, and
the adapter (with the bot layer) only when it is made or one of the names below is read, so listing plugins,
and making a `Mneme`, load neither.

Modules: `cqcode` (the string form of messages), `events` (events as values), `actions` (echo-matched
actions and bridges across reconnections), `server` (aiohttp), `settings`, `adapter`.
"""

from __future__ import annotations

from typing import Any

from mneme_core import hookimpl
from mneme_core.lazy import lazy_names

from .actions import ActionError, ActionFailed, ActionTimeout
from .settings import SETTINGS, Settings

__all__ = [
    "ActionError",
    "ActionFailed",
    "ActionTimeout",
    "OneBotAdapter",
    "Route",
    "Settings",
    "register_adapters",
    "register_settings",
]


__getattr__ = lazy_names(globals(), {"OneBotAdapter": "adapter", "Route": "adapter"})


@hookimpl
def register_adapters(register: Any) -> None:
    """Called by the bot layer when a bot starts (never by the engine)."""
    register(__getattr__("OneBotAdapter"))


@hookimpl
def register_settings(register: Any) -> None:
    """The `[adapters.onebot]` keys, for the config's checks and template (`settings.SETTINGS`)."""
    SETTINGS.register(register)
