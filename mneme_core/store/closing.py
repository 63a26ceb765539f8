"""Closing a store, written once for both backends: the store's threads finish what they were given (within
`CLOSE_WAIT`; at interpreter exit not waited for at all, since no thread may be started or joined then),
then every connection the store opened is closed, even when stopping a thread failed.

A backend gives `_closing()` (what stops before its threads, like SQLite's checkpointer) and
`_close_owned()` (its connections, and whatever else it owns); `_writer` and `_readers` are its
`workers.Workers`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..errors import ClosedError

__all__ = ["CLOSE_WAIT", "Closing"]

CLOSE_WAIT = 10.0
"""The longest a close waits for the store's threads to finish what they were given."""


class Closing:
    _closed: bool
    _writer: Any
    _readers: Any
    path: str

    @property
    def closed(self) -> bool:
        return self._closed

    def _open_or_raise(self) -> None:
        if self._closed:
            raise ClosedError(f"the store for {self.path} is closed")

    def close(self) -> None:
        """Wait for the work under way (within `CLOSE_WAIT`), then close every connection."""
        if self._closed:
            return
        self._closed = True
        self._shut(CLOSE_WAIT)

    async def aclose(self) -> None:
        """`close`, waiting off the event loop."""
        if self._closed:
            return
        self._closed = True
        await asyncio.to_thread(self._shut, CLOSE_WAIT)

    def close_at_exit(self) -> None:
        """`close` for an interpreter that is exiting, which may start and join no thread (Python 3.12
        refuses): the store's idle daemon threads are told to end, and end with the process."""
        if self._closed:
            return
        self._closed = True
        self._shut(None)

    def _shut(self, wait: float | None) -> None:
        self._closing()
        try:
            for workers in dict.fromkeys((self._writer, self._readers)):  # a file's are one
                workers.stop(wait)
        finally:
            self._close_owned()

    def _closing(self) -> None:
        """What stops before the threads do (nothing, unless the backend says)."""

    def _close_owned(self) -> None:
        raise NotImplementedError
