"""Full garbage collections at a quiet moment, not in the middle of a rush, and short young ones in it.

CPython's cycle collector stops every thread while it runs, the event loop's among them, for as long as it
takes to traverse what it looks at. A young collection looks at what was made since the last one (a
millisecond or two); a full one at every object alive that start-up did not make (`gc.freeze()` takes
those out of its way). CPython starts a full one by itself when what survived the younger collections
since the last full one has grown by a quarter, which in a rush is every few seconds, and with hundreds of
turns in flight it traverses tens of thousands of objects: `benchmarks/busy.py` (1,000 people x 3 turns,
start-up's objects frozen) saw one or two a run of 25-43 ms each, during which no reply went out and no
platform heartbeat was answered.

So while `mneme run` serves (`Runner.serve`), the full collections are the runner's:

- start-up's objects are frozen once the adapters have started, as before;
- CPython's own full collections are put off (the third threshold set to `OFF`); the young and middle
  collections still run by themselves and free what dies young;
- while the bot is busy, what is alive is frozen every `SETTLE` seconds (below);
- `Collector` runs a full one when a middle collection has run since the last full one (else nothing new
  is old enough for it) or it is time to thaw what rushes froze, and the bot is quiet (`quiet()`: nothing
  waiting, being answered or observed), looking every `LOOK` seconds; or, however busy the bot is, `EVERY`
  seconds after the last.

`stop()` gives CPython back its thresholds and unfreezes. A process has one garbage collector, so collectors
started in one process share it: the first `start()` saves CPython's thresholds, the last `stop()` gives
them back.

Measured with `benchmarks/busy.py --freeze` (as `mneme run` does), freezing alone before, this after, three
interleaved pairs each on a fresh copy of the seeded file (1,000 people, 30 notes each):

| | freezing alone | with the collector |
|---|---|---|
| 200 messages a second, 200 ms stub: loop late at most, ms | 36.8 / 47.1 / 28.7 | 23.5 / 20.4 / 18.2 |
| the same, loop late p99, ms | 5.9 / 4.7 / 4.6 | 5.2 / 5.2 / 4.4 |
| the same, aprompt p99, ms | 32.0 / 21.8 / 17.2 | 17.7 / 20.6 / 15.9 |
| the same, full collections during the run | 1 each, 25-37 ms | none |
| all 1,000 at once: full collections during the run | 2 each, up to 25-35 ms | none |
| all at once: loop late at most, ms | 89.9 / 107.1 / 94.2 | 100.2 / 94.1 / 91.3 |

What was left then was the young and middle collections: up to 8-17 ms each, several a second, with
hundreds of turns in flight (a smaller middle threshold made them more frequent, not shorter). A young
collection looks at more than the 700 objects its threshold suggests: CPython counts a young generation
down whenever any object dies, so in a rush, where old objects die as fast as new ones are made, the young
generation grows to thousands of live objects before it is collected, and a middle collection looks at
everything that survived since the last. So while the bot is busy (not `quiet()`), what is alive is frozen
every `SETTLE` seconds (`gc.freeze()` moves the generations' lists aside, whatever their length): the young
and middle collections then look only at what was made since, and so do the full collections, which
leave it frozen. Every `THAW_EVERY` seconds one full collection (at a quiet moment, or `EVERY` seconds
after the last however busy the bot is) first thaws it (`gc.unfreeze()`, start-up's objects with it, all of
which it then traverses: 20-30 ms with the bot layer loaded) and freezes all that is still alive again
after, so the cycles frozen in a rush wait ten minutes at most to be freed. Thawing at every full
collection instead took a run through the bot layer at 200 messages a second from 5-12 ms of worst
lateness to 15-37 (two pairs), its quiet moments coming every few seconds.

Measured the same way (1,000 people x 3 turns at once; `gc.callbacks` timing each collection, two runs
each, 2026-12-04): the longest young collection 9.7-10.1 ms before, 1.0-1.4 ms with a freeze every 50 ms
while busy; the longest middle one 11.5-17.6 ms before, 2.1-2.5 ms after (and 16-17 middle collections a
run instead of 28). `busy.py --freeze`, the loop's worst lateness, interleaved runs without and with it:

| | before | freezing while busy |
|---|---|---|
| 300 messages a second, 200 ms stub (10 pairs), ms | 6.4-27.0, median 17.5 | 4.4-17.3, median 5.9 |
| the same, p99, ms | 2.3-3.4 | 1.7-2.4 |
| 1,000 at once, past the run's first 100 ms (7 and 8 runs), ms | 9.7-17.9 | 4.5-9.3, and 17.2 once |

(The first seven pairs at 300 a second and six of the runs at once were of a first version that thawed at
every full collection; these runs' quiet moments hardly came, and the last pairs, of this one, gave the
same: 4.4-5.7 against 16.8-27.0 ms, and 4.5-5.9 against 11.6-13.8.)

Turns a second and aprompt's latencies did not move beyond the machine's noise, nor the memory: 1,000
people x 6 turns at once held at most 117 MB before, 121 MB after. `gc.freeze()` itself moves the
generations' lists whole, whatever their length.

What a full collection finds waits a little longer: after 3,000 turns a full collection found 326
unreachable objects left, none without the collector; the most memory the process held was the same
(59-64 MB).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import Callable

__all__ = ["EVERY", "LOOK", "OFF", "SETTLE", "THAW_EVERY", "Collector"]

log = logging.getLogger(__name__)

LOOK = 1.0  # seconds between two looks for a quiet moment
EVERY = 60.0  # a full collection at the latest this many seconds after the last, however busy
SETTLE = 0.05  # seconds between two freezes of what is alive while the bot is busy
THAW_EVERY = 600.0  # seconds between two full collections that thaw what rushes froze
OFF = 1_000_000  # the third threshold while it serves: CPython starts no full collection by itself

_running: list[Collector] = []  # the process's collectors started and not stopped (the first saved these)
_saved: list[tuple[int, int, int]] = []  # CPython's thresholds before the first of them


class Collector:
    """Runs the process's full collections while a bot serves: at a quiet moment, or every `every` seconds
    at the latest (see the module docstring). `quiet()` is asked on the loop; `clock` is monotonic."""

    def __init__(
        self,
        quiet: Callable[[], bool],
        *,
        look: float = LOOK,
        every: float = EVERY,
        settle: float = SETTLE,
        thaw_every: float = THAW_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.quiet = quiet
        self.look = look
        self.every = every
        self.settle = settle
        self.thaw_every = thaw_every
        self.clock = clock
        self.collections = 0  # full collections it ran
        self.settled = 0  # freezes of what was alive while busy, since the last thaw
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        """Freeze what exists, put CPython's full collections off, and start looking (on the running loop)."""
        if self._tasks:
            return
        gc.freeze()
        if not _running:
            _saved.append(gc.get_threshold())
            young, middle, _full = gc.get_threshold()
            gc.set_threshold(young, middle, OFF)
        _running.append(self)
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._looking(), name="mneme collector"),
            loop.create_task(self._settling(), name="mneme collector: settling"),
        ]

    async def stop(self) -> None:
        """Stop looking; the last collector of the process gives CPython its thresholds back and unfreezes."""
        if not self._tasks:
            return
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        _running.remove(self)
        if not _running:
            gc.set_threshold(*_saved.pop())
            gc.unfreeze()

    def due(self, since: float, thaw: bool = False) -> bool:
        """Whether to collect now, the last full collection `since` on the clock: when a middle collection
        has run since (else nothing new is old enough for a full one to find) or it would `thaw` what
        rushes froze, and the bot is quiet or `every` seconds have passed. Never while the host has turned
        the collector off (`gc.disable()`)."""
        if (gc.get_count()[2] == 0 and not thaw) or not gc.isenabled():
            return False
        return self.clock() - since >= self.every or self.quiet()

    async def _looking(self) -> None:
        since = thawed = self.clock()
        while True:
            await asyncio.sleep(self.look)
            thaw = self.settled > 0 and self.clock() - thawed >= self.thaw_every
            if not self.due(since, thaw):
                continue
            found = self.collect(thaw)
            since = self.clock()
            if thaw:
                thawed = since
            log.debug("full collection%s: %d unreachable objects", ", thawed first" if thaw else "", found)

    def collect(self, thaw: bool) -> int:
        """A full collection of what is not frozen, the unreachable objects it found; with `thaw`, of what
        rushes froze too (thawed first, frozen again after with all that is still alive)."""
        if thaw:
            gc.unfreeze()
        try:
            return gc.collect()
        finally:
            if thaw:
                gc.freeze()
                self.settled = 0
            self.collections += 1

    async def _settling(self) -> None:
        """Every `settle` seconds while the bot is busy, freeze what is alive (see the module docstring)."""
        while True:
            await asyncio.sleep(self.settle)
            if gc.isenabled() and not self.quiet():
                gc.freeze()
                self.settled += 1
