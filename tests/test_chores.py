"""Chores (`mneme_core.bot.chores`): named jobs between conversations on a schedule in the companion's zone,
one process at a time on one file (a lease row), off the reply path; and the runner's health check, with
its counts in `report()`.

Two `Mneme` objects on one file stand for two processes: each has its own connections and its own `Chores`
(holder), and the lease lives in the file. The clock of `conftest.py` stands at 2024-03-01 12:00 UTC.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from bot_fakes import FakeAdapter, Scripted, message

from mneme_core import Mneme
from mneme_core.bot import BotSettings, Runner
from mneme_core.bot.chores import RETRY, Chore, Chores, health_check
from mneme_core.check.run import LEASE
from mneme_core.errors import InvalidValue
from mneme_core.plugins import make_manager
from mneme_core.store import leases

HOUR = 3600.0
S = "fake:42"


@pytest.fixture
def pair(db_path: Path, clock) -> Iterator[tuple[Mneme, Mneme]]:
    one = Mneme(db_path, space="bot", clock=clock, zone="UTC+8")
    two = Mneme(db_path, space="bot", clock=clock, zone="UTC+8")
    try:
        yield one, two
    finally:
        one.close()
        two.close()


class Job:
    """A chore's work that counts its runs and can be held open, made to fail, or to hang."""

    def __init__(self) -> None:
        self.runs = 0
        self.gate: asyncio.Event | None = None
        self.fail = False

    async def __call__(self) -> dict[str, int]:
        self.runs += 1
        if self.gate is not None:
            await self.gate.wait()
        if self.fail:
            raise RuntimeError("the disk is full")
        return {"tended": 3}


def lease_of(m: Mneme, name: str = "chore:tend"):
    return m.store.read(leases.get, m.space, name)


async def test_a_daily_chore_runs_at_its_time_in_the_companions_zone_and_once_a_day(pair, clock):
    m, _ = pair
    job = Job()
    chores = Chores(m)
    chores.add(Chore("tend", job, at=(4, 0)))

    assert await chores.run_due() == []  # 20:00 in UTC+8: first due at 04:00 tomorrow there
    assert lease_of(m).next_at == clock() + 8 * HOUR
    clock.advance(hours=8)
    assert await chores.run_due() == ["tend"]
    await chores.aclose()

    assert job.runs == 1 and chores.report() == {"tend_runs": 1, "tend_tended": 3}
    lease = lease_of(m)
    assert (lease.holder, lease.next_at, lease.runs) == (None, clock() + 24 * HOUR, 1)


async def test_of_two_processes_on_one_file_exactly_one_runs_a_due_chore(pair, clock):
    one, two = pair
    job_one, job_two = Job(), Job()
    job_one.gate = job_two.gate = asyncio.Event()
    first, second = Chores(one), Chores(two)
    first.add(Chore("tend", job_one, every=HOUR))
    second.add(Chore("tend", job_two, every=HOUR))
    await first.run_due()
    clock.advance(hours=1)

    started = await asyncio.gather(first.run_due(), second.run_due())

    assert sorted(map(len, started)) == [0, 1] and job_one.runs + job_two.runs == 1
    loser = second if started[0] else first
    assert loser.report() == {"tend_busy": 1}
    job_one.gate.set()
    await asyncio.gather(first.aclose(), second.aclose())
    assert await second.run_due() == [] and job_one.runs + job_two.runs == 1  # not due again for an hour


async def test_a_lease_left_by_a_process_that_died_runs_out(pair, clock):
    m, _ = pair
    m.store.write(leases.claim, m.space, "chore:tend", "a dead process", clock(), 600.0, clock(), True)
    job = Job()
    chores = Chores(m)
    chores.add(Chore("tend", job, every=HOUR, timeout=60.0))

    assert await chores.run_due() == [] and chores.report() == {"tend_busy": 1}
    clock.advance(seconds=601)
    assert await chores.run_due() == ["tend"]
    await chores.aclose()
    assert job.runs == 1


async def test_a_failed_chore_is_counted_and_due_again_sooner(pair, clock):
    m, _ = pair
    job = Job()
    job.fail = True
    chores = Chores(m)
    chores.add(Chore("tend", job, at=(4, 0)))
    await chores.run_due()  # first seen: due at 04:00 in UTC+8
    clock.advance(hours=9)
    await chores.run_due()
    await chores.run_due()  # the first attempt is under way or ended; either way no second run now
    await chores.aclose()

    assert chores.report() == {"tend_failed": 1}
    lease = lease_of(m)
    assert lease.next_at == clock() + RETRY and "disk is full" in lease.error


async def test_a_chore_past_its_timeout_is_stopped_and_counted(pair, clock):
    m, _ = pair
    job = Job()
    job.gate = asyncio.Event()  # never set: it hangs
    chores = Chores(m)
    chores.add(Chore("tend", job, every=HOUR, timeout=0.05))
    await chores.run_due()
    clock.advance(hours=2)
    await chores.run_due()
    await asyncio.sleep(0.2)

    assert chores.report() == {"tend_timeout": 1} and lease_of(m).holder is None


