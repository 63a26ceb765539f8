"""Chores: the work a bot does between conversations, on a schedule, off the reply path, one process at a
time across every process on the file.

A chore is a named job: `Chore(name, work, every=seconds)` or `Chore(name, work, at=(hour, minute))` (each
day at that time in the companion's zone), with a `timeout`. The runner keeps one `Chores` and adds its
jobs to it: the health check (`check`, made by `health_check` from `check.schedule`: 04:00 by default) and
tending (`tend`, made by `tending` from `lifecycle.schedule`: 03:30 by default; `mneme_core.tending`).

How a chore runs. Every `TICK` seconds (and once at start) the scheduler looks at each chore not running in
this process and claims its lease (`store.leases`, the row `chore:<name>` of the companion's space) in one
write transaction: of several processes on one file exactly one wins. The row also says when the chore is
next due, so all of them agree, and a restart does not run last night's check again; a chore first seen is
first due at its next time (`every` after now, or the next `at`). The work runs as a task of its own,
bounded by `timeout`, its database work on the store's threads, so a reply never waits for it. Its lease
lasts the timeout plus `LEASE_MARGIN`, so a process that dies holding it loses it then. When it ends the
lease is let go and the next time written: the schedule's next time, or, after a failure, `RETRY` seconds
on if that is sooner. `aclose` waits for a chore under way at most its timeout, then stops it and hands its
lease back due at once, so the next start runs it.

`report()` counts, per chore: `<name>_runs`, `<name>_failed`, `<name>_timeout`, `<name>_busy` (another
process held it, or the engine said it was busy), and the counts its work returned (`<name>_found`, ...).
An engine without a store (a host's own wrapper) keeps the schedule in this process alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import re
import socket
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .. import dates
from ..check import CheckBusy
from ..errors import InvalidType, InvalidValue, MnemeError, describe
from ..store import leases
from ..tending import TendBusy

__all__ = ["LEASE_MARGIN", "RETRY", "TICK", "Busy", "Chore", "Chores", "health_check", "tending"]

log = logging.getLogger(__name__)

TICK = 30.0
RETRY = 900.0
LEASE_MARGIN = 60.0
_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")

Work = Callable[[], Awaitable["Mapping[str, int] | None"]]


class Busy(MnemeError, RuntimeError):
    """Raised by a chore's work when the engine is already doing it (counted as busy, not failed)."""


@dataclass(frozen=True)
class Chore:
    """A named job between conversations: `every` seconds, or each day `at` (hour, minute)."""

    name: str
    work: Work
    every: float | None = None
    at: tuple[int, int] | None = None
    timeout: float = 1800.0

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise InvalidValue(f"a chore's name is a lowercase word like 'check', not {describe(self.name)}")
        if not callable(self.work):
            raise InvalidType(
                f"a chore's work is an async function of no arguments, not {describe(self.work)}"
            )
        if (self.every is None) == (self.at is None):
            raise InvalidValue(
                f"chore {self.name} runs `every` so many seconds or `at` a time of day: one of them"
            )
        if self.every is not None and not _positive(self.every):
            raise InvalidValue(
                f"chore {self.name} runs every so many seconds above 0, not {describe(self.every)}"
            )
        if self.at is not None and not (
            isinstance(self.at, tuple) and len(self.at) == 2 and 0 <= self.at[0] < 24 and 0 <= self.at[1] < 60
        ):
            raise InvalidValue(
                f"chore {self.name} runs at (hour, minute), like (4, 0), not {describe(self.at)}"
            )
        if not _positive(self.timeout):
            raise InvalidValue(
                f"chore {self.name}'s timeout is seconds above 0, not {describe(self.timeout)}"
            )

    def next_after(self, now: float, zone: Any = None) -> float:
        """When the chore is next due after `now`."""
        if self.every is not None:
            return now + self.every
        assert self.at is not None
        return dates.next_daily(now, self.at[0], self.at[1], zone)


def _positive(value: object) -> bool:
    return (
        isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value > 0
    )


