"""Each person's mood: a value (0-100) and feelings, moved by judged exchanges, told to the companion once.

Transaction functions, like `memory.notes`: each takes a `sqlite3.Connection` inside the transaction the
store opened (`apply`, `apply_answers`, `news` with `mark`, `reset`, `import_rows` need a write one) and does
one verb completely, so the event row and the mood row it moves are written together or not at all.

The rules (from dsh-feiyu-mood, by way of mneme-llm):
- Decay is computed on read (`decay`): nothing ticks, and a mood row is written only when something moves it.
- The mood only drops through a feeling that lowers it: a negative change whose strongest feeling is not
  one of those (say, jealousy) moves the feelings but not the value.
- A change that moves the value by under 0.5 and bumps every feeling by under 1 leaves no record.
- Who started the exchange weighs in (`MoodSettings.weights`), and so does closeness (the `weight` given);
  sources in `MoodSettings.skip` (the host's runtime turns) never move the mood, here or in `apply_answers`.
- A change is told once (`news`), with a plain cue of what to feel; a change its judge was not sure enough
  about (under `threshold_of(judge)`) is recorded but never told.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import dates, text
from ..errors import InvalidValue
from ..memory.note import subject_or_none
from ..memory.notes import subject_id, subject_id_made
from ..messages import Words
from . import decay
from .changes import REASON_LIMIT, Change, Judgement, change_of
from .settings import MoodSettings, number_or

MIN_DELTA = 0.5
MIN_BUMP = 1.0
SHOWN, SHOWN_ABOVE = 2, 5.0
LOOKBACK = 50
"""How many untold events `news` looks through for the newest one sure enough to tell."""


@dataclass(frozen=True)
class MoodState:
    """A mood as it is now, decay applied; `face` is a key ('good') for `face.<key>` sentences."""

    value: float
    emotions: Mapping[str, float] = field(hash=False)
    face: str
    updated_at: float | None

    def strongest(self, count: int = SHOWN, above: float = SHOWN_ABOVE) -> list[tuple[str, float]]:
        ranked = sorted(self.emotions.items(), key=lambda kv: (-kv[1], kv[0]))
        return [(key, amount) for key, amount in ranked if amount >= above][:count]


@dataclass(frozen=True)
class MoodEvent:
    """One recorded change: `delta` as applied (weighted, guarded), feelings bumped, `value` after it."""

    id: int
    at: float
    delta: float
    emotions: Mapping[str, float] = field(hash=False)
    reason: str
    confidence: float
    source: str
    judge: str
    value: float


EVENT_COLUMNS = "id, at, delta, emotions, reason, confidence, source, judge, value"


def _event(row: tuple[Any, ...]) -> MoodEvent:
    return MoodEvent(row[0], row[1], row[2], json.loads(row[3]), *row[4:])


# -- reading ---------------------------------------------------------------------------------------------


def _state(conn: sqlite3.Connection, sid: int | None, now: float, settings: MoodSettings) -> MoodState:
    row = None
    if sid is not None:
        row = conn.execute(
            "select value, emotions, updated_at from moods where subject_id = ?", (sid,)
        ).fetchone()
    if row is None:
        return MoodState(settings.baseline, {}, decay.face(settings.baseline), None)
    stored, feelings, updated_at = row
    elapsed = now - updated_at
    value = decay.value_at(stored, settings.baseline, elapsed, settings.mood_half_life_h)
    value = decay.clamp(value, settings.floor, settings.ceiling)
    faded = decay.feelings_at(json.loads(feelings), elapsed, settings.emotion_half_life_min)
    return MoodState(value, faded, decay.face(value), updated_at)


def state(
    conn: sqlite3.Connection, space: str, subject: str, now: float, settings: MoodSettings
) -> MoodState:
    """The mood now, decay applied (the baseline and no feelings for someone never met)."""
    return _state(conn, subject_id(conn, space, subject), now, settings)


def timeline(conn: sqlite3.Connection, space: str, subject: str, limit: int = 40) -> list[MoodEvent]:
    """The recorded changes, newest first."""
    sid = subject_id(conn, space, subject)
    if sid is None:
        return []
    rows = conn.execute(
        f"select {EVENT_COLUMNS} from mood_events where subject_id = ? order by id desc limit ?", (sid, limit)
    )
    return [_event(row) for row in rows.fetchall()]


def _feeling_label(key: str, settings: MoodSettings, words: Words) -> str:
    emotion = settings.emotion(key)
    return emotion.label(words.language) if emotion else key


def _feelings(shown: list[tuple[str, float]], settings: MoodSettings, words: Words) -> str:
    items = [
        words.say("mood.item", feeling=_feeling_label(k, settings, words), amount=round(v)) for k, v in shown
    ]
    return words.say("mood.comma").join(items)


def _sentence(key: str, mood: MoodState, settings: MoodSettings, words: Words) -> str:
    shown = mood.strongest()
    face = words.say(f"face.{mood.face}")
    if not shown:
        return words.say(key, value=round(mood.value), face=face)
    feelings = _feelings(shown, settings, words)
    return words.say(f"{key}_feeling", value=round(mood.value), face=face, feelings=feelings)


def describe(
    conn: sqlite3.Connection, space: str, subject: str, now: float, settings: MoodSettings, words: Words
) -> str:
    """One line for people and listings: "Mood 74/100 (good); feeling: aching for them 31"."""
    return _sentence("mood.describe", state(conn, space, subject, now, settings), settings, words)


def _untold(conn: sqlite3.Connection, space: str, subject: str) -> tuple[int, int, int | None] | None:
    """(subject id, last event, last told event) when the last event was not told yet, else None."""
    sid = subject_id(conn, space, subject)
    if sid is None:
        return None
    row = conn.execute("select last_event, told_event from moods where subject_id = ?", (sid,)).fetchone()
    if row is None or row[0] is None or row[0] == row[1]:
        return None
    return sid, row[0], row[1]


def untold(conn: sqlite3.Connection, space: str, subject: str) -> bool:
    """Whether `news` may have something to tell: a cheap read, so a prompt takes the write lock only then."""
    return _untold(conn, space, subject) is not None


def news(
    conn: sqlite3.Connection,
    space: str,
    subject: str,
    now: float,
    settings: MoodSettings,
    words: Words,
    mark: bool = True,
) -> str | None:
    """The mood and what moved it, told once: None when told already, nothing new, or not sure enough.

    Tells the newest untold change its judge was sure enough about; with `mark` (a write transaction), the
    changes up to the latest are then told, so an unsure one is never told later either. A prompt reads
    `untold_news` instead and leaves the mark to the next write (`mood.told`), so it never waits for one.
    """
    found = untold_news(conn, space, subject, now, settings, words)
    if found is None:
        return None
    text, sid, last = found
    if mark and not mark_told(conn, sid, last):
        return None
    return text


def untold_news(
    conn: sqlite3.Connection, space: str, subject: str, now: float, settings: MoodSettings, words: Words
) -> tuple[str, int, int] | None:
    """The news `news` would tell, the person's id and the last event it tells up to; it marks nothing."""
    found = None if settings.tell == "off" else _untold(conn, space, subject)
    if found is None:
        return None
    sid, last, told = found
    rows = conn.execute(
        f"select {EVENT_COLUMNS} from mood_events where subject_id = ? and id > ? order by id desc limit ?",
        (sid, told or 0, LOOKBACK),
    ).fetchall()
    # confidence and judge are read off the row, so the unsure events before the one told are never parsed
    sure = (row for row in rows if row[5] >= settings.threshold_of(row[7]))
    event = next(map(_event, sure), None)
    if event is None:
        return None
    parts = [_sentence("mood.now", _state(conn, sid, now, settings), settings, words)]
    if settings.tell == "event" and event.reason:
        parts.append(words.say("mood.why", reason=event.reason.rstrip(" .。")))
    if event.emotions:
        parts.append(_cue(next(iter(event.emotions)), settings, words))
    return words.say("mood.news", text=words.say("mood.gap").join(parts)), sid, last


