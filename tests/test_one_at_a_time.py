"""A file's threads run its jobs one at a time, in order of place, and a second steps in only for a stall
(`store.one_at_a_time`); a group commit stops at `batch_seconds` and the rest follows in order; the recall
log is written by the store's own threads.

No timing is asserted: jobs record what ran beside them, and the stalls are events a test holds (bounded,
so a broken pool fails instead of hanging)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from contextlib import closing

import pytest

from mneme_core import Mneme
from mneme_core.errors import ClosedError
from mneme_core.memory import recall_log
from mneme_core.store.one_at_a_time import OneAtATime
from mneme_core.store.workers import LATER, NOW, WRITES

S = "discord:42"
WAIT = 10.0


class Beside:
    """Counts the jobs running at once."""

    def __init__(self) -> None:
        self.now = self.most = 0
        self._lock = threading.Lock()

    def __enter__(self) -> None:
        with self._lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self.now -= 1


def _spin(seconds: float) -> None:
    """Busy in Python for `seconds` of this thread's CPU: a job that is slow, never stalled."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


async def test_jobs_run_one_at_a_time_when_none_stalls():
    pool, beside = OneAtATime("test-one", 2, stall=WAIT), Beside()

    def job(i: int) -> int:
        with beside:
            time.sleep(0.002)  # lets go of the GIL, as SQLite does at every step
        return i

    try:
        assert await asyncio.gather(*(pool.run(job, i, place=NOW) for i in range(20))) == list(range(20))
    finally:
        pool.stop(WAIT)
    assert beside.most == 1


async def test_a_job_slow_because_the_process_is_busy_has_not_stalled():
    pool, beside = OneAtATime("test-busy", 2, stall=0.005), Beside()

    def job(i: int) -> int:
        with beside:
            _spin(0.03)  # six times the stall, busy all along: another thread would only slow it down
        return i

    try:
        assert await asyncio.gather(*(pool.run(job, i, place=NOW) for i in range(4))) == list(range(4))
    finally:
        pool.stop(WAIT)
    assert beside.most == 1


async def test_a_stalled_job_lets_the_next_one_start_beside_it():
    pool, started, release = OneAtATime("test-stall", 2, stall=0.01), threading.Event(), threading.Event()

    def waits() -> str:
        started.set()
        assert release.wait(WAIT), "nothing started beside the stalled job"
        return "waited"

    def frees() -> str:
        release.set()
        return "freed"

    try:
        waiting = asyncio.ensure_future(pool.run(waits, place=WRITES))
        assert await asyncio.to_thread(started.wait, WAIT)
        assert await pool.run(frees, place=NOW) == "freed"
        assert await waiting == "waited"
    finally:
        pool.stop(WAIT)


async def test_two_writes_never_run_at_once_even_when_one_stalls():
    pool, beside, order = OneAtATime("test-writes", 2, stall=0.005), Beside(), []
    release, read_ran = threading.Event(), threading.Event()

    def write(name: str) -> None:
        with beside:
            order.append(name)
            if name == "first":  # stalls until the read beside it ran, then a while more
                assert read_ran.wait(WAIT)
                assert release.wait(WAIT)

    def read() -> None:
        order.append("read")
        read_ran.set()
        threading.Timer(0.05, release.set).start()  # the second write, if it started, would be seen

    try:
        await asyncio.gather(
            pool.run(write, "first", place=WRITES),
            pool.run(write, "second", place=WRITES),
            pool.run(read, place=LATER),
        )
    finally:
        pool.stop(WAIT)
    assert beside.most == 1
    assert order == ["first", "read", "second"]  # the read stepped past the write that could not start


async def test_a_replys_read_goes_before_writes_and_writes_before_the_rest():
    pool, order = OneAtATime("test-places", 1), []
    started, release = threading.Event(), threading.Event()

    def hold() -> None:
        started.set()
        assert release.wait(WAIT)

    try:
        holding = asyncio.ensure_future(pool.run(hold, place=LATER))
        assert await asyncio.to_thread(started.wait, WAIT)
        queued = [
            asyncio.ensure_future(pool.run(order.append, name, place=place))
            for name, place in (("later", LATER), ("write", WRITES), ("now", NOW), ("write 2", WRITES))
        ]
        await asyncio.sleep(0)
        release.set()
        await asyncio.gather(holding, *queued)
    finally:
        pool.stop(WAIT)
    assert order == ["now", "write", "write 2", "later"]


def test_work_submitted_from_any_thread_runs_and_a_failure_is_logged(caplog):
    pool, ran = OneAtATime("test-submit", 2), threading.Event()

    def fails() -> None:
        raise RuntimeError("no such luck")

    try:
        with caplog.at_level("WARNING", logger="mneme_core.store.workers"):
            pool.submit(fails, place=WRITES)
            pool.submit(ran.set, place=LATER)
            assert ran.wait(WAIT)
    finally:
        pool.stop(WAIT)
    assert any("no such luck" in r.getMessage() for r in caplog.records)


async def test_stop_finishes_what_was_queued_then_refuses_more():
    pool, done = OneAtATime("test-stop", 2), []
    waiting = [asyncio.ensure_future(pool.run(done.append, i, place=LATER)) for i in range(5)]
    await asyncio.sleep(0)
    assert await asyncio.to_thread(pool.stop, WAIT)
    await asyncio.gather(*waiting)
    assert sorted(done) == list(range(5))
    with pytest.raises(ClosedError, match="stopped"):
        await pool.run(done.append, 9, place=NOW)


