"""The term index: which live notes of a person contain which words.

A note's terms are the terms (see `mneme_core.text.terms`) of its text, its key's words and its gloss. Each
person has a vocabulary in `terms`; each (term, note) pair is a posting. How many of the person's live
notes contain a term (its `df`) is `terms.df` (the merged postings) plus its fresh postings (see below).
The index changes in the transaction that makes a note live or takes it out of life (forgotten, replaced,
pruned), so it only ever describes live notes and a recall never has to filter out the dead.

Two tables hold the postings, for the sake of writing. `postings` is ordered by term, which is what a recall
reads; but a new note's terms each sit on a different page of it, and a commit writes every page it touched
to the WAL (a Chinese note has some 27 terms: 29 of the 40 pages a note's commit wrote). So a new note's
postings go to `fresh_postings`, ordered by note, where they share a page or two, and are merged into
`postings` once `FRESH_NOTES` notes have gathered there: one merge writes each touched term's page (and its
`df`) once for all of them. Recall reads both, and counts the fresh postings into `df` itself. The work is a
few statements per note, done inside SQLite over a JSON list of terms, so indexing costs about the same
whether a note has three terms or thirty.
"""

from __future__ import annotations

import json
import sqlite3

from .. import text
from ..store.schema import LIVE
from .note import COLUMNS, LASTING, Note, key_terms, note_of

FRESH_NOTES = 256


def note_terms(note_text: str, key: str | None, gloss: str | None) -> list[str]:
    """The terms a note is found by."""
    return text.terms(" ".join(part for part in (note_text, key_terms(key), gloss or "") if part))


def rank_of(
    kind: str, importance: int, feeling: float, happened_at: float, recalled_at: float | None
) -> tuple[float | None, float]:
    """What recall's score needs of a note besides its evidence, kept on each of its postings.

    `fresh_at`: the moment its freshness counts from (None for lasting kinds, which never fade);
    `weight`: `(0.4 + 0.15 importance) x (1 + 0.3 |feeling|)`. Keeping them on the postings lets a recall
    score thousands of candidates without visiting their notes, and only the winners are read.
    """
    fresh_at = None if kind in LASTING else max(happened_at, recalled_at or 0.0)
    return fresh_at, (0.4 + 0.15 * importance) * (1 + 0.3 * abs(feeling))


def add(conn: sqlite3.Connection, subject_id: int, note: Note) -> None:
    """Index a note that has just become live."""
    terms = note_terms(note.text, note.key, note.gloss)
    if not terms:
        return
    listed = json.dumps(terms, ensure_ascii=False)
    fresh_at, weight = rank_of(note.kind, note.importance, note.feeling, note.happened_at, note.recalled_at)
    conn.execute(
        "insert or ignore into terms(subject_id, term, df) select ?, value, 0 from json_each(?) where true",
        (subject_id, listed),
    )
    conn.execute(
        "insert or ignore into fresh_postings(note_id, term_id, fresh_at, weight) select ?, t.id, ?, ? "
        "from json_each(?) j cross join terms t on t.subject_id = ? and t.term = j.value",
        (note.id, fresh_at, weight, listed, subject_id),
    )
    oldest = conn.execute("select note_id from fresh_postings order by note_id limit 1").fetchone()
    if oldest and note.id - oldest[0] >= FRESH_NOTES:
        merge(conn)


def merge(conn: sqlite3.Connection) -> int:
    """Move the fresh postings into `postings`, counting them into their terms' `df`; returns how many."""
    conn.execute(
        "update terms set df = df + c.n from "
        "(select term_id, count(*) as n from fresh_postings group by term_id) c where terms.id = c.term_id"
    )
    moved = conn.execute(
        "insert or replace into postings(term_id, note_id, fresh_at, weight) "
        "select term_id, note_id, fresh_at, weight from fresh_postings order by term_id, note_id"
    ).rowcount
    conn.execute("delete from fresh_postings")
    return moved


def remove(
    conn: sqlite3.Connection,
    subject_id: int,
    note_id: int,
    note_text: str,
    key: str | None,
    gloss: str | None,
) -> None:
    """Take a note out of the index (it was forgotten, replaced or pruned)."""
    terms = note_terms(note_text, key, gloss)
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
    conn.execute("delete from fresh_postings where note_id = ?", (note_id,))


def rebuild(conn: sqlite3.Connection) -> int:
    """Index every live note again (after the tokenizer changed); returns how many notes were indexed."""
    conn.execute("delete from postings")
    conn.execute("delete from fresh_postings")
    conn.execute("delete from terms")
    rows = conn.execute(f"select subject_id, {COLUMNS} from notes where {LIVE}").fetchall()
    for row in rows:
        add(conn, row[0], note_of("", row[1:]))
    merge(conn)
    return len(rows)


def refresh(conn: sqlite3.Connection, subject_id: int, note: Note) -> None:
    """A note's importance, feeling or freshness changed: bring its postings up to date."""
    terms = note_terms(note.text, note.key, note.gloss)
    fresh_at, weight = rank_of(note.kind, note.importance, note.feeling, note.happened_at, note.recalled_at)
    conn.execute(
        "update postings set fresh_at = ?, weight = ? where note_id = ? and term_id in "
        "(select id from terms where subject_id = ? and term in (select value from json_each(?)))",
        (fresh_at, weight, note.id, subject_id, json.dumps(terms, ensure_ascii=False)),
    )
    conn.execute(
        "update fresh_postings set fresh_at = ?, weight = ? where note_id = ?", (fresh_at, weight, note.id)
    )
