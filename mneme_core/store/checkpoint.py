"""Copying the WAL into the database file on a thread of its own, so a write's commit never pays for it.

In WAL mode every commit appends pages to the `-wal` file, and now and then those pages must be copied back
into the database file (a checkpoint), with an fsync of each file. SQLite does that inside whichever commit
crosses `wal_autocheckpoint`: measured here, a checkpoint of ~10,000 frames takes 12-65 ms, about a tenth of
all the time spent writing notes one by one, all of it landing on one unlucky `remember()`.

`Checkpointer` does it off the writers' path: every `EVERY` write transactions of this process it wakes a
thread with a connection of its own that runs `PRAGMA wal_checkpoint(PASSIVE)`, which copies what is
committed without blocking writers or readers (SQLite releases the GIL while it works, so on two cores it
runs beside the next writes). The writers' own `wal_autocheckpoint` stays on as a safety net at `SAFETY`
frames, for a process that writes faster than the thread copies or a thread that could not start.
Durability is unchanged: a commit is in the WAL before it returns, whoever copies it later.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

log = logging.getLogger(__name__)

EVERY = 1024  # write transactions between two checkpoints (some 6,000-10,000 frames of notes)
SAFETY = 40_000  # wal_autocheckpoint of the writers' connections: only if the thread falls behind


class Checkpointer:
    """A thread that checkpoints the WAL of one file after every `EVERY` writes (see the module docstring)."""

    def __init__(self, path: str, busy_timeout: float, every: int = EVERY) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self.every = every
        self.runs = 0  # checkpoints done (for tests and reports)
        self._writes = 0
        self._wake = threading.Event()
        self._stopping = False
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def wrote(self) -> None:
        """A write transaction of this process committed (cheap: a counter, and a wake-up now and then)."""
        self._writes += 1
        if self._writes >= self.every:
            self._writes = 0
            self._start()
            self._wake.set()

    def _start(self) -> None:
        with self._lock:
            if self._thread is None and not self._stopping:
                self._thread = threading.Thread(target=self._run, name="mneme-checkpoint", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=self.busy_timeout)
        except sqlite3.Error as err:  # the writers' own autocheckpoint still covers the file
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
