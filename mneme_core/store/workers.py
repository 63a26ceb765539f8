"""The store's own threads: the async verbs hand their transaction functions here, so the loop never waits.

A `Workers` is a few daemon threads taking jobs from one queue; each thread keeps its own SQLite connection
(`Store._conn`), and a job's outcome goes back to the event loop that asked (`call_soon_threadsafe`), so
one pool serves any loop. The store has two: one writer (writes that wait together are committed together,
see `Store._drain`) and `READERS` readers, so in WAL mode a read never waits behind a write, and two reads
run at once: SQLite lets go of the GIL while it steps, so on two cores one read's SQL runs beside another's
Python.

This replaced aiosqlite's one thread per connection: a hop there cost about the same (a queue, a future,
the loop woken), but only one reader could run at a time, and under 1,000 people at once the reader was the
line everything waited in (the reader thread busy 92 % of the run, `benchmarks/busy.py`).

The threads are daemons, so a program that never closed its `Mneme` still exits (every write acknowledged is
already in the file); `stop` lets the queued jobs finish, then ends the threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from ..errors import ClosedError

log = logging.getLogger(__name__)

READERS = 2
"""Reader threads per store: one per core of the machine kind this is measured on (2)."""

NOW, LATER, LAST = 0, 1, 2
"""A job's place: on a reply's path (`aprompt`), after the reply (the note writer's recall, in `aobserve`),
and the end of the threads. The threads take the first job of the first place, so a bot whose memory work
runs behind (more messages a second than the machine can judge) keeps answering: under 300 messages a
second, with the observes queueing, a prompt waits only for the reads under way."""


def _settle(future: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    if future.done():  # the caller stopped waiting (cancelled, timed out): the outcome has nobody to go to
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


class Workers:
    """`count` daemon threads named `name`, started at the first job."""

    def __init__(self, name: str, count: int) -> None:
        self.name = name
        self.count = count
        self._jobs: queue.PriorityQueue[Any] = queue.PriorityQueue()
        self._order = itertools.count()  # first come, first served within a place
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._stopped = False

    async def run(self, work: Callable[..., Any], *args: Any, place: int = NOW) -> Any:
        """`work(*args)` on one of the threads, after the jobs of an earlier `place` (`NOW`, `LATER`) and
        those of its own that came first; its result (or its exception) here."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        if not self._threads:
            self._start()
        self._jobs.put((place, next(self._order), (work, args, loop, future)))
        return await future

    def _start(self) -> None:
        with self._lock:
            if self._stopped:
                raise ClosedError(f"the store's {self.name} threads are stopped")
            if self._threads:
                return
            for i in range(self.count):
                thread = threading.Thread(target=self._serve, name=f"{self.name}-{i}", daemon=True)
                thread.start()
                self._threads.append(thread)

    def _serve(self) -> None:
        while True:
            _place, _order, job = self._jobs.get()
            if job is None:
                return
            work, args, loop, future = job
            value, error = None, None
            try:
                value = work(*args)
            except BaseException as err:  # handed to the caller, whatever it is
                error = err
            with contextlib.suppress(RuntimeError):  # the caller's loop closed meanwhile: nobody waits
                loop.call_soon_threadsafe(_settle, future, value, error)

    def stop(self, timeout: float | None) -> bool:
        """End the threads once the queued jobs are done; whether they all ended within `timeout` (None: no
        wait at all, for an interpreter that is exiting)."""
        with self._lock:
            self._stopped = True
            threads, self._threads = self._threads, []
        for _ in threads:
            self._jobs.put((LAST, next(self._order), None))
        if timeout is None:
            return not threads
        for thread in threads:
            thread.join(timeout)
        alive = [t.name for t in threads if t.is_alive()]
        if alive:
            log.warning("the store's threads %s did not end within %g s", ", ".join(alive), timeout)
        return not alive
