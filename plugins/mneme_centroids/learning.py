"""Learning and unlearning: the queue the triggers fill (see `schema`), replayed in order.

Replaying is exact because every step is integer arithmetic on what the lessons recorded:
- learn: a note's vector (as it is in `vectors` now) is rounded to the grid and added to the centroid of
  each of its terms (text, key words and gloss, as the term index has them); the lesson records those term
  ids and the vector's fingerprint. A note that has no vector any more, or has a lesson already, is skipped
  (a later row in the queue says what became of it).
- unlearn: the copied vector is subtracted from the terms its lesson names, but only if it is the vector the
  lesson learned (same fingerprint); then the lesson goes. A centroid that counts no note any more goes too.

Each function taking a `conn` is a transaction function (see `mneme_core.store`).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import defaultdict
from typing import Any

import numpy as np

from mneme_core.memory import index

from .schema import SCALE

BATCH = 256  # queue rows replayed inside someone else's write: a few ms, so a backlog never slows a write
WORK_BATCH = 5000  # in a transaction of our own (`Centroids.work`)


def grid(blob: bytes) -> Any:
    """A stored float32 vector as integers on the grid (what sums and differences are taken of)."""
    return np.rint(np.frombuffer(blob, dtype="<f4").astype(np.float64) * SCALE).astype(np.int64)


def fingerprint(blob: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(blob, digest_size=8).digest(), "big", signed=True)


def note_term_ids(conn: sqlite3.Connection, note_id: int) -> tuple[int, list[int]] | None:
    """(subject id, term ids) of a note, as the term index finds it by (text, key words, gloss)."""
    row = conn.execute("select subject_id, text, key, gloss from notes where id = ?", (note_id,)).fetchone()
    if row is None:
        return None
    sid, text, key, gloss = row
    listed = json.dumps(index.note_terms(text, key, gloss), ensure_ascii=False)
    ids = [
        r[0]
        for r in conn.execute(
            "select id from terms where subject_id = ? and term in (select value from json_each(?)) "
            "order by id",
            (sid, listed),
        )
    ]
    return sid, ids


class _Changes:
    """What one replay adds to each centroid and to each person's count, written once at the end."""

    def __init__(self) -> None:
        self.totals: dict[tuple[int, int], Any] = {}
        self.counts: defaultdict[tuple[int, int], int] = defaultdict(int)
        self.owners: dict[tuple[int, int], int] = {}
        self.learned: defaultdict[tuple[int, int], int] = defaultdict(int)

    def add(self, eid: int, sid: int, term_ids: list[int], vector: Any, sign: int) -> None:
        for term_id in term_ids:
            key = (eid, term_id)
            held = self.totals.get(key)
            self.totals[key] = sign * vector if held is None else held + sign * vector
            self.counts[key] += sign
            self.owners[key] = sid
        self.learned[(eid, sid)] += sign

    def write(self, conn: sqlite3.Connection) -> None:
        for (eid, term_id), delta in self.totals.items():
            row = conn.execute(
                "select notes, total from centroids where embedder_id = ? and term_id = ?", (eid, term_id)
            ).fetchone()
            notes = self.counts[(eid, term_id)] + (row[0] if row else 0)
            if notes <= 0:
                conn.execute("delete from centroids where embedder_id = ? and term_id = ?", (eid, term_id))
                continue
            total = delta + np.frombuffer(row[1], dtype="<i8") if row else delta
            conn.execute(
                "insert or replace into centroids(embedder_id, term_id, subject_id, notes, total) "
                "values (?, ?, ?, ?, ?)",
                (eid, term_id, self.owners[(eid, term_id)], notes, total.astype("<i8").tobytes()),
            )
        for (eid, sid), change in self.learned.items():
            if change:
                conn.execute(
                    "insert into centroid_sets(embedder_id, subject_id, learned) values (?, ?, ?) "
                    "on conflict(embedder_id, subject_id) "
                    "do update set learned = centroid_sets.learned + excluded.learned",
                    (eid, sid, change),
                )
        conn.execute("delete from centroid_sets where learned <= 0")


def drain(conn: sqlite3.Connection, limit: int = BATCH) -> int:
    """Replay up to `limit` rows of the queue, in order; returns how many were replayed."""
    rows = conn.execute(
        "select id, op, note_id, embedder_id, vector from centroid_queue order by id limit ?", (limit,)
    ).fetchall()
    if not rows:
        return 0
    changes = _Changes()
    for _id, op, note_id, eid, blob in rows:
        lesson = conn.execute(
            "select subject_id, terms, print from centroid_lessons where note_id = ? and embedder_id = ?",
            (note_id, eid),
        ).fetchone()
        if op == "learn":
            _learn(conn, changes, note_id, eid, lesson)
        elif lesson is not None and blob is not None and lesson[2] == fingerprint(blob):
            changes.add(eid, lesson[0], json.loads(lesson[1]), grid(blob), -1)
            conn.execute("delete from centroid_lessons where note_id = ? and embedder_id = ?", (note_id, eid))
    conn.execute("delete from centroid_queue where id <= ?", (rows[-1][0],))
    changes.write(conn)
    return len(rows)


def _learn(
    conn: sqlite3.Connection, changes: _Changes, note_id: int, eid: int, lesson: tuple[Any, ...] | None
) -> None:
    if lesson is not None:
        return
    found = conn.execute(
        "select vector from vectors where note_id = ? and embedder_id = ?", (note_id, eid)
    ).fetchone()
    terms = note_term_ids(conn, note_id) if found else None
    if terms is None:
        return
    sid, term_ids = terms
    changes.add(eid, sid, term_ids, grid(found[0]), 1)
    conn.execute(
        "insert into centroid_lessons(embedder_id, note_id, subject_id, terms, print) values (?, ?, ?, ?, ?)",
        (eid, note_id, sid, json.dumps(term_ids), fingerprint(found[0])),
    )


def waiting(conn: sqlite3.Connection) -> int:
    (n,) = conn.execute("select count(*) from centroid_queue").fetchone()
    return n


# -- reading, for a query -------------------------------------------------------------------------------


def query_centroids(
    conn: sqlite3.Connection, eid: int, space: str, subject: str, terms: list[str]
) -> tuple[int, list[tuple[str, int, bytes]]] | None:
    """(notes the person taught this embedder, [(term, notes, total)] of the query's terms that have a
    centroid), or None for a person with nothing learned."""
    row = conn.execute(
        "select s.id, c.learned from subjects s join centroid_sets c on c.subject_id = s.id "
        "where s.space = ? and s.subject = ? and c.embedder_id = ?",
        (space, subject, eid),
    ).fetchone()
    if row is None:
        return None
    sid, learned = row
    found = conn.execute(
        "select t.term, c.notes, c.total from terms t join centroids c on c.term_id = t.id "
        "and c.embedder_id = ? where t.subject_id = ? and t.term in (select value from json_each(?))",
        (eid, sid, json.dumps(terms, ensure_ascii=False)),
    ).fetchall()
    return learned, found
