"""The project's errors.

Every error Mneme raises on purpose is a `MnemeError`. Where callers already expect a builtin (a wrong value
is a `ValueError`, a wrong type a `TypeError`) the error is both, so `except ValueError` keeps working. Each
message names the value it refuses and what would have been allowed.
"""

from __future__ import annotations

import sqlite3


class MnemeError(Exception):
    """Base of every error Mneme raises on purpose."""


class InvalidValue(MnemeError, ValueError):
    """A value of the right type that is not allowed (a blank subject, an unknown kind, a time in ms)."""


class InvalidType(MnemeError, TypeError):
    """A value of the wrong type (text that is not a string)."""


class SchemaError(MnemeError, RuntimeError):
    """The database file cannot be used by this version (written by a newer one, or not a Mneme file)."""


class ClosedError(MnemeError, RuntimeError):
    """The `Mneme` was closed and cannot be used any more."""


class StorageError(MnemeError, sqlite3.OperationalError):
    """The database file could not be written or read for a reason outside Mneme; `path` names the file.

    Also a `sqlite3.OperationalError`, which is what SQLite raised before: code that catches SQLite's errors
    (`except sqlite3.Error`, as the recall log's writer and any caller written against SQLite do) keeps
    working, and the original error is chained as `__cause__`. Not an `OSError`: the failure comes through
    SQLite, which reports no errno."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


class DiskFullError(StorageError):
    """The disk holding the file (or its -wal, -shm) is full: nothing of the failed write was kept."""


class BusyError(StorageError):
    """Another connection held the file's write lock for longer than the busy timeout."""


def describe(value: object, limit: int = 60) -> str:
    """A short repr of a refused value for an error message (never a whole novel)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
