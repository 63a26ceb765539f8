"""Consolidation: a note writer's answer applied against what is already known, in one transaction.

The note writer is shown the person's notes closest to the exchange, each with its id, and says per fact
what to do (`capture.parse_actions` checks its answer):

- ADD: a new note, under the usual write rules (`notes.keep`: the same text is one note, the daily quota).
- UPDATE #id: the same fact, changed ("Leah is 13 now" for "Leah is 12"): a new version takes the old one's
  place, its key, kind and importance included unless the writer gave them (`notes.revise`), and the old one
  is replaced by it, so it stays in the history until purge.
- CONTRADICTS #id: a new fact that makes an old one untrue ("I bought a Tesla" against "Leo drives a
  Skoda"): the new note is written with its own kind and importance (the old one's key when it gives none)
  and the old one is replaced by it, kept in the history the same way.
- SKIP #id: already known; nothing is written.

Every write obeys the daily quota as `keep` does (a model's note below importance 4), an UPDATE included:
a model that keeps rewriting a person's notes is held to the same 8 a day as one that keeps adding them. A
target that stopped being live since it was offered (forgotten, replaced) is "no such note" and nothing is
written for it. The batch runs in the caller's transaction: all of it, or on a fault none.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace

from ..store.schema import LIVE
from . import links, notes
from .note import COLUMNS, Note, NoteFields, note_of

__all__ = ["ADD", "CONTRADICTED", "CONTRADICTS", "OPS", "SKIP", "UPDATE", "Action", "Applied", "apply"]

ADD, UPDATE, CONTRADICTS, SKIP = "ADD", "UPDATE", "CONTRADICTS", "SKIP"
OPS = (ADD, UPDATE, CONTRADICTS, SKIP)
CONTRADICTED = "contradicted"


@dataclass(frozen=True)
class Action:
    """One fact of a note writer's answer: what to do, to which offered note, with which fields."""

    op: str
    target: int | None = None
    fields: NoteFields | None = None
    kept: frozenset[str] = frozenset({"kind", "importance", "happened_at"})
    """For an UPDATE: the old note's fields that stay, because the writer did not give them."""


@dataclass(frozen=True)
class Applied:
    """What became of one action: the outcome ("kept", "replaced", "updated", "contradicted", "known",
    "unchanged", "over quota", "no such note") and the note that now says it, if any."""

    op: str
    target: int | None
    outcome: str
    note: Note | None

    def as_dict(self) -> dict[str, object]:
        return {
            "op": self.op,
            "target": self.target,
            "outcome": self.outcome,
            "id": self.note.id if self.note is not None else None,
        }


def _live(conn: sqlite3.Connection, sid: int | None, subject: str, note_id: int) -> Note | None:
    if sid is None:
        return None
    row = conn.execute(
        f"select {COLUMNS} from notes where id = ? and subject_id = ? and {LIVE}", (note_id, sid)
    ).fetchone()
    return note_of(subject, row) if row else None


def _contradict(
    conn: sqlite3.Connection,
    space: str,
    subject: str,
    old: Note,
    fields: NoteFields,
    now: float,
    rules: notes.Rules,
) -> tuple[str, Note | None]:
    """Write the new fact; the old note is replaced by it (whatever key either has)."""
    if fields.key is None and old.key is not None:
        fields = replace(fields, key=old.key)
    outcome, note = notes.keep(conn, space, subject, fields, now, rules)
    if note is None or note.id == old.id:  # refused, or the old note's own text again
        return outcome, note
    sid = notes.subject_id(conn, space, subject)
    still = _live(conn, sid, subject, old.id)
    if still is not None and sid is not None:
        notes.replace_with(conn, sid, still, note.id)
        notes.count_live(conn, sid, -1)
    return CONTRADICTED, note


def apply(
    conn: sqlite3.Connection,
    space: str,
    subject: str,
    actions: list[Action],
    now: float,
    rules: notes.Rules,
) -> list[Applied]:
    """Apply a checked batch (see the module docstring); one `Applied` per action, in order."""
    done: list[Applied] = []
    for action in actions:
        fields = action.fields
        if action.op == SKIP or fields is None:
            done.append(Applied(action.op, action.target, notes.KNOWN, None))
            continue
        if action.op == ADD or action.target is None:
            outcome, note = notes.keep(conn, space, subject, fields, now, rules)
            done.append(Applied(action.op, action.target, outcome, note))
            continue
        sid = notes.subject_id(conn, space, subject)
        old = _live(conn, sid, subject, action.target)
        if old is None or sid is None:
            done.append(Applied(action.op, action.target, notes.NO_SUCH_NOTE, None))
        elif action.op == UPDATE:
            if notes.over_quota(conn, sid, fields, now, rules):
                done.append(Applied(action.op, action.target, notes.OVER_QUOTA, None))
                continue
            outcome, note = notes.revise(conn, space, subject, old.id, fields, action.kept, now)
            done.append(Applied(action.op, action.target, outcome, note))
        else:
            outcome, note = _contradict(conn, space, subject, old, fields, now, rules)
            done.append(Applied(action.op, action.target, outcome, note))
    _link_together(conn, space, subject, done, now, rules)
    return done


def _link_together(
    conn: sqlite3.Connection, space: str, subject: str, done: list[Applied], now: float, rules: notes.Rules
) -> None:
    """The notes one exchange wrote (or found already written) are linked (`memory.links`)."""
    ids = [applied.note.id for applied in done if applied.note is not None]
    sid = notes.subject_id(conn, space, subject) if rules.lifecycle and len(set(ids)) > 1 else None
    if sid is not None:
        links.together(conn, sid, ids, now, rules.link_half_life_days)
