"""The async verbs leave the event loop free: their SQL, scoring and text work run on the store's threads
(`store.workers`, `twins`), two reads run at once, and a read never waits behind a write.

No timing is asserted: each test records which thread ran a step, or makes one step wait on another with
events (bounded, so a broken store fails instead of hanging)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from mneme_core import Mneme, twins
from mneme_core import mneme as facade
from mneme_core.errors import ClosedError, InvalidValue

S = "discord:42"
WAIT = 10.0


def _threads_of(monkeypatch: pytest.MonkeyPatch, target: object, name: str) -> list[int]:
    """Record the thread of every call of `target.name` (still doing what it did)."""
    seen: list[int] = []
    original = getattr(target, name)

    def spy(*args, **kwargs):
        seen.append(threading.get_ident())
        return original(*args, **kwargs)

    monkeypatch.setattr(target, name, spy)
    return seen


async def test_the_prompts_reads_scoring_and_text_run_on_a_store_thread(mneme: Mneme, monkeypatch):
    await mneme.aremember(S, "my cat is called Mochi", kind="fact")
    ranked = _threads_of(monkeypatch, facade, "rank")
    checked = _threads_of(monkeypatch, facade.periods, "named")
    built = _threads_of(monkeypatch, facade, "notes_block")
    loop_thread = threading.get_ident()

    block = await mneme.aprompt(S, "what is my cat called?", user_name="Leo")
    found = await mneme.arecall(S, "cat")

    assert "Mochi" in block and [r.note.text for r in found.chosen] == ["my cat is called Mochi"]
    assert ranked and checked and built
    assert loop_thread not in ranked + checked + built


def test_the_plain_twins_run_everything_on_the_callers_thread(mneme: Mneme, monkeypatch):
    mneme.remember(S, "my cat is called Mochi", kind="fact")
    ranked = _threads_of(monkeypatch, facade, "rank")
    built = _threads_of(monkeypatch, facade, "notes_block")

    assert "Mochi" in mneme.prompt(S, "cat")

    assert set(ranked) == set(built) == {threading.get_ident()}


async def test_a_wrong_argument_raises_from_the_async_twin_as_from_the_plain_one(mneme: Mneme):
    for call in (lambda: mneme.aprompt(S, "cat", limit=-1), lambda: mneme.arecall(S, "cat", budget="x")):
        with pytest.raises((InvalidValue, TypeError)):
            await call()
    with pytest.raises(TypeError):
        await mneme.aprompt(S, "cat", no_such_option=1)
    with pytest.raises(InvalidValue):
        mneme.prompt(S, "cat", limit=-1)


async def test_two_reads_run_at_once(mneme: Mneme):
    both = threading.Barrier(2, timeout=WAIT)

    def meet(conn, _):
        both.wait()  # raises BrokenBarrierError if the other read never starts beside this one
        return conn.execute("select count(*) from notes").fetchone()[0]

    assert await asyncio.gather(mneme.store.aread(meet, 1), mneme.store.aread(meet, 2)) == [0, 0]


async def test_a_read_does_not_wait_for_a_write_under_way(mneme: Mneme):
    await mneme.aremember(S, "my cat is called Mochi", kind="fact")
    writing, read_done = threading.Event(), threading.Event()

    def slow_write(conn):
        conn.execute("update notes set importance = 5")
        writing.set()
        assert read_done.wait(WAIT), "the read waited for the write"

    write = asyncio.ensure_future(mneme.store.awrite(slow_write))
    assert await asyncio.to_thread(writing.wait, WAIT)
    found = await mneme.arecall(S, "cat")
    read_done.set()
    await write

    assert [r.note.importance for r in found.chosen] == [2]  # the snapshot from before the write
    assert [n.importance for n in await mneme.anotes(S)] == [5]


async def test_a_step_that_fails_is_thrown_into_the_plan_at_its_yield(mneme: Mneme):
    def failing(conn):
        raise InvalidValue("no")

    def plan():
        try:
            yield twins.Read(failing)
        except InvalidValue as err:
            caught = str(err)
        count = yield twins.Read(lambda conn: conn.execute("select count(*) from notes").fetchone()[0])
        written = yield twins.Write(lambda conn: conn.execute("select 1").fetchone()[0])
        return caught, count, written, threading.get_ident()

    caught, count, written, where = await twins.arun(mneme.store, plan())
    assert (caught, count, written) == ("no", 0, 1) and where != threading.get_ident()
    assert twins.run(mneme.store, plan())[:3] == ("no", 0, 1)


async def test_a_closed_store_refuses_async_work(db_path):
    m = Mneme(db_path, space="test")
    await m.aremember(S, "my cat is called Mochi")
    await m.aclose()
    with pytest.raises(ClosedError):
        await m.aprompt(S, "cat")
    with pytest.raises(ClosedError):
        await m.store.awrite(lambda conn: None)


async def test_work_off_a_replys_path_waits_for_the_reads_on_one(mneme: Mneme):
    """Both readers busy; an observe's read (later) asked first, a prompt's read asked second: the prompt's
    runs first when a reader is free."""
    held, release, order = threading.Barrier(3, timeout=WAIT), threading.Event(), []

    def hold():
        held.wait()
        assert release.wait(WAIT)

    def note(name):
        order.append(name)

    holding = [asyncio.ensure_future(mneme.store.aside(hold)) for _ in range(2)]
    await asyncio.to_thread(held.wait)  # both readers are inside `hold`
    later = asyncio.ensure_future(mneme.store.aside(note, "observe", later=True))
    await asyncio.sleep(0)  # queued first
    now = asyncio.ensure_future(mneme.store.aside(note, "prompt"))
    await asyncio.sleep(0)
    release.set()
    await asyncio.gather(*holding, later, now)

    assert order == ["prompt", "observe"]
