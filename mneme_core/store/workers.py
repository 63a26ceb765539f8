"""The store's own threads: the async verbs hand their transaction functions here, so the loop never waits.

A `Workers` is a few daemon threads taking jobs from one queue; each thread keeps its own connection, and a
job's outcome goes back to the event loop that asked (`call_soon_threadsafe`), so one pool serves any loop.
A PostgreSQL store has two: one writer (writes that wait together are committed together, see
`Transactions._drain_queue`) and readers, whose reads wait on the server, not on this machine's cores. A
SQLite file's store runs its jobs one at a time instead (`one_at_a_time`), with the same jobs, places and
outcomes (`run_job`).

This replaced aiosqlite's one thread per connection: a hop there cost about the same (a queue, a future,
the loop woken), but only one reader could run at a time, and under 1,000 people at once the reader was the
line everything waited in (the reader thread busy 92 % of the run, `benchmarks/busy.py`).

The threads are daemons, so a program that never closed its `Mneme` still exits (every write acknowledged is
already in the file); `stop` lets the queued jobs finish, then ends the threads.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from ..errors import ClosedError
from .breaks import Breaks, Handed, keep

log = logging.getLogger(__name__)

NOW, WRITES, LATER, LAST = 0, 1, 2, 3
"""A job's place: on a reply's path (`aprompt`), a write (a group commit, `Transactions._drain_queue`),
after the reply (the note writer's recall, in `aobserve`), and the end of the threads. The threads take the
first job of the first place, so a bot whose memory work runs behind (more messages a second than the
machine can judge) keeps answering: under 300 messages a second, with the observes queueing, a prompt waits
only for the work under way."""


def _settle(future: asyncio.Future[Any], value: Any, error: BaseException | None, handed: Handed) -> None:
    handed.taken()
    if future.done():  # the caller stopped waiting (cancelled, timed out): the outcome has nobody to go to
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


def run_job(job: tuple[Any, ...], handed: Handed) -> None:
    """A job run on the calling thread, its outcome handed to the loop that waits for it (`Workers.run`),
    counted in `handed` until the loop takes it (`breaks`), or logged when it failed and nobody waits
    (`Workers.submit`)."""
    work, args, loop, future = job
    value, error = None, None
    try:
        value = work(*args)
    except BaseException as err:  # handed to the caller, whatever it is
        error = err
    if loop is None:
        if error is not None:
            log.warning("%s, run with nobody waiting, failed: %s", work, error)
        return
    handed.handed()
    try:
        loop.call_soon_threadsafe(_settle, future, value, error, handed)
    except RuntimeError:  # the caller's loop closed meanwhile: nobody waits
        handed.taken()


def joined(threads: list[threading.Thread], timeout: float | None) -> bool:
    """Whether the stopped threads all ended within `timeout` (None: not waited for, at interpreter exit)."""
    if timeout is None:
        return not threads
    for thread in threads:
        thread.join(timeout)
    alive = [t.name for t in threads if t.is_alive()]
    if alive:
        log.warning("the store's threads %s did not end within %g s", ", ".join(alive), timeout)
    return not alive


class Workers:
    """`count` daemon threads named `name`, started at the first job."""

    def __init__(
        self, name: str, count: int, breaks: Callable[[Callable[[], bool]], Breaks] = Breaks
    ) -> None:
        self.name = name
        self.count = count
        self.breaks = breaks  # each thread's own, due when a loop waits for an outcome (`store.breaks`)
        self._handed = Handed()
        # One deque of jobs per place, and one token per job in a queue the threads wait on: both are C
        # (a PriorityQueue's put cost the loop 160 µs under load, its lock shared with the threads). A job
        # goes in its deque before its token, so a thread holding a token always finds a job.
        self._places: tuple[deque[Any], ...] = (deque(), deque(), deque(), deque())
        self._tokens: queue.SimpleQueue[None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._stopped = False

    async def run(self, work: Callable[..., Any], *args: Any, place: int = NOW) -> Any:
        """`work(*args)` on one of the threads, after the jobs of an earlier `place` (`NOW`, `LATER`) and
        those of its own that came first; its result (or its exception) here."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._put((work, args, loop, future), place)
        return await future

    def submit(self, work: Callable[..., Any], *args: Any, place: int = NOW) -> None:
        """`work(*args)` on one of the threads, from any thread, with nobody waiting: what it returns is
        dropped, what it raises is logged (a background timer's work: `Transactions.write_soon`)."""
        self._put((work, args, None, None), place)

    def waiting(self, place: int) -> bool:
        """Whether jobs of `place` wait for a thread."""
        return bool(self._places[place])

    def _put(self, job: tuple[Any, ...], place: int) -> None:
        if not self._threads:
            self._start()
        self._places[place].append(job)
        self._tokens.put(None)

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
        breaks = keep(self.breaks(self._handed.waiting))
        while True:
            self._tokens.get()
            job = self._take()
            if job is None:
                return
            run_job(job, self._handed)
            breaks.take_if_due()

    def _take(self) -> Any:
        """The first job of the first place that has one: there is one for each token taken, though another
        thread may take the one this thread saw first."""
        while True:
            for jobs in self._places:
                try:
                    return jobs.popleft()
                except IndexError:
                    continue

    def stop(self, timeout: float | None) -> bool:
        """End the threads once the queued jobs are done; whether they all ended within `timeout` (None: no
        wait at all, for an interpreter that is exiting)."""
        with self._lock:
            self._stopped = True
            threads, self._threads = self._threads, []
        for _ in threads:
            self._places[LAST].append(None)
            self._tokens.put(None)
        return joined(threads, timeout)
