"""News a prompt told, marked in the file off the prompt's path.

A prompt tells the mood's news once (`moods.untold_news`). Marking it told is a write, and a prompt that
waited for the writer waited behind every observe committing at that moment: 300 messages a second over
1,000 people (`benchmarks/busy.py --mode open`), the prompts' writes waited 0.3-0.9 s at the median. So a
prompt only reads: the mark waits here and goes into the next write transaction of this `Mneme` (the
recall log's, within `recall_log.WAIT` of a logged prompt; an observe's; or the close's).

Until it is written, this process remembers what it told (`told`), so a second prompt for the person does
not tell it again. What that costs: a process killed in those seconds tells that news once more after it
starts again, and another process serving the same person in that window may tell it too. Telling a
feeling twice is the lesser harm; a reply held up by a write is the one every person feels.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from . import moods

log = logging.getLogger(__name__)

REMEMBERED = 100_000
"""People whose telling this process remembers; past it the memory starts again (each is in the file by
then, the mark long written)."""


class Told:
    """The marks waiting to be written, and the last event told to each person by this process."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._waiting: dict[int, int] = {}  # person's id -> the last event told, not yet in the file
        self._told: dict[int, int] = {}
        store.piggyback.append(self.write_pending)

    def tell(self, subject_id: int, last: int) -> bool:
        """Whether the news up to event `last` is this prompt's to tell (no other prompt of this process told
        it); if so its mark waits for the next write."""
        with self._lock:
            if self._told.get(subject_id, 0) >= last:
                return False
            if len(self._told) >= REMEMBERED:
                self._told.clear()
            self._told[subject_id] = last
            self._waiting[subject_id] = max(last, self._waiting.get(subject_id, 0))
        return True

    def already(self, subject_id: int, last: int) -> bool:
        """Whether this process told the news up to event `last`, written to the file or not yet."""
        with self._lock:
            return self._told.get(subject_id, 0) >= last

    def mark_now(self, conn: Any, subject_id: int, last: int) -> bool:
        """In a write transaction, ahead of what waits: the mark `tell` queued, written by the caller; False
        if another process marked it first."""
        with self._lock:
            if self._waiting.get(subject_id, 0) <= last:
                self._waiting.pop(subject_id, None)
        return moods.mark_told(conn, subject_id, last)

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def drop(self, subject_id: int) -> None:
        """Forget a person who is being erased."""
        with self._lock:
            self._waiting.pop(subject_id, None)
            self._told.pop(subject_id, None)

    def write_pending(self, conn: Any) -> None:
        """Inside the caller's write transaction: every mark that waits. A mark lost with a failed
        transaction means the news may be told once more, never that a note is lost."""
        with self._lock:
            marks, self._waiting = self._waiting, {}
        for subject_id, last in marks.items():
            moods.mark_told(conn, subject_id, last)

    def flush_or_drop(self) -> None:
        """Write what waits now, on this thread (closing). A mark that cannot be written means that news may
        be told once more, so it is logged, not raised: closing must not fail for it."""
        if self._waiting and not self._store.closed:
            try:
                self._store.write(lambda conn: None)
            except Exception as err:  # a full disk, a busy file: no note rides on a mark
                self._dropped(err)

    async def aflush_or_drop(self) -> None:
        if self._waiting and not self._store.closed:
            try:
                await self._store.awrite(lambda conn: None)
            except Exception as err:  # as in flush_or_drop
                self._dropped(err)

    def _dropped(self, err: BaseException) -> None:
        with self._lock:
            count, self._waiting = len(self._waiting), {}
        log.warning("%d news marks could not be written to %s: %s", count, self._store.path, err)
