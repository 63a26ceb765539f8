"""Copying the WAL into the database file off the writers' path, and keeping the WAL near `LIMIT` bytes.

In WAL mode every commit appends the pages it changed to the `-wal` file (a note costs about 9 pages, some
37 KB), and now and then those pages must be copied back into the database file (a checkpoint). SQLite does
that inside whichever commit crosses `wal_autocheckpoint`: measured here, a checkpoint of ~10,000 frames takes
12-65 ms, all of it landing on one unlucky `remember()`.

So `Checkpointer` does the bulk of it on a thread with a connection of its own: every `EVERY` write
transactions of this process it runs `PRAGMA wal_checkpoint(PASSIVE)`, which copies what is committed
without blocking writers or readers (SQLite releases the GIL while it works, so on two cores it runs beside
the next writes).

Copying is not enough to keep the file small: SQLite starts the WAL over from its first frame only when a
write begins while every frame is already copied, and a writer that never pauses always has a few commits
the thread has not copied yet. Left alone, 4,000 notes written one by one left a 130-144 MB `-wal` beside a
2 MB database (the writers' safety net, `wal_autocheckpoint = SAFETY` frames, was all that ever caught up).
Hence the writer's part (`wrote`): once the `-wal` has grown past `LIMIT` (one `stat`, no I/O), the
writer copies the last few commits itself after its commit, while it holds no lock; its next write then
starts the WAL over, and `journal_size_limit = LIMIT` cuts the file back to `LIMIT`. A bot that pauses
between writes never gets there: the thread catches up in the pause and the WAL starts over by itself.

`LIMIT` is a trade between disk and write speed, since the writer's catch-up waits for two fsyncs (the
`-wal`'s, then the file's, before SQLite may overwrite old frames). Measured here, 4,000 notes written one
by one for 20 people, 8 interleaved runs (`benchmarks/reliability.py`'s write run): before, 3,047 notes/s
and a 130 MB `-wal`; with `LIMIT` at 4 MB 2,602 notes/s, at 8 MB 2,750, at 16 MB 2,936 (within this
machine's noise).

It is also a bound on an erase: `Store.write_for_good` ends with a truncating checkpoint, which copies every
frame not copied yet, up to about `LIMIT` bytes of them (10-12 ms a MB here, two fsyncs included). At
16 MB the worst erase of a person of 300 notes in a file of 3,000 people took 242 ms (median 30 ms); at
4 MB the copy is at most some 45 ms, so an erase stays under 100 ms (`benchmarks/people.py`, which erases
right after bursts of writes). The WAL can still grow while another connection keeps one read open for
long (its snapshot needs the frames); it comes back to `LIMIT` with the first writes after that reader is
done.

Durability is unchanged: a commit is in the WAL before it returns, whoever copies it later.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

log = logging.getLogger(__name__)

EVERY = 64  # write transactions between two of the thread's checkpoints (some 600 frames of notes)
LIMIT = 4 * 1024 * 1024  # bytes of -wal past which the writer finishes the checkpoint (journal_size_limit)
SAFETY = 40_000  # wal_autocheckpoint of the writers' connections: only if all of the above falls behind


class Checkpointer:
    """Keeps one file's WAL copied and near `LIMIT` bytes (see the module docstring)."""

    def __init__(
        self,
        path: str,
        busy_timeout: float,
        every: int = EVERY,
        limit: int = LIMIT,
        outside: Callable[[], AbstractContextManager[None]] = nullcontext,
    ) -> None:
        self.path = path
        self.wal = path + "-wal"
        self.busy_timeout = busy_timeout
        # Around the writer's wait for the thread's copy and its own (fsyncs): the store's threads may start
        # a reply's read meanwhile (`one_at_a_time.OneAtATime.outside`).
        self.outside = outside
        self.every = every
        self.limit = limit
        self.runs = 0  # checkpoints done by the thread (for tests and reports)
        self.caught_up = 0  # checkpoints finished by a writer so the WAL could start over
        self.over = 0  # commits that found the WAL past `limit` (each should be followed by a catch-up)
        self._writes = 0
        self._wake = threading.Event()
        self._stopping = False
        self._lock = threading.Lock()
        self._copying = threading.Lock()  # one checkpoint of this process at a time (thread or writer)
        self._thread: threading.Thread | None = None

    def wrote(self, conn: sqlite3.Connection, catch_up: bool = True) -> None:
        """A write transaction of this process committed on `conn`, which holds no lock now (cheap: a
        counter and a `stat`; a short checkpoint of the last commits once the WAL is past `LIMIT`). Without
        `catch_up` (a reply's read waits for the store's thread: the catch-up took 10-66 ms there, mostly
        fsyncs and the thread's copy), the thread copies instead and the next write catches up."""
        self._writes += 1
        if self._writes >= self.every:
            self._writes = 0
            self._start()
            self._wake.set()
        try:
            size = os.stat(self.wal).st_size
        except OSError:
            return
        if size > self.limit and not catch_up:
            self._start()
            self._wake.set()
        elif size > self.limit:
            self.over += 1
            # Waits for the thread's checkpoint, if one is running, instead of giving up: SQLite answers busy
            # to a second checkpoint at once, and a writer that went on meanwhile grew the WAL past `LIMIT`
            # by every commit the thread's copy took (0.9 MB over it, measured on a loaded machine).
            with self.outside():
                if not self._copying.acquire(timeout=self.busy_timeout):
                    return
                try:
                    busy, frames, copied = conn.execute("pragma wal_checkpoint(passive)").fetchone()
                except sqlite3.Error as err:  # another process is checkpointing: the next commit tries again
                    log.debug("checkpointing %s: %s", self.path, err)
                    return
                finally:
                    self._copying.release()
            self.caught_up += not busy and frames == copied

    def wipe(self, conn: sqlite3.Connection) -> bool:
        """Copy the whole WAL into the file and cut it to zero bytes, waiting up to the busy timeout for
        other connections' reads to end; False when one kept reading (see `Store._wipe`).

        SQLite waits for readers itself, but answers busy at once while another checkpoint runs (this
        thread's, or another process's): then it is tried again every millisecond until the deadline."""
        deadline = time.monotonic() + self.busy_timeout
        while True:
            busy, _, _ = conn.execute("pragma wal_checkpoint(truncate)").fetchone()
            if not busy:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.001)

    def _start(self) -> None:
        with self._lock:
            if self._thread is None and not self._stopping:
                self._thread = threading.Thread(target=self._run, name="mneme-checkpoint", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=self.busy_timeout)
        except sqlite3.Error as err:  # the writers' own checkpoints still cover the file
            log.warning("the checkpoint thread for %s could not open it: %s", self.path, err)
            return
        try:
            conn.execute("pragma wal_autocheckpoint = 0")
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stopping:
                    break
                try:
                    with self._copying:
                        conn.execute("pragma wal_checkpoint(passive)").fetchone()
                    self.runs += 1
                except sqlite3.Error as err:  # busy or locked: the next wake-up tries again
                    log.debug("checkpointing %s: %s", self.path, err)
        finally:
            conn.close()

    def stop(self) -> None:
        """Stop the thread (before the file's connections close; the last of them checkpoints the rest)."""
        with self._lock:
            self._stopping = True
            thread = self._thread
        self._wake.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join()
