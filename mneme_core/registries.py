"""What plugins register: one `Registry` per `register_*` family, and the checks each entry passes.

A `register_*` hook hands each plugin its own `register` callback; what the plugin passes is checked here
(`MAKERS`), turned into the entry the core uses, and added under its name. A second entry of a name is
refused, naming both plugins; `owner(name)` says who registered what. The families:

    adapters    register(factory, name=None)      a class or factory(settings) -> Adapter
    providers   register(factory, name=None)      a class or factory(settings) -> provider
    embedders   register(embedder, name=None)     a meaning.Embeddings, or a factory of none returning one
    tiers       register(factory, name=None)      factory(mneme) -> a meaning tier (see meaning.fallthrough)
    emotions    register(emotion)                 a mneme_core.mood.Emotion
    roles       register(role)                    a mneme_core.relations.Role
    tools       register(function, name=None, description=None)   a mneme_core.tools.Tool
    migrations  register(name, apply)             SQL or a function of a connection -> store Migration,
                                                  named `<plugin>:<name>`; SQL given as
                                                  `Dialects(sqlite, postgres)` has its PostgreSQL form
    settings    register(key, check, rule, default=MISSING, example=MISSING)
                                                  a key of the plugin's own table -> config Key (its check
                                                  after the checks every such key passes; see
                                                  config.declared for the `Table` that registers them)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Generic, TypeVar

from . import tools
from .config import keys as config_keys
from .config.keys import MISSING, Key
from .errors import InvalidType, InvalidValue, MnemeError
from .errors import describe as short
from .mood.feelings import Emotion
from .relations import Role
from .store import schema
from .store.schema import Migration
from .tools import Tool

__all__ = ["FAMILIES", "MAKERS", "PluginError", "Registry"]

FAMILIES = (
    "adapters",
    "providers",
    "embedders",
    "tiers",
    "emotions",
    "roles",
    "tools",
    "migrations",
    "settings",
)
NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")
MIGRATION_NAME = re.compile(r"[A-Za-z0-9_.-]{1,80}")

T = TypeVar("T")


class PluginError(MnemeError, RuntimeError):
    """A plugin that cannot be used as it is; the message names the plugin (and its distribution)."""


class Registry(Mapping[str, T], Generic[T]):
    """One family's entries by name, in registration order, and which plugin registered each."""

    def __init__(self, family: str) -> None:
        self.family = family
        self._entries: dict[str, T] = {}
        self._owners: dict[str, str] = {}

    def __getitem__(self, name: str) -> T:
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(self._entries) or "none"
            raise KeyError(f"no {self.family[:-1]} named {name!r} is registered (known: {known})") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.family}: {', '.join(self._entries)})"

    def owner(self, name: str) -> str:
        """The plugin that registered `name`."""
        return self._owners[name]

    def add(self, plugin: str, name: str, value: T) -> None:
        if name in self._entries:
            raise PluginError(
                f"the {self.family[:-1]} {name!r} is registered twice: by plugin {self._owners[name]} and "
                f"by plugin {plugin}; leave one of them out (MNEME_LOAD_PLUGINS)"
            )
        self._entries[name] = value
        self._owners[name] = plugin


def _factory(kind: str) -> Callable[..., tuple[str, Any]]:
    def make(plugin: str, factory: Any, name: str | None = None) -> tuple[str, Any]:
        if not callable(factory):
            raise InvalidType(f"{kind} is registered as a class or a factory, not {short(factory)}")
        name = getattr(factory, "name", None) if name is None else name
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise InvalidValue(
                f"{kind}'s name is a lowercase word of up to 40 letters, digits, _ or -, like 'discord' "
                f"(give name=... or a `name` attribute), not {short(name)}"
            )
        return name, factory

    return make


def _embedder(plugin: str, embedder: Any, name: str | None = None) -> tuple[str, Any]:
    if not callable(embedder) and not callable(getattr(embedder, "embed", None)):
        raise InvalidType(f"an embedder is an Embeddings or a factory of one, not {short(embedder)}")
    name = getattr(embedder, "name", None) if name is None else name
    if not isinstance(name, str) or not name.strip() or "\n" in name or len(name) > 200:
        raise InvalidValue(f"an embedder's name is one line, like 'local' (give name=...), not {short(name)}")
    return name.strip(), embedder


BUILT_IN_TIERS = frozenset({"embeddings", "words"})


def _tier(plugin: str, factory: Any, name: str | None = None) -> tuple[str, Any]:
    """A tier's factory, `factory(mneme) -> tier or None`, under a name the built-in tiers do not have."""
    name, factory = _factory("a tier")(plugin, factory, name)
    if name in BUILT_IN_TIERS:
        raise InvalidValue(f"a tier's name is its own, not {name!r} (built in: embeddings, words)")
    return name, factory


def _emotion(plugin: str, emotion: Any) -> tuple[str, Emotion]:
    if not isinstance(emotion, Emotion):
        raise InvalidType(f"a feeling is registered as a mneme_core.mood.Emotion, not {short(emotion)}")
    return emotion.key, emotion


def _role(plugin: str, role: Any) -> tuple[str, Role]:
    if not isinstance(role, Role):
        raise InvalidType(f"a role is registered as a mneme_core.relations.Role, not {short(role)}")
    return role.key, role


def _tool(
    plugin: str, function: Any, name: str | None = None, description: str | None = None
) -> tuple[str, Tool]:
    """A plain function as a tool, checked as `mneme_core.tools` checks any: its name and docstring's first
    line by default, its parameters from its signature."""
    tool = tools.Registry().register_function(function, name, description, plugin=plugin)
    return tool.name, tool


def _migration(plugin: str, name: Any, apply: Any) -> tuple[str, Migration]:
    if not isinstance(name, str) or not MIGRATION_NAME.fullmatch(name):
        raise InvalidValue(f"a migration's name is like '0001_weather', not {short(name)}")
    postgres = getattr(apply, "postgres", None)  # `Dialects(sqlite_sql, postgres_sql)`
    if isinstance(apply, str):
        if not schema.statements(apply):
            raise InvalidValue(f"the migration {name} has no SQL in it")
        apply = schema.sql_step(apply)
    elif not callable(apply):
        raise InvalidType(f"a migration is SQL or a function of a connection, not {short(apply)}")
    full = f"{plugin}:{name}"
    return full, Migration(full, apply, postgres)


def _setting(
    plugin: str, key: Any, check: Any, rule: Any, default: Any = MISSING, example: Any = MISSING
) -> tuple[str, Key]:
    """A setting of an adapter's or plugin's own table, as `config.keys.declare` checks a declaration."""
    made = config_keys.declare(key, check, rule, default, example)
    return made.name, made


MAKERS: dict[str, Callable[..., tuple[str, Any]]] = {
    "adapters": _factory("an adapter"),
    "providers": _factory("a provider"),
    "embedders": _embedder,
    "tiers": _tier,
    "emotions": _emotion,
    "roles": _role,
    "tools": _tool,
    "migrations": _migration,
    "settings": _setting,
}
