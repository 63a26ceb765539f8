"""Vectors in the file, and each person's as one matrix in memory.

Storage (see `store.schema`, migration 0004): one float32 vector per (note, embedder), L2-normalised, in
`vectors`; the embedder's id, dimensions and floor in `embedders`. Only live notes have vectors: triggers
take them away when a note is forgotten, replaced, pruned, purged or erased.

Search. SQLite cannot load sqlite-vec here, and reading every vector into Python objects on each recall
would cost more than the rest of recall together. So each (embedder, person) has a float32 matrix in memory,
built once from the stored blobs and then kept up to date by difference: `vector_sets.changes` counts every
insert and delete of that person's vectors (by any process), a recall reads that one row, and only when it
moved are the note ids listed again (an index scan, no blobs) and the blobs of the new ones read. A query is
then one matrix-vector product: some 0.3 ms for 10,000 notes of 256 dimensions.

The transcript's lines have vectors too (`line_vectors`, migration 0013, for the lines in a person's line
index, see `transcript.index`), kept the same way on a shelf of their own (`LINES`): a `Shelf` names the
tables, and the functions here take one (the notes' by default). A line deleted takes its vectors along
(a trigger), like a note that stops being live.

Each function taking a `conn` is a transaction function (see `store`).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from typing import Any

from ..store.schema import LIVE_N
from .embeddings import numpy


@dataclass(frozen=True)
class Shelf:
    """Where one kind of item keeps its vectors: the table, the table counting each person's changes, and
    the column naming the item."""

    vectors: str
    sets: str
    item: str


NOTES = Shelf("vectors", "vector_sets", "note_id")
LINES = Shelf("line_vectors", "line_vector_sets", "line_id")


def _answered(line: str, answered: str) -> str:
    """The join from a line (alias `line`) to the addressed line it answered (alias `answered`), when it is a
    reply: with `_owner`, whose index a line is in (see `transcript.index.subject_of_line`)."""
    return (
        f"left join lines {answered} on {answered}.id = {line}.reply_to "
        f"and {line}.subject_id is null and {answered}.addressed = 1"
    )


def _owner(line: str, answered: str) -> str:
    """The person whose index an addressed line is in: its speaker's, or for a reply the answered line's."""
    return f"coalesce({line}.subject_id, {answered}.subject_id)"


# A person's indexed lines: their own addressed lines and the companion's replies to them; `l` is the line,
# `r` the line it answered.
INDEXED_LINES = f"from lines l {_answered('l', 'r')} where l.addressed = 1 and {_owner('l', 'r')} is not null"


def embedder_id(conn: sqlite3.Connection, name: str) -> tuple[int, int, float | None, int] | None:
    """(id, dimensions, floor, vectors when the floor was measured) of a named embedder, if the file has
    it."""
    row = conn.execute(
        "select id, dimensions, floor, floor_vectors from embedders where name = ?", (name,)
    ).fetchone()
    return (row[0], row[1], row[2], row[3]) if row else None


def embedder_made(conn: sqlite3.Connection, name: str, dimensions: int, now: float) -> tuple[int, int]:
    """The embedder's (id, dimensions), recording it with these dimensions if the file does not have it."""
    found = embedder_id(conn, name)
    if found:
        return found[0], found[1]
    (new_id,) = conn.execute(
        "insert into embedders(name, dimensions, created_at) values (?, ?, ?) returning id",
        (name, dimensions, now),
    ).fetchone()
    return new_id, dimensions


def set_floor(conn: sqlite3.Connection, eid: int, floor: float, vectors: int) -> None:
    conn.execute("update embedders set floor = ?, floor_vectors = ? where id = ?", (floor, vectors, eid))


def unembedded(conn: sqlite3.Connection, name: str, after: int, limit: int) -> list[int]:
    """Live notes with no vector of this embedder, by id from `after` up (the catch-up when a file opens)."""
    found = embedder_id(conn, name)
    eid = found[0] if found else -1
    return [
        row[0]
        for row in conn.execute(
            f"select n.id from notes n where n.id > ? and {LIVE_N} and not exists "
            "(select 1 from vectors v where v.note_id = n.id and v.embedder_id = ?) order by n.id limit ?",
            (after, eid, limit),
        )
    ]


