"""Every config key: its built-in default, its check and, for the template, what it allows.

Keys are flat and dotted, one per setting: `companion.name`, `mood.step`, `prompts.reflect`,
`messages.zh.notes.header`, `adapters.discord.token`; `roles` and `emotions` are whole lists. The families:

    companion.*, memory.*, storage.*, relations.*, bot.*, conversation.*, check.*, lifecycle.*,
    journal.*       fixed keys, listed in `KEYS`
    mood.*          one per field of `MoodSettings` except `emotions`, its default and checks taken from it
    roles, emotions lists of tables; a list given replaces the built-in one whole
    prompts.<name>  one per default prompt; each may use only its own placeholders (`prompts.PLACEHOLDERS`)
    messages.<lang>.<key>
                    a sentence shown to people, for any language code; a key must be one Mneme shows, and
                    may use only the placeholders its built-in sentences use. Only `en` and `zh` (the
                    languages of `messages.MESSAGES`) have defaults.
    adapters.<name>.<key>, plugins.<name>.<key>
                    free-form settings kept for their owners, any TOML value but dates; secrets by
                    reference only (`secrets.py`)

`lookup(key)` gives the `Key` of any allowed key, or refuses it naming what is allowed; given the keys
installed adapters and plugins declared (`declare`, through `register_settings`), a table one of them owns
holds only its declared keys, each checked by its owner's check. `CROSS` holds the
checks that look at several keys at once (the mood's floor <= baseline <= ceiling).
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from datetime import date, time
from typing import Any

from .. import dates
from ..errors import InvalidType, InvalidValue, MnemeError, describe
from ..messages import MESSAGES, PLACEHOLDER
from ..mood.feelings import EMOTIONS, Emotion
from ..mood.settings import MoodSettings
from ..prompts import PLACEHOLDERS, PROMPTS
from ..relations import ROLES, RelationSettings, Role
from . import checks, secrets
from .checks import Check

__all__ = [
    "ARGUMENTS",
    "CROSS",
    "KEYS",
    "MISSING",
    "SECTIONS",
    "ConfigError",
    "Declared",
    "Key",
    "declare",
    "defaults",
    "lookup",
    "parse",
]


class ConfigError(InvalidValue):
    """A config (a file, a mapping, one key) that is refused; `problems` maps each bad key to its message."""

    def __init__(self, message: str, problems: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.problems: dict[str, str] = dict(problems or {})


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""The default of a key that has none built in (a sentence in another language, an adapter's setting)."""


@dataclass(frozen=True)
class Key:
    """One setting: its name, built-in default, check, and a line saying what it allows."""

    name: str
    default: Any
    check: Check
    rule: str
    text: bool = False
    """On the command line, the value is the text itself rather than a TOML value."""
    example: Any = MISSING
    """For a setting without a default: a value the template shows (an adapter's or plugin's own keys)."""


SECTIONS = (
    "companion",
    "memory",
    "storage",
    "bot",
    "conversation",
    "check",
    "lifecycle",
    "journal",
    "mood",
    "relations",
    "roles",
    "emotions",
    "prompts",
    "messages",
    "adapters",
    "plugins",
)
LISTS = ("roles", "emotions")
FREE = ("adapters", "plugins")
NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")

PROMPT_LIMIT = 20_000
MESSAGE_LIMIT = 2_000


