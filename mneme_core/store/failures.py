"""What a failed SQLite call means for the caller: a full disk, a lock held too long, or SQLite's own error.

SQLite says a disk is full with SQLITE_FULL ("database or disk is full") when writing the file or its `-wal`
fails, but with an I/O error when growing the `-shm` or syncing fails for the same reason; an I/O error on a
disk with no room left is taken for a full disk too. A lock held past the busy timeout is SQLITE_BUSY
("database is locked"). Both become the project's own errors (`DiskFullError`, `BusyError`, see
`mneme_core.errors`), naming the file; anything else is SQLite's error as it was.
"""

from __future__ import annotations

import os
import sqlite3

from ..errors import BusyError, DiskFullError, StorageError

FULL, BUSY, IOERR = 13, 5, 10  # SQLite's primary result codes
ROOM = 64 * 1024  # bytes free below which an I/O error is taken for a full disk


def _code(err: sqlite3.Error) -> int | None:
    code = getattr(err, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def _no_room(path: str) -> bool:
    try:
        found = os.statvfs(os.path.dirname(os.path.abspath(path)))
    except (OSError, AttributeError):  # no statvfs (Windows): only SQLite's own word counts
        return False
    return found.f_bavail * found.f_frsize < ROOM


def is_busy(err: BaseException) -> bool:
    """The file was locked by another connection (SQLite answered busy, at once or after waiting)."""
    if isinstance(err, BusyError):
        return True
    return isinstance(err, sqlite3.OperationalError) and (
        _code(err) == BUSY or "database is locked" in str(err)
    )


def translated(err: BaseException, path: str, busy_timeout: float) -> BaseException:
    """`err` as the project's error when it is a full disk or a lock held too long, else `err` itself."""
    if not isinstance(err, sqlite3.Error) or isinstance(err, StorageError):
        return err
    code = _code(err)
    if code == FULL or "disk is full" in str(err) or (code == IOERR and _no_room(path)):
        return DiskFullError(
            f"the disk holding {path} is full ({err}): nothing of this write was kept; free some space "
            "and write again",
            path,
        )
    if is_busy(err):
        return BusyError(
            f"{path} stayed locked by another connection for more than {busy_timeout:g} s (the busy "
            f"timeout), so this write was not done: {err}",
            path,
        )
    return err
