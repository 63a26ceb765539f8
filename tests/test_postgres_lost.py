"""A connection to PostgreSQL lost in the middle of a write: the server's backend for it is really killed
(`pg_terminate_backend` from a second connection), and the write is either run again whole on a new
connection or fails in one clear line; never half-written.

PostgreSQL only (a file has no connection to lose): the tests take the test server's URL themselves.
"""

from __future__ import annotations

import psycopg
import pytest
from conftest import postgres_schema, postgres_url

from mneme_core.errors import StorageError
from mneme_core.store import open_store
from mneme_core.store.postgres.store import LostCommit


@pytest.fixture
def url():
    if postgres_url() is None:
        pytest.skip("no PostgreSQL server to test on (.ci/run starts one)")
    schema = postgres_schema()
    yield next(schema)
    next(schema, None)


def kill(url: str, pid: int) -> None:
    with psycopg.connect(url, autocommit=True) as other:
        (done,) = other.execute("select pg_terminate_backend(%s)", (pid,)).fetchone()
    assert done


def kept(store) -> list[tuple[str, str]]:
    sql = "select key, value from meta where key like 'lost.%' order by key"
    return store.read(lambda conn: conn.execute(sql).fetchall())


def two_rows(url: str, kills: list[int]):
    """A transaction function writing two rows, whose connection is killed between them on the attempts
    named in `kills` (1: the first run, 2: the run again)."""
    runs = []

    def work(conn):
        runs.append(conn.raw.info.backend_pid)
        conn.execute("insert into meta(key, value) values ('lost.a', ?)", (str(len(runs)),))
        if len(runs) in kills:
            kill(url, conn.raw.info.backend_pid)
        conn.execute("insert into meta(key, value) values ('lost.b', ?)", (str(len(runs)),))
        return len(runs)

    return work, runs


def test_a_write_whose_connection_dies_is_run_again_whole(url):
    store = open_store(url)
    try:
        work, runs = two_rows(url, kills=[1])
        assert store.write(work) == 2
        assert len(set(runs)) == 2  # two server backends: the first was killed, the second ran it all
        assert kept(store) == [("lost.a", "2"), ("lost.b", "2")]  # the second run's rows, once each
        assert store.write(lambda conn: conn.execute("select count(*) from meta").fetchone()[0]) > 2
    finally:
        store.close()


async def test_an_awrite_whose_connection_dies_is_run_again_whole(url):
    store = open_store(url)
    try:
        work, _runs = two_rows(url, kills=[1])
        assert await store.awrite(work) == 2
        assert kept(store) == [("lost.a", "2"), ("lost.b", "2")]
    finally:
        store.close()


def test_a_write_lost_twice_fails_clearly_and_keeps_nothing(url):
    store = open_store(url)
    try:
        work, runs = two_rows(url, kills=[1, 2])
        with pytest.raises(StorageError) as caught:
            store.write(work)
        assert len(runs) == 2
        said = str(caught.value)
        assert said.startswith("PostgreSQL at ") and "\n" not in said
        assert "terminat" in said or "closed" in said or "lost" in said
        assert kept(store) == []  # neither row of either run
    finally:
        store.close()


def test_a_connection_lost_while_committing_says_the_outcome_is_unknown(url, monkeypatch):
    store = open_store(url)
    sent = store._commit

    def killed_then_sent(conn):
        kill(url, conn.raw.info.backend_pid)
        sent(conn)

    try:
        monkeypatch.setattr(store, "_commit", killed_then_sent)
        work, runs = two_rows(url, kills=[])
        unknown = "lost while committing: this write may or may not have been kept"
        with pytest.raises(LostCommit, match=unknown):
            store.write(work)
        monkeypatch.undo()
        assert len(runs) == 1  # not run again: a second copy is worse than an error
        assert kept(store) in ([], [("lost.a", "1"), ("lost.b", "1")])  # all or nothing, never half
        assert kept(store) == []  # here the server died before the commit reached it
    finally:
        store.close()
