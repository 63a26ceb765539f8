"""What every store does the same way, whatever holds the data: run transaction functions, commit what
rides along, and commit waiting writes together.

The engine talks to a store through `Storage` (below): every unit of work is a plain function of a
connection (a *transaction function*), run by `read`/`write` on the calling thread or by `aread`/`awrite`
off the event loop. `store.Store` keeps one SQLite file (the embedded default); `store.postgres` a
PostgreSQL database. A connection is whatever the backend hands its functions: SQLite's own
`sqlite3.Connection` (no wrapper on that path), or PostgreSQL's, which takes the same SQL
(`store.postgres.dialect`). `open_store` chooses by where the data is: a path, or a `postgresql://` URL.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ..errors import BusyError
from . import breaks
from .workers import LATER, NOW, WRITES, Workers

T = TypeVar("T")
Work = Callable[..., T]


class Storage(Protocol):
    """What the engine needs of a store."""

    path: str  # where the data is, for messages (a URL without its password)
    location: str  # where it is, to open it again (a URL with its password: never shown)
    durability: str
    busy_timeout: float
    clock: Callable[[], float]
    piggyback: list[Callable[[Any], None]]

    def read(self, work: Work[T], *args: Any) -> T: ...
    def write(self, work: Work[T], *args: Any) -> T: ...
    def write_for_good(self, work: Work[T], *args: Any) -> T: ...
    def write_soon(self, work: Work[T], *args: Any, done: Callable[..., None] | None = None) -> None: ...
    def reply_waits(self) -> bool: ...
    async def aread(self, work: Work[T], *args: Any) -> T: ...
    async def awrite(self, work: Work[T], *args: Any) -> T: ...
    async def awrite_for_good(self, work: Work[T], *args: Any) -> T: ...
    async def aside(self, work: Callable[..., T], *args: Any, later: bool = False) -> T: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    async def aclose(self) -> None: ...
    def close_at_exit(self) -> None: ...


def forget(conn: Any) -> None:
    """The connection forgets what its transactions taught it (see `store.Connection`)."""
    found = getattr(conn, "forget", None)
    if found is not None:
        found()


@dataclass
class Queued:
    """A write waiting for the writer's thread, and its outcome once committed (or not)."""

    work: Callable[..., Any]
    args: tuple[Any, ...]
    wipe: bool = False
    result: Any = None
    error: BaseException | None = None


