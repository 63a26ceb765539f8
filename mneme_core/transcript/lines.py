"""The lines of each conversation, as transaction functions of a connection.

A conversation is named by the bot layer: a direct chat is one person (`dm:<subject>`, whichever platform
carries them), a group or a channel is one room (`group:<platform>:<chat id>`). Each line is a person's
message as the model saw it (in a room, marked with the speaker's name) or the companion's own reply, with
when it was said. A person's line carries their subject; the companion's carries the line it answered.

Lines said in a room where the companion was not addressed are that room's context: they let a reply know
what the room was talking about, and nothing else. They are never judged or observed, and only the newest
`keep` of them are kept per room (the caller says how many), so a busy channel costs a fixed amount.

Text is kept as it was said (up to `TEXT_LIMIT` characters, so one pasted book cannot fill the database);
names are one line. Reading takes the newest lines before a given one, within a count and a number of
characters, and gives them oldest first, the order a model reads a conversation in.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..memory import notes
from ..memory.note import subject_or_none
from . import index

__all__ = [
    "ASSISTANT",
    "ROLES",
    "TEXT_LIMIT",
    "USER",
    "Line",
    "add",
    "erase",
    "erase_conversation",
    "export_rows",
    "import_rows",
    "of_subject",
    "recent",
]

USER = "user"
ASSISTANT = "assistant"
ROLES = (USER, ASSISTANT)
TEXT_LIMIT = 8000
COLUMNS = "l.id, l.conversation, s.subject, l.role, l.name, l.text, l.at, l.addressed, l.reply_to"


@dataclass(frozen=True)
class Line:
    """One line of a conversation, as stored."""

    id: int
    conversation: str
    subject: str | None
    """Whose line it is (the speaker); None for the companion's own."""
    role: str
    """`user` (a person) or `assistant` (the companion)."""
    name: str | None
    text: str
    at: float
    addressed: bool
    """Whether the companion was spoken to (a direct chat always); False for a room's context."""
    reply_to: int | None = None
    """For the companion's line: the person's line it answered."""


def _line(row: tuple[Any, ...]) -> Line:
    id_, conversation, subject, role, name, said, at, addressed, reply_to = row
    return Line(id_, conversation, subject, role, name, said, at, bool(addressed), reply_to)


def add(
    conn: sqlite3.Connection,
    space: str,
    conversation: str,
    *,
    subject: str | None,
    role: str,
    name: str | None,
    text: str,
    at: float,
    addressed: bool,
    reply_to: int | None = None,
    keep: int | None = None,
) -> int:
    """Add a line and return its id. `keep`, for a room's context line, is how many context lines of that
    room to keep (the oldest beyond it go in the same transaction)."""
    sid = None if subject is None else notes.subject_id_made(conn, space, subject)
    line_id = conn.execute(
        "insert into lines(space, conversation, subject_id, role, name, text, at, addressed, reply_to) "
        "values (?, ?, ?, ?, ?, ?, ?, ?, ?) returning id",
        (space, conversation, sid, role, name, text[:TEXT_LIMIT], at, int(addressed), reply_to),
    ).fetchone()[0]
    indexed = index.subject_of_line(conn, role, sid, addressed, reply_to)
    if indexed is not None:
        index.add(conn, line_id, indexed, name, text[:TEXT_LIMIT], at)
    if keep is not None and not addressed:
        conn.execute(
            "delete from lines where space = ? and conversation = ? and addressed = 0 and id < ("
            "select id from lines where space = ? and conversation = ? and addressed = 0 "
            "order by id desc limit 1 offset ?)",
            (space, conversation, space, conversation, max(keep - 1, 0)),
        )
    return line_id


def recent(
    conn: sqlite3.Connection,
    space: str,
    conversation: str,
    *,
    before: int | None,
    lines: int,
    chars: int,
) -> list[Line]:
    """The newest lines before line `before` (or the newest of all), at most `lines` of them and about
    `chars` characters (the newest line is always given, cut to `chars`), oldest first."""
    if lines <= 0 or chars <= 0:
        return []
    rows = conn.execute(
        f"select {COLUMNS} from lines l left join subjects s on s.id = l.subject_id "
        "where l.space = ? and l.conversation = ? and l.id < ? order by l.id desc limit ?",
        (space, conversation, before if before is not None else 2**62, lines),
    ).fetchall()
    found: list[Line] = []
    left = chars
    for row in rows:
        line = _line(row)
        if len(line.text) > left:
            if not found:
                found.append(replace(line, text=line.text[:left]))
            break
        found.append(line)
        left -= len(line.text)
    found.reverse()
    return found