@pytest.mark.parametrize("reply_waits", [True, False])
async def test_a_group_commit_stops_at_its_time_only_for_a_reply_waiting(
    db_path, clock, monkeypatch, reply_waits
):
    m = Mneme(db_path, space="test", clock=clock)
    commits = []
    m.store.batch_seconds = 0.0  # past the first write at once
    monkeypatch.setattr(m.store._readers, "waiting", lambda place: reply_waits and place == NOW)
    original = m.store._commit

    def counted(conn):
        commits.append(conn.execute("select count(*) from notes").fetchone()[0])
        original(conn)

    monkeypatch.setattr(m.store, "_commit", counted)
    try:
        texts = [f"note {i} about the orchard" for i in range(12)]
        kept = await asyncio.gather(*(m.aremember(S, t) for t in texts))
        assert [n.text for n in kept] == texts  # each write has its own outcome
        assert [n.id for n in kept] == sorted(n.id for n in kept)  # committed in the order asked
        assert commits == sorted(commits) and commits[-1] == 12
        if reply_waits:  # one write a commit, the rest left for the next, in order
            assert commits == list(range(1, 13))
        else:  # written together
            assert len(commits) < 12
        with closing(sqlite3.connect(db_path)) as conn:
            assert conn.execute("select count(*) from notes").fetchone() == (12,)
    finally:
        await m.aclose()


async def test_the_recall_log_is_written_by_the_stores_threads(mneme: Mneme, monkeypatch):
    monkeypatch.setattr(recall_log, "WAIT", 0.01)
    writers: list[str] = []
    original = mneme.recall_log.write_pending

    def spy(conn):
        if mneme.recall_log.waiting:
            writers.append(threading.current_thread().name)
        original(conn)

    monkeypatch.setattr(mneme.recall_log, "write_pending", spy)
    mneme.store.piggyback[:] = [spy if f == original else f for f in mneme.store.piggyback]
    await mneme.aremember(S, "Leo grows tomatoes in the garden")
    mneme.recall(S, "tomatoes")  # a plain twin's recall: logged, written in the background
    # The entry leaves the waiting list when a store thread takes it, and is on file once that thread's
    # transaction commits: wait for both (a loaded machine showed the gap between them).
    for _ in range(1000):
        if not mneme.recall_log.waiting and mneme.recalls(S):
            break
        await asyncio.sleep(0.01)
    assert mneme.recall_log.waiting == 0
    assert writers and all(name.startswith("mneme-store") for name in writers)
    assert [r["query"] for r in mneme.recalls(S)] == ["tomatoes"]


async def test_a_prompt_is_answered_while_a_write_waits_for_another_process_holding_the_file(
    mneme: Mneme, db_path
):
    await mneme.aremember(S, "Leo grows tomatoes in the garden")
    other = sqlite3.connect(db_path, isolation_level=None)  # another process's connection, as SQLite sees it
    try:
        other.execute("begin immediate")  # holds the file's write lock
        write = asyncio.ensure_future(mneme.aremember(S, "Leo waters them at dawn"))
        await asyncio.sleep(0.05)  # the write is under way, waiting for the lock
        block = await asyncio.wait_for(mneme.aprompt(S, "what grows in Leo's garden?"), WAIT)
        assert "tomatoes" in block and not write.done()
    finally:
        other.execute("rollback")
        other.close()
    assert (await asyncio.wait_for(write, WAIT)).text == "Leo waters them at dawn"


async def test_a_job_waiting_outside_the_process_lets_the_next_start_at_once():
    pool = OneAtATime("test-outside", 2, stall=WAIT)  # no stall would ever be seen in time
    started, release = threading.Event(), threading.Event()

    def checkpoint_like() -> str:
        with pool.outside():  # as the writer's catch-up checkpoint does around its fsyncs
            started.set()
            assert release.wait(WAIT), "nothing started beside the job waiting outside"
        return "copied"

    try:
        waiting = asyncio.ensure_future(pool.run(checkpoint_like, place=WRITES))
        assert await asyncio.to_thread(started.wait, WAIT)
        assert await pool.run(release.set, place=NOW) is None
        assert await waiting == "copied"
    finally:
        pool.stop(WAIT)


def test_while_a_reply_waits_a_write_takes_along_only_what_fits_of_the_recall_log(mneme, monkeypatch):
    mneme.remember(S, "Leo grows tomatoes in the garden")
    for query in ("tomatoes", "garden", "Leo"):
        mneme.recall(S, query)
    assert mneme.recall_log.waiting == 3
    monkeypatch.setattr(recall_log, "PER_WRITE_SECONDS", 0.0)
    monkeypatch.setattr(mneme.store, "reply_waits", lambda: True)
    mneme.remember(S, "Leo waters them at dawn")
    assert mneme.recall_log.waiting == 2  # the oldest went along; the others wait, first in line
    monkeypatch.setattr(mneme.store, "reply_waits", lambda: False)
    mneme.remember(S, "Leo picks them in August")
    assert mneme.recall_log.waiting == 0
    assert [r["query"] for r in mneme.recalls(S)] == ["Leo", "garden", "tomatoes"]
