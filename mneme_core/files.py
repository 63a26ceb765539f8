"""The files people hand Mneme (a config, an export, a prompt) and the ones it writes for them (an export).

A file given by hand is where a first hour goes wrong: saved as Latin-1 or GBK by an old editor, a folder
that is not there, a disk that refuses the write. Each of those is a `FileRefused` here, one line naming
the file and what to do, never a traceback from deep inside a parser: `café` in Latin-1 is the byte 0xe9,
which UTF-8 cannot start a character with, and the message says where it is.
"""

from __future__ import annotations

import os

from .errors import InvalidValue

__all__ = ["FileRefused", "decoded", "read_text", "write_text"]


class FileRefused(InvalidValue):
    """A file that cannot be read or written as asked; the message names it and says why."""


def decoded(data: bytes, name: str) -> str:
    """`data` as UTF-8 text (a leading byte-order mark dropped), or `FileRefused` saying where it is not."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        byte = data[err.start : err.start + 1].hex()
        raise FileRefused(
            f"{name} is not UTF-8 text (byte 0x{byte} at position {err.start}, in another encoding such as "
            "Latin-1 or GBK): save it as UTF-8"
        ) from err


def read_text(path: str | os.PathLike[str], what: str = "file") -> str:
    """The text of a file given by hand, or `FileRefused`: not there, not readable, or not UTF-8."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as file:
            data = file.read()
    except FileNotFoundError as err:
        raise FileRefused(f"{name}: no such {what}") from err
    except IsADirectoryError as err:
        raise FileRefused(f"{name} is a folder, not a {what}") from err
    except OSError as err:
        raise FileRefused(f"{name} cannot be read: {err.strerror or err}") from err
    return decoded(data, name)


def write_text(path: str | os.PathLike[str], text: str) -> int:
    """Write `text` as UTF-8 to `path` (its folder must exist); returns the bytes written, or `FileRefused`
    naming the file and why it cannot be written (no such folder, not allowed, a full disk)."""
    name = os.fspath(path)
    data = text.encode("utf-8")
    try:
        with open(name, "wb") as file:
            file.write(data)
    except FileNotFoundError as err:
        folder = os.path.dirname(os.path.abspath(name))
        raise FileRefused(f"{name} cannot be written: there is no folder {folder}") from err
    except OSError as err:
        raise FileRefused(f"{name} cannot be written: {err.strerror or err}") from err
    return len(data)
