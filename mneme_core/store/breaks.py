"""Breaks: a store's thread lets go of the GIL for a moment when the event loop has its outcomes waiting.

CPython 3.11 hands the GIL to a thread that waits for it only when the thread holding it has not let go
within the switch interval (5 ms): then the waiter asks and the holder must hand it over. A thread running
SQLite lets go at every step of every statement and takes the GIL straight back microseconds later, and
each time that counts as a hand-over; the waiter, woken too late to take it, sees a hand-over happened and
does not ask. So with 1,000 people talking at once the event loop's thread, woken for the outcomes the
file's thread handed it, waited 40-130 ms at a time for the GIL while that thread worked through the rush:
loop iterations of 0.2-7 ms of CPU took that long (`benchmarks/busy.py`, an iteration timer), and a switch
interval of 1 ms changed nothing, since the waiter never asks at all.

A real sleep lets go for long enough that a waiter, once woken, finds the GIL free. So a store's thread
sleeps `MOMENT` when an outcome it handed to an event loop has waited there `LATE` or longer (`Handed`): after
a job, between the writes of a group commit (`Transactions`) and before each read of a plan (`twins`),
where no thread of this process waits on it (a group commit's break holds SQLite's write lock 0.2 ms longer,
which only another process's writer could notice). When the loop keeps up, no break is taken: a sleep
nobody uses is only time lost.

Measured with `busy.py --freeze`, without breaks against with them, three runs each, interleaved, on a busy
afternoon: 1,000 people x 3 turns at once with the instant stub, the loop late at most 100-121 -> 21-49 ms
(p99 3.4-5.9 -> 2.8-3.7), aprompt p50 552-917 -> 79-86 ms (a reply's next step no longer waits for a starved
loop), turns/s 144-183 -> 131-145; 300 messages a second with the 200 ms stub (more than the machine could
take), the loop late at most 66-82 -> 27-33 ms (p99 4.7-5.1 -> 2.9-3.1), aprompt p95 60-116 -> 28-47 ms,
turns/s 145-154 -> 129-137. Later, on a quiet machine, all at once: the loop late at most 50-67 -> 9.4-10.5
ms, turns/s 310-370 -> 306-334. So a rush costs some 5-15 % of its turns a second (the loop, let in sooner,
takes outcomes and hands over writes in smaller batches) for replies that start sooner and a loop that stays
on time. A break every 3 ms of the thread's CPU instead, whether or not the loop waited, kept less of the
lateness off (p99 4.0-5.0 at once); one after every job cost a third of the turns.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["GIVE_UP", "LATE", "MOMENT", "Breaks", "Handed", "keep", "take_if_due"]

LATE = 0.001
"""Seconds an outcome waits for its loop before the thread that handed it takes a break: a loop that keeps
up takes it within a few hundred microseconds."""
MOMENT = 0.0002
"""Seconds a break sleeps: longer than a woken thread needs to take a free GIL (tens of microseconds), short
against the jobs between breaks."""
GIVE_UP = 1.0
"""Seconds after which outcomes still not taken are written off: their loop closed before running them."""


class Handed:
    """The outcomes a pool's threads handed to event loops and the loops have not yet taken: `handed()` on
    the store's thread before `call_soon_threadsafe`, `taken()` on the loop when the outcome is settled (or
    at once, when the hand-over failed). A lock keeps the counts exact across threads."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._handed = self._taken = 0
        self._since = 0.0  # when the oldest outcome not taken was handed

    def handed(self) -> None:
        with self._lock:
            if self._handed == self._taken:
                self._since = self._clock()
            self._handed += 1

    def taken(self) -> None:
        with self._lock:
            self._taken = min(self._taken + 1, self._handed)

    def waiting(self, late: float = LATE) -> bool:
        """Whether an outcome has waited `late` or longer for its loop (which then wants the GIL)."""
        with self._lock:
            if self._handed == self._taken:
                return False
            waited = self._clock() - self._since
            if waited >= GIVE_UP:  # its loop is gone (closed with the callback unrun): nothing waits
                self._taken = self._handed
                return False
            return waited >= late


class Breaks:
    """Kept by one thread: `take_if_due()` sleeps `moment` when `due()` says a loop waits (the pool's
    `Handed.waiting`). The sleep is `time.sleep` unless a test gives another."""

    def __init__(
        self, due: Callable[[], bool], moment: float = MOMENT, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self.due = due
        self.moment = moment
        self._sleep = sleep
        self.taken = 0

    def take_if_due(self) -> None:
        """A break if one is due: between jobs, or between the items of a long one (a group commit's
        writes), never while the thread holds a lock another thread of this process may wait for."""
        if self.due():
            self._sleep(self.moment)
            self.taken += 1


_threads = threading.local()


def keep(breaks: Breaks) -> Breaks:
    """`breaks` made the calling thread's, for `take_if_due` within its jobs; returned."""
    _threads.breaks = breaks
    return breaks


def take_if_due() -> None:
    """A break on the calling thread if it keeps breaks (a store's thread) and one is due: what a long job
    calls between its items. On any other thread, nothing."""
    breaks = getattr(_threads, "breaks", None)
    if breaks is not None:
        breaks.take_if_due()