def unembedded_lines(conn: sqlite3.Connection, name: str, after: int, limit: int) -> list[int]:
    """Indexed lines with no vector of this embedder, by id from `after` up."""
    found = embedder_id(conn, name)
    eid = found[0] if found else -1
    return [
        row[0]
        for row in conn.execute(
            f"select l.id {INDEXED_LINES} and l.id > ? and not exists "
            "(select 1 from line_vectors v where v.line_id = l.id and v.embedder_id = ?) "
            "order by l.id limit ?",
            (after, eid, limit),
        )
    ]


def lines_since(conn: sqlite3.Connection, after: int) -> tuple[int, list[int]]:
    """The highest line id, and the indexed lines above `after` (new lines, seen from a write)."""
    (top,) = conn.execute("select coalesce(max(id), 0) from lines").fetchone()
    if top <= after:
        return top, []
    return top, [row[0] for row in conn.execute(f"select l.id {INDEXED_LINES} and l.id > ?", (after,))]


# The line said just before, as context for a line's vector: the same person's indexed line before it in its
# conversation (their own addressed line, or the companion's reply to one), among the conversation's
# `BEFORE_READ` lines before it, its first `BEFORE_CHARS` characters. Only the same person's lines, so
# erasing a person (or a conversation) takes every vector their words went into.
BEFORE_READ = 20
BEFORE_CHARS = 300
_BEFORE = (
    f"(select coalesce(p.name || ': ', '') || substr(p.text, 1, {BEFORE_CHARS}) from "
    "(select q.id, q.name, q.text, q.subject_id, q.reply_to, q.addressed from lines q "
    "where q.space = l.space and q.conversation = l.conversation and q.id < l.id "
    f"order by q.id desc limit {BEFORE_READ}) p {_answered('p', 'pr')} "
    f"where p.addressed = 1 and {_owner('p', 'pr')} = {_owner('l', 'r')} order by p.id desc limit 1)"
)


def line_texts_of(conn: sqlite3.Connection, ids: list[int]) -> list[tuple[int, int, str]]:
    """(line id, subject id, text to embed) of the indexed lines among `ids`: "name: text", after the line
    said just before it (`_BEFORE`) on a line of its own.

    Why the line before: a turn is half of an exchange. "Yes, to Marcus!" or "a photo book of her whole
    life" says what it is about only beside the question it answers, and a model places the pair where
    the question about it lands. With multilingual-e5-small, evidence found at 6 / 10 lines (the
    retrieval benchmark, words with meaning) went from line alone to with the line before:

    | set | line alone | with the line before |
    |---|---|---|
    | long (121 q, English, LoCoMo-length turns) | 0.653 / 0.716 | 0.665 / 0.738 |
    | fresh (227 q) | 0.644 / 0.722 | 0.653 / 0.722 |
    | fresh, English | 0.610 / 0.715 | 0.659 / 0.722 |
    | fresh, Chinese | 0.680 / 0.730 | 0.647 / 0.721 |
    | dev (399 q) | 0.749 / 0.808 | 0.764 / 0.829 |
    | dev, English | 0.721 / 0.785 | 0.739 / 0.811 |
    | dev, mixed | 0.664 / 0.702 | 0.727 / 0.773 |
    | dev, Chinese | 0.834 / 0.893 | 0.827 / 0.887 |

    English gains everywhere; the short Chinese turns lose a little (a 20-character line beside the one
    before is half someone else's words). Taking the line before only when it asks something kept the
    Chinese (0.685 / 0.738 on fresh) but gave back most of the English (0.634 / 0.701), so every line gets
    it. Lines embedded before this keep their vectors (made from the line alone) until they are embedded
    again; words alone are unchanged."""
    return [
        (line_id, sid, (f"{before}\n" if before else "") + (f"{name}: {said}" if name else said))
        for line_id, sid, name, said, before in conn.execute(
            f"select l.id, coalesce(l.subject_id, r.subject_id), l.name, substr(l.text, 1, 2000), {_BEFORE} "
            f"{INDEXED_LINES} and l.id in (select value from json_each(?)) order by l.id",
            (json.dumps(ids),),
        )
    ]


