"""The `[adapters.telegram]` table, checked whole when the adapter is made: each wrong key is named with
what it allows. The token stays a reference (`{ "$env" = "TELEGRAM_BOT_TOKEN" }`) until `start` resolves
it; `opted_out` belongs to `consent` and is left to it."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mneme_core.errors import InvalidType, InvalidValue, describe

from .reading import ASK

__all__ = ["TelegramSettings"]

COMMAND = re.compile(r"[a-z0-9_]{1,32}")
KNOWN = (
    "token",
    "names",
    "ask",
    "drop_pending_updates",
    "sentences",
    "flood_wait",
    "memory_lines",
    "opted_out",
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
        unknown = sorted(set(table) - set(KNOWN))
        if unknown:
            raise InvalidValue(
                f"[adapters.telegram] has no setting {unknown[0]!r}; the settings are {', '.join(KNOWN)}"
            )
        return cls(
            token=table.get("token"),
            names=_names(table.get("names", [])),
            ask=_ask(table.get("ask", ASK)),
            drop_pending_updates=_flag(table.get("drop_pending_updates", False)),
            sentences=_sentences(table.get("sentences", {})),
            flood_wait=_seconds(table.get("flood_wait", 25.0)),
            memory_lines=_lines(table.get("memory_lines", 30)),
        )


def _names(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(n, str) and n.strip() for n in value):
        raise InvalidType(f"adapters.telegram.names is a list of words, not {describe(value)}")
    return tuple(value)


def _ask(value: object) -> str:
    if not isinstance(value, str) or not COMMAND.fullmatch(value):
        raise InvalidValue(f"adapters.telegram.ask is a command word like 'ask', not {describe(value)}")
    return value


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidType(f"adapters.telegram.drop_pending_updates is true or false, not {describe(value)}")
    return value


def _sentences(value: object) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise InvalidType(f"adapters.telegram.sentences is a table of texts, not {describe(value)}")
    return {str(k): v for k, v in value.items()}


def _seconds(value: object) -> float:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or value < 0:  # type: ignore[arg-type]
        raise InvalidValue(f"adapters.telegram.flood_wait is seconds (0 or more), not {describe(value)}")
    return float(value)  # type: ignore[arg-type]


def _lines(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 200:
        raise InvalidValue(f"adapters.telegram.memory_lines is a whole number 1-200, not {describe(value)}")
    return value