class Chores:
    """The chores of one companion, and the loop that runs them (see the module docstring)."""

    def __init__(self, mneme: Any, *, tick: float = TICK) -> None:
        self.mneme = mneme
        self.store = getattr(mneme, "store", None)
        self.space = getattr(mneme, "space", "default")
        clock = getattr(mneme, "clock", None)
        self.clock: Callable[[], float] = clock if callable(clock) else time.time
        self.zone = getattr(getattr(mneme, "settings", None), "zone", None)
        self.tick = tick
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.chores: dict[str, Chore] = {}
        self.counts: Counter[str] = Counter()
        self._running: dict[str, asyncio.Task[None]] = {}
        self._due: dict[str, float] = {}  # the schedule kept here, for an engine without a store
        self._timer: asyncio.TimerHandle | None = None
        self._looking: asyncio.Future[None] | None = None
        self._closing = False

    def add(self, chore: Chore) -> None:
        if not isinstance(chore, Chore):
            raise InvalidType(f"chores are Chore values, not {describe(chore)}")
        if chore.name in self.chores:
            raise InvalidValue(f"a chore called {chore.name!r} is there already")
        self.chores[chore.name] = chore

    # -- the loop --------------------------------------------------------------------------------------

    def start(self) -> None:
        """Look for due chores now and every `tick` seconds (from inside the event loop)."""
        if self._timer is not None or self._closing or not self.chores:
            return
        self._soon(0.0)

    def _soon(self, delay: float) -> None:
        def go() -> None:
            if not self._closing:
                self._looking = asyncio.ensure_future(self._tick())

        self._timer = asyncio.get_running_loop().call_later(delay, go)

    async def _tick(self) -> None:
        try:
            await self.run_due()
        except Exception as err:  # the file is a boundary here: a failed look is tried again next tick
            log.warning("looking for due chores failed: %s: %s", type(err).__name__, err)
        finally:
            if not self._closing:
                self._soon(self.tick)

    async def run_due(self) -> list[str]:
        """Start every chore that is due and whose lease this process got; returns their names."""
        started = []
        for chore in self.chores.values():
            if chore.name in self._running or self._closing:
                continue
            if await self._claim(chore, force=False):
                started.append(chore.name)
                self._running[chore.name] = asyncio.create_task(
                    self._run(chore), name=f"mneme chore {chore.name}"
                )
        return started

    async def run_now(self, name: str) -> bool:
        """Run a chore now, due or not (unless another process holds it); True when it ran."""
        chore = self.chores.get(name)
        if chore is None:
            raise InvalidValue(
                f"there is no chore called {name!r} (there are: {', '.join(self.chores) or 'none'})"
            )
        if name in self._running or not await self._claim(chore, force=True):
            return False
        task = asyncio.create_task(self._run(chore), name=f"mneme chore {name}")
        self._running[name] = task
        await asyncio.shield(task)
        return True

    async def _claim(self, chore: Chore, *, force: bool) -> bool:
        now = self.clock()
        if self.store is None:
            due = self._due.setdefault(chore.name, chore.next_after(now, self.zone))
            return force or due <= now
        name = f"chore:{chore.name}"
        first = chore.next_after(now, self.zone)
        lease = chore.timeout + LEASE_MARGIN
        taken = await self.store.awrite(leases.claim, self.space, name, self.holder, now, lease, first, force)
        if taken is not None:
            return True
        held = await self.store.aread(leases.get, self.space, name)
        if (
            held is not None
            and held.holder not in (None, self.holder)
            and (force or (held.next_at or 0) <= now)
        ):
            self.counts[f"{chore.name}_busy"] += 1
        return False

    async def _run(self, chore: Chore) -> None:
        try:
            error = await self._work(chore)
            now = self.clock()
            due = chore.next_after(now, self.zone)
            await self._finish(chore, now, due if error is None else min(due, now + RETRY), error)
        finally:  # only once the lease says when it is next due: no tick may take it again before that
            self._running.pop(chore.name, None)

    async def _work(self, chore: Chore) -> str | None:
        """Run the work within its timeout, counting how it ended; the error, or None."""
        try:
            counts = await asyncio.wait_for(chore.work(), chore.timeout)
        except TimeoutError:
            self.counts[f"{chore.name}_timeout"] += 1
            return f"no end within {chore.timeout:g} s"
        except (Busy, CheckBusy, TendBusy) as err:
            self.counts[f"{chore.name}_busy"] += 1
            return str(err)
        except asyncio.CancelledError:
            await self._hand_back(chore)
            raise
        except Exception as err:  # a chore's own failure: logged, counted, tried again later
            self.counts[f"{chore.name}_failed"] += 1
            log.warning("chore %s failed: %s: %s", chore.name, type(err).__name__, err)
            return f"{type(err).__name__}: {err}"
        self.counts[f"{chore.name}_runs"] += 1
        for what, count in (counts or {}).items():
            self.counts[f"{chore.name}_{what}"] += int(count)
        return None

    async def _finish(self, chore: Chore, now: float, due: float, error: str | None) -> None:
        if self.store is None:
            self._due[chore.name] = due
            return
        try:
            await self.store.awrite(
                leases.finish, self.space, f"chore:{chore.name}", self.holder, now, due, error
            )
        except Exception as err:  # the lease runs out by itself; the next run is only later than planned
            log.warning("letting go of chore %s failed: %s", chore.name, err)

    async def _hand_back(self, chore: Chore) -> None:
        """A chore stopped at shutdown: its lease handed back due now, so the next start runs it."""
        with contextlib.suppress(Exception, asyncio.CancelledError):
            now = self.clock()
            await asyncio.wait_for(asyncio.shield(self._finish(chore, now, now, "stopped at shutdown")), 2.0)

    async def aclose(self, timeout: float | None = None) -> int:
        """Stop looking for chores; wait for those under way up to `timeout` seconds (each chore's own timeout
        when None), then stop them; returns how many were stopped."""
        self._closing = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._looking is not None and not self._looking.done():
            await asyncio.wait([self._looking], timeout=5.0)  # a look under way may be starting a chore
        running = list(self._running.values())
        if not running:
            return 0
        if timeout is None:
            timeout = max(self.chores[name].timeout for name in self._running)
        _, left = await asyncio.wait(running, timeout=timeout)
        for task in left:
            task.cancel()
        await asyncio.gather(*left, return_exceptions=True)
        if left:
            self.counts["chores_stopped_at_shutdown"] += len(left)
        return len(left)

    def report(self) -> dict[str, int]:
        return dict(self.counts)


