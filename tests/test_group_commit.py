"""Writes that wait together on the writer's thread are committed together, each in its own savepoint."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing

from mneme_core import Mneme

S = "discord:42"


class Refused(Exception):
    pass


def _half_written(conn: sqlite3.Connection, text: str) -> None:
    """A write that changes the database, then fails: none of it may stay."""
    sid = conn.execute(
        "insert into subjects(space, subject) values ('test', ?) returning id", (text,)
    ).fetchone()
    conn.execute("update subjects set live = 7 where id = ?", sid)
    raise Refused(text)


async def test_concurrent_writes_all_land_and_a_failing_one_is_rolled_back_alone(mneme: Mneme, db_path):
    texts = [f"note number {i} about the garden" for i in range(40)]
    writes = [mneme.aremember(S, t) for t in texts[:20]]
    writes.append(mneme.store.awrite(_half_written, "ghost"))
    writes += [mneme.aremember(S, t) for t in texts[20:]]

    results = await asyncio.gather(*writes, return_exceptions=True)

    failed = [r for r in results if isinstance(r, BaseException)]
    assert len(failed) == 1 and isinstance(failed[0], Refused)
    kept = [r for r in results if not isinstance(r, BaseException)]
    assert sorted(n.text for n in kept) == sorted(texts)
    assert len({n.id for n in kept}) == 40
    with closing(sqlite3.connect(db_path)) as conn:
        assert conn.execute("select count(*) from subjects where subject = 'ghost'").fetchone() == (0,)
        assert conn.execute("select count(*) from notes").fetchone() == (40,)
    assert sorted(n.text for n in mneme.notes(S)) == sorted(texts)


async def test_a_write_is_acknowledged_only_after_its_commit(mneme: Mneme, db_path):
    note = await mneme.aremember(S, "seen by another connection at once")
    with closing(sqlite3.connect(db_path)) as conn:
        assert conn.execute("select text from notes where id = ?", (note.id,)).fetchone() == (note.text,)


async def test_when_the_commit_fails_no_write_of_the_batch_is_acknowledged(mneme: Mneme, db_path):
    await mneme.aremember(S, "opens the writer")
    blocker = sqlite3.connect(db_path, timeout=0)
    blocker.execute("begin immediate")  # holds the write lock, so the batch cannot begin
    mneme.store.busy_timeout = 0.05  # the writer waits this long for its turn, then gives up
    try:
        results = await asyncio.gather(
            *(mneme.aremember(S, f"blocked note {i}") for i in range(5)), return_exceptions=True
        )
    finally:
        blocker.rollback()
        blocker.close()
    assert all(isinstance(r, sqlite3.OperationalError) for r in results)
    assert [n.text for n in mneme.notes(S)] == ["opens the writer"]


async def test_a_write_alone_that_fails_leaves_nothing_and_the_recall_log_waits(mneme: Mneme, db_path):
    await mneme.aremember(S, "Leo grows tomatoes in the garden")
    await mneme.arecall(S, "tomatoes")  # a log entry waits to ride along with the next write
    assert mneme.recall_log.waiting == 1

    try:
        await mneme.store.awrite(_half_written, "ghost")  # alone in its batch: no savepoint of its own
    except Refused:
        pass
    else:
        raise AssertionError("the failing write was acknowledged")

    with closing(sqlite3.connect(db_path)) as conn:
        assert conn.execute("select count(*) from subjects where subject = 'ghost'").fetchone() == (0,)
    assert mneme.recall_log.waiting == 1  # rolled back with the write, so not taken: it waits
    await mneme.aremember(S, "Leo waters them at dawn")
    assert mneme.recall_log.waiting == 0
    assert [r["query"] for r in mneme.recalls(S)] == ["tomatoes"]
