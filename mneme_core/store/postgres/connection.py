"""A PostgreSQL connection the engine's transaction functions can use as they use SQLite's.

`Connection.execute(sql, params)` takes SQLite's SQL (translated once per statement, `dialect`) and returns
psycopg's cursor, which answers `fetchone`, `fetchall`, `rowcount` and iteration as sqlite3's does. Values
come back as SQLite gives them: Python ints are sent as `bigint` (never a `smallint` that a shift would
overflow), and a `numeric` (what `sum` of bigints gives) comes back as an int, or a float if it has a
fraction. Opening fails in one line naming the server and the cause (`opened`).
"""

from __future__ import annotations

from typing import Any

from ...errors import StorageError
from .dialect import translated
from .vectors import adapt, as_vectors

try:
    import psycopg
    from psycopg.adapt import Loader
    from psycopg.pq import TransactionStatus
    from psycopg.types.numeric import Int8Dumper
except ImportError as err:  # pragma: no cover - the postgres extra is not installed
    raise ImportError("a postgresql:// database needs psycopg 3: pip install 'mneme-bots[postgres]'") from err


class _Numeric(Loader):
    def load(self, data: Any) -> int | float:
        text = bytes(data).decode()
        return float(text) if any(c in text for c in ".eEN") else int(text)


# Application name on the server (pg_stat_activity), and what the connection waits for a dead server:
# libpq's keepalives and TCP_USER_TIMEOUT end a connection whose server stopped answering within ~30 s.
OPTIONS = {
    "application_name": "mneme",
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "tcp_user_timeout": 30_000,
}


class Connection:
    """One PostgreSQL connection, in autocommit mode: the store says `begin` and `commit` itself, as it
    does on SQLite."""

    __slots__ = ("committing", "raw", "vectors")

    def __init__(self, raw: psycopg.Connection) -> None:
        self.raw = raw
        self.committing = False  # set while a commit is under way: a connection lost then may have kept it
        self.vectors: frozenset[str] = frozenset()  # tables keeping vectors in pgvector's type (`vectors`)

    def use_pgvector(self, oid: int, tables: frozenset[str]) -> None:
        """Vectors go to the server and come back through pgvector's type (`vectors.adapt`)."""
        adapt(self.raw, oid)
        self.vectors = tables

    def execute(self, sql: str, params: Any = ()) -> psycopg.Cursor:
        if self.vectors:
            params = as_vectors(sql, params, self.vectors)
        return self.raw.execute(translated(sql), params)

    def executemany(self, sql: str, rows: Any) -> psycopg.Cursor:
        if self.vectors:
            rows = [as_vectors(sql, row, self.vectors) for row in rows]
        cursor = self.raw.cursor()
        cursor.executemany(translated(sql), rows)
        return cursor

    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != TransactionStatus.IDLE

    @property
    def broken(self) -> bool:
        return self.raw.broken or self.raw.closed

    def forget(self) -> None:
        """Nothing to forget: a PostgreSQL connection keeps no knowledge across transactions (the term
        index's ids are looked up each time, see `memory.index.TermIds`)."""

    def close(self) -> None:
        self.raw.close()


CAUSES = (
    ("password authentication failed", "wrong credentials"),
    ("no password supplied", "wrong credentials (no password given)"),
    ("role", "wrong credentials (no such role)"),
    ("does not exist", "no such database"),
    ("connection refused", "unreachable (connection refused)"),
    ("timeout expired", "unreachable (timed out)"),
    ("failed to resolve host", "unreachable (unknown host)"),
    ("could not translate host name", "unreachable (unknown host)"),
    ("no such file or directory", "unreachable (no server socket there)"),
    ("too many clients", "refused (too many connections)"),
)


def cause_of(err: BaseException) -> str:
    """What went wrong opening a connection, in a few words, and the server's own first line."""
    said = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    lowered = said.lower()
    for marker, cause in CAUSES:
        if marker in lowered and (marker != "does not exist" or "database" in lowered):
            return f"{cause}: {said}"
    return said


def opened(url: str, where: str, timeout: float, synchronous: str) -> Connection:
    """A new connection, set up; `StorageError` in one line naming the server and the cause if it cannot
    be had."""
    try:
        raw = psycopg.connect(
            url, autocommit=True, connect_timeout=max(1, round(timeout)), prepare_threshold=2, **OPTIONS
        )
    except psycopg.Error as err:
        raise StorageError(f"cannot open PostgreSQL at {where}: {cause_of(err)}", where) from err
    raw.adapters.register_dumper(int, Int8Dumper)
    raw.adapters.register_loader("numeric", _Numeric)
    # A lock (the writers' turn, a row) waited for past the busy timeout is an error, never a hang;
    # `synchronous_commit` is the file's durability (`normal`: a server crash may lose the last commits).
    raw.execute(f"set lock_timeout = {int(timeout * 1000)}")
    raw.execute(f"set synchronous_commit = {synchronous}")
    raw.execute(PLANNED)
    return Connection(raw)


# The planner's cost of reading a page at random, unless the server's configuration or the URL's options
# chose one: 4, PostgreSQL's default, is for spinning disks. A person's rows are few and cached, and with 4
# the planner read all 10,000 notes of a table (a sequential scan, 5-11 ms) to find 16 ids that the primary
# key finds in 0.2-0.7 ms (EXPLAIN ANALYZE on `benchmarks/postgres.py`'s 10,000 notes): a recall took
# longer at 10,000 notes than at 30,000 or 100,000. 1.1 is the usual value for SSDs and cached data.
PLANNED = (
    "select set_config('random_page_cost', '1.1', false) "
    "where (select source from pg_settings where name = 'random_page_cost') = 'default'"
)
