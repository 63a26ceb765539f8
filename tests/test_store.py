"""The store: WAL, migrations, refused files, durability, spaces, the sync and async twins, two processes on
one file, a writer killed mid-stream, and the recall log written off recall's path."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import is_postgres, raw_connection

import mneme_core
from mneme_core import ClosedError, Mneme, MnemeError, SchemaError
from mneme_core.memory import recall_log
from mneme_core.store import schema

ROOT = Path(mneme_core.__file__).resolve().parent.parent


def query(path: Path | str, sql: str, *args: object) -> list[tuple]:
    """Run one statement on a separate plain connection (the test's backend), committed and closed."""
    with raw_connection(path) as conn:
        cursor = conn.execute(sql, args)
        return cursor.fetchall() if cursor.description else []


def snapshot(path: Path | str) -> tuple:
    """The main file's bytes and mtime, and what its WAL holds (writes land there before the file); on
    PostgreSQL every row of every table of the test's schema."""
    if is_postgres(path):
        tables = query(
            path,
            "select table_name from information_schema.tables where table_schema = "
            "current_schema() order by 1",
        )
        return tuple((t, sorted(map(repr, query(path, f"select * from {t}")))) for (t,) in tables)
    wal = Path(f"{path}-wal")
    return path.read_bytes(), path.stat().st_mtime_ns, wal.read_bytes() if wal.exists() else b""


def intact(path: Path | str) -> bool:
    """SQLite's integrity check of the file (PostgreSQL keeps its own pages whole)."""
    return is_postgres(path) or query(path, "pragma integrity_check") == [("ok",)]


def open_mneme(path: Path, clock, space: str = "test", **options) -> Mneme:
    return Mneme(path, space=space, clock=clock, zone="UTC+8", **options)


# -- the file --------------------------------------------------------------------------------------------


@pytest.mark.sqlite_only
def test_file_is_in_wal_mode(mneme, db_path):
    mneme.remember("u", "a note")
    assert query(db_path, "pragma journal_mode") == [("wal",)]


def test_new_file_in_a_new_folder(tmp_path, clock):
    path = tmp_path / "deep" / "folder" / "m.db"
    with open_mneme(path, clock) as m:
        m.remember("u", "a note")
    assert path.exists()
    assert query(path, "pragma journal_mode") == [("wal",)]


def test_empty_file_becomes_a_mneme_file(tmp_path, clock):
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    with open_mneme(path, clock) as m:
        assert m.remember("u", "a note") is not None
    assert query(path, "select name from migrations order by name") == [(m.name,) for m in schema.MIGRATIONS]


def test_migrations_recorded_by_name(mneme, db_path, clock):
    rows = query(db_path, "select name, applied_at from migrations order by name")
    assert rows[0] == ("0001_notes", clock())
    assert rows == [(m.name, clock()) for m in schema.MIGRATIONS]
    assert query(db_path, "select value from meta where key = 'schema_level'") == [(str(schema.LEVEL),)]


def test_reopening_runs_no_migration_again_and_keeps_notes(db_path, clock):
    with open_mneme(db_path, clock) as m:
        note = m.remember("u", "kept across opens")
    clock.advance(days=3)
    with open_mneme(db_path, clock) as m:
        assert [n.id for n in m.notes("u")] == [note.id]
    rows = query(db_path, "select name, applied_at from migrations order by name")
    assert rows == [(m.name, clock() - 3 * 86400) for m in schema.MIGRATIONS]
    assert query(db_path, "select value from meta where key = 'schema_level'") == [(str(schema.LEVEL),)]


def test_newer_schema_level_is_refused_and_file_untouched(db_path, clock):
    with open_mneme(db_path, clock) as m:
        m.remember("u", "written by the older version")
    query(db_path, "update meta set value = '99' where key = 'schema_level'")
    before = snapshot(db_path)
    with pytest.raises(SchemaError, match="newer") as err:
        open_mneme(db_path, clock)
    assert isinstance(err.value, MnemeError)
    assert "99" in str(err.value)
    assert snapshot(db_path) == before
    assert query(db_path, "select value from meta where key = 'schema_level'") == [("99",)]
    assert query(db_path, "select text from notes") == [("written by the older version",)]


def test_unknown_migration_is_refused_and_file_untouched(db_path, clock):
    with open_mneme(db_path, clock) as m:
        m.remember("u", "a note")
    query(db_path, "insert into migrations(name, applied_at) values ('0002_from_the_future', 1.0)")
    before = snapshot(db_path)
    with pytest.raises(SchemaError, match="newer"):
        open_mneme(db_path, clock)
    assert snapshot(db_path) == before
    assert len(query(db_path, "select name from migrations")) == len(schema.MIGRATIONS) + 1


def make_other_program_file(path: Path) -> None:
    query(path, "create table orders(id integer primary key, item text)")
    query(path, "insert into orders(item) values ('tea')")


def make_mneme_llm_file(path: Path) -> None:
    query(path, "create table memories(id integer primary key, user_id text, content text, created_at real)")
    query(path, "create table meta(key text primary key, value text)")
    query(path, "insert into memories(user_id, content, created_at) values ('u', 'likes tea', 1.0)")
    query(path, "insert into meta(key, value) values ('schema_version', '3')")


def test_other_programs_file_is_refused(tmp_path, clock):
    path = tmp_path / "shop.db"
    make_other_program_file(path)
    with pytest.raises(SchemaError) as err:
        open_mneme(path, clock)
    assert str(path) in str(err.value)
    assert query(path, "select item from orders") == [("tea",)]
    tables = {name for (name,) in query(path, "select name from sqlite_master where type = 'table'")}
    assert tables == {"orders"}


def test_other_programs_file_is_left_byte_identical(tmp_path, clock):
    path = tmp_path / "shop.db"
    make_other_program_file(path)
    before = snapshot(path)
    with pytest.raises(SchemaError):
        open_mneme(path, clock)
    assert query(path, "pragma journal_mode") == [("delete",)]
    assert snapshot(path) == before


def test_mneme_llm_file_is_refused_with_export_advice(tmp_path, clock):
    path = tmp_path / "llm.db"
    make_mneme_llm_file(path)
    with pytest.raises(SchemaError, match="export") as err:
        open_mneme(path, clock)
    assert "mneme-llm" in str(err.value)
    assert query(path, "select content from memories") == [("likes tea",)]
    tables = {name for (name,) in query(path, "select name from sqlite_master where type = 'table'")}
    assert tables == {"memories", "meta"}


def test_mneme_llm_file_is_left_byte_identical(tmp_path, clock):
    path = tmp_path / "llm.db"
    make_mneme_llm_file(path)
    before = snapshot(path)
    with pytest.raises(SchemaError):
        open_mneme(path, clock)
    assert query(path, "pragma journal_mode") == [("delete",)]
    assert snapshot(path) == before


# -- durability ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["fast", "FULL", "", 2])
def test_durability_must_be_normal_or_full(db_path, clock, bad):
    with pytest.raises(ValueError, match="durability") as err:
        open_mneme(db_path, clock, durability=bad)
    assert isinstance(err.value, MnemeError)
    assert "normal" in str(err.value) and "full" in str(err.value)
    assert repr(bad) in str(err.value)
    assert snapshot(db_path) == () if is_postgres(db_path) else not db_path.exists()


def synchronous(conn: sqlite3.Connection) -> int:
    return conn.execute("pragma synchronous").fetchone()[0]


@pytest.mark.sqlite_only
@pytest.mark.parametrize(("durability", "level"), [("normal", 1), ("full", 2)])
async def test_durability_sets_synchronous(db_path, clock, durability, level):
    m = open_mneme(db_path, clock, durability=durability)
    try:
        assert m.store._conn().execute("pragma synchronous").fetchone()[0] == level
        assert await m.store.aread(synchronous) == level
        assert await m.store.awrite(synchronous) == level
        assert m.store.write(synchronous) == level
    finally:
        await m.aclose()


@pytest.mark.sqlite_only
def test_default_durability_is_normal(mneme):
    assert mneme.store.durability == "normal"
    assert mneme.store._conn().execute("pragma synchronous").fetchone()[0] == 1


# -- spaces ----------------------------------------------------------------------------------------------


def test_many_spaces_in_one_file(db_path, clock):
    with open_mneme(db_path, clock, "a") as a, open_mneme(db_path, clock, "b") as b:
        in_a = a.remember("u", "Has a cat named Mochi", key="pet.name")
        assert a.remember("only_a", "someone only a knows") is not None
        outcome, in_b = b.keep("u", "Has a cat named Mochi", key="pet.name")
        assert outcome == "kept"  # neither a duplicate nor a replacement across spaces
        assert in_b.id != in_a.id

        assert [n.id for n in a.notes("u")] == [in_a.id]
        assert [n.id for n in b.notes("u")] == [in_b.id]
        assert a.subjects() == ["u", "only_a"]
        assert b.subjects() == ["u"]
        assert b.notes("only_a") == []
        assert [n.id for n in a.history("u", "pet.name")] == [in_a.id]
        assert b.get(in_a.id) is None
        assert a.get(in_a.id) == in_a
        assert [n.id for n in b.recall("u", "cat Mochi", log=False).notes] == [in_b.id]
        assert b.recall("only_a", "someone", log=False).notes == []

        assert b.forget("u", id=in_a.id) == 0
        assert [n.id for n in a.notes("u")] == [in_a.id]
        assert b.erase("u") == 1
        assert [n.id for n in a.notes("u")] == [in_a.id]
        assert {n["id"] for n in a.export_data()["notes"]} == {in_a.id, in_a.id + 1}
        assert b.export_data()["notes"] == []


@pytest.mark.parametrize("space", ["", "   ", "a\nb", None, 5])
def test_bad_space(db_path, clock, space):
    with pytest.raises(ValueError, match="space") as err:
        open_mneme(db_path, clock, space)
    assert isinstance(err.value, MnemeError)


# -- the twins -------------------------------------------------------------------------------------------


def fill(m: Mneme, clock) -> list[int]:
    ids = []
    for i, (note_text, options) in enumerate(
        [
            ("Has a cat named Mochi", {"kind": "fact", "key": "pet.name", "importance": 4}),
            ("Likes green tea in the morning", {"kind": "preference"}),
            ("Exam in maths next Friday", {"kind": "plan", "importance": 3, "happened_at": clock() + 86400}),
            ("We talked about the cat's vet visit", {"feeling": -0.4}),
            ("Thinks cats are better than dogs", {"kind": "reflection", "source": "auto"}),
            ("Core memory: moved to Berlin", {"importance": 5}),
        ]
    ):
        note = m.remember("u", note_text, **options)
        ids.append(note.id)
        clock.advance(minutes=i + 1)
    return ids


def shape(recall) -> list[tuple]:
    return [(r.note, r.why, round(r.score, 9)) for r in recall.chosen]


def test_plain_twins_outside_an_event_loop(mneme, clock):
    ids = fill(mneme, clock)
    found = mneme.recall("u", "cat")
    assert ids[0] in {n.id for n in found.notes}
    assert "Mochi" in found.explain()
    assert "Has a cat named Mochi" in mneme.prompt("u", "cat")


async def test_plain_twins_inside_a_running_event_loop(mneme, clock):
    asyncio.get_running_loop()
    ids = fill(mneme, clock)
    assert len(mneme.notes("u")) == 6
    found = mneme.recall("u", "cat")
    assert ids[0] in {n.id for n in found.notes}
    assert "Has a cat named Mochi" in mneme.prompt("u", "cat")
    assert mneme.forget("u", id=ids[1]) == 1
    assert len(mneme.notes("u")) == 5


async def test_async_twins_give_the_same_results(tmp_path, clock):
    plain = open_mneme(tmp_path / "plain.db", clock)
    twin = open_mneme(tmp_path / "async.db", clock)
    try:
        start = clock()
        fill(plain, clock)
        clock.set(start)
        for i, (note_text, options) in enumerate(
            [
                ("Has a cat named Mochi", {"kind": "fact", "key": "pet.name", "importance": 4}),
                ("Likes green tea in the morning", {"kind": "preference"}),
                (
                    "Exam in maths next Friday",
                    {"kind": "plan", "importance": 3, "happened_at": clock() + 86400},
                ),
                ("We talked about the cat's vet visit", {"feeling": -0.4}),
                ("Thinks cats are better than dogs", {"kind": "reflection", "source": "auto"}),
                ("Core memory: moved to Berlin", {"importance": 5}),
            ]
        ):
            await twin.aremember("u", note_text, **options)
            clock.advance(minutes=i + 1)
        assert plain.notes("u") == twin.notes("u")
        assert plain.remember("u", "has a CAT named mochi") == await twin.aremember(
            "u", "has a CAT named mochi"
        )

        for q in ("cat", "tea morning", "exam", "", "nothing matches this"):
            a = plain.recall("u", q, log=False)
            b = await twin.arecall("u", q, log=False)
            assert shape(a) == shape(b)
            assert a.explain() == b.explain()
            assert [(n.id, why) for n, why in a.skipped] == [(n.id, why) for n, why in b.skipped]
            c = await plain.arecall("u", q, log=False)
            assert shape(c) == shape(a)

        for q in ("cat", "berlin", ""):
            assert plain.prompt("u", q, user_name="Ann") == await twin.aprompt("u", q, user_name="Ann")
            assert plain.prompt("u", q) == await plain.aprompt("u", q)
    finally:
        await plain.aclose()
        await twin.aclose()


def test_async_twins_work_from_several_event_loops(mneme):
    note = asyncio.run(mneme.aremember("u", "Has a cat named Mochi"))
    assert asyncio.run(mneme.arecall("u", "cat", log=False)).notes[0].id == note.id
    assert mneme.recall("u", "cat", log=False).notes[0].id == note.id
    assert "Mochi" in asyncio.run(mneme.aprompt("u", "cat"))


def test_closed_mneme_refuses_every_verb(db_path, clock):
    m = open_mneme(db_path, clock)
    note = m.remember("u", "Has a cat named Mochi")
    m.close()
    m.close()  # closing twice is fine
    verbs = [
        lambda: m.remember("u", "more"),
        lambda: m.recall("u", "cat"),
        lambda: m.prompt("u", "cat"),
        lambda: m.notes("u"),
        lambda: m.history("u", "pet.name"),
        lambda: m.get(note.id),
        lambda: m.forget("u", id=note.id),
        lambda: m.subjects(),
        lambda: m.export_data(),
        lambda: m.erase("u"),
        lambda: asyncio.run(m.aremember("u", "more")),
        lambda: asyncio.run(m.arecall("u", "cat")),
        lambda: asyncio.run(m.aprompt("u", "cat")),
    ]
    for verb in verbs:
        with pytest.raises(ClosedError) as err:
            verb()
        assert isinstance(err.value, MnemeError)
    with open_mneme(db_path, clock) as again:
        assert [n.text for n in again.notes("u")] == ["Has a cat named Mochi"]


async def test_closed_after_async_use(db_path, clock):
    m = open_mneme(db_path, clock)
    await m.aremember("u", "Has a cat named Mochi")
    await m.arecall("u", "cat")
    await m.aclose()
    with pytest.raises(ClosedError):
        await m.arecall("u", "cat")
    with pytest.raises(ClosedError):
        m.remember("u", "more")
    assert query(db_path, "select count(*) from recalls") == [(1,)]


async def test_plain_close_inside_a_running_loop_after_async_use(db_path, clock):
    m = open_mneme(db_path, clock)
    await m.aremember("u", "Has a cat named Mochi")
    await m.arecall("u", "cat")
    m.close()
    with pytest.raises(ClosedError):
        await m.aremember("u", "more")
    assert query(db_path, "select count(*) from recalls") == [(1,)]


async def test_async_with(db_path, clock):
    async with open_mneme(db_path, clock) as m:
        note = await m.aremember("u", "Has a cat named Mochi")
        assert (await m.arecall("u", "cat")).notes[0].id == note.id
    assert m.store.closed
    with pytest.raises(ClosedError):
        await m.aremember("u", "more")
    with open_mneme(db_path, clock) as again:
        assert [n.id for n in again.notes("u")] == [note.id]
        assert len(again.recalls("u")) == 1


def test_with(db_path, clock):
    with open_mneme(db_path, clock) as m:
        m.remember("u", "a note")
    with pytest.raises(ClosedError):
        m.notes("u")


async def test_async_recall_does_not_block_the_event_loop(mneme, clock):
    for i in range(2000):
        mneme.remember("u", f"note {i} about topic{i % 50} and the cat number{i % 7}", importance=1 + i % 4)
    await mneme.arecall("u", "cat", log=False)  # opens the async connections first

    ticks = 0
    running = True

    async def ticker() -> None:
        nonlocal ticks
        while running:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    results = []
    for i in range(30):
        results.append(await mneme.arecall("u", f"cat topic{i} number{i % 7}", log=False))
    ticked = ticks
    running = False
    await task
    assert ticked > 0
    assert all(r.chosen for r in results)


# -- processes -------------------------------------------------------------------------------------------

WRITER = textwrap.dedent(
    """
    import sys
    from mneme_core import Mneme

    path, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    m = Mneme(path, space="test", clock=lambda: 1_709_294_400.0, zone="UTC+8")
    print("ready", flush=True)
    sys.stdin.readline()
    for i in range(count):
        note = m.remember("shared", f"writer {tag} wrote note number {i}")
        print(f"{note.id}\\t{note.text}", flush=True)
    m.close()
    print("done", flush=True)
    """
)


def start_writer(path: Path, tag: str, count: int) -> subprocess.Popen:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), tag, str(count)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    line = proc.stdout.readline()
    if line != "ready\n":
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"writer did not start: {line!r} {err}")
    return proc


