"""The transcript's term index: which of a person's lines contain which words, so recall finds a line said
weeks ago even when the note writer kept nothing of it.

A person's lines are their own lines addressed to the companion and the companion's replies to them (in a
room too: a reply belongs to the person it answered). Each is indexed by the terms (`text.terms`) of its
speaker's name and of its first `INDEXED` characters, in tables of their own (`memory.index.LINES`,
migration `0013_line_index`) on the notes' three levels, so keeping a line costs about one page of the
file, like a note, and a recall reads both indexes the same way. A room's context lines (said where the
companion was not addressed) are not indexed: they are never judged or observed, and only the newest few
of them are kept. `subjects.lines` counts a person's indexed lines: the `N` of their lines' idf.

Lines are the conversation as it was, not curated notes, so a posting carries when the line was said
(`fresh_at`) and a weight of 1: no importance, no feeling. A fresh posting names the person whose index it
is in (migration `0018_compact_index`), so a recall reads its person's alone.

A line leaves the index with its person (`erase`): their vocabulary and every posting of it go in the
transaction that deletes their lines. `rebuild` indexes every line again when the terms' rules change
(`LINES_VERSION`, kept in `meta` beside the notes' `terms_version`).
"""

from __future__ import annotations

import sqlite3

from .. import text
from ..memory import index
from ..memory.index import LINES

__all__ = ["INDEXED", "LINES_VERSION", "add", "erase", "line_terms", "rebuild", "subject_of_line"]

INDEXED = 2000  # characters of a line that are indexed: a pasted page is found by its start
LINES_VERSION = "line_terms_version"  # meta: the `text.version()` the lines were indexed with
WEIGHT = 1.0


def line_terms(name: str | None, said: str) -> list[str]:
    """The terms a line is found by: its speaker's name and its text."""
    return text.terms(f"{name} {said[:INDEXED]}" if name else said[:INDEXED])


def subject_of_line(
    conn: sqlite3.Connection, role: str, subject_id: int | None, addressed: bool, reply_to: int | None
) -> int | None:
    """Whose index a line goes in: a person's addressed line is theirs, the companion's reply belongs to
    the person whose line it answered; a room's context line and a reply to nobody are in no one's."""
    if not addressed:
        return None
    if subject_id is not None:
        return subject_id
    if reply_to is None:
        return None
    row = conn.execute("select subject_id, addressed from lines where id = ?", (reply_to,)).fetchone()
    return row[0] if row and row[1] else None


def add(
    conn: sqlite3.Connection, line_id: int, subject_id: int, name: str | None, said: str, at: float
) -> None:
    """Index a line just kept, in the person's line index."""
    terms = line_terms(name, said)
    if not terms:
        return
    index.add_postings(conn, LINES, subject_id, line_id, terms, (at, WEIGHT))
    conn.execute("update subjects set lines = lines + 1 where id = ?", (subject_id,))


def erase(conn: sqlite3.Connection, subject_id: int) -> None:
    """Every posting of a person's lines and their vocabulary (inside the caller's erase)."""
    index.forget_vocabulary(conn, LINES, subject_id)
    conn.execute("update subjects set lines = 0 where id = ?", (subject_id,))


def rebuild(conn: sqlite3.Connection) -> int:
    """Index every person's lines again (after the terms' rules changed); returns how many were indexed."""
    index.forget_term_ids(conn)
    for table in (LINES.settled, LINES.recent, LINES.fresh, LINES.terms):
        conn.execute(f"delete from {table}")
    conn.execute("update subjects set lines = 0")
    rows = conn.execute(
        "select l.id, coalesce(l.subject_id, r.subject_id), l.name, l.text, l.at from lines l "
        "left join lines r on r.id = l.reply_to and l.subject_id is null and r.addressed = 1 "
        "where l.addressed = 1 and coalesce(l.subject_id, r.subject_id) is not null order by l.id"
    ).fetchall()
    for line_id, sid, name, said, at in rows:
        add(conn, line_id, sid, name, said, at)
    index.merge(conn, LINES)
    index.settle(conn, LINES)
    return len(rows)
