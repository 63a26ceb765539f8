"""The PostgreSQL store: a companion's memory on a server that bots on many machines share.

`Mneme("postgresql://user@host/db", space=...)` opens it (`store.open_store`); it runs the engine's
transaction functions as the SQLite store does (`store.transactions`), on connections that take the same
SQL (`connection`, `dialect`):

- `read` / `write` run on a connection of the calling thread; `aread` / `awrite` / `aside` on the store's
  own threads (`store.workers`: a writer and `READERS` readers, each with its connection), so the event
  loop never waits on the server. Waiting writes are committed
  together, each in a savepoint, as on SQLite (group commit).
- Reads run in a `repeatable read`, read-only transaction: one consistent snapshot, never waiting on a
  writer.
- Writers take turns, across every connection and process on the database: each write transaction begins
  by taking one transaction-level advisory lock (`WRITE_LOCK`, per schema), released by its commit or
  rollback, or by the server when its connection dies. So every transaction function sees what the one
  before it committed, as on SQLite, and the engine's invariants (a person's live count, the term index's
  levels, ids growing in commit order) hold however many processes write. Past `busy_timeout` waiting,
  `BusyError`.
- Migrations run once, in one transaction under their own advisory lock (`MIGRATE_LOCK`), however many
  processes open the database together; a database of a newer schema is refused before anything is written.
- A connection lost before its commit was sent is opened again and the whole transaction run again, once
  (PostgreSQL rolled the lost one back: nothing was half-written); lost while committing, the outcome is
  unknown, and `StorageError` says so rather than risking a second copy.
- Durability: `normal` is `synchronous_commit = off` (a server crash may lose the last commits, never
  corrupt), `full` is `on` (every commit flushed), the same promise as on SQLite.
- Erase and purge delete every row of the person in one transaction; the space the rows took is the
  server's to reclaim (autovacuum), and its WAL and backups are the operator's to keep or wipe.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from ...errors import BusyError, ClosedError, DiskFullError, InvalidValue, StorageError, describe
from .. import schema as file_schema
from ..closing import Closing
from ..location import redacted, server_of
from ..transactions import Queued, Transactions
from ..workers import Workers
from . import schema, vectors
from .connection import Connection, opened, psycopg

log = logging.getLogger(__name__)

T = TypeVar("T")
Work = Callable[..., T]

DURABILITY = {"normal": "off", "full": "on"}
# pg_advisory_xact_lock(kind, the schema's hash): an advisory lock is the whole database's, so the schema
# is part of its key, and companions kept in two schemas of one database never wait on each other.
WRITE_LOCK = 0x6D6E6D01  # "mnm" 1
MIGRATE_LOCK = 0x6D6E6D02
LOCK = "select pg_advisory_xact_lock(?::int, hashtext(coalesce(current_schema(), '')))"
READERS = 4  # a read waits on the server, not on this machine's cores: more than the file's 2
RETRIED = ("40001", "40P01")  # serialization failure, deadlock: the server rolled back, run it again


class LostCommit(StorageError):
    """The connection was lost while a commit was under way: the write may or may not have been kept."""


class PostgresStore(Transactions, Closing):
    """Owns the connections to one PostgreSQL database and runs transaction functions on them."""

    def __init__(
        self,
        url: str,
        *,
        durability: str = "normal",
        busy_timeout: float = 10.0,
        clock: Callable[[], float] = time.time,
        migrations: tuple[file_schema.Migration, ...] = (),
    ) -> None:
        if durability not in DURABILITY:
            raise InvalidValue(f"durability is one of {', '.join(DURABILITY)}, not {describe(durability)}")
        self.url = self.location = url
        self.path = redacted(url)
        self.where = server_of(url)
        self.durability = durability
        self.busy_timeout = busy_timeout
        self.clock = clock
        self.migrations = tuple(migrations)
        self.piggyback: list[Callable[[Any], None]] = []
        self._local = threading.local()
        self._owned: list[Connection] = []
        self._owned_lock = threading.Lock()
        self._writer = Workers("mneme-pg-writer", 1)
        self._readers = Workers("mneme-pg-reader", READERS)
        self._queue: list[Queued] = []
        self._queue_lock = threading.Lock()
        self._closed = False
        self.kept: vectors.Kept | None = None  # how the database keeps its vectors (`vectors.choose`)
        try:
            self._attempts(self._migrate_txn)
        except BaseException:
            self._closed = True  # refused or unreachable: nothing stays open
            self._close_owned()
            raise

    # -- connections -------------------------------------------------------------------------------------

    def _conn(self) -> Connection:
        if self._closed:
            raise ClosedError(f"the store for {self.path} is closed")
        conn = getattr(self._local, "conn", None)
        if conn is None or conn.broken:
            if conn is not None:
                self._drop(conn)
            conn = opened(self.url, self.where, self.busy_timeout, DURABILITY[self.durability])
            if self.kept is not None and self.kept.oid is not None:
                conn.use_pgvector(self.kept.oid, self.kept.tables)
            self._local.conn = conn
            with self._owned_lock:
                self._owned.append(conn)
        return conn

    def _drop(self, conn: Connection) -> None:
        if getattr(self._local, "conn", None) is conn:
            self._local.conn = None
        with self._owned_lock:
            if conn in self._owned:
                self._owned.remove(conn)
        with contextlib.suppress(psycopg.Error):  # it is gone already
            conn.close()

    # -- errors and retries ------------------------------------------------------------------------------

    def _failure(self, err: BaseException) -> BaseException:
        """`err` as the caller should see it: a `StorageError` naming the server, or itself."""
        if not isinstance(err, psycopg.Error) or isinstance(err, StorageError):
            return err
        said = (str(err).strip().splitlines() or [type(err).__name__])[0]
        state = getattr(err, "sqlstate", None)
        if state == "55P03":
            return BusyError(
                f"the writers ahead of this one on {self.where} took more than {self.busy_timeout:g} s "
                "(the busy timeout), so this write was not done",
                self.where,
            )
        if state in ("53100", "53200"):
            return DiskFullError(f"PostgreSQL at {self.where} is out of space: {said}", self.where)
        return StorageError(f"PostgreSQL at {self.where}: {said}", self.where)

    def _attempts(self, run: Callable[[Connection], T]) -> T:
        """`run(conn)`, once more on a new connection if the first was lost before committing, or the
        server rolled it back for a deadlock; errors as `_failure` gives them."""
        for attempt in (1, 2):
            conn = self._conn()
            try:
                return run(conn)
            except psycopg.Error as err:
                if conn.broken:
                    lost = conn.committing
                    self._drop(conn)
                    if lost:
                        raise LostCommit(
                            f"the connection to PostgreSQL at {self.where} was lost while committing: "
                            "this write may or may not have been kept",
                            self.where,
                        ) from err
                    if attempt == 1:
                        log.warning("the connection to %s was lost (%s); running it again", self.where, err)
                        continue
                elif getattr(err, "sqlstate", None) in RETRIED and attempt == 1:
                    continue
                raise self._failure(err) from err
        raise AssertionError("unreachable")

    # -- transactions ------------------------------------------------------------------------------------

    def _begin_write(self, conn: Connection) -> None:
        conn.execute("begin")
        conn.execute(LOCK, (WRITE_LOCK,))

    def _commit(self, conn: Connection) -> None:
        conn.committing = True
        try:
            conn.execute("commit")
        except BaseException:
            # Lost while committing, the flag stays up for `_attempts` to see (the outcome is unknown: the
            # transaction is not run again); a commit the server refused on a live connection is known.
            conn.committing = conn.broken
            raise
        conn.committing = False

    def _broken(self, conn: Connection) -> bool:
        return conn.broken

    def _rollback(self, conn: Connection) -> None:
        if not conn.broken and conn.in_transaction:
            conn.execute("rollback")

    def _wipe(self, conn: Connection) -> None:
        """Nothing more to do: the deleted rows are gone at commit (see the module docstring)."""

    def _write_txn(self, conn: Connection, work: Work[T], args: tuple[Any, ...]) -> T:
        self._begin_write(conn)
        with self._committing(conn):
            return work(conn, *args)

    def _read_txn(self, conn: Connection, work: Work[T], args: tuple[Any, ...]) -> T:
        conn.execute("begin isolation level repeatable read read only")
        try:
            return work(conn, *args)
        finally:
            self._rollback(conn)  # read only: nothing to keep

    def _migrate_txn(self, conn: Connection) -> None:
        conn.execute("begin")
        try:
            conn.execute(LOCK, (MIGRATE_LOCK,))
            conn.execute(LOCK, (WRITE_LOCK,))
            schema.migrate(conn, self.where, self.clock(), self.migrations)
            kept = vectors.choose(conn)
            self._commit(conn)
        finally:
            self._rollback(conn)
        if kept.oid is not None:
            conn.use_pgvector(kept.oid, kept.tables)
        if self.kept != kept:
            log.info("vectors on PostgreSQL at %s: %s (%s)", self.where, kept.path, kept.why)
        self.kept = kept

    def vector_index(self, dimensions: int) -> Any:
        """Where recall searches this database's vectors (`meaning.tiers`): the server, with pgvector;
        else a matrix in memory, as for a file."""
        if self.kept is not None and self.kept.path == vectors.PGVECTOR:
            return vectors.ServerVectors(dimensions, self.kept)
        from ...meaning.vectors import VectorIndex

        return VectorIndex(dimensions)

    def write(self, work: Work[T], *args: Any) -> T:
        """Run `work(conn, *args)` in a write transaction, in the writers' turn."""
        return self._attempts(lambda conn: self._write_txn(conn, work, args))

    def write_for_good(self, work: Work[T], *args: Any) -> T:
        """`write`, for work that removes text for good (erase, purge)."""
        return self.write(work, *args)

    def read(self, work: Work[T], *args: Any) -> T:
        """Run `work(conn, *args)` in one consistent snapshot."""
        return self._attempts(lambda conn: self._read_txn(conn, work, args))

    def _drain_queue(self) -> None:
        """Commit every write waiting in the queue (on the writer's thread); each finds its own outcome."""
        with self._queue_lock:
            batch, self._queue = self._queue, []
        if not batch:
            return  # an earlier drain took this caller's write along

        def commit(conn: Connection) -> None:
            for item in batch:  # a second attempt starts clean
                item.result, item.error = None, None
            self._begin_write(conn)
            self._commit_batch(conn, batch)

        try:
            self._attempts(commit)
        except BaseException as err:
            for item in batch:
                if item.error is None:
                    item.result, item.error = None, err

    # -- closing (`closing.Closing`) ---------------------------------------------------------------------

    def _close_owned(self) -> None:
        with self._owned_lock:
            owned, self._owned = self._owned, []
        for conn in owned:
            try:
                conn.close()
            except psycopg.Error as err:  # closing is best effort; the data is already committed
                log.warning("closing a connection to %s failed: %s", self.where, err)