def go(proc: subprocess.Popen) -> None:
    proc.stdin.write("go\n")
    proc.stdin.flush()


def finish(proc: subprocess.Popen) -> list[str]:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    lines = out.splitlines()
    assert lines[-1] == "done"
    return [line.split("\t", 1)[1] for line in lines[:-1]]


def test_two_processes_writing_one_file_lose_nothing(db_path, clock):
    with open_mneme(db_path, clock):
        pass  # the file exists before the writers start
    writers = [start_writer(db_path, tag, 300) for tag in ("A", "B")]
    for proc in writers:
        go(proc)
    acknowledged = [finish(proc) for proc in writers]
    assert [len(a) for a in acknowledged] == [300, 300]

    expected = {f"writer {tag} wrote note number {i}" for tag in ("A", "B") for i in range(300)}
    assert set(acknowledged[0]) | set(acknowledged[1]) == expected
    with open_mneme(db_path, clock) as m:
        live = m.notes("shared")
        assert len(live) == 600
        assert {n.text for n in live} == expected
        assert len({n.id for n in live}) == 600
    assert query(db_path, "select live from subjects where subject = 'shared'") == [(600,)]
    assert intact(db_path)


def test_recalling_while_another_process_writes(mneme, db_path):
    mneme.remember("shared", "the first note, written before the writer starts")
    proc = start_writer(db_path, "W", 300)
    go(proc)
    seen, recalls = 1, 0
    try:
        while True:
            done = proc.poll() is not None
            found = mneme.recall("shared", "writer wrote note", log=False)
            assert all("writer" in n.text for n in found.notes if n.id != 1)
            now_seen = len(mneme.notes("shared"))
            assert now_seen >= seen  # each read is one consistent snapshot; nothing goes missing
            seen, recalls = now_seen, recalls + 1
            if done:
                break
    finally:
        texts = finish(proc)
    assert recalls > 0
    assert len(texts) == 300
    assert len(mneme.notes("shared")) == 301
    assert {n.text for n in mneme.notes("shared")} >= set(texts)
    assert len(mneme.recall("shared", "writer wrote note number 299", log=False).notes) > 0