def live_since(conn: sqlite3.Connection, after: int) -> tuple[int, list[int]]:
    """The highest note id, and the live notes above `after` (new notes, seen from a write transaction)."""
    (top,) = conn.execute("select coalesce(max(id), 0) from notes").fetchone()
    if top <= after:
        return top, []
    ids = [row[0] for row in conn.execute(f"select n.id from notes n where n.id > ? and {LIVE_N}", (after,))]
    return top, ids


def texts_of(conn: sqlite3.Connection, ids: list[int]) -> list[tuple[int, int, str]]:
    """(note id, subject id, text) of the notes among `ids` that are still live."""
    return conn.execute(
        f"select n.id, n.subject_id, n.text from notes n where n.id in (select value from json_each(?)) "
        f"and {LIVE_N} order by n.id",
        (json.dumps(ids),),
    ).fetchall()


def store_vectors(
    conn: sqlite3.Connection,
    name: str,
    rows: list[tuple[int, int, bytes]],
    dimensions: int,
    now: float,
    shelf: Shelf = NOTES,
) -> int:
    """Write (item id, subject id, float32 blob) rows for the notes still live (or the lines still there);
    returns how many."""
    eid, known = embedder_made(conn, name, dimensions, now)
    if known != dimensions:
        from .embeddings import EmbeddingError

        raise EmbeddingError(f"{name} now gives {dimensions} dimensions; this file holds {known} for it")
    there = (
        f"select n.id from notes n where n.id in (select value from json_each(?)) and {LIVE_N}"
        if shelf is NOTES
        else "select id from lines where id in (select value from json_each(?))"
    )
    live = {row[0] for row in conn.execute(there, (json.dumps([r[0] for r in rows]),))}
    written = 0
    for item_id, sid, blob in rows:
        if item_id in live:
            conn.execute(
                f"insert or replace into {shelf.vectors}({shelf.item}, embedder_id, subject_id, vector) "
                "values (?, ?, ?, ?)",
                (item_id, eid, sid, blob),
            )
            written += 1
    return written


def count(conn: sqlite3.Connection, eid: int) -> int:
    (n,) = conn.execute("select count(*) from vectors where embedder_id = ?", (eid,)).fetchone()
    return n


def sample(conn: sqlite3.Connection, eid: int, size: int) -> list[bytes]:
    """Up to `size` of an embedder's vectors, spread over the file (for measuring the floor)."""
    return [
        row[0]
        for row in conn.execute(
            "select vector from vectors where embedder_id = ? order by (note_id * 2654435761) % 4294967296 "
            "limit ?",
            (eid, size),
        )
    ]


CENTER_MIN = 30  # below this many vectors a person's mean direction is too noisy to take out
FLOOR_SAMPLE = 300
FLOOR_QUANTILE = 0.95  # of random pairs of a person's notes: what chance alone reaches