def _fixed() -> list[Key]:
    return [
        Key("companion.name", "the assistant", checks.text(80), "the companion's name, one line", text=True),
        Key(
            "companion.display_language",
            "en",
            checks.language,
            "the language of every sentence it shows: a code like en, zh or zh-TW",
            text=True,
        ),
        Key(
            "companion.memory_language",
            "English",
            checks.text(40, empty=True),
            'the language notes are glossed in for recall across languages; "" turns that off',
            text=True,
        ),
        Key(
            "companion.persona",
            "",
            checks.text(PROMPT_LIMIT, lines=True, empty=True),
            "who the companion is: the start of every system prompt a bot run by `mneme run` builds",
            text=True,
        ),
        Key(
            "companion.zone",
            "",
            checks.zone,
            'its time zone: "" for the machine\'s, "UTC+8", or an IANA name like "Asia/Shanghai"',
            text=True,
        ),
        Key(
            "memory.half_life_days",
            30.0,
            checks.number(0.01, 36_500),
            "days after which a note counts half as fresh in recall (0.01 to 36500)",
        ),
        Key(
            "memory.daily_quota",
            8,
            checks.number(0, 10_000, whole=True),
            "notes a model may write about one person per day (0 to 10000)",
        ),
        Key(
            "memory.max_notes",
            50_000,
            checks.number(10, 10_000_000, whole=True),
            "live notes kept per person; the least worth keeping go first (10 to 10000000)",
        ),
        Key(
            "memory.embed",
            "",
            checks.embedder,
            'the embedder that finds notes by meaning: "" (words only), "local", "openai:<model>@<dims>"',
            text=True,
        ),
        Key(
            "bot.groups",
            "addressed",
            checks.choice("addressed", "all"),
            "in a group, answer only when addressed, or all messages",
            text=True,
        ),
        Key(
            "bot.prompt_timeout",
            5.0,
            checks.number(0.1, 600),
            "seconds a reply waits for the memory block; past it the reply goes without it (0.1 to 600)",
        ),
        Key(
            "bot.model_timeout",
            120.0,
            checks.number(1, 3600),
            "seconds a reply waits for the model before the failure sentence is sent (1 to 3600)",
        ),
        Key(
            "bot.observe_timeout",
            120.0,
            checks.number(1, 3600),
            "seconds one observe may take; past it the exchange is kept and tried again later (1 to 3600)",
        ),
        Key(
            "bot.observe_tries",
            5,
            checks.number(1, 100, whole=True),
            "times an exchange is observed before it is given up (1 to 100)",
        ),
        Key(
            "conversation.lines",
            20,
            checks.number(0, 1000, whole=True),
            "earlier lines of the conversation the model is given with each message (0 to 1000)",
        ),
        Key(
            "conversation.chars",
            4000,
            checks.number(0, 200_000, whole=True),
            "characters those earlier lines may take at most (0 to 200000)",
        ),
        Key(
            "conversation.context_lines",
            50,
            checks.number(1, 100_000, whole=True),
            "lines said in a group without addressing the companion kept per group as context",
        ),
        Key(
            "check.schedule",
            "04:00",
            checks.schedule,
            "when a bot runs the health check of the notes (`mneme check`): " + dates.SCHEDULE_RULE,
            text=True,
        ),
        Key(
            "check.fix",
            True,
            checks.boolean,
            "whether that check applies the fixes at or above check.confidence (each can be undone)",
        ),
        Key(
            "check.confidence",
            0.95,
            checks.number(0, 1),
            "how sure a finding must be for the scheduled check to fix it (0 to 1)",
        ),
        Key(
            "check.budget",
            50,
            checks.number(0, 10_000, whole=True),
            "model calls the scheduled check may make per run; the earlier phases go first (0 to 10000)",
        ),
        Key(
            "storage.database",
            "",
            checks.database,
            "where the memory is kept when no path is given to Mneme or --db: a SQLite file's path, or a "
            "postgresql:// URL (with a password, by reference only)",
            text=True,
        ),
        Key(
            "storage.durability",
            "normal",
            checks.choice("normal", "full"),
            "normal, or full to fsync every write so a power loss cannot lose the last ones",
            text=True,
        ),
    ]