def test_writer_killed_mid_stream_leaves_every_acknowledged_note(db_path, clock):
    with open_mneme(db_path, clock):
        pass
    proc = start_writer(db_path, "K", 1_000_000)
    go(proc)
    acknowledged: dict[int, str] = {}
    try:
        while len(acknowledged) < 200:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            note_id, note_text = line.rstrip("\n").split("\t", 1)
            acknowledged[int(note_id)] = note_text
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdin.close()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL

    with open_mneme(db_path, clock) as m:
        assert intact(db_path)
        live = {n.id: n.text for n in m.notes("shared")}
        assert len(live) >= 200
        for note_id, note_text in acknowledged.items():
            assert live.get(note_id) == note_text
        assert m.remember("shared", "written after the crash") is not None
    assert intact(db_path)


# -- the recall log --------------------------------------------------------------------------------------


@pytest.fixture
def cat(mneme):
    note = mneme.remember("u", "Has a cat named Mochi", kind="fact")
    mneme.remember("u", "Went hiking on Sunday")
    return note


def recall_rows(db_path: Path) -> int:
    return query(db_path, "select count(*) from recalls")[0][0]


def test_recall_log_waits_off_the_hot_path(mneme, db_path, cat):
    found = mneme.recall("u", "cat")
    assert [n.id for n in found.notes][:1] == [cat.id]
    assert mneme.recall_log.waiting == 1
    assert recall_rows(db_path) == 0
    assert query(db_path, "select recalls, recalled_at from notes where id = ?", cat.id) == [(0, None)]


