"""Breaks: a store's thread that works for a long stretch lets go of the GIL for a moment now and then.

CPython 3.11 hands the GIL to a thread that waits for it only when the thread holding it has not let go
within the switch interval (5 ms): then the waiter asks and the holder must hand it over. A thread running
SQLite lets go at every step of every statement and takes the GIL straight back microseconds later, and
each time that counts as a hand-over; the waiter, woken too late to take it, sees a hand-over happened and
does not ask. So with 1,000 people talking at once the event loop's thread, woken by a timer or a finished
job, waited 40-130 ms at a time for the GIL while the file's thread worked through the rush: loop
iterations of 0.2-7 ms of CPU took that long (`benchmarks/busy.py`, an iteration timer), and a switch
interval of 1 ms changed nothing, since the waiter never asks at all.

A real sleep lets go for long enough that a waiter, once woken, finds the GIL free. So a store's thread
that has used `EVERY` seconds of CPU since its last break sleeps `MOMENT`: after a job, between the writes
of a group commit (`Transactions`) and before each read of a plan (`twins`), wherever it holds no lock
another thread waits for. Counting CPU, not wall time, means a thread that waits for the GIL itself, a lock
or the disk takes no break it does not need.

Measured with `busy.py --freeze`, 1,000 people x 3 turns at once with the instant stub, no breaks against
breaks every 3 ms, three runs each interleaved: the loop late at most 95.7-105.4 -> 13.4-20.6 ms (p99
3.6-4.3 -> 4.1-5.0), turns/s 178-202 -> 178-191, aprompt p50 441-789 -> 158-179 ms (a reply's next step
waits less for the loop). Every 2 ms gave p99 3.1-3.8 but 18 % fewer turns a second (the
loop, let in more often, takes outcomes in smaller batches); every 5 ms the same turns a second and p99
6.0-6.5; a break after every job, however short, cost a third of them. At 150 messages a second (200 ms
stub) nothing changed beyond noise: the hand-overs starve the loop only in a rush.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["EVERY", "MOMENT", "Breaks", "keep", "take_if_due"]

EVERY = 0.003
"""Seconds of a thread's CPU between breaks: under Python's switch interval (5 ms), the wait CPython itself
allows a thread that asks for the GIL (see the measurements above)."""
MOMENT = 0.0002
"""Seconds a break sleeps: longer than a woken thread needs to take a free GIL (tens of microseconds), short
against the jobs between breaks."""


class Breaks:
    """Kept by one thread: `take_if_due()` sleeps `moment` when the thread has used `every` of CPU since the
    last break. The clock and the sleep are the thread's CPU clock and `time.sleep` unless a test gives
    others."""

    def __init__(
        self,
        every: float = EVERY,
        moment: float = MOMENT,
        clock: Callable[[], float] = time.thread_time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.every = every
        self.moment = moment
        self._clock = clock
        self._sleep = sleep
        self._last = clock()
        self.taken = 0

    def take_if_due(self) -> None:
        """A break if one is due: between jobs, or between the items of a long one (a group commit's
        writes), never while the thread holds a lock another thread may wait for."""
        if self._clock() - self._last < self.every:
            return
        self._sleep(self.moment)
        self._last = self._clock()
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
