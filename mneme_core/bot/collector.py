"""Full garbage collections at a quiet moment, not in the middle of a rush.

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
- `Collector` runs a full one when a middle collection has run since the last full one (else nothing new
  is old enough for it) and the bot is quiet (`quiet()`: nothing waiting, being answered or observed),
  looking every `LOOK` seconds; or, however busy the bot is, `EVERY` seconds after the last.

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

What is left is the middle collections (up to 14-25 ms each with hundreds of turns in flight; a smaller
middle threshold made them more frequent, not shorter) and, with 1,000 turns at once, something that was
not the collector: the loop's thread waited for the GIL while the file's thread ran (`store.breaks`, which
took that off). What a full collection then finds waits a little longer: after 3,000 turns a full
collection found 326 unreachable objects left, none without the collector; the most memory the process held
was the same (59-64 MB).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import Callable

__all__ = ["EVERY", "LOOK", "OFF", "Collector"]

log = logging.getLogger(__name__)

LOOK = 1.0  # seconds between two looks for a quiet moment
EVERY = 60.0  # a full collection at the latest this many seconds after the last, however busy
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
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.quiet = quiet
        self.look = look
        self.every = every
        self.clock = clock
        self.collections = 0  # full collections it ran
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Freeze what exists, put CPython's full collections off, and start looking (on the running loop)."""
        if self._task is not None:
            return
        gc.freeze()
        if not _running:
            _saved.append(gc.get_threshold())
            young, middle, _full = gc.get_threshold()
            gc.set_threshold(young, middle, OFF)
        _running.append(self)
        self._task = asyncio.get_running_loop().create_task(self._looking(), name="mneme collector")

    async def stop(self) -> None:
        """Stop looking; the last collector of the process gives CPython its thresholds back and unfreezes."""
        if self._task is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None
        _running.remove(self)
        if not _running:
            gc.set_threshold(*_saved.pop())
            gc.unfreeze()

    def due(self, since: float) -> bool:
        """Whether to collect now, the last full collection `since` on the clock: when a middle collection
        has run since (else nothing new is old enough for a full one to find), and the bot is quiet or
        `every` seconds have passed. Never while the host has turned the collector off (`gc.disable()`)."""
        if gc.get_count()[2] == 0 or not gc.isenabled():
            return False
        return self.clock() - since >= self.every or self.quiet()

    async def _looking(self) -> None:
        since = self.clock()
        while True:
            await asyncio.sleep(self.look)
            if not self.due(since):
                continue
            found = gc.collect()
            since = self.clock()
            self.collections += 1
            log.debug("full collection: %d unreachable objects", found)