def test_recalls_flushes_and_shows_the_log(mneme, db_path, clock, cat):
    found = mneme.recall("u", "cat")
    log = mneme.recalls("u")
    assert mneme.recall_log.waiting == 0
    assert recall_rows(db_path) == 1
    assert len(log) == 1
    entry = log[0]
    assert entry["query"] == "cat"
    assert entry["at"] == clock()
    assert entry["chosen"] == [[r.note.id, r.why] for r in found.chosen]
    assert entry["chosen"][0] == [cat.id, "matched: cat"]
    assert entry["skipped"] == [[n.id, why] for n, why in found.skipped]
    assert json.loads(json.dumps(entry)) == entry


def test_recalls_newest_first_and_limited(mneme, clock, cat):
    for i in range(5):
        mneme.recall("u", f"cat {i}0")
        clock.advance(minutes=1)
    log = mneme.recalls("u", limit=3)
    assert [e["query"] for e in log] == ["cat 40", "cat 30", "cat 20"]
    assert mneme.recalls("nobody") == []


@pytest.mark.parametrize(
    "write",
    [
        lambda m: m.remember("v", "someone else entirely"),
        lambda m: m.remember("u", "another note about u"),
        lambda m: m.forget("u", id=999),
        lambda m: m.set_profile("u", "a card"),
        lambda m: m.purge(),
    ],
)
def test_any_write_carries_the_waiting_log(mneme, db_path, cat, write):
    mneme.recall("u", "cat")
    mneme.recall("u", "hiking")
    assert recall_rows(db_path) == 0
    write(mneme)
    assert mneme.recall_log.waiting == 0
    assert recall_rows(db_path) == 2
    assert query(db_path, "select recalls from notes where id = ?", cat.id) == [(1,)]