def of_subject(conn: sqlite3.Connection, space: str, subject: str, limit: int) -> list[Line]:
    """A person's own lines and the companion's replies to them, newest first."""
    sid = notes.subject_id(conn, space, subject)
    if sid is None:
        return []
    rows = conn.execute(
        f"select {COLUMNS} from lines l left join subjects s on s.id = l.subject_id "
        "where l.space = ? and (l.subject_id = ? or l.conversation = ? or l.reply_to in "
        "(select id from lines where subject_id = ?)) order by l.id desc limit ?",
        (space, sid, f"dm:{subject}", sid, limit),
    ).fetchall()
    return [_line(row) for row in rows]


def erase(conn: sqlite3.Connection, space: str, subject: str, sid: int) -> int:
    """Everything said by or to a person: their lines, the companion's replies to them, their direct
    conversation whole, and their lines' index; returns how many lines went."""
    index.erase(conn, sid)
    gone = conn.execute(
        "delete from lines where space = ? and reply_to in (select id from lines where subject_id = ?)",
        (space, sid),
    ).rowcount
    gone += conn.execute("delete from lines where subject_id = ?", (sid,)).rowcount
    return gone + erase_conversation(conn, space, f"dm:{subject}")


def erase_conversation(conn: sqlite3.Connection, space: str, conversation: str) -> int:
    return conn.execute(
        "delete from lines where space = ? and conversation = ?", (space, conversation)
    ).rowcount


# -- moving ----------------------------------------------------------------------------------------------

FIELDS = ("id", "conversation", "subject", "role", "name", "text", "at", "addressed", "reply_to")


def export_rows(conn: sqlite3.Connection, space: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        f"select {COLUMNS} from lines l left join subjects s on s.id = l.subject_id "
        "where l.space = ? order by l.id",
        (space,),
    ).fetchall()
    return [dict(zip(FIELDS, (*row[:7], bool(row[7]), row[8]), strict=True)) for row in rows]


def _text(value: object, limit: int) -> str | None:
    return value[:limit] if isinstance(value, str) and value.strip() else None


def import_rows(conn: sqlite3.Connection, space: str, rows: Iterable[object]) -> int:
    """Bring lines in, leniently (a row without a conversation, a role or text is skipped) and
    idempotently (a line is the same line if its conversation has one of the same role, time and text);
    replies are linked to the new ids of the lines they answered. Returns how many were added."""
    added = 0
    new_ids: dict[int, int] = {}
    for row in rows:
        if not isinstance(row, Mapping):
            continue
        conversation = _text(row.get("conversation"), 200)
        said = _text(row.get("text"), TEXT_LIMIT)
        role, at = row.get("role"), row.get("at")
        number = isinstance(at, int | float) and not isinstance(at, bool)
        if conversation is None or said is None or role not in ROLES or not number or at != at:
            continue
        subject = subject_or_none(row.get("subject")) if role == USER else None
        if role == USER and subject is None:
            continue
        known = conn.execute(
            "select id from lines where space = ? and conversation = ? and role = ? and at = ? and text = ?",
            (space, conversation, role, float(at), said),
        ).fetchone()
        old = row.get("id")
        if known is not None:
            line_id = known[0]
        else:
            reply_to = row.get("reply_to")
            line_id = add(
                conn,
                space,
                conversation,
                subject=subject,
                role=role,
                name=_text(row.get("name"), 80),
                text=said,
                at=float(at),
                addressed=bool(row.get("addressed", True)),
                reply_to=new_ids.get(reply_to) if isinstance(reply_to, int) else None,
            )
            added += 1
        if isinstance(old, int) and not isinstance(old, bool):
            new_ids[old] = line_id
    return added
