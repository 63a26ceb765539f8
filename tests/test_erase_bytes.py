"""Erased and purged text is gone from the bytes on disk when the call returns, the file still open: not in
the `.db`, not in the `-wal`, not in the `-shm`, on this SQLite build (Debian's, SECURE_DELETE by default) and
on a build without it, which `build_default` stands in for by turning `secure_delete` off on every connection
before the store sets it up.

The files are read by another process: opening and closing the database file in this one would drop the
locks SQLite holds on it (POSIX locks belong to the process, not to the descriptor)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from mneme_core import BusyError, Mneme
from mneme_core.store import Connection, Store

GONE = "qzwx"  # every word of what is erased or purged starts with it
KEPT = "plmk"  # every word of what stays


@pytest.fixture(params=["secure_delete default", "secure_delete off by default"])
def build_default(request, monkeypatch) -> str:
    if request.param.endswith("off by default"):
        opened = Connection.__init__

        def without_secure_delete(self, *args, **kwargs) -> None:
            opened(self, *args, **kwargs)
            self.execute(
                "pragma secure_delete = off"
            )  # what a build without SQLITE_SECURE_DELETE starts with

        monkeypatch.setattr(Connection, "__init__", without_secure_delete)
    return request.param


def found_in_files(db_path: Path, *markers: str) -> dict[str, list[str]]:
    """Which markers each of the three files holds, read raw by another process."""
    script = (
        "import json, os, sys\n"
        "path, markers = sys.argv[1], sys.argv[2:]\n"
        "found = {}\n"
        "for suffix in ('', '-wal', '-shm'):\n"
        "    data = open(path + suffix, 'rb').read() if os.path.exists(path + suffix) else b''\n"
        "    found[suffix or '.db'] = [m for m in markers if m.encode() in data]\n"
        "print(json.dumps(found))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(db_path), *markers], capture_output=True, check=True
    )
    return json.loads(done.stdout)


def checkpoint(db_path: Path) -> None:
    with closing(sqlite3.connect(db_path)) as conn:  # a SQLite connection shares the process's locks
        conn.execute("pragma wal_checkpoint(passive)").fetchone()


def fill(m: Mneme, subject: str, word: str, count: int = 60) -> None:
    """Notes, a keyed history, a profile card, a mood reason, a relationship and logged recalls."""
    for i in range(count):
        m.remember(
            subject, f"{word}note{i} {word}cat {word}garden", gloss=f"{word}gloss{i}" if i % 7 == 0 else None
        )
    m.remember(subject, f"{word}city first", key=f"{word}home.city")
    m.remember(subject, f"{word}city second", key=f"{word}home.city")
    m.set_profile(subject, f"{word}card likes {word}cat")
    m.feel(subject, delta=-4, reason=f"{word}reason of a bad day")
    m.relate(subject, "friend")
    m.recall(subject, f"{word}cat {word}query")
    m.recall_log.flush()


def test_erase_leaves_no_byte_of_the_person_in_any_file(db_path, clock, build_default):
    with Mneme(db_path, space="test", clock=clock) as m:
        fill(m, "gone", GONE)
        fill(m, "kept", KEPT)
        checkpoint(db_path)  # some of it in the .db
        fill(m, "gone", GONE + "later", count=20)  # and some only in the -wal
        assert found_in_files(db_path, GONE, KEPT)[".db"] == [GONE, KEPT]

        assert m.erase("gone") == 84
        found = found_in_files(db_path, GONE, KEPT)
        assert found == {".db": [KEPT], "-wal": [], "-shm": []}
        assert m.notes("kept") and m.profile("kept")  # the others' notes are all there

        for i in range(300):  # and it stays gone while the file goes on being written
            m.remember("kept", f"{KEPT}after{i}")
        assert found_in_files(db_path, GONE) == {".db": [], "-wal": [], "-shm": []}
    assert found_in_files(db_path, GONE) == {".db": [], "-wal": [], "-shm": []}


async def test_async_erase_leaves_no_byte_of_the_person(db_path, clock, build_default):
    async with Mneme(db_path, space="test", clock=clock) as m:
        fill(m, "gone", GONE)
        fill(m, "kept", KEPT)
        await m.aremember("gone", f"{GONE}async note")
        assert await m.aerase("gone") == 63
        assert found_in_files(db_path, GONE, KEPT) == {".db": [KEPT], "-wal": [], "-shm": []}


def test_purge_leaves_no_byte_of_the_purged_notes(db_path, clock, build_default):
    with Mneme(db_path, space="test", clock=clock) as m:
        fill(m, "u", KEPT)
        checkpoint(db_path)
        old = m.remember("u", f"{GONE}city old", key="user.city")
        m.remember("u", f"{KEPT}city new", key="user.city")  # replaces it
        hidden = m.remember("u", f"{GONE}secret and {GONE}password", gloss=f"{GONE}gloss")
        m.recall("u", f"{GONE}secret")
        m.forget("u", id=hidden.id)
        assert found_in_files(db_path, GONE)["-wal"] == [GONE]

        assert m.purge("u") == 3  # with the first of its own keyed history
        assert found_in_files(db_path, GONE, KEPT) == {".db": [KEPT], "-wal": [], "-shm": []}
        assert m.get(old.id) is None and m.history("u", "user.city")[0].text == f"{KEPT}city new"


def test_every_connection_deletes_securely(db_path, clock, build_default):
    with Mneme(db_path, space="test", clock=clock) as m:
        assert m.store.read(lambda conn: conn.execute("pragma secure_delete").fetchone()) == (1,)


def test_a_reader_that_outlasts_the_busy_timeout_is_told_and_the_next_wipe_finishes(tmp_path):
    path = tmp_path / "read.db"
    store = Store(path, busy_timeout=0.3)
    try:
        store.write(lambda conn: conn.execute("create table said(text text)"))
        store.write(lambda conn: conn.execute("insert into said values (?)", (f"{GONE}words",)))
        with closing(sqlite3.connect(path, isolation_level=None)) as reader:
            reader.execute("begin")
            reader.execute("select count(*) from said").fetchone()  # an old snapshot, held
            with pytest.raises(BusyError, match=r"deletion .* is done, but another connection kept reading"):
                store.write_for_good(lambda conn: conn.execute("delete from said"))
            assert store.read(lambda conn: conn.execute("select count(*) from said").fetchone()) == (0,)
            reader.execute("commit")
        store.write_for_good(lambda conn: None)  # nothing left to delete: the wipe alone
        assert found_in_files(path, GONE) == {".db": [], "-wal": [], "-shm": []}
    finally:
        store.close()
