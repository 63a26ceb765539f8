"""Typed views of a config: the values the engine's parts are built with.

Each view takes the flat values in effect (defaults, under the database's copy) and gives what one part
needs: `Settings` for the facade and memory, `MoodSettings`, the roles, the feelings, the prompts, and the
companion's own sentences for `Words`. Arguments given to `Mneme(...)` win in `settings_of` and are checked
like the keys they stand for, but named as the arguments were.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import tzinfo
from typing import Any

from .. import dates
from ..errors import InvalidType
from ..mood.feelings import Emotion
from ..mood.settings import MoodSettings
from ..relations import RelationSettings, Role
from . import keys


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Who the companion is and how its memory behaves."""

    companion_name: str = "the assistant"
    display_language: str = "en"
    memory_language: str = "English"
    zone: tzinfo | None = None
    half_life_days: float = 30.0
    daily_quota: int = 8
    max_notes: int = 50_000
    durability: str = "normal"


def arguments(overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """The overrides that were given (not None), each checked like the key it stands for but named as the
    argument was; a zone as a `tzinfo`. Needs no database, so `Mneme(...)` can refuse a bad argument before
    it opens the file."""
    given: dict[str, Any] = {}
    for field, value in (overrides or {}).items():
        if value is None:
            continue
        if field not in keys.ARGUMENTS:
            raise InvalidType(f"Mneme() got an unexpected setting {field!r}")
        if field == "zone" and isinstance(value, tzinfo):
            given[field] = value
        elif field == "zone":
            given[field] = dates.zone_of(keys.lookup(keys.ARGUMENTS[field]).check(field, value))
        else:
            given[field] = keys.lookup(keys.ARGUMENTS[field]).check(field, value)
    return given


def settings_of(values: Mapping[str, Any], overrides: Mapping[str, Any] | None = None) -> Settings:
    """The `Settings` the values give, with the overrides that are not None over them."""
    chosen: dict[str, Any] = {field: values[key] for field, key in keys.ARGUMENTS.items()}
    chosen["zone"] = dates.zone_of(chosen["zone"])
    chosen.update(arguments(overrides))
    return replace(Settings(), **chosen)


def mood_settings(values: Mapping[str, Any]) -> MoodSettings:
    return keys.mood_settings(values)


def roles(values: Mapping[str, Any]) -> tuple[Role, ...]:
    return tuple(Role(**table) for table in values["roles"])


def relation_settings(values: Mapping[str, Any], zone: tzinfo | None = None) -> RelationSettings:
    return RelationSettings(
        roles=roles(values),
        growth=values["relations.growth"],
        fade_days=values["relations.fade_days"],
        zone=zone,
    )


def emotions(values: Mapping[str, Any]) -> tuple[Emotion, ...]:
    return tuple(Emotion(**table) for table in values["emotions"])


def prompts(values: Mapping[str, Any]) -> dict[str, str]:
    return {key.partition(".")[2]: value for key, value in values.items() if key.startswith("prompts.")}


def messages(values: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """Sentences by language, as `Words(language, own=...)` takes them."""
    found: dict[str, dict[str, str]] = {}
    for key, value in values.items():
        if key.startswith("messages."):
            _, lang, sentence = key.split(".", 2)
            found.setdefault(lang, {})[sentence] = value
    return found


def table(values: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """The settings under `adapters.<name>` or `plugins.<name>`, by their own keys."""
    start = prefix + "."
    return {key[len(start) :]: value for key, value in values.items() if key.startswith(start)}


@dataclass(frozen=True)
class Snapshot:
    """The values in effect at one read, with every typed view of them: one read for a whole start-up."""

    values: Mapping[str, Any]

    def settings(self, overrides: Mapping[str, Any] | None = None) -> Settings:
        return settings_of(self.values, overrides)

    def mood_settings(self) -> MoodSettings:
        return mood_settings(self.values)

    def relation_settings(self, zone: tzinfo | None = None) -> RelationSettings:
        return relation_settings(self.values, zone)

    def roles(self) -> tuple[Role, ...]:
        return roles(self.values)

    def emotions(self) -> tuple[Emotion, ...]:
        return emotions(self.values)

    def prompts(self) -> dict[str, str]:
        return prompts(self.values)

    def messages(self) -> dict[str, dict[str, str]]:
        return messages(self.values)

    def table(self, prefix: str) -> dict[str, Any]:
        return table(self.values, prefix)

    def embedder(self) -> str:
        """The name of the embedder `memory.embed` chooses; "" for words only."""
        return str(self.values["memory.embed"])
