"""Lessons: the gist outlives the details.

When an episode has faded far enough (its accessibility below `lifecycle.lesson_below`, 0.1 by default:
some 3.3 half-lives, 100 days for one no recall chose), tending (`mneme_core.tending`) asks the companion's
model, once, what it taught: the system prompt `prompts.lesson`, the episode and the notes linked to it in
the user message, one line each with its id, as data. The answer, one sentence, is kept as a note of kind
`lesson` about the same person (source "lesson", the episode's importance, at least 2), which fades far more
slowly (stability `lifecycle.LESSON_STABILITY`, 8: a half-life of 240 days), linked to the episode at full
weight; plugins' `filter_note` sees it first, as it sees every model-written note. "NONE" keeps nothing.

Once: the episode is marked (`lesson_at`) when the model answered, whatever the answer, so it is never
asked again; a call that failed or timed out leaves it unmarked for the next run. Trivial episodes
(importance 1) teach nothing and are not asked about. Without a model nothing is asked.
"""

from __future__ import annotations

import sqlite3
from datetime import tzinfo
from typing import Any

from . import text
from .check.judge import line_of
from .memory import archive, links, notes
from .memory.lifecycle import LESSON_STABILITY
from .memory.note import COLUMNS, TEXT_LIMIT, Note, NoteFields, note_of
from .messages import fill
from .prompts import PROMPTS
from .store.schema import LIVE_N

__all__ = ["answer_of", "due", "keep", "message"]

NONE = "none"
LINKED_SHOWN = 5


def due(
    conn: sqlite3.Connection, space: str, now: float, half_life_days: float, below: float, limit: int
) -> list[Note]:
    """The space's live episodes (importance 2+) faded below `below` whose lesson was never asked, oldest
    first, at most `limit`."""
    columns = ", ".join("n." + c.strip() for c in COLUMNS.split(","))
    rows = conn.execute(
        f"select s.subject, {columns} from notes n join subjects s on s.id = n.subject_id "
        f"where s.space = :space and {LIVE_N} and n.kind = 'episode' and n.importance >= 2 "
        f"and n.lesson_at is null and {archive.ACCESSIBLE_SQL} < :below order by n.id limit :limit",
        {"space": space, "now": now, "hl": half_life_days, "below": below, "limit": limit},
    ).fetchall()
    return [note_of(row[0], row[1:]) for row in rows]


def message(
    conn: sqlite3.Connection, space: str, episode: Note, now: float, hl: float, zone: tzinfo | None
) -> str:
    """The user message: the episode, then the notes linked to it (the heaviest first), one line each."""
    lines = ["The memory:", line_of(episode, zone)]
    near = [notes.get(conn, space, other) for other, _w in links.neighbours(conn, episode.id, now, hl)]
    shown = [note for note in near if note is not None and note.live][:LINKED_SHOWN]
    if shown:
        lines.append("Linked to it:")
        lines += [line_of(note, zone) for note in shown]
    return "\n".join(lines)


def answer_of(reply: str) -> str | None:
    """The lesson in a reply: its first line, unquoted; None for "NONE" or nothing."""
    first = next((line for line in reply.splitlines() if line.strip()), "")
    said = text.clip(text.clean(first.strip().strip("\"'“”")), TEXT_LIMIT)
    if text.is_blank(said) or said.strip(" .!").lower() == NONE:
        return None
    return said


def fields_of(episode: Note, said: str) -> NoteFields:
    return NoteFields(
        text=said,
        kind="lesson",
        importance=max(2, episode.importance),
        happened_at=episode.happened_at,
        source="lesson",
    )


def keep(
    conn: sqlite3.Connection,
    space: str,
    episode: Note,
    fields: NoteFields | None,
    now: float,
    rules: notes.Rules,
) -> Note | None:
    """Mark the episode asked and keep its lesson, if any (a transaction function); returns the lesson."""
    marked = conn.execute(
        "update notes set lesson_at = ? where id = ? and lesson_at is null returning subject_id",
        (now, episode.id),
    ).fetchone()
    if marked is None or fields is None:  # asked already (another run), or it taught nothing
        return None
    outcome, lesson = notes.keep(conn, space, episode.subject, fields, now, rules)
    if lesson is None:
        return None
    if outcome != notes.KNOWN:
        conn.execute("update notes set stability = ? where id = ?", (LESSON_STABILITY, lesson.id))
    conn.execute(
        "insert into links(subject_id, a, b, weight, at) values (?, ?, ?, 1.0, ?) "
        "on conflict(a, b) do update set weight = 1.0, at = excluded.at",
        (marked[0], min(episode.id, lesson.id), max(episode.id, lesson.id), now),
    )
    return lesson


def system_of(prompts: Any, name: str, language: object) -> str:
    """The lesson prompt, filled."""
    lang = text.one_line(language, 40) if isinstance(language, str) else ""
    return fill(
        prompts.get("lesson") or PROMPTS["lesson"], {"name": name, "lang": lang or "the person's language"}
    )
