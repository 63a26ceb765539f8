"""Whose memory a call is about: the served companion, or another space of the same file.

A file may hold several companions (spaces). The app serves one; `?space=` on any route names another,
which is opened on first use with the served one's clock and plugins (and words only unless `mneme serve
--meaning` said otherwise), kept for the app's life and closed with it. A space the file does not hold is
refused rather than made: a typo in a URL must not start a new companion.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import Depends, Query, Request

from ..errors import MnemeError, describe
from ..mneme import Mneme
from ..people import aspaces


class NotFound(MnemeError, LookupError):
    """Nothing of that id or name: a note, a person, a space."""


class Unavailable(MnemeError, NotImplementedError):
    """A part this engine does not have (yet): the health check before `Mneme.acheck`, archived notes."""


class Companions:
    """The served `Mneme`, and the file's other spaces, each opened once when first asked for."""

    def __init__(self, m: Mneme, *, embed: Any = "") -> None:
        self.default = m
        self.embed = embed
        self._open: dict[str, Mneme] = {m.space: m}
        self._owned: list[Mneme] = []
        self._lock = asyncio.Lock()

    @property
    def open(self) -> list[Mneme]:
        return list(self._open.values())

    async def get(self, space: str | None) -> Mneme:
        if space is None or space == self.default.space:
            return self.default
        found = self._open.get(space)
        if found is not None:
            return found
        async with self._lock:
            if space not in self._open:
                known = [s.space for s in await aspaces(self.default)]
                if space not in known:
                    raise NotFound(
                        f"no space {describe(space)} in this file; the spaces are {', '.join(known)}"
                    )
                self._open[space] = opened = await asyncio.to_thread(self._make, space)
                self._owned.append(opened)
            return self._open[space]

    def _make(self, space: str) -> Mneme:
        m = self.default
        return Mneme(m.store.location, space=space, clock=m.clock, plugins=m.plugins, embed=self.embed)

    async def aclose(self) -> None:
        for m in self._owned:
            await m.aclose()
        self._owned.clear()


async def companion(
    request: Request, space: Annotated[str | None, Query(description="Whose memory.")] = None
) -> Mneme:
    """The `Mneme` a call is about: the served space, or the one `space` names."""
    return await request.app.state.companions.get(space)


Companion = Annotated[Mneme, Depends(companion)]
"""A route's parameter for the `Mneme` it is about."""
