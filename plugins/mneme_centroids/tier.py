"""The word-centroids tier: a query placed by what its words meant in the person's own notes.

When the embedder cannot place a query (rested, failing, slow, or answering with other dimensions), each of
the query's words that the person has used stands for the mean of the vectors of the notes that hold it:
"kitten" is near wherever the notes about the kitten are. The query's vector is the weighted mean of those
centroids, rarer words weighing more (`ln(1 + learned / notes with the word)`), and it is searched against the
notes' stored vectors exactly as the embeddings tier's would be (a `Placed`).

It answers only when it can say something: the person has taught at least `min_notes` notes, and the words
it knows carry at least `min_share` of the query's weight (a word it has never seen weighs as much as a word
in one note), else it passes the query on. Learning happens in the file's write transactions (see
`learning`), never on a recall's path: placing a query is one read.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from typing import Any

import numpy as np

from mneme_core import text

from . import learning
from .schema import SCALE
from .settings import MIN_NOTES, MIN_SHARE, SETTINGS

log = logging.getLogger(__name__)

NAME = "centroids"
ORDER = 200
MAX_TERMS = 32


class Centroids:
    """The tier (see the module docstring); learning starts when it is made, in the file's writes."""

    name = NAME
    order = ORDER
    timeout = 2.0

    def __init__(self, mneme: Any, *, min_notes: int = MIN_NOTES, min_share: float = MIN_SHARE) -> None:
        self.min_notes = SETTINGS.check("min_notes", min_notes)
        self.min_share = SETTINGS.check("min_share", min_share)
        self.store = mneme.store
        self.meaning = mneme.meaning
        self.counts: Counter[str] = Counter()
        self.store.piggyback.append(self.learn_in)

    def learn_in(self, conn: Any) -> None:
        """Inside each write transaction of the file: replay what the triggers queued (a batch at most).

        In a savepoint of its own, so that a failure here costs the lessons, never the write it rides on;
        most writes find the queue empty, and pay one indexed lookup for it."""
        if conn.execute("select 1 from centroid_queue limit 1").fetchone() is None:
            return
        conn.execute("savepoint centroids")
        try:
            self.counts["replayed"] += learning.drain(conn)
        except Exception:  # the boundary of someone else's write: log, undo ours, let theirs commit
            conn.execute("rollback to centroids")
            log.exception("learning word centroids failed; the queue waits for the next write")
        conn.execute("release centroids")

    def work(self) -> int:
        """Replay the whole queue now (a file opened with vectors to learn, or after `embed_pending`)."""
        done = 0
        while True:
            count = self.store.write(learning.drain, learning.WORK_BATCH)
            if not count:
                return done
            done += count

    async def place(self, query: Any) -> Any:
        """A `Placed` for the query's known words, or None when too little of it is known."""
        found = self.meaning.embedder_in_file() if self.meaning is not None else None
        terms = text.terms(query.text)[:MAX_TERMS]
        if found is None or not terms:
            return None
        taught = await self.store.aread(learning.query_centroids, found[0], query.space, query.subject, terms)
        learned, rows = taught if taught is not None else (0, [])
        if learned < self.min_notes:
            self.counts["too few notes"] += 1
            return None
        vector, share = self.mean(learned, len(terms), rows)
        if vector is None or share < self.min_share:
            self.counts["too little known"] += 1
            return None
        return self.meaning.placed_at(vector)

    @staticmethod
    def mean(learned: int, asked: int, rows: list[tuple[str, int, bytes]]) -> tuple[Any, float]:
        """The weighted mean of the known terms' centroids (unit length), and the share of the query's
        weight they carry; (None, 0) when no centroid is usable."""
        unknown = math.log1p(learned) * (asked - len(rows))
        total, known = None, 0.0
        for _term, notes, blob in rows:
            weight = math.log1p(learned / notes)
            centroid = np.frombuffer(blob, dtype="<i8").astype(np.float64) / (SCALE * notes)
            total = weight * centroid if total is None else total + weight * centroid
            known += weight
        norm = float(np.linalg.norm(total)) if total is not None else 0.0
        if not norm or not known:
            return None, 0.0
        return (total / norm).astype(np.float32), known / (known + unknown)

    def report(self) -> dict[str, Any]:
        return dict(sorted(self.counts.items()))
