"""The settings an adapter or plugin reads from its own table, declared once and checked everywhere.

An owner writes its table down as a `Table` of `Setting`s: each key's check, a line saying what it allows,
and its default (or, for a key without one, an example for the template). The same declaration serves
three readers, so a rule is written in one place:

- the owner itself, when it is made: `Table.read(table)` refuses a key it does not read (naming the ones it
  does, with a "did you mean"), checks each value and fills in the defaults;
- the config (`register_settings`): `config set`, `config apply`, a `--config` file and `config check`
  refuse what the owner would refuse, before anything is written or the bot starts;
- `mneme config template`, which lists every key each installed adapter and plugin reads.

    TABLE = Table("plugins.weather", (
        Setting("city", checks.text(80), "the city whose weather is told", example="Lyon"),
        Setting("units", checks.choice("metric", "imperial"), "metric or imperial", default="metric"),
    ))

    @hookimpl
    def register_settings(register):
        TABLE.register(register)
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidType, InvalidValue, describe
from .checks import Check, plain
from .keys import FREE, MISSING, NAME

__all__ = ["Setting", "Table"]


@dataclass(frozen=True)
class Setting:
    """One key of an owner's table: its check, what it allows (one line), and its default or an example."""

    name: str
    check: Check
    rule: str
    default: Any = MISSING
    example: Any = MISSING


@dataclass(frozen=True)
class Table:
    """An owner's table (`adapters.<name>` or `plugins.<name>`) and every setting it reads."""

    name: str
    settings: tuple[Setting, ...]

    def __post_init__(self) -> None:
        section, _, owner = self.name.partition(".")
        if section not in FREE or not NAME.fullmatch(owner):
            raise InvalidValue(
                f"a settings table is adapters.<name> or plugins.<name>, not {describe(self.name)}"
            )

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(setting.name for setting in self.settings)

    def register(self, register: Callable[..., None]) -> None:
        """Hand each setting to a `register_settings` callback."""
        for s in self.settings:
            register(f"{self.name}.{s.name}", s.check, s.rule, default=s.default, example=s.example)

    def check(self, name: str, value: object) -> Any:
        """One setting's value, checked and blamed on its key (`plugins.unify.timeout is ...`)."""
        return self._setting(name).check(f"{self.name}.{name}", value)

    def default(self, name: str) -> Any:
        return plain(self._setting(name).default)

    def read(self, table: Mapping[str, Any] | None) -> dict[str, Any]:
        """The table as its owner uses it: every value checked, the defaults of the keys not given filled in
        (a key without a default is left out); a key the owner does not read is refused, naming those it
        does. A value of None (from code) counts as not given."""
        if table is not None and not isinstance(table, Mapping):
            raise InvalidType(f"{self.name} is a table, not {describe(table)}")
        given = {key: value for key, value in (table or {}).items() if value is not None}
        for key in given:
            self._setting(key)
        found = {s.name: plain(s.default) for s in self.settings if s.default is not MISSING}
        found.update({key: self.check(key, value) for key, value in given.items()})
        return found

    def _setting(self, name: object) -> Setting:
        for s in self.settings:
            if s.name == name:
                return s
        close = difflib.get_close_matches(str(name), self.names, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise InvalidValue(
            f"{self.name}.{name}: no such setting{hint}; [{self.name}] has {', '.join(self.names)}"
        )
