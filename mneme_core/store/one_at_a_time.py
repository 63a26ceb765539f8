"""A file's threads: its reads and writes run one at a time, and a second thread steps in only for a stall.

The file's store used to have a writer thread and two reader threads, so that a read never waited behind a
write and two reads could run at once. But their Python shares one GIL, and SQLite lets go of it at every
step of every statement (some 60 statements a turn): with two or three of them runnable, each of those
steps became a hand-over of the GIL, a futex call and a context switch (766 futex calls a turn, by strace,
1,000 people at once), and the event loop's thread, one more taker, waited for the GIL for tens of
milliseconds at a time. Three threads taking turns at one GIL cost more than they overlapped. (One thread
that lets go at every step and takes the GIL straight back still kept the loop's thread waiting in a rush;
it now takes short breaks, `breaks`.)

So one thread runs the file's jobs, reads and writes alike, each in order of its place (`workers`: a
reply's reads, then writes, then the reads off a reply's path), and goes straight on to the next without
handing anything over. A second thread steps in only when every job running has stalled: run for `STALL`
seconds while its thread, and the process outside the file's threads, used next to no CPU (it waits for
SQLite's write lock held by another process, for the disk, for a test's barrier; a job that is slow because
the event loop's thread holds the GIL for a burst is not stalled, and another thread would only slow both
down). So a read never waits on a stalled write for longer than that, and two reads can still run at once.
Two writes never run at once (the second would only wait for the first's lock). Each thread keeps its own
connection.

Measured with `benchmarks/busy.py`, the old threads against these, interleaved runs, medians: 1,000 people
x 3 turns at once with the instant stub, 215 -> 259 turns/s and 5.60 -> 4.00 ms of CPU a turn; 300 messages
a second with the 200 ms stub, aprompt p50 / p95 / p99 12.6 / 57.8 / 92.4 -> 3.8 / 14.6 / 24.8 ms, the loop
late by at most 43.3 -> 34.5 ms (p99 5.3 -> 4.5).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..errors import ClosedError
from .breaks import Breaks, Handed, keep
from .workers import LAST, WRITES, joined, run_job

__all__ = ["STALL", "OneAtATime"]

STALL = 0.02
"""Seconds a job runs before another may start beside it: well above a turn's longest step (a prompt's plan
runs 1-3 ms, a group commit some 10), well below what a person waits for a reply."""
BUSY = 0.1
"""The share of a core, used since a job began by its thread or by the process outside the file's threads,
above which the job is not stalled, only slow (a job waiting on a lock or the disk uses next to none; a
runnable thread got 0.2 of a core or more on this two-core machine at a load of 9)."""


@dataclass(frozen=True)
class _Running:
    """A job under way: when it began, and the CPU its thread and the rest of the process had used then."""

    began: float
    clock: int | None  # its thread's CPU clock
    own: float  # its thread's CPU time then
    elsewhere: float  # the process's, outside the file's threads, then
    write: bool

    def stalled(self, now: float, elsewhere: float) -> bool:
        """Whether the job waits on something outside the process (a lock, the disk, a test's barrier):
        since it began its thread used less than `BUSY` of a core, and so did the rest of the process outside
        the file's threads. A job whose thread is busy is slow, not stalled; one starved of the GIL by the
        event loop's thread is neither, and another thread beside it would only slow both down."""
        budget = BUSY * (now - self.began)
        if elsewhere - self.elsewhere > budget:
            return False
        own = _cpu_seconds(self.clock)
        return own is None or own - self.own <= budget


def _cpu_clock(thread: int) -> int | None:
    """The thread's CPU clock, where the platform has one (Linux does; macOS does not)."""
    try:
        return time.pthread_getcpuclockid(thread)
    except (AttributeError, OSError):
        return None


def _cpu_seconds(clock: int | None) -> float | None:
    """The CPU time on a thread's clock (None where it cannot be read: then the process's alone counts)."""
    if clock is None:
        return None
    try:
        return time.clock_gettime(clock)
    except OSError:
        return None


class OneAtATime:
    """`count` daemon threads named `name`, started at the first job, running one job at a time unless the
    jobs running have stalled (see the module docstring). Its jobs and outcomes are `Workers`' own."""

    def __init__(
        self,
        name: str,
        count: int,
        stall: float = STALL,
        breaks: Callable[[Callable[[], bool]], Breaks] = Breaks,
    ) -> None:
        self.name = name
        self.count = count
        self.stall = stall
        self.breaks = breaks  # each thread's own, due when a loop waits for an outcome (`store.breaks`)
        self._handed = Handed()
        self._places: tuple[deque[Any], ...] = (deque(), deque(), deque(), deque())
        self._changed = threading.Condition(threading.Lock())
        self._running: dict[int, _Running] = {}  # thread -> the job it runs
        self._watching = 0  # threads waiting to step in if the jobs running stall
        self._outside: set[int] = set()  # threads whose job waits outside the process (`outside`)
        self._clocks: dict[int, int | None] = {}  # thread -> its CPU clock (None where there is none)
        self._threads: list[threading.Thread] = []
        self._stopped = False

    async def run(self, work: Callable[..., Any], *args: Any, place: int) -> Any:
        """`work(*args)` on one of the threads, after the jobs of an earlier place and those of its own that
        came first; its result (or its exception) here."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._put((work, args, loop, future), place)
        return await future

    def submit(self, work: Callable[..., Any], *args: Any, place: int) -> None:
        """`work(*args)` on one of the threads, from any thread, with nobody waiting (`Workers.submit`)."""
        self._put((work, args, None, None), place)

    def waiting(self, place: int) -> bool:
        """Whether jobs of `place` wait (a group commit stops early for a reply's read, `Transactions`)."""
        return bool(self._places[place])

    def _put(self, job: tuple[Any, ...], place: int) -> None:
        with self._changed:
            if self._stopped:
                raise ClosedError(f"the store's {self.name} threads are stopped")
            if not self._threads:
                self._start()
            self._places[place].append(job)
            # A thread at work takes it when its job is done, and one watching for a stall is on its way:
            # otherwise one is woken (so under load a job costs the loop no wake-up at all).
            if not self._running or not self._watching:
                self._changed.notify()

    def _start(self) -> None:
        for i in range(self.count):
            thread = threading.Thread(target=self._serve, name=f"{self.name}-{i}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _serve(self) -> None:
        me = threading.get_ident()
        breaks = keep(self.breaks(self._handed.waiting))
        with self._changed:
            self._clocks[me] = _cpu_clock(me)
        while True:
            with self._changed:
                job, place = self._next()
                if job is None:
                    del self._clocks[me]  # a clock of a thread that ended cannot be read
                    return
                self._running[me] = _Running(
                    time.monotonic(), self._clocks[me], time.thread_time(), self._elsewhere(), place == WRITES
                )
            try:
                run_job(job, self._handed)
                breaks.take_if_due()
            finally:
                with self._changed:
                    del self._running[me]

    def _next(self) -> tuple[Any, int]:
        """The job this thread runs next and its place, waiting until there is one it may start (under the
        lock); (None, LAST) once the threads are stopped and no job is left."""
        while True:
            wait = self._stalled_in(time.monotonic())
            if wait <= 0:
                writing = any(job.write for job in self._running.values())
                for place, jobs in enumerate(self._places):
                    if jobs and not (writing and place == WRITES):
                        return jobs.popleft(), place
                if self._stopped and not any(self._places):
                    self._changed.notify_all()  # the others end too
                    return None, LAST
            if wait <= 0:
                self._changed.wait()
                continue
            self._watching += 1
            try:
                self._changed.wait(wait)
            finally:
                self._watching -= 1

    def _stalled_in(self, now: float) -> float:
        """Seconds until every job running may have stalled (0 or less: one more may start; see `_Running`);
        one that has run `stall` but not stalled is asked again `stall` on. A job waiting `outside` is
        stalled already."""
        running = [job for thread, job in self._running.items() if thread not in self._outside]
        if not running:
            return 0.0
        newest = max(job.began for job in running)
        if now < newest + self.stall:
            return newest + self.stall - now
        elsewhere = self._elsewhere()
        if any(not job.stalled(now, elsewhere) for job in running):
            return self.stall
        return 0.0

    @contextmanager
    def outside(self) -> Iterator[None]:
        """What the job running on this thread waits for outside the process (a checkpoint's fsyncs, its
        copy on the checkpoint thread): meanwhile the next job may start on another thread at once, as for
        a stalled one. On any other thread, nothing changes."""
        me = threading.get_ident()
        with self._changed:
            mine = me in self._running
            if mine:
                self._outside.add(me)
                self._changed.notify()
        try:
            yield
        finally:
            if mine:
                with self._changed:
                    self._outside.discard(me)

    def _elsewhere(self) -> float:
        """The CPU the process has used outside these threads (the event loop's thread, among others)."""
        ours = (_cpu_seconds(clock) for clock in self._clocks.values())
        return time.process_time() - sum(seconds for seconds in ours if seconds is not None)

    def stop(self, timeout: float | None) -> bool:
        """End the threads once the queued jobs are done; whether they all ended within `timeout` (None: no
        wait at all, for an interpreter that is exiting)."""
        with self._changed:
            self._stopped = True
            threads, self._threads = self._threads, []
            self._changed.notify_all()
        return joined(threads, timeout)
