"""The collector: while a bot serves, full collections wait for a quiet moment (or `every` seconds)."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Iterator

import pytest

from mneme_core.bot import collector as collecting
from mneme_core.bot.collector import OFF, Collector

LOOK = 0.005


@pytest.fixture
def full() -> Iterator[list[int]]:
    """The full collections that ran, counted by a gc callback (of any thread: only this test collects)."""
    ran: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 2:
            ran.append(info["collected"])

    gc.callbacks.append(seen)
    try:
        yield ran
    finally:
        gc.callbacks.remove(seen)


def cycles(count: int = 50) -> list[list[object]]:
    """`count` lists that each hold themselves: garbage only a cycle collection frees, once dropped."""
    made = []
    for _ in range(count):
        cycle: list[object] = []
        cycle.append(cycle)
        made.append(cycle)
    return made


def old_garbage() -> None:
    """Cycles that live through the young and middle collections, then become garbage: what only a full
    collection frees."""
    made = cycles()
    gc.collect(1)  # into the oldest generation; the middle collection is counted (gc.get_count()[2])
    made.clear()


async def until(done: Callable[[], bool], failed: Callable[[], str]) -> None:
    """Until `done()`, asked every `LOOK` (bounded: a collector that never gets there fails the test, with
    `failed()` saying how far it got, instead of hanging it)."""
    for _ in range(2000):
        if done():
            return
        await asyncio.sleep(LOOK)
    raise AssertionError(failed())


async def looks(asked: list[int], at_least: int) -> None:
    """Until `quiet()` was asked `at_least` times: the collector looked that often."""
    await until(
        lambda: len(asked) >= at_least, lambda: f"the collector looked {len(asked)} times, not {at_least}"
    )


async def collected(c: Collector, at_least: int = 1) -> None:
    """Until the collector ran `at_least` full collections."""
    await until(
        lambda: c.collections >= at_least,
        lambda: f"the collector ran {c.collections} full collections, not {at_least}",
    )


async def test_serving_puts_cpython_s_full_collections_off_and_stop_gives_them_back() -> None:
    before = gc.get_threshold()
    one = Collector(lambda: False, look=LOOK)
    one.start()
    try:
        assert gc.get_threshold() == (before[0], before[1], OFF)
        assert gc.get_freeze_count() > 1000  # start-up's objects are out of the full collections' way
        two = Collector(lambda: False, look=LOOK)  # a second runner in the process: the first one's state
        two.start()
        await two.stop()
        assert gc.get_threshold() == (before[0], before[1], OFF)
        assert gc.get_freeze_count() > 1000
    finally:
        await one.stop()
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
    await one.stop()  # twice is harmless
    assert gc.get_threshold() == before and not collecting._running


async def test_a_quiet_moment_collects_what_grew_old(full: list[int]) -> None:
    asked: list[int] = []
    quiet = [False]
    c = Collector(lambda: asked.append(1) is None and quiet[0], look=LOOK, every=3600)
    c.start()
    try:
        old_garbage()
        await looks(asked, 5)
        assert full == [] and c.collections == 0  # busy: no full collection, by CPython or by it
        quiet[0] = True
        await collected(c)
        assert c.collections == 1 and len(full) == 1
        assert full[0] >= 50  # the cycles that had grown old were freed
    finally:
        await c.stop()


async def test_nothing_grown_old_since_the_last_is_no_reason_for_another() -> None:
    c = Collector(lambda: True, look=3600, every=60, clock=lambda: 1000.0)
    c.start()
    try:
        gc.collect()
        assert not c.due(since=0.0)  # quiet and long overdue, but no middle collection ran since
        old_garbage()
        assert c.due(since=999.0)  # one did: quiet is reason enough
        gc.disable()  # a host that turned the collector off is left alone
        try:
            assert not c.due(since=0.0)
        finally:
            gc.enable()
    finally:
        await c.stop()


async def test_however_busy_a_full_collection_comes_every_so_often(full: list[int]) -> None:
    now = [0.0]
    asked: list[int] = []
    c = Collector(lambda: asked.append(1) is not None, look=LOOK, every=60, settle=3600, clock=lambda: now[0])
    c.start()
    try:
        old_garbage()
        await looks(asked, 1)  # it began counting at 0
        now[0] = 59.0
        await looks(asked, 5)
        assert c.collections == 0 and full == []
        now[0] = 60.0
        await collected(c)
        assert c.collections == 1 and len(full) == 1 and full[0] >= 50
    finally:
        await c.stop()


async def settled(c: Collector, at_least: int) -> None:
    """Until the collector froze what was alive `at_least` times."""
    await until(
        lambda: c.settled >= at_least, lambda: f"the collector froze {c.settled} times, not {at_least}"
    )


async def test_while_busy_what_is_alive_is_frozen_so_young_collections_skip_it() -> None:
    c = Collector(lambda: False, look=3600, every=3600, settle=LOOK)
    c.start()
    try:
        frozen_at_start = gc.get_freeze_count()
        alive = [[] for _ in range(5000)]  # a rush's objects in flight
        await settled(c, 2)
        assert gc.get_freeze_count() >= frozen_at_start + len(alive)
        young = len(gc.get_objects(generation=0)) + len(gc.get_objects(generation=1))
        assert young < len(alive)  # the young and middle collections no longer look at them
    finally:
        await c.stop()
    assert gc.get_freeze_count() == 0


async def test_a_quiet_bot_freezes_nothing() -> None:
    c = Collector(lambda: True, look=3600, every=3600, settle=LOOK)
    c.start()
    try:
        frozen = gc.get_freeze_count()
        alive = [[] for _ in range(1000)]
        for _ in range(5):
            await asyncio.sleep(LOOK)
        assert c.settled == 0 and gc.get_freeze_count() < frozen + len(alive)
    finally:
        await c.stop()


async def test_cycles_frozen_in_a_rush_are_freed_by_the_next_full_collection(full: list[int]) -> None:
    busy = [True]
    c = Collector(lambda: not busy[0], look=LOOK, every=3600, settle=LOOK, thaw_every=0)
    c.start()
    try:
        start_up = gc.get_freeze_count()
        made = cycles()
        await settled(c, 1)  # frozen while alive, then garbage: no young or middle collection can see them
        made.clear()
        gc.collect(1)
        assert c.collections == 0 and full == []  # busy: nothing collected them yet
        busy[0] = False
        await collected(c)
        assert c.collections == 1 and len(full) == 1 and full[0] >= 50
        assert c.settled == 0
        assert gc.get_freeze_count() >= start_up * 0.9  # what is alive is out of the way again
    finally:
        await c.stop()


async def test_a_busy_bot_s_full_collections_leave_the_rushes_frozen_until_thaw_every(
    full: list[int],
) -> None:
    now = [0.0]
    c = Collector(lambda: False, look=LOOK, every=60, settle=LOOK, thaw_every=600, clock=lambda: now[0])
    c.start()
    try:
        made = cycles()
        await settled(c, 1)  # frozen while alive
        made.clear()
        gc.collect(1)  # a middle collection ran since: something may have grown old
        now[0] = 60.0  # overdue, and busy: a full collection of what was not frozen
        await collected(c)
        assert full[0] < 50 and c.settled > 0  # the frozen cycles were left for later
        frozen = gc.get_freeze_count()
        now[0] = 600.0  # ten minutes since the last thaw: this one thaws
        await collected(c, 2)
        assert c.collections == 2 and full[1] >= 50
        assert gc.get_freeze_count() < frozen  # what was frozen and died is gone from the frozen list
    finally:
        await c.stop()
