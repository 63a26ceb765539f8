"""The store: one SQLite file in WAL mode, and the connections that work on it.

Every unit of work in Mneme is a plain function of a `sqlite3.Connection` (a *transaction function*), and the
store runs it in one of two places:

- `aread` / `awrite` run it on one of the store's own threads (`one_at_a_time`: `THREADS` threads, each
  with its connection, running the file's reads and writes one job at a time, a reply's reads first), so
  the event loop never waits on SQLite. The whole function runs there in one hop: a hop costs about 100 µs
  on this machine, so a recall issued as six separate `await execute()` calls would pay 1.2 ms in hops
  alone, and two coroutines interleaving statements on one connection could mix their transactions. A
  read waits for the job under way (a group commit stops at `BATCH_SECONDS`), and never for one stalled on
  SQLite's lock or the disk: another thread steps in beside it.
- `read` / `write` run it on a connection owned by the calling thread, for the plain twins. They need no
  event loop, so they work whether or not one is running in the thread.

Writes wait for their turn in a first-come, first-served line across threads and processes (`turns`),
then take the write lock up front (`BEGIN IMMEDIATE`), both within `busy_timeout`; past it they raise
`BusyError`, and a full disk raises `DiskFullError` (`failures`), each naming the file. Reads run in a
deferred transaction, which in WAL mode sees one consistent snapshot and never waits for a writer.

Deleting is for good: every connection has `secure_delete` on, and `write_for_good` (erase, purge) ends
with a truncating checkpoint, so no byte of what it removed is left in the `.db`, `-wal` or `-shm`. The WAL
is kept near `checkpoint.LIMIT` bytes. The store's threads are daemons, so a program that never closes
still exits.

Durability: a write that returned is in the WAL, so it survives the process being killed in any mode.
`durability="normal"` (the default, `synchronous=NORMAL`) does not fsync on each commit, so the last
commits can be lost on power loss or an OS crash (never corrupted); `durability="full"` fsyncs every commit
and survives power loss, at the cost of one fsync per write (see `benchmarks/recall.py`).
"""

from __future__ import annotations

import logging
import os
import random
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from ..errors import BusyError, ClosedError, InvalidValue, describe
from . import failures, schema
from .checkpoint import LIMIT, SAFETY, Checkpointer
from .closing import Closing
from .location import is_url
from .one_at_a_time import OneAtATime
from .transactions import Queued, Storage, Transactions
from .turns import Late, Turn

log = logging.getLogger(__name__)

T = TypeVar("T")
Work = Callable[..., T]

DURABILITY = {"normal": "NORMAL", "full": "FULL"}
THREADS = 2
"""The file's threads (`one_at_a_time`): one at work, one to step in when it stalls."""
BATCH_SECONDS = 0.005
"""A group commit's writes past this many seconds, while a reply's read waits, wait for the next commit
(`Transactions.batch_seconds`): the file's jobs run one at a time, and that read waits for the commit under
way (some 12 observes' writes). With no reply waiting, writes that wait together are committed together."""


class Connection(sqlite3.Connection):
    """A connection that may carry what its own transactions learned, such as the term index's term ids
    (see `memory.index`): such knowledge holds only for what this connection committed, so it is forgotten
    whenever one of its transactions, or a savepoint in one, rolls back."""

    def forget(self) -> None:
        self.__dict__.clear()


