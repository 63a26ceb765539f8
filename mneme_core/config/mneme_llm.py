"""A mneme-llm 0.1.0 config, read as Mneme's: each key with an equivalent mapped, each without one named.

mneme-llm keeps the same sections (`[companion] [memory] [mood] [relations] [[roles]] [[emotions]]
[prompts] [messages.<lang>]`) and most of the same keys, so a switching user's file is mostly Mneme's
already. What differs:

- prompts name the companion `{assistant}` where Mneme says `{name}`, and the language `{language}` where
  Mneme says `{lang}`; those are renamed. Prompts whose reply format or placeholders work differently here
  (`note_writer` with its `{known}` and `{gloss}`, `gloss` asking for a JSON list, `note_gloss`, `frame`)
  have no equivalent and are named, so the user can reword Mneme's own (`mneme config show prompts`).
- sentences (`[messages.<lang>]`) partly have other names (`near.close` is `relation.close`, `tool.quota`
  is `tool.over_quota`, `error.value` is `tool.error` with `{problem}` for `{detail}`), partly live
  elsewhere (`role.<key>` and `emotion.<key>` are the `names` of that role or feeling), and partly have no
  equivalent (dates are built in here; the mood line is built from other pieces).
- `memory.semantic_window` has no equivalent: Mneme looks for meaning among all of a person's vectors.

A file is read this way only when Mneme's own reading refuses it and every key it refuses is one of
mneme-llm's, at least one of them unmistakably so (a key Mneme does not have, or a placeholder only
mneme-llm uses). Mapped values are then checked by Mneme's rules like any other: a value wrong in both
programs still refuses the file, naming the key.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidType, InvalidValue
from . import keys

__all__ = ["Translated", "chosen", "export_rows", "speaks_mneme_llm", "translate"]

log = logging.getLogger(__name__)

_SAME = frozenset(
    {
        "companion.name",
        "companion.display_language",
        "companion.memory_language",
        "companion.zone",
        "memory.half_life_days",
        "memory.daily_quota",
        "memory.max_notes",
        "relations.growth",
        "relations.fade_days",
        "roles",
        "emotions",
        "prompts.judge",
        "prompts.mood_change",
        "prompts.feeling",
        "prompts.worth",
        "prompts.reflect",
        *(f"mood.{name}" for name in keys.MOOD_RULES),
    }
)

# mneme-llm's placeholder -> Mneme's, per prompt that has an equivalent under another placeholder name.
_RENAMED_PROMPTS: dict[str, dict[str, str]] = {
    "prompts.started_user": {"assistant": "name"},
    "prompts.started_speak_up": {"assistant": "name"},
    "prompts.started_duty": {"assistant": "name"},
    "prompts.translate": {"language": "lang"},
}

_NO_EQUIVALENT = {
    "memory.semantic_window": "Mneme looks for meaning among all of a person's vectors, with no window",
    "prompts.frame": "Mneme opens an exchange with the started_* line alone (prompts.started_user ...)",
    "prompts.note_gloss": "Mneme's note writer writes no glosses; the unify tier does (prompts.gloss)",
    "prompts.note_writer": "Mneme gives the writer what is known in the user message, not as {known} or "
    "{gloss}; reword Mneme's own (mneme config show prompts.note_writer)",
    "prompts.gloss": "Mneme asks for numbered lines, not a JSON list; reword Mneme's own "
    "(mneme config show prompts.gloss)",
}

# mneme-llm's sentence -> Mneme's, with placeholders renamed where they differ.
_SENTENCES: dict[str, tuple[str, dict[str, str]]] = {
    **{
        same: (same, {})
        for same in (
            "notes.header",
            "relation.line",
            "tool.kept",
            "tool.replaced",
            "tool.known",
            "tool.recalled",
            "tool.nothing",
            *(f"cue.{k}" for k in ("happy", "calm", "sweet", "tender", "worried", "sad", "jealous", "other")),
            *(f"face.{k}" for k in ("great", "good", "ok", "worry", "sad")),
        )
    },
    "mood.line": ("mood.describe", {}),
    "mood.separator": ("mood.comma", {}),
    "mood.reason": ("mood.said", {}),
    "mood.reason_reached": ("mood.reached_out", {}),
    "near.very_close": ("relation.very_close", {}),
    "near.close": ("relation.close", {}),
    "near.friendly": ("relation.friendly", {}),
    "near.distant": ("relation.not_close", {}),
    "near.stranger": ("relation.barely", {}),
    "tool.quota": ("tool.over_quota", {}),
    "tool.no_such": ("tool.no_such_note", {}),
    "tool.forgot_one": ("tool.forgot", {}),
    "error.value": ("tool.error", {"detail": "problem"}),
}
# mneme-llm's sentence that Mneme says with one more placeholder, and where it goes.
_APPENDED = {"notes.impression": "{card}"}
_MOOD_PIECES = "Mneme builds the mood line from mood.now, mood.now_feeling, mood.why and mood.news; set those"
_TOOL_ERRORS = (
    "Mneme's tool errors are tool.error around tool.no_subject, tool.bad_json, tool.not_object, "
    "tool.unknown and tool.forget_which; set those"
)
_SENTENCES_WITHOUT = {
    **{
        f"date.{k}": "Mneme's dates are built in (English and Chinese)"
        for k in ("today", "yesterday", "days", "last_year", "tomorrow", "after", "in_days", "next_year")
    },
    **{f"mood.{k}": _MOOD_PIECES for k in ("feelings", "now", "now_cue", "news", "news_cue")},
    **{f"error.{k}": _TOOL_ERRORS for k in ("subject", "json", "arguments", "tool", "forget")},
    "tool.forgot_many": "Mneme forgets one note at a time (tool.forgot)",
    "reflect.language": "the reflect prompt's {lang} is the memory language here",
}
_NAMED = {"role": "roles", "emotion": "emotions"}  # sentences that are the names of a role or a feeling

# Placeholders only mneme-llm's prompts and sentences use: a value with one of them speaks mneme-llm.
_THEIR_PLACEHOLDERS = frozenset({"assistant", "language", "known", "gloss", "started", "detail", "mood"})
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Translated:
    """A mneme-llm config as Mneme's flat keys (not checked yet), and each key left out with why."""

    values: dict[str, Any] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)


