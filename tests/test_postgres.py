"""What only a server has: where the memory is (a URL is never a path, an unknown scheme is refused, the
config's `[storage] database`), what opening refuses in one line (an unreachable server, wrong
credentials), migrations run once by processes opening together, many writers on many connections, a
connection dropped mid-transaction, durability, and `mneme move` between a file and a server both ways."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from click.testing import CliRunner
from conftest import postgres_url, raw_connection

import mneme_core
from mneme_core import InvalidValue, Mneme, MnemeError, StorageError
from mneme_core.cli import main
from mneme_core.config import ConfigError
from mneme_core.store import open_store, schema
from mneme_core.store.location import server_of

ROOT = Path(mneme_core.__file__).resolve().parent.parent


def with_user(url: str, user: str, password: str) -> str:
    parts = urlsplit(url)
    netloc = f"{user}:{password}@{parts.netloc.rpartition('@')[2]}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def test_every_migration_has_its_postgresql_step():
    from mneme_core.store.postgres import schema as server_schema

    assert [m.name for m in schema.MIGRATIONS if m.name not in server_schema.STEPS] == []


# -- where the memory is (no server needed) ------------------------------------------------------------------


@pytest.mark.parametrize("url", ["mysql://u@h/db", "sqlite:///x.db", "redis://localhost:6379/0"])
def test_a_scheme_we_do_not_know_is_refused_and_never_made_a_folder(tmp_path, monkeypatch, clock, url):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidValue, match="postgresql://") as err:
        Mneme(url, space="test", clock=clock)
    assert isinstance(err.value, MnemeError)
    assert urlsplit(url).scheme in str(err.value)
    assert list(tmp_path.iterdir()) == []  # no folder named "mysql:", no SQLite file in it


def test_a_password_is_never_shown_in_a_refusal(tmp_path, monkeypatch, clock):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidValue) as err:
        Mneme("mysql://leo:hunter2@db.example/mneme", space="test", clock=clock)
    assert "hunter2" not in str(err.value)


def test_an_unreachable_server_is_refused_at_open_in_one_line_naming_it(tmp_path, monkeypatch, clock):
    monkeypatch.chdir(tmp_path)
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(StorageError) as err:
        Mneme(f"postgresql://mio:secret@127.0.0.1:{port}/mneme", space="test", clock=clock)
    message = str(err.value)
    assert "\n" not in message
    assert f"127.0.0.1:{port}/mneme" in message and "unreachable" in message
    assert "secret" not in message
    assert time.monotonic() - started < 15
    assert list(tmp_path.iterdir()) == []


def test_a_config_names_where_the_memory_is(tmp_path, monkeypatch, clock):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MNEME_TEST_DB", str(tmp_path / "from-env.db"))
    given = tmp_path / "bot.toml"
    given.write_text(f'[storage]\ndatabase = "{tmp_path / "kept.db"}"\n')
    with Mneme(config=given, space="test", clock=clock) as m:
        m.remember("u", "kept where the config says")
    assert (tmp_path / "kept.db").exists() and not (tmp_path / "mneme.db").exists()
    given.write_text('[storage]\ndatabase = { "$env" = "MNEME_TEST_DB" }\n')
    Mneme(config=given, space="test", clock=clock).close()
    assert (tmp_path / "from-env.db").exists()
    result = CliRunner().invoke(main, ["--config", str(tmp_path / "other.toml"), "notes", "u"])
    assert result.exit_code != 0  # a config that is not there is refused, never skipped


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ('"postgresql://mio:hunter2@db.example/mneme"', "password"),
        ('"mysql://db.example/mneme"', "mysql"),
        ("42", "42"),
    ],
)
def test_a_bad_storage_database_is_refused_before_anything_is_written(
    tmp_path, monkeypatch, clock, value, said
):
    monkeypatch.chdir(tmp_path)
    given = tmp_path / "bot.toml"
    given.write_text(f"[storage]\ndatabase = {value}\n")
    with pytest.raises((InvalidValue, ConfigError)) as err:
        Mneme(config=given, space="test", clock=clock)
    assert "storage.database" in str(err.value) and said in str(err.value)
    assert "hunter2" not in str(err.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bot.toml"]


# -- on a server --------------------------------------------------------------------------------------------


@pytest.fixture
def server(backend):
    if backend != "postgresql":
        pytest.skip("a test of the PostgreSQL server itself")
    return postgres_url()


def test_wrong_credentials_are_refused_at_open_in_one_line(server, db_path, clock):
    # No such role, and a password it could not have: refused whether the server trusts or asks.
    wrong = with_user(db_path, "mneme_nobody", "not-the-password")
    with pytest.raises(StorageError) as err:
        Mneme(wrong, space="test", clock=clock)
    message = str(err.value)
    assert "\n" not in message and "wrong credentials" in message
    assert server_of(db_path) in message
    assert "not-the-password" not in message
    with raw_connection(db_path) as conn:  # nothing was written: not even the tables
        assert (
            conn.execute(
                "select count(*) from information_schema.tables where table_schema = current_schema()"
            ).fetchone()[0]
            == 0
        )


def test_a_newer_schema_is_refused_naming_the_server(server, db_path, clock):
    Mneme(db_path, space="test", clock=clock).close()
    with raw_connection(db_path) as conn:
        conn.execute("update meta set value = '99' where key = 'schema_level'")
    with pytest.raises(MnemeError, match="newer") as err:
        Mneme(db_path, space="test", clock=clock)
    assert server_of(db_path) in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(("durability", "setting"), [("normal", "off"), ("full", "on")])
def test_durability_is_the_servers_synchronous_commit(server, db_path, clock, durability, setting):
    def synchronous(conn):
        return conn.execute("show synchronous_commit").fetchone()[0]

    with Mneme(db_path, space="test", clock=clock, durability=durability) as m:
        assert m.store.read(synchronous) == setting
        assert m.store.write(synchronous) == setting


def _random_page_cost(conn):
    return float(conn.execute("show random_page_cost").fetchone()[0])


def test_the_planner_is_told_a_persons_rows_are_cached(server, db_path, clock):
    with Mneme(db_path, space="test", clock=clock) as m:
        assert m.store.read(_random_page_cost) == 1.1
        assert m.store.write(_random_page_cost) == 1.1
    import psycopg

    with psycopg.connect(db_path) as conn:  # another program's session keeps the server's own setting
        assert _random_page_cost(conn) == 4.0


def test_a_random_page_cost_the_url_chose_is_kept(server, db_path, clock):
    chosen = db_path.replace("options=", "options=-crandom_page_cost%3D2.5%20", 1)
    if chosen == db_path:
        chosen += ("&" if "?" in db_path else "?") + "options=-crandom_page_cost%3D2.5"
    with Mneme(chosen, space="test", clock=clock) as m:
        assert m.store.read(_random_page_cost) == 2.5


OPENER = textwrap.dedent(
    """
    import sys
    from mneme_core import Mneme

    sys.stdin.readline()
    m = Mneme(sys.argv[1], space="test", clock=lambda: 1_709_294_400.0)
    note = m.remember(sys.argv[2], "opened together")
    m.close()
    print(note.id, flush=True)
    """
)


def env() -> dict[str, str]:
    return dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )


def test_processes_opening_a_new_database_together_migrate_it_once(server, db_path):
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", OPENER, db_path, f"u{i}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
        )
        for i in range(4)
    ]
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    outs = [proc.communicate(timeout=120) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), [err for _, err in outs]
    assert len({out.strip() for out, _ in outs}) == 4  # four notes, four ids
    with raw_connection(db_path) as conn:
        names = [name for (name,) in conn.execute("select name from migrations order by name")]
    assert names == sorted(m.name for m in schema.MIGRATIONS)  # each once


WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from mneme_core import Mneme

    url, person, count = sys.argv[1], sys.argv[2], int(sys.argv[3])

    async def main():
        m = Mneme(url, space="test", clock=lambda: 1_709_294_400.0)
        sys.stdin.readline()

        async def task(t):
            for i in range(count):
                note = await m.aremember(person, f"{person} task {t} wrote secret number {i}")
                print(note.id, note.text, flush=True)
                found = await m.arecall(person, f"secret number {i}", log=False)
                assert all(n.text.startswith(person + " ") for n in found.notes), found.notes
        await asyncio.gather(*(task(t) for t in range(4)))
        await m.aclose()

    asyncio.run(main())
    """
)