def health_check(mneme: Any, settings: Any, judge: Any = None) -> Chore | None:
    """The health check (`Mneme.acheck`) as a chore, on the settings' `check_schedule` (None when it is
    "off" or the engine has no check): incremental, fixing what is at least `check_confidence` sure when
    `check_fix`, with `check_budget` model calls of `judge` (else the companion's own model)."""
    acheck = getattr(mneme, "acheck", None)
    planned = dates.schedule(settings.check_schedule, "check.schedule")
    if planned is None or not callable(acheck):
        return None
    every, at = planned
    timeout = 60.0 * (settings.check_budget + 5)  # a minute per model call at most, and the words' work

    async def work() -> Mapping[str, int]:
        result = await acheck(
            fix=settings.check_fix,
            confidence=settings.check_confidence,
            budget=settings.check_budget,
            complete=judge,
        )
        return result.counts()

    return Chore("check", work, every=every, at=at, timeout=timeout)


def tending(mneme: Any, settings: Any, model: Any = None) -> Chore | None:
    """Tending (`Mneme.atend`) as a chore, on the settings' `tend_schedule` (None when it is "off", the
    lifecycle is off, or the engine does not tend): lessons asked of `model` (else the companion's own)."""
    atend = getattr(mneme, "atend", None)
    planned = dates.schedule(settings.tend_schedule, "lifecycle.schedule")
    life = getattr(mneme, "lifecycle", None)
    if planned is None or not callable(atend) or (life is not None and not life.enabled):
        return None
    every, at = planned
    lessons = life.lessons if life is not None else 5
    timeout = 60.0 * (lessons + 5)  # a minute per model call at most, and the batches' work

    async def work() -> Mapping[str, int]:
        result = await atend(complete=model)
        return result.counts()

    return Chore("tend", work, every=every, at=at, timeout=timeout)