def mark_told(conn: sqlite3.Connection, subject_id: int, last: int) -> bool:
    """In a write transaction: the person's changes up to event `last` are told; False if another telling
    got there first (the mark is at `last` or later already)."""
    return bool(
        conn.execute(
            "update moods set told_event = ? where subject_id = ? and (told_event is null or told_event < ?)",
            (last, subject_id, last),
        ).rowcount
    )


def _cue(key: str, settings: MoodSettings, words: Words) -> str:
    """What to make of a feeling, in plain words; a feeling without a cue of its own gets "You feel X."."""
    try:
        return words.say(f"cue.{key}")
    except KeyError:
        return words.say("cue.other", feeling=_feeling_label(key, settings, words))


# -- writing ---------------------------------------------------------------------------------------------


def _lowers(bumps: Mapping[str, float], settings: MoodSettings) -> bool:
    """Whether the strongest feeling bumped (a lowering one wins a tie) is one that lowers the mood."""
    felt = [(amount, emotion.lowers) for key, amount in bumps.items() if (emotion := settings.emotion(key))]
    strongest = max(felt, default=(0.0, False))
    return strongest[0] >= decay.KEEP and strongest[1]


def apply(
    conn: sqlite3.Connection, space: str, subject: str, change: Change, now: float, settings: MoodSettings
) -> MoodEvent | None:
    """Move a person's mood under the rules above; None when the change leaves no record."""
    unknown = [key for key in change.emotions if settings.emotion(key) is None]
    if unknown:
        known = ", ".join(e.key for e in settings.emotions)
        raise InvalidValue(f"no feeling {unknown[0]!r}; the feelings are {known}")
    if change.source in settings.skip:
        return None
    weight = settings.weight_of(change.source) * change.weight
    delta = change.delta * weight
    bumps = {key: amount * weight for key, amount in change.emotions.items()}
    if delta < 0 and not _lowers(bumps, settings):
        delta = 0.0
    if abs(delta) < MIN_DELTA and all(b < MIN_BUMP for b in bumps.values()):
        return None
    sid = subject_id_made(conn, space, subject)
    before = _state(conn, sid, now, settings)
    value = round(decay.clamp(before.value + delta, settings.floor, settings.ceiling), 2)
    feelings = dict(before.emotions)
    for key, bump in bumps.items():
        feelings[key] = feelings.get(key, 0.0) + bump
    bumped = decay.tidy(bumps)
    delta = round(delta, 2) + 0.0  # + 0.0: a guarded -0.0 reads as 0.0
    said = (change.reason, change.confidence, change.source, change.judge)
    (event_id,) = conn.execute(
        "insert into mood_events(subject_id, at, delta, value, emotions, reason, confidence, source, judge) "
        "values (?, ?, ?, ?, ?, ?, ?, ?, ?) returning id",
        (sid, now, delta, value, _json(bumped), *said),
    ).fetchone()
    conn.execute(
        "insert into moods(subject_id, value, emotions, updated_at, last_event) values (?, ?, ?, ?, ?) "
        "on conflict(subject_id) do update set value = excluded.value, emotions = excluded.emotions, "
        "updated_at = max(moods.updated_at, excluded.updated_at), last_event = excluded.last_event",
        (sid, value, _json(decay.tidy(feelings)), now, event_id),
    )
    return MoodEvent(event_id, now, delta, bumped, *said, value)


