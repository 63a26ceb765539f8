"""A note: one sentence the companion remembers about a person, and the rules a new one must pass.

Glossary:
- kind: how a note ages. `fact` and `preference` are lasting and never fade; `episode`, `plan` and
  `reflection` fade (half-life 30 days by default), a plan from its own day on; a `lesson` is what a faded
  episode taught, written by the companion's model when tending (`mneme_core.tending`), and fades far more
  slowly (its stability starts at `lifecycle.LESSON_STABILITY`).
- strength, stability, accessibility: how well a note is stored, how well it holds against fading, and how
  easily it comes back now (computed on read), kept apart as Mnemos does (see `memory.lifecycle`).
- importance: 1 (trivial) to 5 (core). Importance 5 notes are pinned: they come first in every recall.
- key: what a note is about, never its value (`user.city`, `exam.math.date`). A newer note with the same key
  replaces the older one, which stays in the key's history.
- source: who wrote it. `auto` (a model, on its own) is limited by the daily quota; anything else is a
  person or the host and always lands.

Strict validation (`NoteFields.strict`) is for callers: a wrong value raises before anything is written,
naming the value and what is allowed. Lenient validation (`NoteFields.lenient`) is for imports and
model-written notes: a wrong field falls back to its default, and only a note without text is dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any

from .. import dates, text
from ..errors import InvalidType, InvalidValue, describe
from ..finite import finite

KINDS = ("fact", "preference", "episode", "plan", "reflection", "lesson")
LASTING = frozenset({"fact", "preference"})
DEFAULT_KIND = "episode"
TEXT_LIMIT = 500
KEY_LIMIT = 48
KEY_PATTERN = re.compile(r"[\w\u3400-\u9fff]+(?:\.[\w\u3400-\u9fff]+){0,3}")
KEY_START = re.compile(r"[\w\u3400-\u9fff]+(?:\.[\w\u3400-\u9fff]*){0,3}")  # the last part may be cut
KEY_RULE = (
    "a key names what the note is about, like 'user.city' or 'exam.math.date': letters, digits or _ in up to "
    f"4 parts joined by dots, at most {KEY_LIMIT} characters"
)
SOURCE_LIMIT = 40
MAX_COUNT = 2**31 - 1
MAX_ID = 2**63 - 1


@dataclass(frozen=True)
class Note:
    """One remembered sentence, as stored."""

    id: int
    subject: str
    text: str
    kind: str
    key: str | None
    importance: int
    feeling: float
    happened_at: float
    created_at: float
    recalls: int = 0
    source: str | None = None
    recalled_at: float | None = None
    superseded_by: int | None = None
    deleted_at: float | None = None
    gloss: str | None = None
    strength: float = 1.0  # how well it is stored: raised by each recall that chose it (`memory.lifecycle`)
    stability: float = 1.0  # how well it holds: its half-life is `half_life_days x stability`
    archived_at: float | None = None  # when it went quiet into the archive (`memory.archive`), if it did

    @property
    def lasting(self) -> bool:
        return self.kind in LASTING

    @property
    def live(self) -> bool:
        return self.deleted_at is None and self.superseded_by is None


# The columns a `Note` is read from, in `Note` field order after `subject`.
COLUMNS = (
    "id, text, kind, key, importance, feeling, happened_at, created_at, recalls, source, recalled_at, "
    "superseded_by, deleted_at, gloss, strength, stability, archived_at"
)


_FIELDS = tuple(field.name for field in fields(Note))
_new = object.__new__


def note_of(subject: str, row: tuple[Any, ...]) -> Note:
    """A `Note` from a row selected with `COLUMNS`: its fields set at once, as `Note(...)` would set them
    (a frozen dataclass's `__init__` sets each of its 18 fields through `object.__setattr__`: 6 µs a note,
    this 3.5; a prompt reads some 20 notes)."""
    note = _new(Note)
    note.__dict__.update(zip(_FIELDS, (row[0], subject, *row[1:]), strict=True))
    return note


def with_id(note: Note, note_id: int) -> Note:
    """`dataclasses.replace(note, id=note_id)` (a `Note` checks nothing when it is made): 12 µs -> 2, once for
    every note written, on the writer's thread."""
    made = _new(Note)
    made.__dict__.update(note.__dict__)
    made.__dict__["id"] = note_id
    return made


def subject_of(value: object) -> str:
    """A subject as given by a caller: a non-blank string, kept as it is apart from outer spaces."""
    if not isinstance(value, str):
        raise InvalidType(f"a subject must be a string like 'discord:42', not {type(value).__name__}")
    subject = value.strip()
    if not subject:
        raise InvalidValue("a subject must not be empty: give whose memory this is, like 'discord:42'")
    if len(subject) > 200 or text.clean(subject) != subject:
        raise InvalidValue(f"a subject is one line of at most 200 characters, not {describe(value)}")
    return subject


def subject_or_none(value: object) -> str | None:
    """A subject read leniently (from an import): `subject_of(value)`, or None when it is not one."""
    try:
        return subject_of(value)
    except (TypeError, ValueError):
        return None