class Transactions:
    """The commit, the group commit and the calls off the event loop both stores share; a store gives
    `piggyback`, its queue and threads, `read`, `_drain_queue`, `_failure` and `_wipe` (and may say how it
    commits and rolls back)."""

    piggyback: list[Callable[[Any], None]]
    batch_seconds: float | None = None
    """How long one group commit may run, while a reply's read waits, before the writes still waiting are
    left for the next one (None: no bound)."""
    _queue: list[Queued]
    _queue_lock: threading.Lock
    _writer: Workers
    _readers: Workers
    read: Callable[..., Any]
    _open_or_raise: Callable[[], None]  # `closing.Closing`'s
    _drain_queue: Callable[[], None]  # commit every write waiting in `_queue`, on the writer's thread

    def _failure(self, err: BaseException) -> BaseException:
        """`err` as the caller should see it (the store's own errors), or itself."""
        return err

    def _wipe(self, conn: Any) -> None:
        raise NotImplementedError

    def reply_waits(self) -> bool:
        """Whether a reply's read waits for a thread of a store whose jobs run one at a time (a file's, with
        `batch_seconds`): a write transaction under way then stops early, leaving what rides along too."""
        return self.batch_seconds is not None and self._readers.waiting(NOW)

    async def aread(self, work: Work[T], *args: Any) -> T:
        """Run `work(conn, *args)` in a read snapshot on a reader's thread, off the event loop."""
        self._open_or_raise()
        return await self._readers.run(self.read, work, *args, place=NOW)

    async def aside(self, work: Callable[..., T], *args: Any, later: bool = False) -> T:
        """`work(*args)` on a reader thread, in no transaction: for code that reads through `read` there
        (see `twins`) and whose plain work should not run on the event loop. `later`: work off a reply's
        path, which waits for the reads on one (see `workers.LATER`)."""
        self._open_or_raise()
        return await self._readers.run(work, *args, place=LATER if later else NOW)

    async def awrite(self, work: Work[T], *args: Any) -> T:
        """Run `work(conn, *args)` in a write transaction on the writer's thread, off the event loop.

        Writes that wait together are committed together (group commit): each runs in a savepoint of one
        transaction, so one that fails is rolled back alone, and none returns before the commit holding
        it succeeded. A bot writing for many people at once pays one commit per batch, not per note.
        """
        return await self._awrite(Queued(work, args))

    async def awrite_for_good(self, work: Work[T], *args: Any) -> T:
        """`write_for_good` off the event loop: committed with the writes waiting with it, then wiped."""
        return await self._awrite(Queued(work, args, wipe=True))

    def write_soon(
        self, work: Work[T], *args: Any, done: Callable[[T | None, BaseException | None], None] | None = None
    ) -> None:
        """`awrite` for a caller that does not wait, from any thread (a background timer: the recall log's):
        committed by the store's writer with the writes waiting with it, so no other thread takes turns at
        the GIL or at SQLite's lock for it; `done(result, error)` is told the outcome there."""
        self._open_or_raise()
        item = Queued(work, args)
        with self._queue_lock:
            self._queue.append(item)
        self._writer.submit(self._drain_and_tell, item, done, place=WRITES)

    def _drain_and_tell(self, item: Queued, done: Callable[..., None] | None) -> None:
        self._drain_queue()  # the item is committed by this drain, or an earlier one took it along
        if done is not None:
            done(item.result, None if item.error is None else self._failure(item.error))

    async def _awrite(self, item: Queued) -> Any:
        self._open_or_raise()
        with self._queue_lock:
            self._queue.append(item)
        await self._writer.run(self._drain_queue, place=WRITES)
        if item.error is not None:
            failure = self._failure(item.error)
            if failure is item.error:
                raise item.error
            raise failure from item.error
        return item.result

    @contextmanager
    def _committing(self, conn: Any, carry: bool = True) -> Iterator[None]:
        """The rest of a write transaction begun in turn: the caller's work, then what rides along
        (`piggyback`, unless `carry` is False), then the commit; on any error a rollback, and the
        connection forgets what its transactions taught it."""
        try:
            yield
            for extra in self.piggyback if carry else ():
                extra(conn)
            self._commit(conn)
        except BaseException:
            forget(conn)
            self._rollback(conn)
            raise

    def _commit(self, conn: Any) -> None:
        conn.execute("commit")

    def _rollback(self, conn: Any) -> None:
        if conn.in_transaction:
            conn.execute("rollback")

    def _commit_batch(self, conn: Any, batch: list[Queued]) -> list[Queued]:
        """One transaction for the batch, a savepoint for each write, then the wipe some of them ask for; the
        writes left for the next transaction (past `batch_seconds`). A write alone in its batch (every write
        of a quiet bot) needs no savepoint: when it fails, its whole transaction is rolled back before
        anything rode along, and what would have waits for the next."""
        left: list[Queued] = []
        if len(batch) == 1:
            self._commit_alone(conn, batch[0])
        else:
            left = self._commit_together(conn, batch)
            batch = batch[: len(batch) - len(left)]
        if any(item.wipe for item in batch):
            try:
                self._wipe(conn)
            except (sqlite3.Error, BusyError) as err:  # committed: only the writes that asked are told
                for item in batch:
                    if item.wipe and item.error is None:
                        item.error = err
        return left

    def _broken(self, conn: Any) -> bool:
        """Whether the connection itself is lost (a server's): then a write's error is the connection's, and
        the store runs the batch again on a new one rather than hand the error to the write."""
        return False

    def _commit_alone(self, conn: Any, item: Queued) -> None:
        try:
            with self._committing(conn):
                try:
                    item.result = item.work(conn, *item.args)
                except Exception as err:  # this write fails: its transaction is rolled back whole
                    if not self._broken(conn):
                        item.error = err
                    raise
        except Exception as err:
            if item.error is not err:  # what rode along, or the commit, failed: as for a batch
                raise

    def _commit_together(self, conn: Any, batch: list[Queued]) -> list[Queued]:
        """The batch in one transaction, each write in a savepoint; past `batch_seconds` while a reply's read
        waits, the writes not begun are left (returned) for the next."""
        left: list[Queued] = []
        until = None if self.batch_seconds is None else time.monotonic() + self.batch_seconds
        with self._committing(conn):
            for done, item in enumerate(batch):
                if done and until is not None and time.monotonic() > until and self.reply_waits():
                    left = batch[done:]
                    break
                conn.execute("savepoint queued")
                try:
                    item.result = item.work(conn, *item.args)
                except Exception as err:  # this write alone fails; the others go on
                    forget(conn)
                    conn.execute("rollback to queued")
                    item.error = err
                conn.execute("release queued")
                breaks.take_if_due()  # a long batch lets the event loop's thread in (`store.breaks`)
        return left
