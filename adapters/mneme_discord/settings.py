"""The Discord adapter's settings: the `[adapters.discord]` table, and how a drop-in cog finds its engine.

    [adapters.discord]
    token = { "$env" = "DISCORD_TOKEN" }    # `mneme run discord` only; a loaded cog uses its host's login
    respond_in = ["dm", "mention", "reply"] # the default: works without the message content intent
    channels = []                           # server channel ids to answer in; empty: every channel
    answer = true                           # false: the host bot calls prompt_for/observe itself
    names = []                              # with "name" in respond_in: words that address the bot
    message_content = false                 # `mneme run discord`: ask for the privileged intent

Where the cog answers (`respond_in`): "dm" direct messages; "mention" server messages that mention the bot
(or its own role), never through @everyone or @here; "reply" server messages that reply to one of the bot's;
"name" server messages naming the bot (its name, or one of `names`); "all" every server message in the
channels allowed. "name" and "all" read what people write in servers, which Discord sends a bot only with
the privileged message content intent (a direct message, a mention and a reply to the bot carry it anyway).

A drop-in cog opens its own engine unless the host hands it one (`bot.mneme`), from the environment the
`mneme` command reads too: `MNEME_DB` (the file), `MNEME_SPACE`, `MNEME_CONFIG` (a TOML file: taken whole
the first time, then its adapters' and plugins' tables at each start), plus `MNEME_MODEL` (a model
provider's name; default: the first one configured, else the offline stand-in), `MNEME_PERSONA` (default:
`companion.persona`) and `MNEME_DISCORD_CHANNELS` (comma-separated ids, over the table's `channels`).

The table is declared once (`SETTINGS`): `DiscordSettings.from_table` reads it with those checks, and the
plugin registers them (`register_settings`), so `mneme config set`, `check` and `template` know them too.

Nothing here imports discord.py: listing plugins must work without the `discord` extra.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mneme_core.config import checks
from mneme_core.config.declared import Setting, Table
from mneme_core.errors import InvalidType, InvalidValue, describe

__all__ = ["PLACES", "SETTINGS", "TABLE", "DiscordSettings", "Opening"]

PLACES = ("dm", "mention", "reply", "name", "all")
DEFAULT_PLACES = ("dm", "mention", "reply")
TABLE = "adapters.discord"


def _list(key: str, value: object) -> list[Any]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise InvalidType(f"{key} is a list, not {describe(value)}")
    return list(value)


def _ids(key: str, value: object) -> list[str]:
    """Discord ids as their decimal strings (ids exceed 32 bits; TOML may hold them as numbers or strings)."""
    found = []
    for item in _list(key, value):
        if isinstance(item, bool) or not isinstance(item, int | str) or not str(item).strip().isdigit():
            raise InvalidValue(f"{key} holds Discord ids (digits), not {describe(item)}")
        found.append(str(item).strip())
    return found


def _places(key: str, value: object) -> list[str]:
    found = list(dict.fromkeys(_list(key, value)))
    if any(place not in PLACES for place in found):
        raise InvalidValue(f"{key} is a list of {', '.join(PLACES)}, not {describe(found)}")
    return found


def _names(key: str, value: object) -> list[str]:
    found = _list(key, value)
    for name in found:
        if not isinstance(name, str) or not name.strip() or "\n" in name:
            raise InvalidValue(f"{key} is a list of one-line words, not {describe(name)}")
    return found


SETTINGS = Table(
    TABLE,
    (
        Setting(
            "token",
            checks.secret("DISCORD_TOKEN"),
            "the bot's token, by reference (`mneme run discord` only; a loaded cog uses its host's login)",
            example={"$env": "DISCORD_TOKEN"},
        ),
        Setting(
            "respond_in",
            _places,
            "where it answers: dm, mention, reply, name (its name or names), all (needs message_content)",
            default=list(DEFAULT_PLACES),
        ),
        Setting("channels", _ids, "server channel ids to answer in; empty: every channel", default=[]),
        Setting(
            "answer", checks.boolean, "false: the host calls prompt_for and observe itself", default=True
        ),
        Setting("names", _names, 'with "name" in respond_in: words that address the bot', default=[]),
        Setting(
            "message_content",
            checks.boolean,
            "`mneme run discord`: ask Discord for the privileged message content intent",
            default=False,
        ),
    ),
)


@dataclass(frozen=True, kw_only=True)
class DiscordSettings:
    """The checked `[adapters.discord]` table (the token stays a reference there: see `token_of`)."""

    respond_in: tuple[str, ...] = DEFAULT_PLACES
    channels: frozenset[str] = frozenset()
    answer: bool = True
    names: tuple[str, ...] = ()
    message_content: bool = False

    def __post_init__(self) -> None:
        SETTINGS.check("respond_in", self.respond_in)
        SETTINGS.check("names", self.names)

    @classmethod
    def from_table(
        cls, table: Mapping[str, Any] | None, environ: Mapping[str, str] | None = None
    ) -> DiscordSettings:
        """The settings of a table (`mneme_core.config.Config.table("adapters.discord")`); an unknown key is
        refused, naming the known ones. `MNEME_DISCORD_CHANNELS` in `environ`, if set, wins for channels."""
        read = SETTINGS.read(table)
        listed = (environ or {}).get("MNEME_DISCORD_CHANNELS")
        if listed is not None:
            parts = [part for part in listed.replace(" ", ",").split(",") if part]
            read["channels"] = SETTINGS.check("channels", parts)
        return cls(
            respond_in=tuple(read["respond_in"]),
            channels=frozenset(read["channels"]),
            answer=read["answer"],
            names=tuple(read["names"]),
            message_content=read["message_content"],
        )

    def answers_in(self, channel_id: str, parent_id: str | None = None) -> bool:
        """Whether a server channel (or a thread of it) is one the bot answers in."""
        return not self.channels or channel_id in self.channels or parent_id in self.channels

    @property
    def reads_servers(self) -> bool:
        """Whether answering needs what people write in servers (the message content intent)."""
        return "all" in self.respond_in or "name" in self.respond_in


@dataclass(frozen=True, kw_only=True)
class Opening:
    """Where a drop-in cog's engine is, and which model and persona it uses (see the module docstring)."""

    db: str = "mneme.db"
    space: str = "default"
    config: str | None = None
    provider: str | None = None
    persona: str | None = None
    environ: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Opening:
        env = os.environ if environ is None else environ
        return cls(
            db=env.get("MNEME_DB") or "mneme.db",
            space=env.get("MNEME_SPACE") or "default",
            config=env.get("MNEME_CONFIG") or None,
            provider=env.get("MNEME_MODEL") or None,
            persona=env.get("MNEME_PERSONA"),
            environ=dict(env),
        )
