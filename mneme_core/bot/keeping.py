"""Where a turn keeps its lines and waiting exchanges: the companion's database, or this process.

A `Mneme` keeps them in its database (`Mneme.transcript`), so a restart keeps the thread and loses no
exchange. The turn service also serves any engine that offers `aprompt` and `aobserve` alone (a host's own
wrapper, a stand-in in tests): for such an engine `InProcess` keeps the same things in memory, with the same
calls and the same rules (a room's context bounded, a person's exchanges claimed oldest first, retries, a
lease), for as long as the process lives. `keeper_of(mneme)` picks the one that fits.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..transcript import ASSISTANT, USER, Line, Waiting
from ..transcript.lines import TEXT_LIMIT

__all__ = ["InProcess", "keeper_of"]


def keeper_of(mneme: Any) -> Any:
    """The engine's transcript when it has one, else an in-process one on the engine's clock."""
    found = getattr(mneme, "transcript", None)
    if found is not None:
        return found
    clock = getattr(mneme, "clock", None)
    return InProcess(clock if callable(clock) else time.time)


@dataclass
class _Entry:
    waiting: Waiting
    next_at: float
    claimed_until: float | None = None


class InProcess:
    """`Transcript`'s calls, kept in this process's memory (see the module docstring)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._lines: list[Line] = []
        self._waiting: list[_Entry] = []
        self._ids = 0

    def _next(self) -> int:
        self._ids += 1
        return self._ids

    async def aadd_line(
        self,
        conversation: str,
        *,
        subject: str,
        text: str,
        name: str | None = None,
        addressed: bool = True,
        keep: int | None = None,
    ) -> Line:
        line = Line(
            self._next(), conversation, subject, USER, name, text[:TEXT_LIMIT], self._clock(), addressed
        )
        self._lines.append(line)
        if keep is not None and not addressed:
            context = [x for x in self._lines if x.conversation == conversation and not x.addressed]
            gone = {x.id for x in context[:-keep]}
            self._lines = [x for x in self._lines if x.id not in gone]
        return line

    async def aadd_reply(
        self,
        conversation: str,
        *,
        text: str,
        reply_to: int | None,
        name: str | None = None,
        observe: str | None = None,
        user_name: str | None = None,
        source: str = "user",
        platform: str | None = None,
    ) -> Line:
        now = self._clock()
        line = Line(self._next(), conversation, None, ASSISTANT, name, text[:TEXT_LIMIT], now, True, reply_to)
        self._lines.append(line)
        said = next((x.text for x in self._lines if x.id == reply_to), None)
        if observe is not None and said is not None:
            found = Waiting(
                self._next(), observe, said, line.text, user_name, source, 0, now, False, platform
            )
            self._waiting.append(_Entry(found, now))
        return line

    async def arecent(
        self, conversation: str, *, before: int | None = None, lines: int = 20, chars: int = 4000
    ) -> list[Line]:
        earlier = [
            x for x in self._lines if x.conversation == conversation and (before is None or x.id < before)
        ]
        found: list[Line] = []
        left = chars
        for line in reversed(earlier[-lines:] if lines else []):
            if len(line.text) > left:
                if not found and left:
                    found.append(replace(line, text=line.text[:left]))
                break
            found.append(line)
            left -= len(line.text)
        return found[::-1]

    def _first(self, subject: str) -> _Entry | None:
        return next((e for e in self._waiting if e.waiting.subject == subject), None)

    @staticmethod
    def _free(entry: _Entry, now: float) -> bool:
        return entry.next_at <= now and (entry.claimed_until is None or entry.claimed_until <= now)

    async def aclaim(self, subject: str, *, lease: float) -> Waiting | None:
        now = self._clock()
        entry = self._first(subject)
        if entry is None or not self._free(entry, now):
            return None
        entry.claimed_until = now + lease
        return entry.waiting

    async def adue(self, *, limit: int = 100) -> list[str]:
        now = self._clock()
        firsts = {}
        for entry in self._waiting:
            firsts.setdefault(entry.waiting.subject, entry)
        return [s for s, e in firsts.items() if self._free(e, now)][:limit]

    def _entry(self, claimed: Waiting) -> _Entry | None:
        return next((e for e in self._waiting if e.waiting.id == claimed.id), None)

    async def adone(self, claimed: Waiting) -> None:
        self._waiting = [e for e in self._waiting if e.waiting.id != claimed.id]

    async def afailed(
        self, claimed: Waiting, error: str, *, retry_in: float, tries: int, moved: bool = False
    ) -> bool:
        entry = self._entry(claimed)
        if entry is None:
            return False
        attempts = entry.waiting.attempts + 1
        if attempts >= tries:
            await self.adone(claimed)
            return True
        entry.waiting = replace(entry.waiting, attempts=attempts, moved=moved)
        entry.next_at, entry.claimed_until = self._clock() + retry_in, None
        return False

    async def arelease(self, claimed: Waiting) -> None:
        entry = self._entry(claimed)
        if entry is not None:
            entry.claimed_until = None
