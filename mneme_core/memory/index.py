"""The term index: which live notes of a person contain which words.

A note's terms are the terms (see `mneme_core.text.terms`) of its text, its key's words and its gloss. Each
person has a vocabulary in `terms`, with the number of their live notes that contain each term (`df`); each
(term, note) pair is a row of `postings`. Both change in the transaction that makes a note live or takes it
out of life (forgotten, replaced, pruned), so the index only ever describes live notes and a recall never
has to filter out the dead.

All the work is two statements per note, done inside SQLite over a JSON list of terms, so indexing costs the
same few microseconds whether a note has three terms or thirty.
"""

from __future__ import annotations

import json
import sqlite3

from .. import text
from ..store.schema import LIVE
from .note import key_terms


def note_terms(note_text: str, key: str | None, gloss: str | None) -> list[str]:
    """The terms a note is found by."""
    return text.terms(" ".join(part for part in (note_text, key_terms(key), gloss or "") if part))


def add(conn: sqlite3.Connection, subject_id: int, note_id: int, terms: list[str]) -> None:
    """Index a note that has just become live."""
    if not terms:
        return
    listed = json.dumps(terms, ensure_ascii=False)
    conn.execute(
        "insert into terms(subject_id, term, df) select ?, value, 1 from json_each(?) where true "
        "on conflict(subject_id, term) do update set df = df + 1",
        (subject_id, listed),
    )
    conn.execute(
        "insert or ignore into postings(term_id, note_id) "
        "select t.id, ? from json_each(?) j cross join terms t on t.subject_id = ? and t.term = j.value",
        (note_id, listed, subject_id),
    )


def remove(conn: sqlite3.Connection, subject_id: int, note_id: int, terms: list[str]) -> None:
    """Take a note out of the index (it was forgotten, replaced or pruned)."""
    if not terms:
        return
    listed = json.dumps(terms, ensure_ascii=False)
    conn.execute(
        "update terms set df = df - 1 where subject_id = ? and term in (select value from json_each(?)) "
        "and exists (select 1 from postings p where p.term_id = terms.id and p.note_id = ?)",
        (subject_id, listed, note_id),
    )
    conn.execute(
        "delete from postings where note_id = ? and term_id in "
        "(select id from terms where subject_id = ? and term in (select value from json_each(?)))",
        (note_id, subject_id, listed),
    )


def rebuild(conn: sqlite3.Connection) -> int:
    """Index every live note again (after the tokenizer changed); returns how many notes were indexed."""
    conn.execute("delete from postings")
    conn.execute("delete from terms")
    rows = conn.execute(f"select id, subject_id, text, key, gloss from notes where {LIVE}").fetchall()
    for note_id, subject_id, note_text, key, gloss in rows:
        add(conn, subject_id, note_id, note_terms(note_text, key, gloss))
    return len(rows)
