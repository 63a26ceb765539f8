"""The recall log, written in batches off recall's path.

A recall only reads. What it would write, a log row (query, chosen, skipped) and the "recalled" marks that
keep a used note fresh, waits in a queue here and is written:
- inside the next write transaction of this `Mneme`, whatever it is (one commit serves both), at most
  `PER_WRITE` entries, and while a reply's read waits for the file's thread only ~2 ms of them;
- once `BATCH` entries wait or the oldest has waited `WAIT` seconds, by a write of nothing that a small
  timer thread asks of the store's own writer (`write_soon`): the timer never writes itself, which made it
  one more thread taking turns at the GIL and at SQLite's lock;
- on `flush()` (before the log is read back) and on close.

The log is a record of what the companion looked at, not something a person asked to keep: a process killed
before a batch is written loses those few entries, never a note. Each person's log keeps its newest `KEEP`
entries. A person erased while their entries wait has them dropped, and a batch never writes entries for a
person who no longer exists (erased by another process).

With the lifecycle on (`lifecycle`), the same transaction reinforces the notes a recall chose before their
"recalled" marks move (at most once per conversation), links those reinforced together and brings archived
ones back (`memory.lifecycle`, `memory.links`).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from dataclasses import dataclass

from ..errors import ClosedError
from ..store import Store
from . import index, lifecycle, links
from .lifecycle import Lifecycle
from .note import COLUMNS, note_of
from .recall import Recall, Trace

log = logging.getLogger(__name__)

BATCH = 64
PER_WRITE = 16  # entries one write transaction takes along,
PER_WRITE_SECONDS = 0.002  # and within about this long while a reply's read waits for that transaction
WAIT = 2.0
KEEP = 200
QUERY_LIMIT = 300


@dataclass(frozen=True)
class Entry:
    subject_id: int
    at: float
    query: str
    chosen: str
    skipped: str
    matched: tuple[int, ...]
    conversation: str | None = None  # the conversation the recall was for: reinforcement is once per one


class RecallLog:
    """Queues recall entries and writes them in batches."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._pending: list[Entry] = []
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._flushing = False  # a write of what waits is asked of the store's writer (`_flush_soon`)
        self.dropped = 0  # entries that could not be written (never a note): see `flush_or_drop`
        self.lifecycle: Lifecycle | None = None  # reinforce and link what recalls chose (set by `Mneme`)
        self.half_life_days = 30.0
        store.piggyback.append(self.write_pending)

    def add(self, recall: Recall, trace: Trace, at: float) -> None:
        entry = Entry(
            trace.subject_id,
            at,
            recall.query[:QUERY_LIMIT],
            json.dumps([[r.note.id, r.why] for r in recall.chosen], ensure_ascii=False),
            json.dumps([[note.id, reason] for note, reason in recall.skipped], ensure_ascii=False),
            trace.matched,
            trace.conversation,
        )
        with self._lock:
            self._pending.append(entry)
            waiting = len(self._pending)
            if self._thread is None and not self._stopping:
                self._thread = threading.Thread(target=self._run, name="mneme-recall-log", daemon=True)
                self._thread.start()
        if waiting >= BATCH:
            self._wake.set()

    @property
    def waiting(self) -> int:
        return len(self._pending)

    def drop(self, subject_id: int) -> None:
        """Forget what waits for a person who is being erased."""
        with self._lock:
            self._pending = [e for e in self._pending if e.subject_id != subject_id]

    def write_pending(self, conn: sqlite3.Connection) -> None:
        """Write what waits, inside the caller's write transaction: the oldest `PER_WRITE` entries, and while
        a reply's read waits for the file's thread only those within `PER_WRITE_SECONDS` (the rest ride along
        with the next write, first)."""
        with self._lock:
            batch, self._pending = self._pending[:PER_WRITE], self._pending[PER_WRITE:]
        if not batch:
            return
        touched = set()
        until = time.monotonic() + PER_WRITE_SECONDS
        for done, e in enumerate(batch):
            if done and time.monotonic() > until and self._store.reply_waits():
                with self._lock:
                    self._pending[:0] = batch[done:]
                break
            inserted = conn.execute(
                "insert into recalls(subject_id, at, query, chosen, skipped) select ?, ?, ?, ?, ? "
                "where exists (select 1 from subjects where id = ?)",
                (e.subject_id, e.at, e.query, e.chosen, e.skipped, e.subject_id),
            ).rowcount
            if inserted:
                touched.add(e.subject_id)
                life = self.lifecycle
                if life is not None and life.enabled and e.matched:
                    hl = self.half_life_days
                    settled = lifecycle.reinforce(conn, e.subject_id, e.matched, e.at, e.conversation, hl)
                    links.together(conn, e.subject_id, settled, e.at, life.link_half_life_days)
                if not e.matched:
                    continue
                rows = conn.execute(  # one statement for the entry's notes, not one each
                    "update notes set recalled_at = max(coalesce(recalled_at, 0), ?), "
                    "recalls = recalls + 1 "
                    f"where id in (select value from json_each(?)) and subject_id = ? returning {COLUMNS}",
                    (e.at, json.dumps(list(dict.fromkeys(e.matched))), e.subject_id),
                ).fetchall()
                for row in rows:
                    note = note_of("", row)
                    if not note.lasting:
                        index.refresh(conn, e.subject_id, note)
        for sid in touched:
            conn.execute(
                "delete from recalls where subject_id = ? and id <= "
                "(select id from recalls where subject_id = ? order by id desc limit 1 offset ?)",
                (sid, sid, KEEP),
            )

    def flush(self) -> None:
        """Write what waits now, on this thread."""
        while self._pending and not self._store.closed:
            self._store.write(_nothing)

    async def aflush(self) -> None:
        while self._pending and not self._store.closed:
            await self._store.awrite(_nothing)

    def flush_or_drop(self) -> None:
        """`flush`, for closing: what cannot be written is counted in `dropped` and logged, not raised."""
        waiting = self.waiting
        try:
            self.flush()
        except sqlite3.Error as err:  # a full disk or a busy file must not keep the file from closing
            self._dropped(waiting, err)

    async def aflush_or_drop(self) -> None:
        waiting = self.waiting
        try:
            await self.aflush()
        except sqlite3.Error as err:
            self._dropped(waiting, err)

    def _dropped(self, count: int, err: BaseException) -> None:
        self.dropped += count
        log.warning(
            "%d recall-log entries could not be written to %s and are dropped: %s",
            count,
            self._store.path,
            err,
        )

    def _run(self) -> None:
        oldest = time.monotonic()
        while not self._stopping:
            self._wake.wait(WAIT)
            self._wake.clear()
            if self._stopping:
                return
            if not self._pending:
                oldest = time.monotonic()
                continue
            if len(self._pending) < BATCH and time.monotonic() - oldest < WAIT:
                continue
            self._flush_soon()
            oldest = time.monotonic()

    def _flush_soon(self) -> None:
        """What waits, written by the store's writer with the writes waiting there (not on this thread, which
        would be one more taking turns at the GIL and at SQLite's lock): a busy file or a full disk drops that
        batch, which held no note."""
        if self._flushing:  # one asked already, not done yet
            return
        waiting = self.waiting

        def written(_result: object, error: BaseException | None) -> None:
            self._flushing = False
            if error is not None:
                self._dropped(waiting, error)

        self._flushing = True
        try:
            self._store.write_soon(_nothing, done=written)
        except ClosedError:  # closing: the close writes what is left
            self._flushing = False

    def stop(self) -> None:
        """Stop the background writer; the caller flushes what is left."""
        with self._lock:
            self._stopping = True
            thread = self._thread
        self._wake.set()
        if thread is not None:
            thread.join()


def _nothing(conn: object) -> None:
    """A write of nothing: what rides along (`Store.piggyback`) is the write."""