async def test_closing_stops_a_chore_under_way_and_hands_its_lease_back_due(pair, clock):
    m, _ = pair
    job = Job()
    job.gate = asyncio.Event()
    chores = Chores(m)
    chores.add(Chore("tend", job, at=(4, 0)))
    await chores.run_due()
    clock.advance(hours=9)
    assert await chores.run_due() == ["tend"]
    await asyncio.sleep(0)

    assert await chores.aclose(timeout=0.05) == 1
    lease = lease_of(m)
    assert lease.holder is None and lease.next_at == clock()  # the next start runs it at once


def test_a_chore_that_is_not_one_is_refused():
    async def work() -> None:
        return None

    for wrong in (
        {"name": "Tend!", "work": work, "every": 60.0},
        {"name": "tend", "work": work},
        {"name": "tend", "work": work, "every": 60.0, "at": (4, 0)},
        {"name": "tend", "work": work, "every": -1.0},
        {"name": "tend", "work": work, "at": (25, 0)},
        {"name": "tend", "work": work, "every": 60.0, "timeout": 0},
        {"name": "tend", "work": "soon", "every": 60.0},
    ):
        with pytest.raises((InvalidValue, TypeError)):
            Chore(**wrong)
    chores = Chores(object())
    chores.add(Chore("tend", work, every=60.0))
    with pytest.raises(InvalidValue, match="there already"):
        chores.add(Chore("tend", work, every=60.0))


# -- the health check in the runner ---------------------------------------------------------------------


def runner_of(m: Mneme, **settings: object) -> Runner:
    manager = make_manager(load_entry_points=False, environ={})
    return Runner(m, Scripted(), settings=BotSettings(**settings), plugins=manager)


async def test_the_runner_checks_the_notes_on_its_schedule_and_reports_it(pair, clock):
    m, _ = pair
    m.remember(S, "User42 likes jasmine tea", kind="preference", key="a.tea")
    copy = m.remember(S, "user42 likes jasmine tea", kind="preference", key="b.tea")
    runner = runner_of(m, check_schedule="6h")
    adapter = FakeAdapter()

    serving = asyncio.create_task(runner.serve([adapter], signals=False))
    await asyncio.sleep(0.05)
    assert "check_runs" not in runner.report()  # first due six hours after it is first seen
    clock.advance(hours=6)
    assert await runner.chores.run_due() == ["check"]
    await asyncio.wait_for(_until(lambda: "check_runs" in runner.report()), 5.0)
    runner.stop_soon()
    await serving

    report = runner.report()
    assert (report["check_runs"], report["check_found"], report["check_fixed"]) == (1, 1, 1)
    assert not m.get(copy.id).live  # the same text under two keys: 0.95 sure, as much as the fix needs


async def test_the_runner_tends_the_memory_on_its_schedule_one_process_at_a_time(pair, clock):
    m, other = pair
    faded = m.remember(S, "User42 went to a concert in spring", kind="episode")
    clock.advance(days=200)
    runner = runner_of(m, check_schedule="off", tend_schedule="6h")
    second = runner_of(other, check_schedule="off", tend_schedule="6h")
    await runner.chores.run_due()
    await second.chores.run_due()
    clock.advance(hours=6)
    assert await runner.chores.run_due() == ["tend"]
    await asyncio.sleep(0.2)
    assert await second.chores.run_due() == []  # the other process sees it done, next due in 6 h
    assert runner.report()["tend_runs"] == 1 and runner.report()["tend_archived"] == 1
    assert m.get(faded.id).archived_at is not None


async def test_a_check_held_by_a_manual_run_counts_as_busy(pair, clock):
    m, other = pair
    other.store.write(leases.claim, other.space, LEASE, "mneme check in a shell", clock(), 600.0, None, True)
    runner = runner_of(m, check_schedule="1h")

    assert await runner.chores.run_now("check")
    assert runner.report()["check_busy"] == 1 and "check_runs" not in runner.report()


async def test_the_reply_path_never_waits_for_a_chore(pair, clock):
    m, _ = pair
    job = Job()
    job.gate = asyncio.Event()
    runner = runner_of(m, check_schedule="off", tend_schedule="off")
    runner.chores.add(Chore("tend", job, every=HOUR))
    await runner.chores.run_due()
    clock.advance(hours=1)
    assert await runner.chores.run_due() == ["tend"]  # and it hangs until the gate opens

    outcome = await asyncio.wait_for(runner.handle(FakeAdapter(), message("hello")), 5.0)

    assert outcome.status == "replied" and job.runs == 1
    job.gate.set()
    await runner.aclose()
    assert runner.report()["tend_runs"] == 1


def test_the_schedule_comes_from_the_config(pair):
    m, _ = pair
    m.config.set("check.schedule", "30m")
    m.config.set("check.budget", 7)
    settings = BotSettings.from_config(m.config)
    chore = health_check(m, settings)
    assert (settings.check_schedule, chore.every, chore.at, settings.check_budget) == ("30m", 1800.0, None, 7)
    assert health_check(m, BotSettings(check_schedule="off")) is None
    assert health_check(m, BotSettings()).at == (4, 0)
    with pytest.raises(InvalidValue, match=r"check\.schedule"):
        m.config.set("check.schedule", "every night")
    with pytest.raises(InvalidValue, match="check_schedule"):
        BotSettings(check_schedule="25:00")


async def _until(ready) -> None:
    while not ready():
        await asyncio.sleep(0.01)