MOOD_RULES = {
    "baseline": "where the mood rests and returns to (floor to ceiling)",
    "floor": "the lowest the mood goes (0 to 100)",
    "ceiling": "the highest the mood goes (0 to 100)",
    "mood_half_life_h": "hours for the mood to come halfway back to the baseline (0.01 to 8760)",
    "emotion_half_life_min": "minutes for a feeling to fade by half (0.01 to 525600)",
    "step": "how far one exchange moves the mood per level, -2 to +2 (0 to 50)",
    "gain": "how far one exchange bumps a feeling at full certainty (0 to 100)",
    "threshold": "how sure a judge must be for a change to be told (0 to 1)",
    "thresholds": "the same per judge, like { luna = 0.45 }",
    "tell": "event tells the mood and what moved it, mood the mood only, off nothing",
    "weights": "how much each source moves the mood (0 to 10; 1 for a source not listed)",
    "skip": "sources that never move the mood",
}
BAND = ("floor", "baseline", "ceiling")


def _settings_check(kind: type, field: str) -> Check:
    """A field checked by its settings class itself (`MoodSettings`, `RelationSettings`), so each range is
    written in one place."""

    def check(name: str, value: object) -> Any:
        try:
            made = kind(**{field: value})
        except InvalidType as err:
            raise InvalidType(_blame(name, field, err)) from err
        except (InvalidValue, ValueError, TypeError) as err:
            raise InvalidValue(_blame(name, field, err)) from err
        return checks.plain(getattr(made, field))

    return check


def _mood_check(field: str) -> Check:
    if field in BAND:  # floor <= baseline <= ceiling is checked across the three by CROSS
        return checks.number(0, 100)
    return _settings_check(MoodSettings, field)


def _blame(name: str, field: str, err: Exception) -> str:
    """A settings class names the field ("step is a number..."); the config names the key."""
    message = str(err)
    return name + message[len(field) :] if message.startswith(field) else f"{name}: {message}"


def _mood() -> list[Key]:
    made = MoodSettings()
    return [
        Key(
            f"mood.{f.name}",
            checks.plain(getattr(made, f.name)),
            _mood_check(f.name),
            MOOD_RULES.get(f.name, ""),
        )
        for f in fields(MoodSettings)
        if f.name != "emotions"
    ]


ROLE_FIELDS: dict[str, Check] = {
    "key": checks.key_word,
    "floor": checks.number(0, 100),
    "ceiling": checks.number(0, 100),
    "start": checks.number(0, 100),
    "fades": checks.boolean,
    "unique": checks.boolean,
    "names": checks.labels,
}
EMOTION_FIELDS: dict[str, Check] = {"key": checks.key_word, "lowers": checks.boolean, "names": checks.labels}


def _lists() -> list[Key]:
    return [
        Key(
            "relations.growth",
            RelationSettings().growth,
            _settings_check(RelationSettings, "growth"),
            "closeness gained on each day the person talks to the companion, up to the role's ceiling",
        ),
        Key(
            "relations.fade_days",
            RelationSettings().fade_days,
            _settings_check(RelationSettings, "fade_days"),
            "days without the person that cost one point of closeness, down to the role's floor",
        ),
        Key(
            "roles",
            [checks.plain({k: getattr(role, k) for k in ROLE_FIELDS}) for role in ROLES],
            checks.table_list("role", ROLE_FIELDS, Role),
            "who people are to the companion, 0 <= floor <= start <= ceiling <= 100; a list replaces these",
        ),
        Key(
            "emotions",
            [checks.plain({k: getattr(e, k) for k in EMOTION_FIELDS}) for e in EMOTIONS],
            checks.table_list("feeling", EMOTION_FIELDS, Emotion),
            "the feelings a mood carries; lowers: whether it may lower the mood; a list replaces these",
        ),
    ]


def _prompts() -> list[Key]:
    prompt = checks.text(PROMPT_LIMIT, lines=True)
    found = []
    for name, default in PROMPTS.items():
        allowed = PLACEHOLDERS.get(name, frozenset())
        offered = ", ".join(f"{{{p}}}" for p in sorted(allowed))
        uses = f"may use {offered}" if offered else "uses no placeholders"
        found.append(Key(f"prompts.{name}", default, checks.placeholders(allowed, prompt), uses, text=True))
    return found