def apply_answers(
    conn: sqlite3.Connection,
    space: str,
    subject: str,
    judged: Judgement,
    now: float,
    settings: MoodSettings,
    words: Words,
) -> MoodEvent | None:
    """`apply` of what a judge answered (see `change_of`)."""
    if judged.source in settings.skip:
        return None
    return apply(conn, space, subject, change_of(judged, settings, words), now, settings)


def reset(conn: sqlite3.Connection, space: str, subject: str) -> bool:
    """Back to the baseline: the mood and its timeline are deleted; True if there was any."""
    sid = subject_id(conn, space, subject)
    if sid is None:
        return False
    found = conn.execute("delete from moods where subject_id = ?", (sid,)).rowcount
    return bool(conn.execute("delete from mood_events where subject_id = ?", (sid,)).rowcount + found)


def _json(feelings: Mapping[str, float]) -> str:
    return json.dumps(dict(feelings), ensure_ascii=False, separators=(",", ":"))


# -- moving ----------------------------------------------------------------------------------------------


def export_rows(conn: sqlite3.Connection, space: str) -> dict[str, list[dict[str, Any]]]:
    """Every mood and mood event of a space, JSON-ready (who was told what stays behind)."""
    join = "join subjects s on s.id = m.subject_id where s.space = ?"
    moods = conn.execute(
        f"select s.subject, m.value, m.emotions, m.updated_at from moods m {join} order by s.id", (space,)
    ).fetchall()
    events = conn.execute(
        "select s.subject, m.at, m.delta, m.value, m.emotions, m.reason, m.confidence, m.source, m.judge "
        f"from mood_events m {join} order by m.id",
        (space,),
    ).fetchall()
    names = ("subject", "at", "delta", "value", "emotions", "reason", "confidence", "source", "judge")
    return {
        "moods": [
            {"subject": s, "value": v, "emotions": json.loads(e), "updated_at": u} for s, v, e, u in moods
        ],
        "mood_events": [
            {**dict(zip(names, row, strict=True)), "emotions": json.loads(row[4])} for row in events
        ],
    }


