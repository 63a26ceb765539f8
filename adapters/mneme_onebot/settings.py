"""The `[adapters.onebot]` table, checked whole: a bad or unknown setting is refused with its name.

    [adapters.onebot]
    host = "127.0.0.1"          # where the bridges connect; off loopback an access_token is required
    port = 8080
    access_token = { "$env" = "ONEBOT_TOKEN" }   # checked on every connection and event post
    platform = "qq"             # the platform of v11 bridges not listed below (v12 events say theirs)
    names = ["Mio"]             # a group message starting with one of these addresses the bot
    limit = 1500                # longest message part sent
    action_timeout = 20         # seconds an action waits for its answer (and for a bridge to reconnect)
    quote = true                # in groups, the reply quotes the message it answers
    message_format = "array"    # v11: "array" of segments, or "string" with CQ codes for old bridges
    typing = false              # NapCat's set_input_status in private chats while the model thinks
    secret = { "$env" = "ONEBOT_SECRET" }        # v11 HTTP POST: the X-Signature key

    [adapters.onebot.bridges.wxid_bot]           # one table per bot account, by its self id
    platform = "wechat"
    api_url = "http://127.0.0.1:5700"            # HTTP POST mode: where its HTTP API takes actions
    version = 11

Secrets stay references until `start` resolves them (`mneme_core.config.resolve`); nothing here logs one.
The table is declared once (`SETTINGS`): `Settings.from_table` reads it with those checks, and the plugin
registers them (`register_settings`) for `mneme config set`, `check` and `template`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mneme_core.config import checks, resolve
from mneme_core.config.declared import Setting, Table
from mneme_core.errors import InvalidType, InvalidValue, describe

from .events import Malformed, platform_name

__all__ = ["SETTINGS", "BridgeSettings", "Settings"]

BRIDGE_KEYS = ("platform", "api_url", "version")
MIN_LIMIT, MAX_LIMIT = 16, 20_000


@dataclass(frozen=True, kw_only=True)
class BridgeSettings:
    """One bot account's own settings, by its self id."""

    self_id: str
    platform: str | None = None
    api_url: str | None = None
    version: int = 11