async def test_async_write_carries_the_waiting_log(mneme, db_path, cat):
    await mneme.arecall("u", "cat")
    assert mneme.recall_log.waiting == 1
    assert recall_rows(db_path) == 0
    await mneme.aremember("v", "someone else")
    assert mneme.recall_log.waiting == 0
    assert recall_rows(db_path) == 1


def test_prompt_logs_its_recall(mneme, db_path, cat):
    mneme.prompt("u", "cat")
    assert mneme.recall_log.waiting == 1
    assert recall_rows(db_path) == 0
    assert [e["query"] for e in mneme.recalls("u")] == ["cat"]


def test_recall_without_log_logs_nothing(mneme, db_path, cat):
    mneme.recall("u", "cat", log=False)
    assert mneme.recall_log.waiting == 0
    mneme.remember("v", "a write that would carry the log")
    assert recall_rows(db_path) == 0
    assert mneme.recalls("u") == []
    assert mneme.get(cat.id).recalls == 0
    assert mneme.get(cat.id).recalled_at is None


def test_matched_notes_marked_recalled_once_flushed(mneme, clock, cat):
    hiking = mneme.notes("u", kinds=["episode"])[0]
    mneme.recall("u", "cat")
    assert mneme.get(cat.id).recalls == 0
    mneme.recalls("u")
    got = mneme.get(cat.id)
    assert (got.recalls, got.recalled_at) == (1, clock())
    assert mneme.get(hiking.id).recalls == 0
    clock.advance(hours=2)
    mneme.recall("u", "Mochi")
    mneme.remember("v", "any write")
    got = mneme.get(cat.id)
    assert (got.recalls, got.recalled_at) == (2, clock())


