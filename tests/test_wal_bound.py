"""The `-wal` stays near `checkpoint.LIMIT` bytes while notes are written, one by one or in group commits, and
comes back to it once a long reader is done. A writer past the limit waits for the checkpoint thread's copy
rather than giving up and growing the WAL by every commit the copy takes. Before: 4,000 notes left a 144 MB
`-wal` beside a 2 MB file."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from contextlib import closing

from mneme_core import Mneme
from mneme_core.store.checkpoint import LIMIT

# The commit that crosses the limit: a note's is some 10 pages, but every 256 notes one moves the fresh
# postings into the recent ones (`memory.index`), up to ~400 pages (1.6 MB) measured here at 4,000 notes.
SLACK = 2 * 1024 * 1024


def wal_size(db_path) -> int:
    return os.path.getsize(f"{db_path}-wal")


def test_four_thousand_notes_leave_a_small_wal(db_path, clock):
    with Mneme(db_path, space="test", clock=clock, max_notes=10_000) as m:
        largest = 0
        for i in range(4000):
            m.remember(
                f"person {i % 20}", f"note number {i} about the weather and the cat {i * 7919 % 10007}"
            )
            if i % 100 == 99:
                largest = max(largest, wal_size(db_path))
        assert wal_size(db_path) <= LIMIT + SLACK
        assert largest <= LIMIT + SLACK
        assert m.store.checkpointer.caught_up >= 5  # the WAL started over again and again
        # every commit that found it past the limit caught up, even while the thread was copying
        assert m.store.checkpointer.caught_up == m.store.checkpointer.over
        assert sum(len(m.notes(f"person {p}")) for p in range(20)) == 4000


async def test_group_commits_leave_a_small_wal(db_path, clock):
    async with Mneme(db_path, space="test", clock=clock, max_notes=10_000) as m:
        for start in range(0, 3008, 64):
            await asyncio.gather(
                *(
                    m.aremember(f"person {i % 20}", f"note number {i} about the sea")
                    for i in range(start, start + 64)
                )
            )
            assert wal_size(db_path) <= LIMIT + SLACK
        assert sum([len(await m.anotes(f"person {p}")) for p in range(20)]) == 3008


def test_the_wal_comes_back_to_its_bound_after_a_long_reader(db_path, clock):
    with Mneme(db_path, space="test", clock=clock, max_notes=10_000) as m:
        m.remember("u", "the first note")
        with closing(sqlite3.connect(db_path, isolation_level=None)) as reader:
            reader.execute("begin")
            reader.execute("select count(*) from notes").fetchone()  # holds its snapshot while notes come
            for i in range(1500):
                m.remember("u", f"note {i} written while someone reads")
            assert wal_size(db_path) > LIMIT + SLACK  # its snapshot needs the frames: the WAL must grow
            assert reader.execute("select count(*) from notes").fetchone() == (1,)
            reader.execute("commit")
        for i in range(400):
            m.remember("u", f"note {i} written after the reader left")
        assert wal_size(db_path) <= LIMIT + SLACK