@dataclass(frozen=True, kw_only=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8080
    access_token: Any = None
    secret: Any = None
    platform: str = "qq"
    bridges: tuple[BridgeSettings, ...] = ()
    names: tuple[str, ...] = ()
    limit: int = 1500
    action_timeout: float = 20.0
    quote: bool = True
    message_format: str = "array"
    typing: bool = False

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> Settings:
        """The settings of an `[adapters.onebot]` table; `InvalidValue` naming the first bad key."""
        found = SETTINGS.read(table)
        found["names"] = tuple(found["names"])
        found["bridges"] = tuple(
            BridgeSettings(self_id=self_id, **bridge) for self_id, bridge in found.get("bridges", {}).items()
        )
        return cls(**found)

    def bridge(self, self_id: str) -> BridgeSettings | None:
        return next((b for b in self.bridges if b.self_id == self_id), None)

    def platform_for(self, self_id: str | None) -> str:
        """The platform of a v11 bridge: its own table's, else the default."""
        own = self.bridge(self_id) if self_id is not None else None
        return own.platform if own is not None and own.platform else self.platform

    def secrets(self, environ: Mapping[str, str] | None) -> tuple[str | None, str | None]:
        """The access token and the signing secret, resolved (for the caller's use only)."""
        token = resolve(self.access_token, environ, key="adapters.onebot.access_token")
        secret = resolve(self.secret, environ, key="adapters.onebot.secret")
        for name, value in (("access_token", token), ("secret", secret)):
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise InvalidValue(f"adapters.onebot.{name} resolves to a blank or non-text value")
        return token or None, secret or None


def _text(name: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip() or "\n" in value:
        raise InvalidValue(f"{name} is one line of text, not {describe(value)}")
    return value.strip()


def _whole(low: int, high: int):
    def check(name: str, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InvalidValue(f"{name} is a whole number from {low} to {high}, not {describe(value)}")
        return value

    return check


def _seconds(name: str, value: object) -> float:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or not 0 < value <= 600:
        raise InvalidValue(f"{name} is a number of seconds above 0 and at most 600, not {describe(value)}")
    return float(value)


def _flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidType(f"{name} is true or false, not {describe(value)}")
    return value


def _platform(name: str, value: object) -> str:
    try:
        return platform_name(value)
    except Malformed as err:
        raise InvalidValue(f"{name}: {err}") from err


def _format(name: str, value: object) -> str:
    if value not in ("array", "string"):
        raise InvalidValue(f'{name} is "array" or "string", not {describe(value)}')
    return str(value)


def _names(name: str, value: object) -> list[str]:
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise InvalidType(f"{name} is a list of names, not {describe(value)}")
    return [_text(f"{name}[{n}]", item) for n, item in enumerate(value, 1)]


def _bridges(name: str, value: object) -> dict[str, dict[str, Any]]:
    """Each bot account's own table by its self id, checked (as the config keeps it)."""
    if not isinstance(value, Mapping):
        raise InvalidType(f"{name} is a table of bot accounts by self id, not {describe(value)}")
    found = {}
    for self_id, table in value.items():
        where = f"{name}.{self_id}"
        if not isinstance(table, Mapping):
            raise InvalidType(f"{where} is a table ({', '.join(BRIDGE_KEYS)}), not {describe(table)}")
        unknown = [key for key in table if key not in BRIDGE_KEYS]
        if unknown:
            raise InvalidValue(
                f"{where}.{unknown[0]}: no such setting; a bridge has {', '.join(BRIDGE_KEYS)}"
            )
        api_url = table.get("api_url")
        if api_url is not None and not (
            isinstance(api_url, str) and api_url.startswith(("http://", "https://"))
        ):
            raise InvalidValue(f"{where}.api_url is an http:// or https:// address, not {describe(api_url)}")
        version = table.get("version", 11)
        if version not in (11, 12) or isinstance(version, bool):
            raise InvalidValue(f"{where}.version is 11 or 12, not {describe(version)}")
        platform = table.get("platform")
        own = {"version": version}
        if platform is not None:
            own["platform"] = _platform(f"{where}.platform", platform)
        if api_url is not None:
            own["api_url"] = api_url
        found[_text(f"{where} (its self id)", str(self_id))] = own
    return found


TOKEN = {"$env": "ONEBOT_TOKEN"}
SETTINGS = Table(
    "adapters.onebot",
    (
        Setting(
            "host", _text, "where the bridges connect; off loopback an access_token is required", "127.0.0.1"
        ),
        Setting("port", _whole(0, 65535), "the port they connect to (0 to 65535)", 8080),
        Setting(
            "access_token",
            checks.secret("ONEBOT_TOKEN"),
            "checked on every connection and event post, by reference",
            example=TOKEN,
        ),
        Setting(
            "secret",
            checks.secret("ONEBOT_SECRET"),
            "v11 HTTP POST: the X-Signature key, by reference",
            example={"$env": "ONEBOT_SECRET"},
        ),
        Setting("platform", _platform, "the platform of v11 bridges not listed in bridges", "qq"),
        Setting(
            "bridges",
            _bridges,
            "one table per bot account, by its self id: platform, api_url (HTTP POST mode), version (11, 12)",
            example={"wxid_bot": {"platform": "wechat", "api_url": "http://127.0.0.1:5700", "version": 11}},
        ),
        Setting("names", _names, "a group message starting with one of these addresses the bot", []),
        Setting(
            "limit",
            _whole(MIN_LIMIT, MAX_LIMIT),
            f"longest message part sent ({MIN_LIMIT} to {MAX_LIMIT})",
            1500,
        ),
        Setting(
            "action_timeout", _seconds, "seconds an action waits for its answer (above 0, at most 600)", 20.0
        ),
        Setting("quote", _flag, "in groups, the reply quotes the message it answers", True),
        Setting("message_format", _format, 'v11: "array" of segments, or "string" with CQ codes', "array"),
        Setting("typing", _flag, "NapCat's set_input_status in private chats while the model thinks", False),
    ),
)
