"""The health check's transaction functions: what a run reads, how far each phase got, the fixes it applies,
and undoing them.

A run reads, in one snapshot, the people with a note written since the lowest mark of the phases it runs
(everyone in a full run), then each of them with their live notes and vectors in a snapshot of their own.

A fix is applied in a transaction of its own, only if every note it names is still live as it was read (a
note changed meanwhile makes the fix stale: nothing is written). It is recorded in `check_fixes` with which
notes it changed and how (`changes`: replaced by which note, forgotten when, and the new version a revise
made), so `undo` can put every note back as it was, from the history, as long as nothing changed them since
and they were not purged. An undone fix is remembered by its signature, so a later run does not find and
apply the same thing again. A record holds ids and the check's own words only, never a note's text, so
purge and erase leave nothing of a note behind in it; erase removes a person's records with the rest.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from typing import Any

from ..errors import InvalidValue
from ..meaning.calibrate import DEFAULT
from ..meaning.embeddings import numpy
from ..memory import index, notes
from ..memory.note import COLUMNS, Note, NoteFields, note_of
from ..store.schema import LIVE, LIVE_N
from .context import Person, Vectors
from .findings import FORGET, PHASES, REPLACE, Finding

__all__ = ["apply", "changed_people", "dismissed", "erase", "fixes", "marks", "person", "set_marks", "undo"]

SOURCE = "check"


def marks(conn: sqlite3.Connection, space: str) -> dict[str, int]:
    """How far each phase has looked in this space: the highest note id it judged (0: nothing yet)."""
    found = {phase: 0 for phase in PHASES}
    for phase, note_id in conn.execute("select phase, note_id from check_marks where space = ?", (space,)):
        found[phase] = note_id
    return found


def set_marks(conn: sqlite3.Connection, space: str, moved: dict[str, int], now: float) -> None:
    for phase, note_id in moved.items():
        conn.execute(
            "insert into check_marks(space, phase, note_id, at) values (?, ?, ?, ?) "
            "on conflict(space, phase) do update set note_id = max(check_marks.note_id, excluded.note_id), "
            "at = excluded.at",
            (space, phase, note_id, now),
        )


def changed_people(
    conn: sqlite3.Connection, space: str, subject: str | None, after: int
) -> tuple[list[tuple[int, str]], int]:
    """(subject id, subject) of everyone with a live note above `after` (only `subject`, if given), and the
    highest note id in the file now."""
    (top,) = conn.execute("select coalesce(max(id), 0) from notes").fetchone()
    where, args = ("and s.subject = ?", (subject,)) if subject is not None else ("", ())
    rows = conn.execute(
        f"select s.id, s.subject from subjects s where s.space = ? {where} and exists "
        f"(select 1 from notes n where n.subject_id = s.id and n.id > ? and {LIVE_N}) "
        "order by s.id",
        (space, *args, after),
    ).fetchall()
    return [(sid, name) for sid, name in rows], top


def person(
    conn: sqlite3.Connection, sid: int, subject: str, embedder: int | None, floor: float = DEFAULT
) -> Person:
    """A person's live notes, oldest first, and their vectors of the embedder (when there is one; `floor`
    is the embedder's, for a person with too few vectors to measure their own)."""
    rows = conn.execute(f"select {COLUMNS} from notes where subject_id = ? and {LIVE} order by id", (sid,))
    found = Person(subject, sid, [note_of(subject, row) for row in rows])
    if embedder is not None:
        np = numpy()
        pairs = conn.execute(
            "select note_id, vector from vectors where embedder_id = ? and subject_id = ? order by note_id",
            (embedder, sid),
        ).fetchall()
        if pairs:
            ids = np.array([p[0] for p in pairs], dtype=np.int64)
            matrix = np.stack([np.frombuffer(p[1], dtype="<f4") for p in pairs])
            found.vectors = Vectors(ids, matrix, floor)
    return found


def dismissed(conn: sqlite3.Connection, space: str) -> set[str]:
    """The signatures of fixes someone undid: not to be found and applied again."""
    rows = conn.execute(
        "select signature from check_fixes where space = ? and undone_at is not null", (space,)
    )
    return {row[0] for row in rows}


def _live(conn: sqlite3.Connection, sid: int, subject: str, ids: tuple[int, ...]) -> dict[int, Note]:
    rows = conn.execute(
        f"select {COLUMNS} from notes where subject_id = ? and {LIVE} "
        "and id in (select value from json_each(?))",
        (sid, json.dumps(list(ids))),
    )
    return {note.id: note for note in (note_of(subject, row) for row in rows)}