def test_log_keeps_the_newest_per_person(mneme, db_path, clock, cat):
    mneme.remember("v", "v has a cat too")
    mneme.recall("v", "cat")
    extra = 5
    for i in range(recall_log.KEEP + extra):
        mneme.recall("u", f"cat {i:03d}")
        clock.advance(1)
    log = mneme.recalls("u", limit=10_000)
    assert len(log) == recall_log.KEEP == 200
    assert log[0]["query"] == f"cat {recall_log.KEEP + extra - 1:03d}"
    assert log[-1]["query"] == f"cat {extra:03d}"
    assert len(mneme.recalls("v")) == 1
    assert recall_rows(db_path) == recall_log.KEEP + 1


def test_waiting_log_is_written_on_close(db_path, clock):
    m = open_mneme(db_path, clock)
    m.remember("u", "Has a cat named Mochi")
    m.recall("u", "cat")
    assert recall_rows(db_path) == 0
    m.close()
    assert recall_rows(db_path) == 1


# checkpoints, off the writers' path


@pytest.mark.sqlite_only
def test_the_wal_is_copied_into_the_file_by_a_thread_of_its_own(db_path, clock):
    import time
    from contextlib import closing

    from mneme_core.store.checkpoint import SAFETY

    m = Mneme(db_path, space="test", clock=clock)
    try:
        m.store.checkpointer.every = 16
        writer = m.store._conn()
        assert writer.execute("pragma wal_autocheckpoint").fetchone() == (SAFETY,)
        before = os.path.getsize(db_path)
        for i in range(200):
            m.remember("discord:42", f"note number {i} about the garden")
        deadline = time.monotonic() + 10
        while m.store.checkpointer.runs < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert m.store.checkpointer.runs >= 3
        while os.path.getsize(db_path) <= before and time.monotonic() < deadline:
            time.sleep(0.01)
        assert os.path.getsize(db_path) > before  # pages reached the file while the WAL stayed in use
        thread = m.store.checkpointer._thread
        assert thread is not None and thread.is_alive()
    finally:
        m.close()
    assert not thread.is_alive()
    with closing(sqlite3.connect(db_path)) as conn:
        assert conn.execute("select count(*) from notes").fetchone() == (200,)
