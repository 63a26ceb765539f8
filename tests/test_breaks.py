"""A store's thread lets go of the GIL now and then (`store.breaks`): after `every` of its CPU, between jobs
and between the items of a long one (a group commit's writes, a plan's reads).

No timing is asserted: the clock and the sleep are the test's, or the breaks taken are recorded in order
with the work around them."""

from __future__ import annotations

import asyncio
import threading

import pytest

from mneme_core import Mneme, twins
from mneme_core.store import breaks as breaks_module
from mneme_core.store import transactions
from mneme_core.store.breaks import Breaks, keep, take_if_due
from mneme_core.store.one_at_a_time import OneAtATime
from mneme_core.store.workers import NOW, Workers

S = "discord:42"
WAIT = 10.0


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_break_comes_once_the_thread_has_used_every_seconds_of_cpu_and_not_before():
    clock, slept = Clock(), []
    breaks = Breaks(every=0.003, moment=0.0002, clock=clock, sleep=slept.append)

    clock.now = 0.0029
    breaks.take_if_due()
    assert slept == [] and breaks.taken == 0

    clock.now = 0.0031
    breaks.take_if_due()
    assert slept == [0.0002] and breaks.taken == 1

    clock.now = 0.0055  # counted from the last break, not from the start
    breaks.take_if_due()
    assert slept == [0.0002]
    clock.now = 0.0062
    breaks.take_if_due()
    assert slept == [0.0002, 0.0002] and breaks.taken == 2


def test_the_cpu_used_while_taking_a_break_is_not_counted_towards_the_next():
    clock, slept = Clock(), []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.now += 0.001  # what the sleep itself cost on the clock

    breaks = Breaks(every=0.003, clock=clock, sleep=sleep)
    clock.now = 0.003
    breaks.take_if_due()
    clock.now = 0.006  # 0.002 since the break ended
    breaks.take_if_due()
    assert len(slept) == 1


def test_the_default_clock_is_the_threads_own_cpu_time():
    breaks = Breaks()
    assert breaks.every == breaks_module.EVERY and breaks.moment == breaks_module.MOMENT
    assert breaks._clock is breaks_module.time.thread_time


def test_take_if_due_reaches_only_the_breaks_the_calling_thread_keeps():
    clock, slept = Clock(), []
    kept = Breaks(every=0.001, clock=clock, sleep=slept.append)
    clock.now = 1.0
    others: list[int] = []

    def elsewhere() -> None:
        take_if_due()  # this thread keeps no breaks
        others.append(len(slept))

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join(WAIT)

    def mine() -> None:
        assert keep(kept) is kept
        take_if_due()

    thread = threading.Thread(target=mine)
    thread.start()
    thread.join(WAIT)
    assert others == [0]
    assert slept == [kept.moment]


@pytest.mark.parametrize("pool_kind", ["one at a time", "workers"])
async def test_each_thread_takes_its_breaks_between_jobs_and_a_job_reaches_them(pool_kind, monkeypatch):
    events: list[tuple[str, object]] = []
    lock = threading.Lock()

    class Recorded(Breaks):
        """Always due: every job is followed by a break, recorded with its thread."""

        def __init__(self) -> None:
            super().__init__(every=0.0, sleep=self._slept)

        def _slept(self, seconds: float) -> None:
            with lock:
                events.append(("break", threading.get_ident()))

    if pool_kind == "one at a time":
        pool = OneAtATime("test-breaks", 1, breaks=Recorded)
    else:
        monkeypatch.setattr("mneme_core.store.workers.Breaks", Recorded)
        pool = Workers("test-breaks", 1)

    def job(i: int) -> int:
        with lock:
            events.append((f"job {i}", threading.get_ident()))
        take_if_due()  # within a job, the thread's own breaks
        return i

    try:
        for i in range(3):
            assert await pool.run(job, i, place=NOW) == i
    finally:
        pool.stop(WAIT)
    names = [name for name, _ in events]
    assert names == ["job 0", "break", "break", "job 1", "break", "break", "job 2", "break", "break"]
    assert len({thread for _, thread in events}) == 1  # the pool's one thread, not the test's


async def test_a_group_commit_takes_a_break_after_each_write_it_commits(mneme: Mneme, monkeypatch):
    order: list[str] = []

    class Recorder:
        @staticmethod
        def take_if_due() -> None:
            order.append("break")

    await mneme.aremember(S, "opens the store")
    monkeypatch.setattr(transactions, "breaks", Recorder)
    mneme.store._readers.stall = 60.0  # no second thread steps in while the first is held
    held, release = threading.Event(), threading.Event()

    def hold(conn: object) -> None:
        held.set()
        assert release.wait(WAIT)

    def write(conn: object, i: int) -> int:
        order.append(f"write {i}")
        return i

    holding = asyncio.ensure_future(mneme.store.aread(hold))
    assert await asyncio.to_thread(held.wait, WAIT)
    writes = [asyncio.ensure_future(mneme.store.awrite(write, i)) for i in range(4)]
    await asyncio.sleep(0.01)  # all four queued behind the held thread
    release.set()
    assert await asyncio.gather(holding, *writes) == [None, 0, 1, 2, 3]
    assert order == ["write 0", "break", "write 1", "break", "write 2", "break", "write 3", "break"]


async def test_a_plan_takes_a_break_before_each_read_on_the_stores_thread(mneme: Mneme, monkeypatch):
    await mneme.aremember(S, "Mochi is my cat and she hates the vacuum")
    seen: list[str] = []

    class Recorder:
        @staticmethod
        def take_if_due() -> None:
            seen.append(threading.current_thread().name)

    monkeypatch.setattr(twins, "breaks", Recorder)
    block = await mneme.aprompt(S, query="how is Mochi doing?")
    assert "Mochi" in block
    assert seen, "a prompt's plan took no break before its reads"
    assert all(name.startswith("mneme-store") for name in seen)