def apply(conn: sqlite3.Connection, space: str, finding: Finding, now: float) -> int | None:
    """Apply a finding's fix and record it; returns the record's id, or None when it is stale."""
    fix = finding.fix
    sid = notes.subject_id(conn, space, finding.subject)
    if sid is None:
        return None
    live = _live(conn, sid, finding.subject, fix.notes())
    if set(live) != set(fix.notes()):
        return None
    changes: list[dict[str, Any]] = []
    if fix.action in (REPLACE, FORGET):
        for dropped in fix.drop:
            old = live[dropped]
            if fix.action == REPLACE:
                notes.replace_with(conn, sid, old, fix.keep)  # type: ignore[arg-type]
                changes.append({"note": old.id, "now": "replaced", "by": fix.keep})
            else:
                conn.execute("update notes set deleted_at = ? where id = ?", (now, old.id))
                index.remove(conn, sid, old.id, old.text, old.key, old.gloss)
                changes.append({"note": old.id, "now": "forgotten", "at": now})
        notes.count_live(conn, sid, -len(fix.drop))
    else:
        old = live[fix.keep]  # type: ignore[index]
        fields = NoteFields(
            text=fix.text or old.text,
            kind=fix.kind or old.kind,
            importance=fix.importance or old.importance,
            source=SOURCE,
        )
        outcome, new = notes.revise(
            conn, space, finding.subject, old.id, fields, frozenset({"happened_at"}), now
        )
        if new is None or outcome == notes.UNCHANGED:
            return None
        change = {"note": old.id, "now": "replaced", "by": new.id}
        if outcome == notes.UPDATED:
            change["new"] = new.id
        changes.append(change)
    return conn.execute(
        "insert into check_fixes(space, subject_id, phase, by, confidence, problem, signature, changes, at) "
        "values (?, ?, ?, ?, ?, ?, ?, ?, ?) returning id",
        (
            space,
            sid,
            finding.phase,
            finding.by,
            finding.confidence,
            finding.problem,
            finding.signature,
            json.dumps(changes),
            now,
        ),
    ).fetchone()[0]


def _any(conn: sqlite3.Connection, sid: int, subject: str, note_id: int) -> Note | None:
    row = conn.execute(
        f"select {COLUMNS} from notes where id = ? and subject_id = ?", (note_id, sid)
    ).fetchone()
    return note_of(subject, row) if row else None


def undo(conn: sqlite3.Connection, space: str, fix_id: int, now: float) -> dict[str, Any]:
    """Put back every note a fix changed, as it was; refused (nothing written) when a note was purged or
    changed since, or another live note took its key. Returns the fix and the notes restored and hidden."""
    row = conn.execute(
        "select f.subject_id, s.subject, f.changes, f.undone_at from check_fixes f "
        "join subjects s on s.id = f.subject_id where f.id = ? and f.space = ?",
        (fix_id, space),
    ).fetchone()
    if row is None:
        raise InvalidValue(f"there is no fix #{fix_id} in this space (`fixes()` lists them)")
    sid, subject, changes, undone_at = row[0], row[1], json.loads(row[2]), row[3]
    if undone_at is not None:
        raise InvalidValue(f"fix #{fix_id} was undone already")
    back: list[Note] = []
    hide: list[Note] = []
    for change in changes:
        note = _any(conn, sid, subject, change["note"])
        if note is None:
            raise InvalidValue(f"fix #{fix_id} cannot be undone: note #{change['note']} was purged since")
        if change["now"] == "replaced":
            left = note.superseded_by == change.get("by") and note.deleted_at is None
        else:
            left = note.deleted_at == change.get("at") and note.superseded_by is None
        if not left:
            raise InvalidValue(f"fix #{fix_id} cannot be undone: note #{note.id} changed since")
        if "new" in change:
            new = _any(conn, sid, subject, change["new"])
            if new is None or not new.live:
                raise InvalidValue(
                    f"fix #{fix_id} cannot be undone: its new version #{change['new']} changed since"
                )
            hide.append(new)
        back.append(note)
    hidden = {n.id for n in hide}
    for note in back:
        if note.key is None:
            continue
        holder = conn.execute(
            f"select id from notes where subject_id = ? and key = ? and {LIVE}", (sid, note.key)
        ).fetchone()
        if holder is not None and holder[0] not in hidden:
            raise InvalidValue(
                f"fix #{fix_id} cannot be undone: #{holder[0]} holds the key {note.key} of #{note.id} now"
            )
    for note in back:
        conn.execute("update notes set superseded_by = null, deleted_at = null where id = ?", (note.id,))
        index.add(conn, sid, replace(note, superseded_by=None, deleted_at=None))
    for new in hide:
        notes.replace_with(conn, sid, new, back[0].id)
    notes.count_live(conn, sid, len(back) - len(hide))
    conn.execute("update check_fixes set undone_at = ? where id = ?", (now, fix_id))
    return {"fix": fix_id, "subject": subject, "restored": [n.id for n in back], "hidden": sorted(hidden)}


def fixes(conn: sqlite3.Connection, space: str, subject: str | None, limit: int) -> list[dict[str, Any]]:
    """The fixes applied in this space (to one person's notes, if given), newest first."""
    where, args = ("and s.subject = ?", (subject,)) if subject is not None else ("", ())
    rows = conn.execute(
        "select f.id, s.subject, f.phase, f.by, f.confidence, f.problem, f.changes, f.at, f.undone_at "
        f"from check_fixes f join subjects s on s.id = f.subject_id where f.space = ? {where} "
        "order by f.id desc limit ?",
        (space, *args, limit),
    ).fetchall()
    return [
        {
            "id": fix_id,
            "subject": who,
            "phase": phase,
            "by": by,
            "confidence": confidence,
            "problem": problem,
            "changes": json.loads(changes),
            "at": at,
            "undone_at": undone_at,
        }
        for fix_id, who, phase, by, confidence, problem, changes, at, undone_at in rows
    ]


def erase(conn: sqlite3.Connection, space: str, subject: str) -> None:
    """A person erased: their fix records go too."""
    sid = notes.subject_id(conn, space, subject)
    if sid is not None:
        conn.execute("delete from check_fixes where subject_id = ?", (sid,))
