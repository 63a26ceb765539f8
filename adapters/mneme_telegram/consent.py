"""Who opted out: Telegram users the companion neither reads, remembers nor answers.

Stored durably in the companion's own config, under `adapters.telegram.opted_out` (a list of user ids as
strings), not in a table of this package's: the config is already in the companion's file, travels with
`export_data` and `mneme config show adapters.telegram` shows it, and an `erase` (which removes what the
companion knows of a person) leaves it alone, as it should: a person's wish not to be remembered must
outlive the forgetting. It is keyed by the Telegram user id, not by the subject, so it holds even when a
`resolve_subject` plugin links the account to a person on another platform.

The list is read once, when the middleware is installed, and kept in memory; each change is written at
once, one at a time, on a worker thread (the config's writes are the plain kind), so the event loop never
waits on SQLite.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

__all__ = ["KEY", "OptOuts"]

log = logging.getLogger(__name__)

KEY = "adapters.telegram.opted_out"


class OptOuts:
    """The set of opted-out user ids, over the companion's config (`key`)."""

    def __init__(self, mneme: Any, key: str = KEY) -> None:
        self.mneme = mneme
        self.key = key
        stored = mneme.config.get(key)
        if stored is not None and not isinstance(stored, list):
            log.warning("%s should be a list of Telegram user ids; ignoring %r", key, stored)
            stored = None
        self._ids: set[str] = {str(found) for found in stored or ()}
        self._lock = asyncio.Lock()

    def __contains__(self, user_id: object) -> bool:
        return str(user_id) in self._ids

    def __len__(self) -> int:
        return len(self._ids)

    async def add(self, user_id: str | int) -> bool:
        """Opt a user out; False if they already were."""
        return await self._change(str(user_id), True)

    async def remove(self, user_id: str | int) -> bool:
        """Opt a user back in; False if they were not out."""
        return await self._change(str(user_id), False)

    async def _change(self, user_id: str, out: bool) -> bool:
        async with self._lock:  # one write at a time, so the last one written is the latest set
            if (user_id in self._ids) == out:
                return False
            wanted = self._ids | {user_id} if out else self._ids - {user_id}
            await asyncio.to_thread(self.mneme.config.set, self.key, sorted(wanted))
            self._ids = wanted
            return True
