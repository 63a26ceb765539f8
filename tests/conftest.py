"""Shared fixtures: a frozen clock that moves only when told, a fresh database, an open `Mneme`.

The engine's behaviour is tested on both backends: in the files named in `BOTH_BACKENDS`, every test that
takes `db_path` (or `store`, `mneme`, `locate`) runs once on a SQLite file and once on PostgreSQL, where
`db_path` is the URL of a schema of its own in the server `MNEME_TEST_POSTGRES` names (`.ci/run` starts
one). Without that variable the tests start a server of their own (`pgserver`) when PostgreSQL's programs
are installed, and stop it at the end; with neither, the PostgreSQL half is skipped, saying why. A test
about SQLite's file itself is marked `sqlite_only`. Only those files run twice: the rest of the suite does
not depend on the backend, and the whole suite stays within minutes.

The files in `VECTOR_BACKENDS` (the meaning tier's) run a third time, on a PostgreSQL server with pgvector
(`backend` "pgvector"): `MNEME_TEST_PGVECTOR`, else one the tests start from the pgserver wheel's programs
(`pgserver.start(pgserver.BUNDLED)`, the `test` extra installs it on Linux x86_64), with the extension made
in its `public` schema, where every test's schema finds it. The plain server stays the arrays path: Debian's
PostgreSQL has no pgvector.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pgserver
import pytest

from mneme_core import Mneme
from mneme_core.store import open_store

# 2024-03-01 12:00:00 UTC, which is 20:00 in UTC+8.
START = 1_709_294_400.0


class Clock:
    """A frozen clock: `clock()` returns the same time until `advance` or `set` moves it."""

    def __init__(self, now: float = START) -> None:
        self.now = float(now)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float = 0.0, *, minutes: float = 0.0, hours: float = 0.0, days: float = 0.0):
        self.now += seconds + 60.0 * minutes + 3600.0 * hours + 86400.0 * days
        return self.now

    def set(self, now: float) -> float:
        self.now = float(now)
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


BOTH_BACKENDS = {
    "test_store.py",
    "test_notes.py",
    "test_recall.py",
    "test_recall_fusion.py",
    "test_caution.py",
    "test_mood.py",
    "test_relations.py",
    "test_mood_relations_facade.py",
    "test_config.py",
    "test_transfer.py",
    "test_transcript.py",
    "test_update.py",
    "test_overview.py",
    "test_postgres.py",
    "test_recall_lines.py",
    "test_kinds.py",
    "test_broader.py",
    "test_emoji_words.py",
    "test_people.py",
    "test_centroids.py",
    "test_meaning.py",
    "test_check.py",
    "test_consolidate.py",
    "test_chores.py",
    "test_lifecycle.py",
    "test_hops.py",
    "test_reindex.py",
    "test_compact_index.py",
    "test_anchors.py",
}


VECTOR_BACKENDS = {
    "test_meaning.py",
    "test_centroids.py",
    "test_vectors_backends.py",
    "test_move_carries.py",
    "test_speakers.py",
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: a test of the SQLite file itself, not of behaviour")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" not in metafunc.fixturenames:
        return
    name = metafunc.definition.path.name
    both = name in BOTH_BACKENDS or name in VECTOR_BACKENDS
    if both and metafunc.definition.get_closest_marker("sqlite_only") is None:
        three = ["pgvector"] if name in VECTOR_BACKENDS else []
        metafunc.parametrize("backend", ["sqlite", "postgresql", *three], indirect=True)
    else:
        metafunc.parametrize("backend", ["sqlite"], indirect=True)


_SERVERS: dict[str, dict[str, str | None]] = {"postgresql": {}, "pgvector": {}}


def _started(kind: str) -> str | None:
    """A server started here for `kind`, or None with the reason in `_SERVERS[kind]["why"]`."""
    server = _SERVERS[kind]
    try:
        import psycopg
    except ImportError:
        server["why"] = "psycopg is not installed (pip install -e '.[test]')"
        return None
    if kind == "pgvector" and pgserver.bundled() is None:
        server["why"] = "no MNEME_TEST_PGVECTOR and no pgserver wheel here (pip install -e '.[test]')"
        return None
    if kind == "postgresql" and pgserver.bindir() is None:
        server["why"] = "no MNEME_TEST_POSTGRES and no PostgreSQL programs (initdb) here"
        return None
    try:
        url, server["folder"] = pgserver.start(pgserver.BUNDLED if kind == "pgvector" else None)
    except (OSError, RuntimeError, subprocess.SubprocessError) as err:
        server["why"] = f"a PostgreSQL server could not be started here: {err}"
        return None
    if kind == "pgvector":
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("create extension if not exists vector schema public")
    return url


def _url(kind: str) -> str | None:
    server = _SERVERS[kind]
    if "url" not in server:
        given = os.environ.get("MNEME_TEST_POSTGRES" if kind == "postgresql" else "MNEME_TEST_PGVECTOR")
        server["url"] = given or _started(kind)
    return server["url"]


def postgres_url() -> str | None:
    """The test server's URL: `MNEME_TEST_POSTGRES`, else one started here (once; `pgserver`), else None
    (`_SERVERS["postgresql"]["why"]` says why)."""
    return _url("postgresql")


def pgvector_url() -> str | None:
    """The URL of the test server with pgvector: `MNEME_TEST_PGVECTOR`, else one started here from the
    pgserver wheel (once), else None."""
    return _url("pgvector")


def pytest_sessionfinish(session: pytest.Session) -> None:
    for server in _SERVERS.values():
        folder = server.pop("folder", None)
        if folder:
            pgserver.stop(folder)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    if request.param != "sqlite" and _url(request.param) is None:
        why = _SERVERS[request.param].get("why")
        pytest.skip(f"no {request.param} server to test on: {why} (.ci/run starts one)")
    return request.param


def postgres_schema(base: str | None = None) -> Iterator[str]:
    """The URL of a new, empty schema on the test server, dropped afterwards."""
    import psycopg

    base = base or postgres_url()
    assert base is not None
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"create schema {name}")
    joiner = "&" if "?" in base else "?"
    try:
        yield f"{base}{joiner}options={quote(f'-csearch_path={name}')}"
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"drop schema {name} cascade")


@pytest.fixture
def locate(tmp_path: Path, backend: str) -> Iterator[Callable[[str], Path | str]]:
    """`locate(name)`: where the test's database of that name is, on the test's backend (a file in
    `tmp_path`, or an empty schema of its own, dropped after the test)."""
    made: dict[str, Path | str] = {}
    schemas: list[Iterator[str]] = []

    def where(name: str) -> Path | str:
        if name not in made:
            if backend == "sqlite":
                made[name] = tmp_path / name
            else:
                schemas.append(postgres_schema(_url(backend)))
                made[name] = next(schemas[-1])
        return made[name]

    yield where
    for schema in schemas:
        next(schema, None)


@pytest.fixture
def db_path(locate: Callable[[str], Path | str]) -> Path | str:
    """A SQLite file's path, or (on PostgreSQL) the URL of an empty schema of its own."""
    return locate("mneme.db")


