"""The settings the engine runs with, checked once, as one frozen value.

They come, lowest first, from the built-in defaults, from a config (a mapping of TOML-style sections, or the
path of a TOML file) and from arguments given to `Mneme(...)`, which win for that process. A wrong key or
value is refused whole, naming the key and what is allowed, before the database is touched.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import tzinfo
from typing import Any

from . import dates
from .errors import InvalidType, InvalidValue, describe

LANGUAGE = re.compile(r"[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?")


def _number(low: float, high: float, whole: bool = False) -> Callable[[str, object], Any]:
    def check(name: str, value: object) -> Any:
        kind = "a whole number" if whole else "a number"
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise InvalidValue(f"{name} is {kind} from {low:g} to {high:g}, not {describe(value)}")
        if (whole and value != int(value)) or not low <= value <= high:
            raise InvalidValue(f"{name} is {kind} from {low:g} to {high:g}, not {describe(value)}")
        return int(value) if whole else float(value)

    return check


def _name(name: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 80 or "\n" in value:
        raise InvalidValue(f"{name} is one line of 1 to 80 characters, not {describe(value)}")
    return value.strip()


def _language(name: str, value: object) -> str:
    if not isinstance(value, str) or not LANGUAGE.fullmatch(value):
        raise InvalidValue(f"{name} is a language code like 'en', 'zh' or 'zh-TW', not {describe(value)}")
    return value


def _zone(name: str, value: object) -> tzinfo | None:
    if isinstance(value, tzinfo) or value is None:
        return value
    return dates.zone_of(value)  # type: ignore[arg-type]


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Who the companion is and how its memory behaves."""

    companion_name: str = "the assistant"
    display_language: str = "en"
    zone: tzinfo | None = None
    half_life_days: float = 30.0
    daily_quota: int = 8
    max_notes: int = 50_000


# config key -> (Settings field, check)
KEYS: dict[str, tuple[str, Callable[[str, object], Any]]] = {
    "companion.name": ("companion_name", _name),
    "companion.display_language": ("display_language", _language),
    "companion.zone": ("zone", _zone),
    "memory.half_life_days": ("half_life_days", _number(0.01, 36500)),
    "memory.daily_quota": ("daily_quota", _number(0, 10_000, whole=True)),
    "memory.max_notes": ("max_notes", _number(10, 10_000_000, whole=True)),
}
ARGUMENTS = {field_name: (key, check) for key, (field_name, check) in KEYS.items()}


def flatten(config: Mapping[str, Any]) -> dict[str, Any]:
    """`{"memory": {"daily_quota": 8}}` -> `{"memory.daily_quota": 8}`."""
    flat: dict[str, Any] = {}
    for section, body in config.items():
        if not isinstance(body, Mapping):
            raise InvalidValue(f"{section}: a config section is a table of keys, not {describe(body)}")
        for key, value in body.items():
            flat[f"{section}.{key}"] = value
    return flat


def load(config: Mapping[str, Any] | str | os.PathLike[str] | None) -> dict[str, Any]:
    """A config as flat keys, from a mapping or a TOML file."""
    if config is None:
        return {}
    if isinstance(config, str | os.PathLike):
        with open(config, "rb") as file:
            try:
                config = tomllib.load(file)
            except tomllib.TOMLDecodeError as err:
                raise InvalidValue(f"{os.fspath(config)} is not valid TOML: {err}") from err
    if not isinstance(config, Mapping):
        raise InvalidType(f"a config is a mapping or the path of a TOML file, not {type(config).__name__}")
    return flatten(config)


def build(config: Mapping[str, Any] | str | os.PathLike[str] | None, **arguments: Any) -> Settings:
    """Defaults, then the config, then the arguments that are not None; all checked before use."""
    changes: dict[str, Any] = {}
    for key, value in load(config).items():
        if key not in KEYS:
            raise InvalidValue(f"{key}: no such setting (known: {', '.join(KEYS)})")
        field_name, check = KEYS[key]
        changes[field_name] = check(key, value)
    for field_name, value in arguments.items():
        if value is None:
            continue
        if field_name not in ARGUMENTS:
            raise InvalidType(f"Mneme() got an unexpected setting {field_name!r}")
        key, check = ARGUMENTS[field_name]
        changes[field_name] = check(field_name, value)
    return replace(Settings(), **changes)
