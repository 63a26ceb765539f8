"""Processes that open one new file at the same instant all succeed: setting WAL, migrating and recording the
schema wait their turn within the busy timeout instead of failing with "database is locked".

Workers are started once and released together at a barrier for every trial, so each trial is two or more
processes creating the same new file at the same moment; before the fix 2-4 % of such openings failed here
(SQLite answers `pragma journal_mode = wal` at once instead of waiting).
"""

from __future__ import annotations

import fcntl
import multiprocessing
import os
import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest

from mneme_core import BusyError, Mneme
from mneme_core.store import Store, schema

CTX = multiprocessing.get_context("spawn")


def _open_together(n: int, folder: str, trials: int, barrier, out, write: bool) -> None:
    failures = []
    for trial in range(trials):
        barrier.wait(timeout=60)
        try:
            m = Mneme(os.path.join(folder, f"{trial}.db"), space="s")
            if write:
                m.remember(f"worker {n}", f"a note from worker {n}")
            m.close()
        except Exception as err:  # a test's boundary: every failure is reported back, none is lost
            failures.append(f"{type(err).__name__}: {err}")
    out.put(failures)


def run_together(folder: Path, processes: int, trials: int, *, write: bool = False) -> list[str]:
    barrier, out = CTX.Barrier(processes), CTX.Queue()
    workers = [
        CTX.Process(target=_open_together, args=(n, str(folder), trials, barrier, out, write))
        for n in range(processes)
    ]
    for worker in workers:
        worker.start()
    failures = [failure for _ in workers for failure in out.get(timeout=120)]
    for worker in workers:
        worker.join(timeout=30)
    return failures


@pytest.mark.parametrize(("processes", "trials"), [(2, 120), (4, 30)])
def test_processes_creating_one_file_together_all_succeed(tmp_path, processes, trials):
    assert run_together(tmp_path, processes, trials) == []
    for trial in range(trials):  # and every file is a whole Mneme file in WAL mode, migrated once
        path = tmp_path / f"{trial}.db"
        assert path.read_bytes()[18:20] == b"\x02\x02"  # the header's WAL mark
        with closing(sqlite3.connect(path)) as conn:
            names = [name for (name,) in conn.execute("select name from migrations")]
        assert names == [m.name for m in schema.MIGRATIONS]


def test_processes_writing_to_a_new_file_together_lose_nothing(tmp_path):
    assert run_together(tmp_path, 3, 30, write=True) == []
    for trial in range(30):
        with Mneme(tmp_path / f"{trial}.db", space="s") as m:
            assert sorted(m.subjects()) == ["worker 0", "worker 1", "worker 2"]


def _slow_step(conn) -> None:
    conn.execute("create table if not exists slow_steps(pid integer)")
    conn.execute("insert into slow_steps values (?)", (os.getpid(),))
    time.sleep(0.3)  # holds the write lock while the other process opens


SLOW = (schema.Migration("test:slow", _slow_step),)


def _open_store(path: str, barrier, out) -> None:
    barrier.wait(timeout=60)
    try:
        Store(path, migrations=SLOW).close()
        out.put("ok")
    except Exception as err:  # a test's boundary: reported back
        out.put(f"{type(err).__name__}: {err}")


def test_a_process_opening_while_another_migrates_waits_and_the_step_runs_once(tmp_path):
    path = str(tmp_path / "old.db")
    Store(path).close()  # an existing file that lacks the slow step
    barrier, out = CTX.Barrier(3), CTX.Queue()
    workers = [CTX.Process(target=_open_store, args=(path, barrier, out)) for _ in range(3)]
    for worker in workers:
        worker.start()
    answers = [out.get(timeout=60) for _ in workers]
    for worker in workers:
        worker.join(timeout=30)
    assert answers == ["ok"] * 3
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("select count(*) from slow_steps").fetchone() == (1,)
        assert conn.execute("select count(*) from migrations where name = 'test:slow'").fetchone() == (1,)


def test_a_lock_held_past_the_busy_timeout_is_a_busy_error_naming_the_file(tmp_path):
    path = str(tmp_path / "held.db")
    Store(path).close()
    with closing(sqlite3.connect(path, isolation_level=None)) as holder:
        holder.execute("begin exclusive")
        started = time.monotonic()
        with pytest.raises(BusyError, match=r"held\.db stayed locked") as refused:
            Store(path, busy_timeout=0.3, migrations=SLOW)
        assert 0.25 < time.monotonic() - started < 3
        assert isinstance(refused.value, sqlite3.OperationalError) and refused.value.path == path
        holder.execute("rollback")


# The wal-index's lock bytes in the -shm file (SQLite's wal.c): the writer's, and recovery's.
WAL_WRITE_LOCK, WAL_RECOVER_LOCK = 120, 122


def _recover_slowly(shm: str, holding, release) -> None:
    """What a process rebuilding the wal-index after one was killed looks like to the others: both locks
    held, and the index's header (two copies that must agree) not yet whole."""
    fd = os.open(shm, os.O_RDWR)
    try:
        for byte in (WAL_WRITE_LOCK, WAL_RECOVER_LOCK):
            for _ in range(500):  # the parent's own writer or checkpoint may hold one for a moment
                try:
                    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, byte)
                    break
                except OSError:
                    time.sleep(0.01)
            else:
                raise TimeoutError(f"the -shm lock byte {byte} stayed taken")
        header = bytearray(os.pread(fd, 48, 0))
        header[8] ^= 0xFF  # the first copy's change counter: it no longer matches the second
        os.pwrite(fd, bytes(header), 0)
        holding.set()
        release.wait(30)
        time.sleep(0.4)
    finally:
        os.close(fd)  # the locks go with it, and the next reader recovers the index from the WAL


def test_a_new_connection_waits_while_another_process_recovers_the_wal(tmp_path):
    """A connection's set-up reads the schema (`pragma synchronous`); it waits out a recovery within the
    busy timeout instead of failing at once with "database is locked" (it set busy_timeout = 0 first)."""
    path = tmp_path / "recovering.db"
    with Mneme(path, space="s") as m:
        m.remember("ann", "ann keeps bees on the roof")
        holding, release = CTX.Event(), CTX.Event()
        recovering = CTX.Process(target=_recover_slowly, args=(f"{path}-shm", holding, release))
        recovering.start()
        assert holding.wait(30)
        answer: dict[str, object] = {}

        def first_read_on_a_new_thread() -> None:  # a thread of its own: a connection of its own
            try:
                answer["recall"] = m.recall("ann", "bees")
            except Exception as err:  # a test's boundary: reported back
                answer["error"] = err

        reader = threading.Thread(target=first_read_on_a_new_thread)
        release.set()
        reader.start()
        reader.join(30)
        recovering.join(30)
        assert "error" not in answer, answer.get("error")
        assert [r.note.text for r in answer["recall"].chosen] == ["ann keeps bees on the roof"]
