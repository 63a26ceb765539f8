"""Writers take turns: a first-come, first-served line for a file's write lock, across threads and processes.

SQLite's busy handler polls: a writer that finds the lock taken sleeps 1, 2, 5 ... then 100 ms between
tries, and whoever tries while the lock happens to be free gets it. Under four processes writing at once, a
writer that has already waited long polls least often and can lose every race for seconds: 1 write in about
12,000 passed the 10 s busy timeout, `aremember` p99 was 3.3-3.7 s, and plain writers here got from 5,000 to
10,500 writes each in the same 10 s (max wait 2.9 s).

`Turns` puts every writer in line first. A writer takes the next ticket from a counter in `<file>-turns`,
locks one byte of that file for its ticket and keeps it until its transaction is over, and waits until the
byte of the ticket before it is free: that writer has finished, or died (the kernel frees a dead process's
locks, so the line never stalls on a crash). Then it takes SQLite's lock as before, which only something
outside the line (an older Mneme, the sqlite3 shell, a checkpoint) can still hold. The wait for the byte is
a poll every 20-200 µs; the order comes from the tickets, not from who polls at the right moment.

The locks are Linux's open-file-description locks (`F_OFD_SETLK`): they belong to one open of the file, so
two threads of one process, each with its own `Turn`, queue like two processes, and SQLite's own POSIX locks
on the database are never touched (the line has a file of its own). Where there are none (macOS, Windows) or
the file cannot be opened, writers skip the line and SQLite's busy handler alone decides, as before.

A writer that gives up (past the busy timeout) leaves its place: the one behind it then goes straight to
SQLite's lock, where it meets at most the writer the quitter was waiting for.

A writer that finds the line empty and SQLite's lock free takes no ticket at all (`Store._in_turn`: one
read and one lock lookup, 3 µs); only one that would wait joins the line, so a writer alone pays nothing
else. Under four processes writing flat out, each write hands the file to another process, whose page cache
must then be read again: plain writes there went from about 2,150 to 1,150 a second together, and their
longest wait from 1.75 s to 70 ms (`benchmarks/reliability.py` measures the bot's case, group commits).
Waiting in line and for SQLite's lock together never exceed the busy timeout; past it the write fails with
`BusyError` without having changed anything.
"""

from __future__ import annotations

import logging
import os
import struct
import time

try:
    import fcntl
except ImportError:  # Windows: writers skip the line
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

SETLK = getattr(fcntl, "F_OFD_SETLK", None)
GETLK = getattr(fcntl, "F_OFD_GETLK", None)
WRITE, UNLOCK = getattr(fcntl, "F_WRLCK", 1), getattr(fcntl, "F_UNLCK", 2)
COUNTER = 0  # bytes [0, 8): the last ticket taken, and its lock guards taking one
SLOTS = 1 << 20  # one byte per ticket, at SLOTS + ticket % SLOTS: as many writers as could ever wait at once
FIRST_PAUSE, LONGEST_PAUSE = 0.00002, 0.0002


def _lock(kind: int, start: int, length: int = 1) -> bytes:
    # struct flock: l_type, l_whence, (pad), l_start, l_len, l_pid (0 for OFD locks), (pad)
    return struct.pack("hhxxxxqqixxxx", kind, os.SEEK_SET, start, length, 0)


COUNTER_LOCK = _lock(WRITE, COUNTER, 8)
COUNTER_UNLOCK = _lock(UNLOCK, COUNTER, 8)


class Late(Exception):
    """The line did not move before the deadline (the writer ahead held its turn too long)."""


class Turn:
    """One writer's place in the line of a file (one per thread: each holds its own open of the file)."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path + "-turns", os.O_RDWR | os.O_CREAT, 0o644)
        self.slot: int | None = None

    @classmethod
    def open(cls, path: str) -> Turn | None:
        """A place in the line of `path`, or None where writers cannot queue (see the module docstring)."""
        if SETLK is None:
            return None
        try:
            return cls(path)
        except OSError as err:
            log.debug("writers to %s skip the line: %s", path, err)
            return None

    def _try(self, lock: bytes) -> bool:
        try:
            fcntl.fcntl(self.fd, SETLK, lock)
            return True
        except (BlockingIOError, PermissionError):  # EAGAIN / EACCES: someone else holds it
            return False

    def _wait_for(self, lock: bytes, deadline: float) -> None:
        pause = FIRST_PAUSE
        while not self._try(lock):
            if time.monotonic() >= deadline:
                raise Late
            time.sleep(pause)
            pause = min(2 * pause, LONGEST_PAUSE)

    def empty(self) -> bool:
        """Nobody is in line now: the last ticket taken is done (one read and one lock lookup)."""
        (last,) = struct.unpack("<q", os.pread(self.fd, 8, COUNTER).ljust(8, b"\0"))
        asked = fcntl.fcntl(self.fd, GETLK, _lock(WRITE, SLOTS + last % SLOTS))
        return struct.unpack_from("h", asked)[0] == UNLOCK

    def take(self, deadline: float) -> bool:
        """Join the line and wait for this writer's turn, until `deadline` (`time.monotonic`); returns
        whether it had to wait. Raises `Late` past the deadline, having left the line."""
        self._wait_for(COUNTER_LOCK, deadline)
        try:
            (last,) = struct.unpack("<q", os.pread(self.fd, 8, COUNTER).ljust(8, b"\0"))
            ticket = last + 1
            while not self._try(_lock(WRITE, SLOTS + ticket % SLOTS)):
                ticket += 1  # only a wrapped ticket whose writer still waits: take the next one
            os.pwrite(self.fd, struct.pack("<q", ticket), COUNTER)
        finally:
            fcntl.fcntl(self.fd, SETLK, COUNTER_UNLOCK)
        self.slot = SLOTS + ticket % SLOTS
        ahead = SLOTS + (ticket - 1) % SLOTS
        asked = fcntl.fcntl(self.fd, GETLK, _lock(WRITE, ahead))
        if struct.unpack_from("h", asked)[0] == UNLOCK:  # the writer ahead is done: no wait at all
            return False
        try:
            self._wait_for(_lock(WRITE, ahead), deadline)
        except Late:
            self.give_back()
            raise
        fcntl.fcntl(self.fd, SETLK, _lock(UNLOCK, ahead))
        return True

    def give_back(self) -> None:
        """This writer's transaction is over: the next in line may go."""
        if self.slot is not None:
            fcntl.fcntl(self.fd, SETLK, _lock(UNLOCK, self.slot))
            self.slot = None

    def close(self) -> None:
        self.give_back()
        os.close(self.fd)