def is_postgres(location: Path | str) -> bool:
    return isinstance(location, str) and location.startswith("postgresql://")


@pytest.fixture
def store(db_path: Path | str, clock: Clock) -> Iterator[Any]:
    """A bare store (no `Mneme` around it) on the test's backend, closed afterwards."""
    opened = open_store(db_path, clock=clock)
    try:
        yield opened
    finally:
        opened.close()


@contextmanager
def raw_connection(location: Path | str) -> Iterator[Any]:
    """A plain connection to a test's database, outside any store, taking SQLite's SQL on both backends
    (PostgreSQL's through `store.postgres.connection`), committed and closed at the end."""
    if is_postgres(location):
        from mneme_core.store.postgres.connection import opened
        from mneme_core.store.postgres.vectors import adapted

        conn = adapted(opened(location, "test", 10.0, "on"))
    else:
        conn = sqlite3.connect(location)
    try:
        yield conn
        if isinstance(conn, sqlite3.Connection):
            conn.commit()
    finally:
        conn.close()


@pytest.fixture
def mneme(db_path: Path, clock: Clock) -> Iterator[Mneme]:
    m = Mneme(db_path, space="test", clock=clock, zone="UTC+8")
    try:
        yield m
    finally:
        m.close()


@pytest.fixture(autouse=True)
def no_installed_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Installed plugins stay out of tests that did not ask for them (tests of loading set their own)."""
    monkeypatch.setenv("MNEME_LOAD_PLUGINS", "")
