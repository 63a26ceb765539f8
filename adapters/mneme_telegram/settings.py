"""The `[adapters.telegram]` table, declared once (`SETTINGS`) and checked whole when the adapter is made:
each wrong key is named with what it allows. The same declaration is registered for the config
(`register_settings`), so `mneme config set`, `check` and `template` know every key. The token stays a
reference (`{ "$env" = "TELEGRAM_BOT_TOKEN" }`) until `start` resolves it; `opted_out` is kept by
`consent` (people's /optout), and is declared so that the config takes it.

Nothing here imports python-telegram-bot or the bot layer: the plugin registers these at start-up."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mneme_core.config import checks
from mneme_core.config.declared import Setting, Table
from mneme_core.errors import InvalidType, InvalidValue, describe

__all__ = ["ASK", "SETTINGS", "TelegramSettings"]

ASK = "ask"
"""The command that addresses the bot in a group (`/ask ...`), unless the table names another."""
COMMAND = re.compile(r"[a-z0-9_]{1,32}")


def _names(key: str, value: object) -> list[str]:
    if not isinstance(value, list | tuple) or not all(isinstance(n, str) and n.strip() for n in value):
        raise InvalidType(f"{key} is a list of words, not {describe(value)}")
    return list(value)


def _ask(key: str, value: object) -> str:
    if not isinstance(value, str) or not COMMAND.fullmatch(value):
        raise InvalidValue(f"{key} is a command word like 'ask', not {describe(value)}")
    return value


def _sentences(key: str, value: object) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise InvalidType(f"{key} is a table of texts, not {describe(value)}")
    return {str(k): v for k, v in value.items()}


def _seconds(key: str, value: object) -> float:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or value < 0:  # type: ignore[arg-type]
        raise InvalidValue(f"{key} is seconds (0 or more), not {describe(value)}")
    return float(value)  # type: ignore[arg-type]


def _lines(key: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 200:
        raise InvalidValue(f"{key} is a whole number 1-200, not {describe(value)}")
    return value


def _ids(key: str, value: object) -> list[str]:
    if not isinstance(value, list | tuple):
        raise InvalidType(f"{key} is a list of Telegram user ids, not {describe(value)}")
    return [str(found) for found in value]


SETTINGS = Table(
    "adapters.telegram",
    (
        Setting(
            "token",
            checks.secret("TELEGRAM_BOT_TOKEN"),
            "the bot's token, by reference",
            example={"$env": "TELEGRAM_BOT_TOKEN"},
        ),
        Setting("names", _names, "words that address the bot in a group, besides mentions and replies", []),
        Setting("ask", _ask, "the command that addresses the bot in a group (/ask ...)", ASK),
        Setting("drop_pending_updates", checks.boolean, "skip what was sent while the bot was away", False),
        Setting("sentences", _sentences, "the commands' sentences of your own, by key", {}),
        Setting("flood_wait", _seconds, "the longest flood-control wait obeyed before a part fails, s", 25.0),
        Setting("memory_lines", _lines, "notes /memory shows at most (1 to 200)", 30),
        Setting(
            "opted_out", _ids, "the user ids who opted out: kept by the bot itself (/optout, /optin)", []
        ),
    ),
)


@dataclass(frozen=True, kw_only=True)
class TelegramSettings:
    token: Any = field(default=None, repr=False)
    """The bot token's reference (or, outside a stored config, the token), resolved at start."""
    names: tuple[str, ...] = ()
    """Words that address the bot in a group, besides mentions, replies and the ask command."""
    ask: str = ASK
    drop_pending_updates: bool = False
    sentences: Mapping[str, str] = field(default_factory=dict)
    flood_wait: float = 25.0
    """The longest flood-control wait obeyed before a part fails, in seconds."""
    memory_lines: int = 30

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> TelegramSettings:
        read = SETTINGS.read(table)
        read.pop("opted_out")  # consent's, not the adapter's
        return cls(**{**read, "names": tuple(read["names"])})