def _sentence_placeholders() -> dict[str, frozenset[str]]:
    """Each sentence's placeholders: those its built-in versions use, in any language."""
    found: dict[str, set[str]] = {}
    for table in MESSAGES.values():
        for key, sentence in table.items():
            found.setdefault(key, set()).update(PLACEHOLDER.findall(sentence))
    return {key: frozenset(names) for key, names in found.items()}


SENTENCES = _sentence_placeholders()
_SENTENCE_TEXT = checks.text(MESSAGE_LIMIT, lines=True, empty=True)


def _message(lang: str, key: str) -> Key:
    default = MESSAGES.get(lang, {}).get(key, MISSING)
    check = checks.placeholders(SENTENCES[key], _SENTENCE_TEXT)
    return Key(f"messages.{lang}.{key}", default, check, "", text=True)


def _messages() -> list[Key]:
    return [_message(lang, key) for lang, table in MESSAGES.items() for key in table]


def _lifecycle() -> list[Key]:
    """The lifecycle of notes and the journal (`memory.lifecycle`, `mneme_core.tending`, `journal`)."""
    return [
        Key(
            "lifecycle.enabled",
            True,
            checks.boolean,
            "whether recall reinforces and links notes, links spread, and faded notes go into the archive",
        ),
        Key(
            "lifecycle.archive_below",
            0.05,
            checks.number(0, 1),
            "how faded (accessibility, 0 to 1) an episode, plan or reflection is when tending archives it",
        ),
        Key(
            "lifecycle.lesson_below",
            0.1,
            checks.number(0, 1),
            "how faded (0 to 1) an episode is when tending asks the model, once, what it taught",
        ),
        Key(
            "lifecycle.lessons",
            5,
            checks.number(0, 1000, whole=True),
            "lessons the model may be asked for per tending run (0 to 1000; 0: none)",
        ),
        Key(
            "lifecycle.spread",
            0.5,
            checks.number(0, 1),
            "the share of a strong match's evidence a link passes on to a note, times its weight (0 to 1)",
        ),
        Key(
            "lifecycle.hops",
            2,
            checks.number(0, 2, whole=True),
            "how many links away recall looks from a strong match (0 to 2)",
        ),
        Key(
            "lifecycle.link_half_life_days",
            90.0,
            checks.number(0.01, 36_500),
            "days for an unused link to fade to half its weight (0.01 to 36500)",
        ),
        Key(
            "lifecycle.batch",
            1000,
            checks.number(1, 1_000_000, whole=True),
            "notes archived and links dropped at most per tending run (1 to 1000000)",
        ),
        Key(
            "lifecycle.schedule",
            "03:30",
            checks.schedule,
            "when a bot tends its memory between conversations (`mneme tend`): " + dates.SCHEDULE_RULE,
            text=True,
        ),
        Key(
            "journal.daily",
            False,
            checks.boolean,
            "whether tending has the companion's model write one journal entry a day from the day's lines",
        ),
        Key(
            "journal.shown",
            0,
            checks.number(0, 50, whole=True),
            "the companion's newest journal entries shown in its own section of the prompt (0: none)",
        ),
    ]


KEYS: dict[str, Key] = {
    k.name: k for k in (*_fixed(), *_lifecycle(), *_mood(), *_lists(), *_prompts(), *_messages())
}
"""Every key that has a built-in default, in the template's order."""


def defaults() -> dict[str, Any]:
    """This version's defaults of every key that has one (fresh copies, safe to change)."""
    return {name: checks.plain(key.default) for name, key in KEYS.items()}


def _free(name: str, value: object) -> Any:
    """An adapter's or plugin's own setting: any TOML value but a date, no secret in the clear."""
    _no_dates(name, value)
    return secrets.check(name, checks.plain(value))