def test_many_writers_on_many_connections_lose_nothing_and_keep_people_apart(server, db_path, clock):
    Mneme(db_path, space="test", clock=clock).close()
    people = ("ann", "bob", "cyd")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, db_path, person, "25"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
        )
        for person in people
    ]
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    outs = [proc.communicate(timeout=240) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), [err[-2000:] for _, err in outs]
    acknowledged = {line.split(" ", 1)[1] for out, _ in outs for line in out.splitlines()}
    assert len(acknowledged) == 3 * 4 * 25
    with Mneme(db_path, space="test", clock=clock) as m:
        for person in people:
            texts = {n.text for n in m.notes(person)}
            assert texts == {t for t in acknowledged if t.startswith(person + " ")}
            assert all(
                n.text.startswith(person) for n in m.recall(person, "secret number 7", log=False).notes
            )
    with raw_connection(db_path) as conn:
        lives = dict(conn.execute("select subject, live from subjects").fetchall())
    assert lives == dict.fromkeys(people, 100)


def test_a_connection_dropped_mid_transaction_is_run_again_and_never_half_written(server, db_path, clock):
    m = Mneme(db_path, space="test", clock=clock)
    runs = []

    def work(conn, text):
        conn.execute("insert into meta(key, value) values ('first', ?)", (text,))
        runs.append(text)
        if len(runs) == 1:  # the server ends this connection mid-transaction, as a restart or a proxy would
            with raw_connection(db_path) as other:
                (pid,) = conn.execute("select pg_backend_pid()").fetchone()
                other.execute("select pg_terminate_backend(?::int)", (pid,))
        conn.execute("insert into meta(key, value) values ('second', ?)", (text,))
        return len(runs)

    try:
        assert m.store.write(work, "kept") == 2  # the first attempt was rolled back by the server
        rows = m.store.read(
            lambda c: c.execute("select key, value from meta where value = 'kept'").fetchall()
        )
        assert sorted(rows) == [("first", "kept"), ("second", "kept")]
        assert m.remember("u", "written after the drop") is not None
    finally:
        m.close()