def _lenient_feelings(value: object) -> dict[str, float]:
    if isinstance(value, str):  # mneme-llm keeps them as JSON text
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    if not isinstance(value, Mapping):
        return {}
    found = {str(k): number_or(v, 0.0, 100.0, None) for k, v in value.items()}
    return decay.tidy({k: v for k, v in found.items() if v is not None})


def _word_or(value: object, default: str) -> str:
    word = text.one_line(value, 40) if isinstance(value, str) else ""
    return word or default


def import_rows(
    conn: sqlite3.Connection,
    space: str,
    moods: Iterable[Mapping[str, Any]],
    events: Iterable[Mapping[str, Any]],
    now: float,
    settings: MoodSettings,
) -> int:
    """Bring in exported moods and events, leniently (a bad row is skipped); returns the events added.

    A newer mood replaces an older one; an event already there (every field equal) is not added twice,
    so importing one export twice adds nothing. Imported changes are never told.
    """
    for row in moods:
        subject = subject_or_none(row.get("subject"))
        value = number_or(row.get("value"), settings.floor, settings.ceiling, None)
        if subject is None or value is None:
            continue
        updated = dates.seconds_or_none(row.get("updated_at")) or now
        conn.execute(
            "insert into moods(subject_id, value, emotions, updated_at) values (?, ?, ?, ?) "
            "on conflict(subject_id) do update set value = excluded.value, emotions = excluded.emotions, "
            "updated_at = excluded.updated_at where excluded.updated_at > moods.updated_at",
            (
                subject_id_made(conn, space, subject),
                value,
                _json(_lenient_feelings(row.get("emotions"))),
                updated,
            ),
        )
    added = 0
    for row in events:
        subject, at = subject_or_none(row.get("subject")), dates.seconds_or_none(row.get("at"))
        value = number_or(row.get("value"), 0.0, 100.0, None)
        if subject is None or at is None or value is None:
            continue
        fields = (
            subject_id_made(conn, space, subject),
            at,
            number_or(row.get("delta"), -1000.0, 1000.0, 0.0),
            value,
            _json(_lenient_feelings(row.get("emotions"))),
            text.one_line(row.get("reason") or "", REASON_LIMIT),
            number_or(row.get("confidence"), 0.0, 1.0, 1.0),
            _word_or(row.get("source"), "manual"),
            _word_or(row.get("judge"), "manual"),
        )
        columns = "subject_id, at, delta, value, emotions, reason, confidence, source, judge"
        same = " and ".join(f"{c} = ?" for c in columns.split(", "))
        if conn.execute(f"select 1 from mood_events where {same} limit 1", fields).fetchone():
            continue
        conn.execute(f"insert into mood_events({columns}) values ({', '.join('?' * 9)})", fields)
        added += 1
    return added