def _no_dates(name: str, value: object) -> None:
    if isinstance(value, date | time):
        raise InvalidValue(f"{name}: dates and times are not kept; write {describe(value)} as a string")
    if isinstance(value, Mapping):
        for k, v in value.items():
            _no_dates(f"{name}.{k}", v)
    elif isinstance(value, list | tuple):
        for v in value:
            _no_dates(name, v)


Declared = Mapping[str, Key]
"""The keys installed adapters and plugins declared for their own tables (`register_settings`), by key."""


def lookup(key: str, declared: Declared | None = None) -> Key:
    """The `Key` for any allowed key, or `ConfigError` naming the key and what is allowed there. A table some
    adapter or plugin declared (`declared`) holds only the keys it declared, each with its owner's check;
    any other table of `[adapters]` and `[plugins]` takes any setting."""
    if not isinstance(key, str):
        raise InvalidType(f"a config key is a string like 'mood.step', not {describe(key)}")
    if key in KEYS:
        return KEYS[key]
    section, _, rest = key.partition(".")
    if section == "messages":
        return _message_key(key, rest)
    if section in FREE:
        owner, _, setting = rest.partition(".")
        if NAME.fullmatch(owner) and NAME.fullmatch(setting):
            return _owned(key, f"{section}.{owner}", setting, declared or {})
        raise _refuse(key, f"{section} settings are {section}.<name>.<setting>, like {section}.discord.token")
    if section == "prompts":
        raise _refuse(key, f"no such prompt{_near(rest, PROMPTS)}; the prompts are {', '.join(PROMPTS)}")
    if section in LISTS:
        raise _refuse(key, f"{section} is one list of tables ([[{section}]]), set whole")
    if section in SECTIONS:
        known = [k.partition(".")[2] for k in KEYS if k.startswith(f"{section}.")]
        raise _refuse(key, f"no such key{_near(rest, known)}; [{section}] has {', '.join(known)}")
    raise _refuse(key, f"no such section{_near(section, SECTIONS)}; the sections are {', '.join(SECTIONS)}")


def _owned(key: str, table: str, setting: str, declared: Declared) -> Key:
    if key in declared:
        return declared[key]
    known = [k[len(table) + 1 :] for k in declared if k.startswith(table + ".")]
    if known:
        raise _refuse(key, f"no such setting{_near(setting, known)}; [{table}] has {', '.join(known)}")
    return Key(key, MISSING, _free, "", text=False)


def declare(key: object, check: object, rule: object, default: Any = MISSING, example: Any = MISSING) -> Key:
    """The `Key` of a setting an adapter or plugin reads (`register_settings`), or `InvalidValue` /
    `InvalidType` saying what is wrong with the declaration. Its check runs after what every setting of
    those tables passes (no dates, secrets by reference only), and must pass its default and example."""
    if not isinstance(key, str):
        raise InvalidType(f"a setting's key is a string like 'plugins.weather.city', not {describe(key)}")
    section, _, rest = key.partition(".")
    owner, _, setting = rest.partition(".")
    if section not in FREE or not NAME.fullmatch(owner) or not NAME.fullmatch(setting):
        raise InvalidValue(
            f"a setting's key is adapters.<name>.<setting> or plugins.<name>.<setting>, not {describe(key)}"
        )
    if not callable(check):
        raise InvalidType(f"{key}: its check is a function check(key, value) -> value, not {describe(check)}")
    if not isinstance(rule, str) or not rule.strip() or "\n" in rule or len(rule) > 300:
        raise InvalidValue(f"{key}: its rule is one line saying what it allows, not {describe(rule)}")
    if default is MISSING and example is MISSING:
        raise InvalidValue(f"{key}: give a default, or an example for the template")

    def owned(name: str, value: object) -> Any:
        return check(name, _free(name, value))

    for what, value in (("default", default), ("example", example)):
        if value is not MISSING:
            try:
                owned(key, value)
            except (InvalidValue, InvalidType) as err:
                raise InvalidValue(f"{key}: its {what} does not pass its own check: {err}") from err
    return Key(key, checks.plain(default), owned, rule.strip(), example=checks.plain(example))