def test_a_store_refuses_to_open_a_database_of_another_program(server, db_path, clock):
    with raw_connection(db_path) as conn:
        conn.execute("create table notes(id bigint primary key, body text)")
    with pytest.raises(MnemeError, match="another program"):
        open_store(db_path, clock=clock)


def test_the_command_line_takes_a_url_by_db_or_by_the_config(server, db_path, tmp_path, monkeypatch):
    runner = CliRunner()
    said = runner.invoke(
        main, ["--db", db_path, "--space", "fish", "remember", "leo", "Has a cat named Mochi"]
    )
    assert said.exit_code == 0, said.output
    monkeypatch.setenv("MNEME_TEST_DATABASE", db_path)
    given = tmp_path / "bot.toml"
    given.write_text('[storage]\ndatabase = { "$env" = "MNEME_TEST_DATABASE" }\n')
    shown = runner.invoke(main, ["--config", str(given), "--space", "fish", "notes", "leo"])
    assert shown.exit_code == 0, shown.output
    assert "Has a cat named Mochi" in shown.output
    assert list(tmp_path.iterdir()) == [given]  # no file was made for the URL


# -- mneme move ----------------------------------------------------------------------------------------------


def fill(path, clock) -> None:
    with Mneme(path, space="fish", clock=clock) as m:
        first = m.remember("leo", "Has a cat named Mochi", kind="fact", key="user.pet")
        m.update("leo", first.id, "Has two cats, Mochi and Niangao")
        m.remember("leo", "Sister Leah got engaged", kind="episode")
        gone = m.remember("ann", "Plays the cello")
        m.forget("ann", id=gone.id)
        m.relate("leo", "friend", closeness=40)
        m.config.set("mood.step", 3)
    with Mneme(path, space="mio", clock=clock) as m:
        m.remember("leo", "Likes jasmine tea")


def picture(path, clock) -> dict:
    """What a move must keep, without the ids a new database gives."""
    found = {}
    for space in ("fish", "mio"):
        with Mneme(path, space=space, clock=clock) as m:
            data = m.export_data()
        found[space] = (
            sorted(
                (
                    n["subject"],
                    n["text"],
                    n["kind"],
                    n["key"],
                    n["deleted_at"] is None,
                    n["superseded_by"] is None,
                )
                for n in data["notes"]
            ),
            sorted((r["subject"], r["role"], r["closeness"]) for r in data["relationships"]),
            next(r["value"] for r in data["config"] if r["key"] == "mood.step"),
        )
    return found


def test_move_from_a_file_to_a_server_and_back_copies_everything_once(server, db_path, tmp_path, clock):
    source, back = tmp_path / "companion.db", tmp_path / "back.db"
    fill(source, clock)
    want = picture(source, clock)
    runner = CliRunner()
    first = runner.invoke(main, ["move", "--from", str(source), "--to", db_path])
    assert first.exit_code == 0, first.output
    assert "fish: 4 of 4 notes added" in first.output
    again = runner.invoke(main, ["move", "--from", str(source), "--to", db_path])
    assert again.exit_code == 0, again.output
    assert "fish: 0 of 4 notes added" in again.output and "mio: 0 of 1 notes added" in again.output
    assert picture(db_path, clock) == want
    home = runner.invoke(main, ["move", "--from", db_path, "--to", str(back)])
    assert home.exit_code == 0, home.output
    runner.invoke(main, ["move", "--from", db_path, "--to", str(back)])
    assert picture(back, clock) == want
    assert "not-the-password" not in home.output


def test_move_refuses_a_source_that_is_not_there_and_writes_nothing(server, db_path, tmp_path):
    result = CliRunner().invoke(main, ["move", "--from", str(tmp_path / "missing.db"), "--to", db_path])
    assert result.exit_code == 2 and "missing.db" in result.output
    assert not (tmp_path / "missing.db").exists()
    with raw_connection(db_path) as conn:
        assert (
            conn.execute(
                "select count(*) from information_schema.tables where table_schema = current_schema()"
            ).fetchone()[0]
            == 0
        )
