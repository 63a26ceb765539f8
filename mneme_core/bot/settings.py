"""How a bot behaves: the persona, when it answers, how long each step may wait, how much of the
conversation the model sees.

`BotSettings.from_config(config)` reads the companion's config (`companion.persona`, `bot.*`,
`conversation.*`); code may build one by hand, and any field given to `from_config` wins. Every wait a turn
makes is bounded here: the memory block (`prompt_timeout`, 5 s: a hung memory costs the block, not the
reply), the model (`model_timeout`), each part sent (`send_timeout`), each observe (`observe_timeout`: past
it the exchange is kept and tried again, at most `observe_tries` times), and the shutdown
(`shutdown_timeout`: what is still running then is kept for the next start).

The health check between conversations is scheduled by `check.schedule` (daily at 04:00 by default) and
applies what is at least `check.confidence` sure (0.95) when `check.fix`, with `check.budget` model calls.

`RunnerSettings` is the same class under the name the runner has always taken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

from .. import dates
from ..checking import confidence_of
from ..config.checks import boolean
from ..errors import InvalidType, InvalidValue, describe
from ..memory.note import count_of

__all__ = ["BotSettings", "RunnerSettings"]

FROM_CONFIG = {
    "persona": "companion.persona",
    "groups": "bot.groups",
    "prompt_timeout": "bot.prompt_timeout",
    "model_timeout": "bot.model_timeout",
    "observe_timeout": "bot.observe_timeout",
    "observe_tries": "bot.observe_tries",
    "context_lines": "conversation.lines",
    "context_chars": "conversation.chars",
    "room_lines": "conversation.context_lines",
    "check_schedule": "check.schedule",
    "check_fix": "check.fix",
    "check_confidence": "check.confidence",
    "check_budget": "check.budget",
    "tend_schedule": "lifecycle.schedule",
}
COUNTS = ("queue_size", "max_waiting", "max_observing", "observe_tries", "room_lines")
SECONDS = ("prompt_timeout", "model_timeout", "send_timeout", "observe_timeout", "shutdown_timeout")


@dataclass(frozen=True, kw_only=True)
class BotSettings:
    """How the bot layer behaves; the sentences default to the companion's `reply.busy` / `reply.failed`
    sentences (its display language), then to English ones."""

    persona: str = ""
    busy: str | None = None
    failure: str | None = None
    groups: str = "addressed"
    """In a group chat, answer only when "addressed", or "all" messages."""
    queue_size: int = 5
    max_waiting: int = 1000
    prompt_timeout: float = 5.0
    model_timeout: float = 120.0
    send_timeout: float = 30.0
    observe_timeout: float = 120.0
    observe_tries: int = 5
    max_observing: int = 4
    max_observe_backlog: int = 1000
    """Kept for code that sets it; exchanges now wait in the database, so none is dropped."""
    shutdown_timeout: float = 30.0
    context_lines: int = 20
    """Earlier lines of the conversation the model is given with each message."""
    context_chars: int = 4000
    room_lines: int = 50
    """Lines of a group said without addressing the companion, kept per group as context."""
    check_schedule: str = "04:00"
    """When the runner does the health check between conversations (`chores`): "HH:MM" each day in the
    companion's zone, "6h" / "30m" between runs, or "off"."""
    check_fix: bool = True
    check_confidence: float = 0.95
    check_budget: int = 50
    tend_schedule: str = "03:30"
    """When the runner tends the memory (`mneme_core.tending`): "HH:MM" each day in the companion's zone,
    "6h" / "30m" between runs, or "off"."""

    def __post_init__(self) -> None:
        if not isinstance(self.persona, str):
            raise InvalidType(f"a persona is text, not {type(self.persona).__name__}")
        for name in ("busy", "failure"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise InvalidValue(
                    f"{name} is a sentence to send, or None for the default, not {describe(value)}"
                )
        if self.groups not in ("addressed", "all"):
            raise InvalidValue(f"groups is 'addressed' or 'all', not {describe(self.groups)}")
        for name in COUNTS:
            count_of(name, getattr(self, name), 1)
        count_of("max_observe_backlog", self.max_observe_backlog, 1)
        for name in ("context_lines", "context_chars"):
            count_of(name, getattr(self, name), 0)
        dates.schedule(self.check_schedule, "check_schedule")
        dates.schedule(self.tend_schedule, "tend_schedule")
        boolean("check_fix", self.check_fix)
        confidence_of("check_confidence", self.check_confidence)
        count_of("check_budget", self.check_budget, 0)
        for name in SECONDS:
            value = getattr(self, name)
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if not number or not math.isfinite(value) or value <= 0:
                raise InvalidValue(f"{name} is a number of seconds above 0, not {describe(value)}")

    @classmethod
    def from_config(cls, config: Any, **given: Any) -> BotSettings:
        """The settings the companion's config says (`companion.persona`, `bot.*`, `conversation.*`), with
        `given` fields winning (None means "from the config")."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(given) - known)
        if unknown:
            raise InvalidValue(
                f"the bot settings have no {', '.join(unknown)}; they are {', '.join(sorted(known))}"
            )
        values = {field: config.get(key) for field, key in FROM_CONFIG.items()}
        values["persona"] = values["persona"] or ""
        values.update({name: value for name, value in given.items() if value is not None})
        return cls(**{name: value for name, value in values.items() if value is not None})


RunnerSettings = BotSettings