def _message_key(key: str, rest: str) -> Key:
    lang, _, sentence = rest.partition(".")
    if not checks.LANGUAGE.fullmatch(lang):
        raise _refuse(key, f"{lang!r} is not a language code like 'en', 'zh' or 'zh-TW' ([messages.<lang>])")
    if sentence not in SENTENCES:
        raise _refuse(
            key,
            f"no such sentence{_near(sentence, SENTENCES)}; `mneme config show messages.en` lists them",
        )
    return _message(lang, sentence)


def _near(word: str, known: Any) -> str:
    close = difflib.get_close_matches(word, list(known), n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def _refuse(key: str, why: str) -> ConfigError:
    message = f"{key}: {why}"
    return ConfigError(message, {key: message})


def parse(key: str, raw: str) -> Any:
    """A value given on the command line: the text itself for a text key, else a TOML value
    (`0.5`, `true`, `["runtime", "time"]`, `{ luna = 0.45 }`, `{ "$env" = "DISCORD_TOKEN" }`).
    A free-form setting that is not a TOML value is taken as text."""
    found = lookup(key)
    if found.text:
        return raw
    try:
        return tomllib.loads(f"value = {raw}")["value"]
    except tomllib.TOMLDecodeError as err:
        if found.default is MISSING or key.partition(".")[0] in FREE:
            return raw
        raise ConfigError(f"{key}: {raw!r} is not a value ({found.rule})", {key: str(err)}) from err


# -- checks across keys ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cross:
    """A check of several keys together, run on the values a change would leave in effect."""

    keys: tuple[str, ...]
    check: Callable[[Mapping[str, Any]], None]


def _band(values: Mapping[str, Any]) -> None:
    floor, baseline, ceiling = (values[f"mood.{k}"] for k in BAND)
    if not floor <= baseline <= ceiling:
        raise InvalidValue(
            "mood.floor <= mood.baseline <= mood.ceiling must hold, not "
            f"{floor:g} <= {baseline:g} <= {ceiling:g}"
        )


MOOD_KEYS = tuple(k for k in KEYS if k.startswith("mood."))


def _mood_whole(values: Mapping[str, Any]) -> None:
    """Whatever else `MoodSettings` asks of its fields together."""
    try:
        mood_settings(values)
    except (MnemeError, ValueError, TypeError) as err:
        raise InvalidValue(f"mood: {err}") from err


def mood_settings(values: Mapping[str, Any]) -> MoodSettings:
    """The `MoodSettings` the values describe (the emotions list included)."""
    made = MoodSettings()
    own: dict[str, Any] = {}
    for key in MOOD_KEYS:
        field = key.partition(".")[2]
        default = getattr(made, field)
        value = values[key]
        own[field] = type(default)(value) if isinstance(default, frozenset | tuple) else value
    own["emotions"] = tuple(Emotion(**table) for table in values["emotions"])
    return MoodSettings(**own)


CROSS: tuple[Cross, ...] = (
    Cross(tuple(f"mood.{k}" for k in BAND), _band),
    Cross((*MOOD_KEYS, "emotions"), _mood_whole),
)


ARGUMENTS: dict[str, str] = {
    "companion_name": "companion.name",
    "display_language": "companion.display_language",
    "memory_language": "companion.memory_language",
    "zone": "companion.zone",
    "half_life_days": "memory.half_life_days",
    "daily_quota": "memory.daily_quota",
    "max_notes": "memory.max_notes",
    "durability": "storage.durability",
}
"""`Settings` fields (the names `Mneme(...)` takes them by) and the keys they override."""
