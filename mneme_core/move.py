"""`mneme move --from A --to B`: a companion's memory from one database to another (a SQLite file and a
PostgreSQL server, either way), every space in it.

What moves is what an export carries (`transfer`), space by space: every note with its key history and the
forgotten ones, the profile cards, the moods and their timelines, the relationships and their closeness over
time, the conversations' lines, the companion's journal, and the config kept in the database. The move is
idempotent because import is: a note is the same note if the same person has one written at the same moment
with the same text, so moving twice (or again after a move that stopped half-way) adds nothing already there.
What the target derives again by itself is not carried: the term index is built as the notes arrive, and
vectors are made by the target's embedder when it is opened with one. The recall log (a trace, not memory)
stays behind.

Nothing is written to the source: it must exist (a file that is not there is refused, never made), and the
target is opened before anything is read, so an unreachable server is refused at once.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from .errors import InvalidValue, describe
from .mneme import Mneme
from .people import spaces
from .store import open_store
from .store.location import is_url, redacted
from .transfer import parse


@dataclass(frozen=True)
class Moved:
    """What one space brought to the target."""

    space: str
    notes: int  # notes in the source's export
    added: int  # of those, how many the target did not have yet
    config: int  # config keys written


def _same(a: str, b: str) -> bool:
    if is_url(a) or is_url(b):
        return a == b
    return os.path.realpath(a) == os.path.realpath(b)


def move(source: str, target: str, *, clock: Callable[[], float] = time.time) -> list[Moved]:
    """Copy every space of `source` into `target` (see the module docstring); returns what each brought."""
    source, target = os.fspath(source), os.fspath(target)
    if _same(source, target):
        raise InvalidValue(f"a move goes from one database to another, not from {describe(source)} to itself")
    if not is_url(source) and not os.path.exists(source):
        raise InvalidValue(f"there is no companion file at {source} to move from")
    # Opened first: a target that cannot be reached is refused before the source is read.
    open_store(target, clock=clock).close()
    store = open_store(source, clock=clock)
    try:
        names = [found.space for found in store.read(spaces)]
    finally:
        store.close()
    moved = []
    for space in names:
        with Mneme(source, space=space, clock=clock, embed="") as there:
            data = there.export_data()
        with Mneme(target, space=space, clock=clock, embed="") as here:
            added = here.import_data(data)
            config = here.config.import_rows(data["config"]).written
        moved.append(Moved(space, len(parse(data).notes), added, config))
    return moved


def where(location: str) -> str:
    """A location for messages (a URL without its password)."""
    return redacted(location) if is_url(location) else location