@dataclass
class _Matrix:
    changes: int
    ids: Any  # sorted int64 note ids
    matrix: Any  # float32 (len(ids), dimensions), as stored
    centered: Any = None  # the same, less the person's mean vector, normalised again
    mean: Any = None
    floor: float | None = None  # measured on `centered`

    def prepare(self) -> None:
        """Take out the person's mean direction and measure the floor on what is left (see above)."""
        if len(self.ids) < CENTER_MIN:
            return
        self.mean = self.matrix.mean(axis=0)
        self.centered = _centre(self.matrix, self.mean)
        step = max(1, len(self.ids) // FLOOR_SAMPLE)
        self.floor = _floor(self.centered[::step][:FLOOR_SAMPLE])


def _centre(matrix: Any, mean: Any) -> Any:
    np = numpy()
    centered = matrix - mean
    norms = np.linalg.norm(centered, axis=1, keepdims=True)
    return centered / np.where(norms > 0, norms, 1.0)


def _floor(sample: Any) -> float:
    np = numpy()
    sims = sample @ sample.T
    return float(np.quantile(sims[np.triu_indices(len(sample), k=1)], FLOOR_QUANTILE))


def centred_floor(sample: Any, mean: Any) -> float:
    """The floor measured on a sample of a person's vectors (every `len // FLOOR_SAMPLE`th by id, at
    most `FLOOR_SAMPLE`) less their `mean`: what a server searching the vectors itself needs to give the
    same scores (`store.postgres.vectors`)."""
    return _floor(_centre(sample, mean))


def centred(ids: Any, matrix: Any) -> tuple[Any, float | None]:
    """A person's vectors less their mean direction, and the floor measured there (as recall places a
    query: see `_Matrix.prepare`); the vectors as they are and None below `CENTER_MIN` of them."""
    made = _Matrix(0, ids, matrix)
    made.prepare()
    return (matrix, None) if made.centered is None else (made.centered, made.floor)


class PerPerson:
    """What was worked out from each person's vectors (of one shelf and embedder), kept until they change
    (`vector_sets.changes`, by any process): the matrix here, or what a server searching its own vectors
    keeps (`store.postgres.vectors`)."""

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self._cache: dict[tuple[str, int, int], Any] = {}  # (shelf's table, embedder id, subject id)
        self._lock = threading.Lock()
        self.loaded = 0  # vectors read into this process, for tests and the report

    def held(self, conn: Any, eid: int, sid: int, shelf: Shelf) -> tuple[int, Any]:
        """The person's count of changes as of this snapshot, and what is kept for them (None if nothing;
        stale if its `changes` differ)."""
        row = conn.execute(
            f"select changes from {shelf.sets} where embedder_id = ? and subject_id = ?", (eid, sid)
        ).fetchone()
        with self._lock:
            return (row[0] if row else 0), self._cache.get((shelf.vectors, eid, sid))

    def keep(self, eid: int, sid: int, shelf: Shelf, made: Any) -> Any:
        with self._lock:
            self._cache[(shelf.vectors, eid, sid)] = made
        return made

    def drop(self, sid: int) -> None:
        with self._lock:
            for key in [key for key in self._cache if key[2] == sid]:
                del self._cache[key]


class VectorIndex(PerPerson):
    """Each person's vectors of one embedder as a matrix in memory, refreshed by difference (see above)."""

    def matrix(self, conn: sqlite3.Connection, eid: int, sid: int, shelf: Shelf = NOTES) -> _Matrix:
        """A person's vectors as of this transaction's snapshot."""
        np = numpy()
        changes, held = self.held(conn, eid, sid, shelf)
        if held is not None and held.changes == changes:
            return held
        ids = np.fromiter(
            (
                r[0]
                for r in conn.execute(
                    f"select {shelf.item} from {shelf.vectors} where embedder_id = ? and subject_id = ? "
                    f"order by {shelf.item}",
                    (eid, sid),
                )
            ),
            dtype=np.int64,
        )
        matrix = np.empty((len(ids), self.dimensions), dtype=np.float32)
        if held is not None and len(held.ids):
            at = np.searchsorted(held.ids, ids)
            at_ok = np.minimum(at, len(held.ids) - 1)
            kept = held.ids[at_ok] == ids
            matrix[kept] = held.matrix[at_ok[kept]]
        else:
            kept = np.zeros(len(ids), dtype=bool)
        missing = ids[~kept]
        if len(missing):
            where = {int(note_id): i for i, note_id in enumerate(ids)}
            for start in range(0, len(missing), 5000):
                chunk = [int(x) for x in missing[start : start + 5000]]
                for note_id, blob in conn.execute(
                    f"select {shelf.item}, vector from {shelf.vectors} where embedder_id = ? "
                    f"and {shelf.item} in (select value from json_each(?))",
                    (eid, json.dumps(chunk)),
                ):
                    matrix[where[note_id]] = np.frombuffer(blob, dtype="<f4")
            self.loaded += len(missing)
        made = _Matrix(changes, ids, matrix)
        made.prepare()
        return self.keep(eid, sid, shelf, made)

    def similar(
        self, conn: sqlite3.Connection, eid: int, sid: int, query: Any, floor: float, shelf: Shelf = NOTES
    ) -> tuple[Any, Any, float]:
        """(ids, similarities, floor) of all a person's vectors to the query vector: centred on the
        person's mean with the floor measured there once they have `CENTER_MIN` vectors, else plain
        cosine with the embedder's `floor`."""
        np = numpy()
        held = self.matrix(conn, eid, sid, shelf)
        if not len(held.ids):
            return held.ids, np.empty(0, dtype=np.float32), floor
        if held.centered is None:
            return held.ids, held.matrix @ query, floor
        q = query - held.mean
        q = q / (np.linalg.norm(q) or 1.0)
        return held.ids, held.centered @ q, held.floor