def count_of(name: str, value: object, low: int = 0, high: int = MAX_COUNT) -> int:
    """A caller's whole number (a limit, a budget, an id) from `low` to `high`.

    Counts stop at `MAX_COUNT`, so sums and multiples of them (recall asks SQLite for 4 x limit rows) stay
    within SQLite's 64-bit integers; ids may go up to `MAX_ID`, the largest SQLite stores."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        allowed = f"a whole number of {low} or more (at most {high})"
        raise InvalidValue(f"{name} is {allowed}, not {describe(value)}")
    return value


def key_of(value: object, *, start: bool = False) -> str | None:
    """A normalised key, or None; refuses anything that does not name a topic. With `start`, the start of
    a key ('user.' or 'exam'), as a listing filters by."""
    if value is None:
        return None
    what = "a key prefix" if start else "a key"
    if not isinstance(value, str):
        raise InvalidType(f"{what} must be a string or None, not {type(value).__name__}; {KEY_RULE}")
    key = value.strip().lower()
    if not key:
        return None
    if len(key) > KEY_LIMIT or not (KEY_START if start else KEY_PATTERN).fullmatch(key):
        raise InvalidValue(
            f"{describe(value)} is not {'the start of a key' if start else 'a key'}: {KEY_RULE}"
        )
    return key


def key_prefix_of(value: object) -> str | None:
    """The start of a key ('user.', 'exam'), normalised like a key, or None."""
    return key_of(value, start=True)


def key_terms(key: str | None) -> str:
    """The words of a key, for the index: 'pet.name' is found by 'pet' and 'name'."""
    return key.replace(".", " ").replace("_", " ") if key else ""


def _importance(value: object) -> int:
    number = finite(value)
    if number is None or number != int(number) or not 1 <= number <= 5:
        raise InvalidValue(f"importance is a whole number from 1 to 5, not {describe(value)}")
    return int(number)


def _feeling(value: object) -> float:
    number = finite(value)
    if number is None or not -1 <= number <= 1:
        raise InvalidValue(f"feeling is a number from -1 to 1, not {describe(value)}")
    return number


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise InvalidType(f"{what} must be a string, not {type(value).__name__}")
    cleaned = text.clip(text.clean(value), TEXT_LIMIT)
    if text.is_blank(cleaned):
        raise InvalidValue(
            f"{what} must show something: not empty, and not only spaces, control characters, joiners or "
            f"combining marks ({describe(value)})"
        )
    return cleaned


def _source(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidType(f"a source must be a string like 'auto' or 'cli', not {type(value).__name__}")
    source = text.clip(text.clean(value), SOURCE_LIMIT)
    return source or None


@dataclass(frozen=True, kw_only=True)
class NoteFields:
    """A new note's fields, checked and normalised, ready to be written."""

    text: str
    kind: str | None = None
    key: str | None = None
    importance: int = 2
    feeling: float = 0.0
    happened_at: float | None = None
    source: str | None = None
    gloss: str | None = None

    @classmethod
    def strict(
        cls,
        note_text: object,
        *,
        kind: object = None,
        key: object = None,
        importance: object = 2,
        feeling: object = 0.0,
        happened_at: object = None,
        source: object = None,
        gloss: object = None,
    ) -> NoteFields:
        """Check a caller's note; raise `InvalidValue`/`InvalidType` naming the first bad field."""
        if kind is not None and kind not in KINDS:
            raise InvalidValue(f"kind is one of {', '.join(KINDS)}, not {describe(kind)}")
        return cls(
            text=_text(note_text, "a note's text"),
            kind=kind,  # type: ignore[arg-type]
            key=key_of(key),
            importance=_importance(importance),
            feeling=_feeling(feeling),
            happened_at=None if happened_at is None else dates.seconds(happened_at, "happened_at"),
            source=_source(source),
            gloss=None if gloss is None or text.is_blank(gloss) else _text(gloss, "a gloss"),
        )

    @classmethod
    def lenient(cls, row: dict[str, Any]) -> NoteFields | None:
        """A note from an import or a model's reply: bad fields fall back to defaults; no text, no note."""
        raw = row.get("text")
        if not isinstance(raw, str) or text.is_blank(raw):
            return None
        fields: dict[str, Any] = {"text": text.clip(text.clean(raw), TEXT_LIMIT)}
        checks = {
            "kind": lambda v: v if v in KINDS else None,
            "key": key_of,
            "importance": lambda v: _importance(min(5, max(1, round(float(v))))),
            "feeling": lambda v: _feeling(min(1.0, max(-1.0, float(v)))),
            "happened_at": lambda v: dates.seconds(v, "happened_at"),
            "source": _source,
            "gloss": lambda v: None if text.is_blank(v) else _text(v, "a gloss"),
        }
        for name, check in checks.items():
            value = row.get(name)
            if value is None:
                continue
            try:
                fields[name] = check(value)
            except (ValueError, TypeError, OverflowError):
                continue
        return cls(**{k: v for k, v in fields.items() if v is not None})
