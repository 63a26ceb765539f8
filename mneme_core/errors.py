"""The project's errors.

Every error Mneme raises on purpose is a `MnemeError`. Where callers already expect a builtin (a wrong value
is a `ValueError`, a wrong type a `TypeError`) the error is both, so `except ValueError` keeps working. Each
message names the value it refuses and what would have been allowed.
"""

from __future__ import annotations


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


def describe(value: object, limit: int = 60) -> str:
    """A short repr of a refused value for an error message (never a whole novel)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
