"""Mneme for Telegram (python-telegram-bot 22): a middleware for your own bot, or a bot by itself.

Two ways in:
- Your bot, your model: `install(app, mneme)` puts the companion's memory on an `Application` you already
  have (a type handler in an early group: the subject `telegram:<user id>`, the engine and the prompt block
  on the context; the commands; opt-outs), and `@remembered` wraps your reply handler so `aobserve` runs
  after the reply was sent, off its path (`middleware`).
- The companion answers by itself: `mneme run telegram --config bot.toml` (or `mneme run discord telegram`,
  on one event loop), through `TelegramAdapter` and the core's runner (`adapter`).

Registered through the entry-point group `mneme` (`telegram = "mneme_telegram"`), like a third party's
plugin. python-telegram-bot is imported only when something here is used (the adapter is made, or one of
the names below is read), so `mneme plugins` works without the `telegram` extra installed.

Modules: `reading` (who wrote, was the bot addressed), `outgoing` (plain text in parts that fit, flood
control, typing), `consent` (opt-outs), `sentences`, `commands`, `middleware`, `settings`, `adapter`;
`testing` is an offline Bot API and Telegram's updates, for your tests and ours.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mneme_core import hookimpl
from mneme_core.errors import MnemeError
from mneme_core.lazy import lazy_names

__all__ = [
    "Memory",
    "Middleware",
    "Patience",
    "TelegramAdapter",
    "install",
    "make_adapter",
    "middleware_of",
    "register_adapters",
    "register_settings",
    "remembered",
]

_LAZY = {
    "Memory": "middleware",
    "Middleware": "middleware",
    "install": "installing",
    "middleware_of": "installing",
    "remembered": "middleware",
    "Patience": "outgoing",
    "TelegramAdapter": "adapter",
}
MISSING = 'the Telegram adapter needs python-telegram-bot 22: pip install "mneme-bots[telegram]"'


__getattr__ = lazy_names(globals(), _LAZY, needs=("telegram", MISSING))


def make_adapter(settings: Mapping[str, Any] | None = None) -> Any:
    """The adapter for `mneme run telegram`, made from the `[adapters.telegram]` table."""
    try:
        from .adapter import TelegramAdapter
    except ModuleNotFoundError as err:
        if err.name == "telegram" or (err.name or "").startswith("telegram."):
            raise MnemeError(MISSING) from err
        raise
    return TelegramAdapter(settings)


@hookimpl
def register_adapters(register: Any) -> None:
    register(make_adapter, name="telegram")


@hookimpl
def register_settings(register: Any) -> None:
    """The `[adapters.telegram]` keys, for the config's checks and template (imports no telegram)."""
    from .settings import SETTINGS

    SETTINGS.register(register)
