"""A store's thread lets go of the GIL for a moment when an outcome it handed waits for its event loop
(`store.breaks`): between jobs and between the items of a long one (a group commit's writes, a plan's reads).

No timing is asserted: the clock and the sleep are the test's, the loop is held by the test, or the breaks
taken are recorded in order with the work around them."""

from __future__ import annotations

import asyncio
import threading

import pytest

from mneme_core import Mneme, twins
from mneme_core.store import breaks as breaks_module
from mneme_core.store import transactions
from mneme_core.store.breaks import Breaks, Handed, keep, take_if_due
from mneme_core.store.one_at_a_time import OneAtATime
from mneme_core.store.workers import NOW, Workers, run_job

S = "discord:42"
WAIT = 10.0


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_an_outcome_handed_waits_until_its_loop_takes_it_and_counts_only_once_late():
    clock = Clock()
    handed = Handed(clock)
    assert not handed.waiting(0.0)

    handed.handed()
    clock.now += 0.0009
    assert not handed.waiting(0.001)
    clock.now += 0.0002
    assert handed.waiting(0.001)

    handed.handed()  # a second one: the wait is the oldest's
    handed.taken()
    assert handed.waiting(0.001)
    handed.taken()
    assert not handed.waiting(0.0)

    handed.taken()  # one too many (never below nothing): the next outcome is waited for again
    handed.handed()
    assert handed.waiting(0.0)


def test_outcomes_their_loop_never_took_are_written_off_after_give_up():
    clock = Clock()
    handed = Handed(clock)
    handed.handed()
    clock.now += breaks_module.GIVE_UP
    assert not handed.waiting(0.0)
    handed.handed()  # counted afresh
    assert handed.waiting(0.0)


def test_a_break_sleeps_only_when_due():
    slept, due = [], [False]
    breaks = Breaks(lambda: due[0], moment=0.0002, sleep=slept.append)
    breaks.take_if_due()
    assert slept == [] and breaks.taken == 0
    due[0] = True
    breaks.take_if_due()
    breaks.take_if_due()
    assert slept == [0.0002, 0.0002] and breaks.taken == 2


def test_take_if_due_reaches_only_the_breaks_the_calling_thread_keeps():
    slept: list[float] = []
    kept = Breaks(lambda: True, sleep=slept.append)
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
async def test_a_pools_thread_sees_its_outcome_waiting_while_the_loop_is_held_and_taken_after(pool_kind):
    seen, probed = [], threading.Event()

    class Probe(Breaks):
        def take_if_due(self) -> None:
            seen.append(self.due(0.0))
            probed.set()

    pool = (
        OneAtATime("test-handed", 1, breaks=Probe) if pool_kind == "one at a time" else Workers("t", 1, Probe)
    )
    try:
        result = asyncio.ensure_future(pool.run(lambda: 7, place=NOW))
        await asyncio.sleep(0)  # the job is put; the loop's thread is then held until the job was handed
        assert probed.wait(WAIT)
        assert await result == 7
    finally:
        pool.stop(WAIT)
    assert seen == [True]  # handed, and the held loop had not taken it
    assert not pool._handed.waiting(0.0)  # taken once the loop ran


def test_an_outcome_for_a_loop_that_closed_is_not_left_waiting():
    loop = asyncio.new_event_loop()
    future = loop.create_future()
    loop.close()
    handed = Handed()
    run_job((lambda: 1, (), loop, future), handed)
    assert not handed.waiting(0.0)


@pytest.mark.parametrize("pool_kind", ["one at a time", "workers"])
async def test_each_thread_takes_its_breaks_between_jobs_and_a_job_reaches_them(pool_kind):
    events: list[tuple[str, object]] = []
    lock = threading.Lock()

    class Recorded(Breaks):
        """Always due: every job is followed by a break, recorded with its thread."""

        def __init__(self, due: object) -> None:
            super().__init__(lambda: True, sleep=self._slept)

        def _slept(self, seconds: float) -> None:
            with lock:
                events.append(("break", threading.get_ident()))

    pool = (
        OneAtATime("test-breaks", 1, breaks=Recorded)
        if pool_kind == "one at a time"
        else Workers("t", 1, Recorded)
    )

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
