"""Writers take turns in the order they came (`store.turns`): within a process and across processes, a writer
that died never stalls the line, one that waits past the busy timeout gets `BusyError` and leaves the line,
and four processes writing flat out share the file evenly with nothing lost.

Before the line, four processes writing for 10 s got 5,063 to 5,569 writes each here and one write waited
1.75 s (1 in ~12,000 passed the 10 s busy timeout in the issue's run); the shares below are asserted only as
"nobody gets less than half of anybody", which polling never promised."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import threading
import time
from contextlib import closing

import pytest

from mneme_core import BusyError, Mneme
from mneme_core.store import Store, turns
from mneme_core.store.turns import Late, Turn

pytestmark = pytest.mark.skipif(turns.SETLK is None, reason="no open-file-description locks on this system")


def test_without_the_locks_writers_skip_the_line(tmp_path, monkeypatch):
    monkeypatch.setattr(turns, "SETLK", None)  # as on macOS or Windows
    store = Store(tmp_path / "plain.db")
    try:
        store.write(lambda conn: conn.execute("create table said(text text)"))
        store.write(lambda conn: conn.execute("insert into said values ('no line')"))
        assert store.read(lambda conn: conn.execute("select text from said").fetchall()) == [("no line",)]
    finally:
        store.close()
    assert not (tmp_path / "plain.db-turns").exists()


CTX = multiprocessing.get_context("spawn")


def test_writers_get_their_turns_in_the_order_they_came(tmp_path):
    path = str(tmp_path / "line.db")
    first, order = Turn(path), []
    assert first.take(time.monotonic() + 5) is False  # nobody ahead: no wait

    def writer(name: str) -> None:
        turn = Turn(path)
        try:
            turn.take(time.monotonic() + 5)
            order.append(name)
            turn.give_back()
        finally:
            turn.close()

    threads = []
    for name in ("second", "third", "fourth"):
        threads.append(threading.Thread(target=writer, args=(name,)))
        threads[-1].start()
        time.sleep(0.05)  # each one in line before the next
    assert order == []  # all wait for the first
    first.give_back()
    for thread in threads:
        thread.join(timeout=5)
    assert order == ["second", "third", "fourth"]
    first.close()


def _hold_a_turn(path: str, ready) -> None:
    turn = Turn(path)
    turn.take(time.monotonic() + 5)
    ready.set()
    time.sleep(60)  # killed long before


def test_a_writer_that_died_in_its_turn_does_not_stall_the_line(tmp_path):
    path = str(tmp_path / "line.db")
    ready = CTX.Event()
    holder = CTX.Process(target=_hold_a_turn, args=(path, ready))
    holder.start()
    assert ready.wait(30)
    waiting, got = Turn(path), []
    try:
        waiter = threading.Thread(target=lambda: got.append(waiting.take(time.monotonic() + 30)))
        waiter.start()
        time.sleep(0.2)
        assert got == []  # in line behind the holder
        os.kill(holder.pid, signal.SIGKILL)
        holder.join(timeout=10)
        waiter.join(timeout=10)
        assert got == [True]  # the kernel freed the dead writer's byte
    finally:
        waiting.close()


def test_a_writer_that_gives_up_leaves_the_line(tmp_path):
    path = str(tmp_path / "line.db")
    first, quitter, later = Turn(path), Turn(path), Turn(path)
    try:
        first.take(time.monotonic() + 5)
        started = time.monotonic()
        with pytest.raises(Late):
            quitter.take(started + 0.1)  # behind the first, gives up at its deadline
        assert 0.1 <= time.monotonic() - started < 2
        later.take(time.monotonic() + 0.5)  # nobody waits for the quitter's place (SQLite's lock still rules)
    finally:
        for turn in (first, quitter, later):
            turn.close()


def test_a_write_waiting_past_the_busy_timeout_is_a_busy_error_and_writes_nothing(tmp_path):
    path = str(tmp_path / "held.db")
    store = Store(path, busy_timeout=0.3)
    try:
        store.write(lambda conn: conn.execute("create table said(text text)"))
        ahead = Turn(path)
        ahead.take(time.monotonic() + 5)  # another writer keeps its turn
        started = time.monotonic()
        with pytest.raises(BusyError, match=r"writers ahead of this one in line for .*held\.db"):
            store.write(lambda conn: conn.execute("insert into said values ('late')"))
        assert 0.25 < time.monotonic() - started < 3
        ahead.close()
        store.write(lambda conn: conn.execute("insert into said values ('on time')"))
        assert store.read(lambda conn: conn.execute("select text from said").fetchall()) == [("on time",)]
    finally:
        store.close()


def test_a_writer_outside_the_line_is_still_waited_for(tmp_path):
    path = str(tmp_path / "outside.db")
    store = Store(path)
    try:
        store.write(lambda conn: conn.execute("create table said(text text)"))
        with closing(sqlite3.connect(path, isolation_level=None, check_same_thread=False)) as shell:
            shell.execute("begin immediate")
            timer = threading.Timer(0.2, lambda: shell.execute("commit"))
            timer.start()
            store.write(lambda conn: conn.execute("insert into said values ('after the shell')"))
            timer.join()
        assert store.read(lambda conn: conn.execute("select count(*) from said").fetchone()) == (1,)
    finally:
        store.close()


def _write_flat_out(path: str, n: int, seconds: float, start_at: float, out) -> None:
    m = Mneme(path, space="s")
    time.sleep(max(0.0, start_at - time.time()))
    done, errors, end = 0, [], time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            m.remember(f"writer {n}", f"note {done} of writer {n} about the garden")
            done += 1
        except Exception as err:  # a test's boundary: reported back
            errors.append(repr(err))
    m.close()
    out.put((n, done, errors))


def test_four_processes_writing_flat_out_share_the_file_and_lose_nothing(tmp_path):
    path = str(tmp_path / "shared.db")
    Mneme(path, space="s").close()
    out, start_at = CTX.Queue(), time.time() + 3
    workers = [CTX.Process(target=_write_flat_out, args=(path, n, 3.0, start_at, out)) for n in range(4)]
    for worker in workers:
        worker.start()
    results = sorted(out.get(timeout=60) for _ in workers)
    for worker in workers:
        worker.join(timeout=30)
    assert [errors for _, _, errors in results] == [[], [], [], []]
    done = [count for _, count, _ in results]
    assert min(done) >= max(done) / 2, done
    with Mneme(path, space="s") as m:
        assert [len(m.notes(f"writer {n}")) for n in range(4)] == done


def _one_in_line(store: Store) -> list[str]:
    """A writer holds the lock; four more arrive 150 ms apart, each on its own thread; their commit order."""
    order: list[str] = []
    holding, release = threading.Event(), threading.Event()

    def hold(conn) -> None:
        holding.set()
        release.wait(10)

    def arrive(name: str) -> None:
        store.write(lambda conn: order.append(name))

    holder = threading.Thread(target=store.write, args=(hold,))
    holder.start()
    assert holding.wait(10)
    waiters = []
    for name in ("1st", "2nd", "3rd", "4th"):
        waiters.append(threading.Thread(target=arrive, args=(name,)))
        waiters[-1].start()
        time.sleep(0.15)  # each one waiting before the next comes
    release.set()
    for thread in (holder, *waiters):
        thread.join(timeout=10)
    return order


def test_writers_of_one_file_commit_in_the_order_they_came(tmp_path):
    """SQLite's busy handler alone lets the newest waiter win (it polls most often: the order came out
    1st, 4th, 3rd, 2nd); the line serves the oldest first."""
    store = Store(tmp_path / "order.db")
    try:
        for trial in range(3):
            assert _one_in_line(store) == ["1st", "2nd", "3rd", "4th"], f"trial {trial}"
    finally:
        store.close()