def _sentence(key: str) -> tuple[str, str] | None:
    """(language, sentence) of a `messages.<lang>.<sentence>` key, else None."""
    section, _, rest = key.partition(".")
    lang, _, sentence = rest.partition(".")
    return (lang, sentence) if section == "messages" and lang and sentence else None


def is_theirs(key: str) -> bool:
    """Whether mneme-llm 0.1.0 has this key."""
    if key in _SAME or key in _RENAMED_PROMPTS or key in _NO_EQUIVALENT:
        return True
    found = _sentence(key)
    if found is None:
        return False
    sentence = found[1]
    family = sentence.partition(".")[0]
    return any(sentence in known for known in (_SENTENCES, _APPENDED, _SENTENCES_WITHOUT)) or family in _NAMED


def _known_here(key: str) -> bool:
    try:
        keys.lookup(key)
    except (InvalidValue, InvalidType):
        return False
    return True


def speaks_mneme_llm(flat: Mapping[str, Any], refused: Mapping[str, str]) -> bool:
    """Whether a config Mneme refused is mneme-llm's: every refused key is one of mneme-llm's, and one at
    least is unmistakably so (Mneme has no such key, or it uses a placeholder only mneme-llm has)."""
    if not refused or not all(key in flat and is_theirs(key) for key in refused):
        return False
    for key in refused:
        value = flat[key]
        placeholders = set(_PLACEHOLDER.findall(value)) if isinstance(value, str) else set()
        if not _known_here(key) or placeholders & _THEIR_PLACEHOLDERS:
            return True
    return False


def _renamed(value: Any, names: Mapping[str, str]) -> Any:
    if not isinstance(value, str) or not names:
        return value
    return _PLACEHOLDER.sub(lambda m: "{" + names.get(m.group(1), m.group(1)) + "}", value)


def translate(flat: Mapping[str, Any], base: Mapping[str, Any] | None = None) -> Translated:
    """Mneme's keys for a mneme-llm config's flat keys; keys mneme-llm does not have are kept as they are.

    `base` holds the values the roles and feelings start from when a sentence names one of them and the
    config gives no list of its own (the built-in defaults when not given)."""
    values: dict[str, Any] = {}
    left_out: dict[str, str] = {}
    named: list[tuple[str, str, str, Any]] = []
    for key, value in flat.items():
        if key in _NO_EQUIVALENT:
            left_out[key] = _NO_EQUIVALENT[key]
        elif key in _RENAMED_PROMPTS:
            values[key] = _renamed(value, _RENAMED_PROMPTS[key])
        elif key in _SAME or not is_theirs(key):
            values[key] = value
        else:
            lang, sentence = _sentence(key)  # type: ignore[misc]
            family, _, owner = sentence.partition(".")
            if sentence in _SENTENCES:
                ours, names = _SENTENCES[sentence]
                values[f"messages.{lang}.{ours}"] = _renamed(value, names)
            elif sentence in _APPENDED:
                values[key] = value + _APPENDED[sentence] if isinstance(value, str) else value
            elif sentence in _SENTENCES_WITHOUT:
                left_out[key] = _SENTENCES_WITHOUT[sentence]
            else:
                named.append((key, _NAMED[family], owner, (lang, value)))
    for key, listing, owner, (lang, label) in named:
        _name_in(values, base, key, listing, owner, lang, label, left_out)
    return Translated(values, left_out)


def _name_in(
    values: dict[str, Any],
    base: Mapping[str, Any] | None,
    key: str,
    listing: str,
    owner: str,
    lang: str,
    label: Any,
    left_out: dict[str, str],
) -> None:
    """Put a `role.<key>` or `emotion.<key>` sentence into that role's or feeling's `names`."""
    start = values.get(listing)
    if start is None:
        start = (base if base is not None else keys.defaults())[listing]
    tables = [dict(table) if isinstance(table, Mapping) else table for table in start]
    for table in tables:
        if isinstance(table, dict) and table.get("key") == owner:
            table["names"] = {**dict(table.get("names") or {}), lang: label}
            values[listing] = tables
            return
    left_out[key] = f"there is no {listing[:-1]} {owner!r} in {listing} to name"


def chosen(rows: Iterable[Mapping[str, Any]]) -> Translated:
    """The config rows mneme-llm stored or exported (`{key, value, origin}`), as Mneme's: the keys the
    companion chose (origin file, set or import; mneme-llm's own defaults are left to Mneme's), mapped."""
    picked = {
        row["key"]: row["value"]
        for row in rows
        if isinstance(row, Mapping)
        and isinstance(row.get("key"), str)
        and "value" in row
        and row.get("origin") != "default"
    }
    return translate(picked)


def export_rows(data: Mapping[str, Any]) -> Any:
    """An export's config rows as Mneme's `import_rows` takes them: a mneme-llm export's mapped (each key
    without an equivalent logged), any other's as they are."""
    rows = data.get("config") or []
    if "mneme_llm" not in data or not isinstance(rows, list):
        return rows
    translated = chosen(rows)
    for key, why in translated.left_out.items():
        log.warning("the export's config %s is left out: %s", key, why)
    return [{"key": key, "value": value} for key, value in translated.values.items()]