class Store(Transactions, Closing):
    """Owns one SQLite file: its schema, its pragmas and every connection to it."""

    batch_seconds = BATCH_SECONDS

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        durability: str = "normal",
        busy_timeout: float = 10.0,
        clock: Callable[[], float] = time.time,
        migrations: tuple[schema.Migration, ...] = (),
    ) -> None:
        if durability not in DURABILITY:
            raise InvalidValue(f"durability is one of {', '.join(DURABILITY)}, not {describe(durability)}")
        self._scratch: str | None = None
        path = os.fspath(path)
        if path == ":memory:":
            # Several connections must share one database, which a true :memory: database cannot do;
            # a private temporary file behaves the same and is removed on close.
            self._scratch = tempfile.mkdtemp(prefix="mneme-")
            path = os.path.join(self._scratch, "memory.db")
        elif os.path.dirname(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
        self.path = path
        self.location = path  # where another store of the same data opens (`Storage.location`)
        self.durability = durability
        self.busy_timeout = busy_timeout
        self.clock = clock
        self.migrations = tuple(migrations)
        self.piggyback: list[Callable[[sqlite3.Connection], None]] = []
        self._local = threading.local()
        self._owned: list[sqlite3.Connection] = []
        self._turns: list[Turn] = []
        self._owned_lock = threading.Lock()
        # Reads and writes alike run one at a time on the file's threads (`one_at_a_time`).
        self._writer = self._readers = OneAtATime("mneme-store", THREADS)
        self.checkpointer = Checkpointer(path, busy_timeout, outside=self._writer.outside)
        self._queue: list[Queued] = []
        self._queue_lock = threading.Lock()
        self._closed = False
        self._migrate()

    # -- connections -------------------------------------------------------------------------------------

    def _setup(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        # Deleted rows and freed pages are overwritten with zeros, whatever the build's default (Debian's
        # SQLite has it on, most others off): erased text never waits in free space for a VACUUM.
        conn.execute("pragma secure_delete = on")
        conn.execute(f"pragma synchronous = {DURABILITY[self.durability]}")
        conn.execute("pragma temp_store = memory")
        conn.execute("pragma cache_size = -65536")
        # Checkpoints are the checkpoint thread's, and the writer's short one past LIMIT (see `checkpoint`);
        # SQLite's own is only a safety net this far behind. The WAL is cut back to LIMIT when it restarts.
        conn.execute(f"pragma wal_autocheckpoint = {SAFETY}")
        conn.execute(f"pragma journal_size_limit = {LIMIT}")
        # From here on a connection never waits inside SQLite's busy handler: its writers wait in line
        # (`_in_turn`) and its reads and checkpoints try again themselves (`_retrying`), within busy_timeout.
        # Last, not first: `synchronous` and `cache_size` read the schema, which another process recovering
        # the WAL of one that was killed holds for a moment, and those waits are the connect timeout's.
        conn.execute("pragma busy_timeout = 0")
        return conn

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path,
            isolation_level=None,
            check_same_thread=False,
            timeout=self.busy_timeout,
            factory=Connection,
        )
        return self._setup(conn)

    def _conn(self) -> sqlite3.Connection:
        """This thread's own connection, for the plain twins."""
        if self._closed:
            raise ClosedError(f"the store for {self.path} is closed")
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
            with self._owned_lock:
                self._owned.append(conn)
        return conn

    def _migrate(self) -> None:
        """Check the schema, set WAL and migrate, waiting out other processes doing the same.

        Two processes creating one new file at once used to fail 2-4 % of the time (SQLite answers
        `pragma journal_mode = wal` with "database is locked" at once while another connection holds the
        new file, instead of waiting): every step here may run again, so a busy answer is retried after a
        short random pause until the busy timeout (`_retrying`), then raised as `BusyError`."""
        try:
            with self._translating():
                self._retrying(self._open_schema)
        except BaseException:
            self._closed = True  # refused or unreachable: nothing stays open
            self._close_owned()
            raise

    def _open_schema(self) -> None:
        conn = self._conn()
        pending = schema.check(conn, self.path, self.migrations)  # reads only: refused, untouched
        if conn.execute("pragma journal_mode").fetchone()[0] != "wal":
            conn.execute("pragma journal_mode = wal")
        if pending:
            self.write(schema.migrate, self.path, self.clock(), self.migrations)

    def _failure(self, err: BaseException) -> BaseException:
        """`err` as the caller should see it: `DiskFullError`, `BusyError`, or itself (see `failures`)."""
        return failures.translated(err, self.path, self.busy_timeout)

    @contextmanager
    def _translating(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as err:
            failure = self._failure(err)
            if failure is err:
                raise
            raise failure from err

    # -- transactions ------------------------------------------------------------------------------------

    def _turn(self) -> Turn | None:
        """This thread's place in the writers' line (see `turns`), or None where writers cannot queue."""
        if not hasattr(self._local, "turn"):
            self._local.turn = Turn.open(self.path)
            if self._local.turn is not None:
                with self._owned_lock:
                    self._turns.append(self._local.turn)
        return self._local.turn

    @contextmanager
    def _in_turn(self, conn: sqlite3.Connection) -> Iterator[None]:
        """Begin a write transaction (`BEGIN IMMEDIATE`) in this writer's turn, within the busy timeout;
        the turn is given back when the block ends.

        A writer that finds the line empty and SQLite's lock free takes the lock with no ticket at all (one
        read and one lock lookup, 3 µs); one that would have to wait joins the line (`turns`), and at its
        turn tries SQLite's lock until the deadline, meeting there only writers outside the line."""
        deadline = time.monotonic() + self.busy_timeout
        turn = self._turn()
        if turn is not None and turn.empty() and self._begin_now(conn):
            yield
            return
        if turn is not None:
            try:
                turn.take(deadline)
            except Late:
                raise BusyError(
                    f"the writers ahead of this one in line for {self.path} took more than "
                    f"{self.busy_timeout:g} s (the busy timeout), so this write was not done",
                    self.path,
                ) from None
        try:
            self._retrying(lambda: conn.execute("begin immediate"), deadline)
            yield
        finally:
            if turn is not None:
                turn.give_back()

    @staticmethod
    def _begin_now(conn: sqlite3.Connection) -> bool:
        """`BEGIN IMMEDIATE` if SQLite's lock is free this instant; False, nothing begun, if it is taken."""
        try:
            conn.execute("begin immediate")
            return True
        except sqlite3.OperationalError as err:
            if failures.is_busy(err):
                return False
            raise

    def _retrying(self, step: Callable[[], T], deadline: float | None = None) -> T:
        """`step()`, tried again after a short pause while SQLite answers busy, until the deadline (the busy
        timeout from now by default); then the busy error is raised. For what a connection that writes
        runs (see `_setup`): it may run again whole, as a read or a `BEGIN` may."""
        deadline = time.monotonic() + self.busy_timeout if deadline is None else deadline
        pause = 0.0001
        while True:
            try:
                return step()
            except sqlite3.OperationalError as err:
                if not failures.is_busy(err) or time.monotonic() + pause > deadline:
                    raise
            time.sleep(pause * random.uniform(0.5, 1.5))  # two processes retrying in step would meet again
            pause = min(2 * pause, 0.002)

    def _write_txn(
        self, conn: sqlite3.Connection, work: Work[T], args: tuple[Any, ...], wipe: bool = False
    ) -> T:
        with self._in_turn(conn):
            with self._committing(conn, carry=not wipe):  # a wipe copies out only what its work wrote
                result = work(conn, *args)
            if wipe:
                self._wipe(conn)
        self.checkpointer.wrote(conn)
        return result

    @staticmethod
    def _read_txn(conn: sqlite3.Connection, work: Work[T], args: tuple[Any, ...]) -> T:
        conn.execute("begin")
        try:
            return work(conn, *args)
        finally:
            if conn.in_transaction:
                conn.execute("commit")

    def write(self, work: Work[T], *args: Any) -> T:
        """Run `work(conn, *args)` in a write transaction on this thread's connection."""
        with self._translating():
            return self._write_txn(self._conn(), work, args)

    def write_for_good(self, work: Work[T], *args: Any) -> T:
        """`write`, for work that removes text for good (`erase`, `purge`): when it returns, no byte of
        what it deleted is left in the `.db`, the `-wal` or the `-shm` (see `_wipe`)."""
        with self._translating():
            return self._write_txn(self._conn(), work, args, wipe=True)

    def _wipe(self, conn: sqlite3.Connection) -> None:
        """After a write that deleted text for good: copy the whole WAL into the file and cut it to zero
        bytes (`wal_checkpoint(TRUNCATE)`).

        `secure_delete` zeroes the deleted rows in the pages the transaction wrote, but older copies of those
        pages, text and all, stay in the `-wal` until it is cut (they were still there after 3,000 more
        writes and two checkpoints). Truncating waits, up to the busy timeout, for other connections' reads
        to end; if one reads longer, `BusyError` says so: what was deleted is deleted, but its old pages wait
        in the `-wal` until the next wipe (erase again) or the last connection closes. The cost is measured in
        `benchmarks/reliability.py`: the copy of at most `checkpoint.LIMIT` bytes of WAL and two fsyncs."""
        if not self.checkpointer.wipe(conn):
            raise BusyError(
                f"the deletion in {self.path} is done, but another connection kept reading for more than "
                f"{self.busy_timeout:g} s, so older copies of the deleted pages are still in its -wal; run "
                "it again once that reader is done to wipe them",
                self.path,
            )

    def read(self, work: Work[T], *args: Any) -> T:
        """Run `work(conn, *args)` in a read snapshot on this thread's connection."""
        with self._translating():
            conn = self._conn()
            return self._retrying(lambda: self._read_txn(conn, work, args))

    def _drain_queue(self) -> None:
        """Commit every write waiting in the queue (on the writer's thread); each finds its own outcome."""
        conn = self._conn()
        with self._queue_lock:
            batch, self._queue = self._queue, []
        if not batch:
            return  # an earlier drain took this caller's write along
        try:
            with self._in_turn(conn):
                left = self._commit_batch(conn, batch)
        except BaseException as err:
            for item in batch:
                if item.error is None:
                    item.result, item.error = None, err
            return
        if left:  # past `batch_seconds`: first for the next drain (each write has a drain of its own)
            with self._queue_lock:
                self._queue[:0] = left
        self.checkpointer.wrote(conn, catch_up=not self.reply_waits())

    # -- closing (`closing.Closing`) ---------------------------------------------------------------------

    def _closing(self) -> None:
        self.checkpointer.stop()

    def _close_owned(self) -> None:
        with self._owned_lock:
            owned, self._owned = self._owned, []
            turns, self._turns = self._turns, []
        for conn in owned:
            try:
                conn.close()
            except sqlite3.Error as err:  # closing is best effort; the data is already committed
                log.warning("closing a connection to %s failed: %s", self.path, err)
        for turn in turns:
            turn.close()
        if self._scratch:
            for name in os.listdir(self._scratch):
                os.remove(os.path.join(self._scratch, name))
            os.rmdir(self._scratch)


def open_store(location: str | os.PathLike[str], **options: Any) -> Storage:
    """The store for `location`: a `postgresql://` URL opens PostgreSQL (the `postgres` extra), anything
    else is a SQLite file's path; a URL of another scheme is refused (`location`)."""
    if is_url(location):
        from .postgres.store import PostgresStore  # psycopg is needed only here

        return PostgresStore(os.fspath(location), **options)
    return Store(location, **options)
