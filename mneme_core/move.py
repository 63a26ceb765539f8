"""`mneme move --from A --to B`: a companion's memory from one database to another (a SQLite file and a
PostgreSQL server, either way), every space in it.

What moves is what an export carries (`transfer`), space by space: every note with its key history and the
forgotten ones, the profile cards, the moods and their timelines, the relationships and their closeness over
time, the conversations' lines, the companion's journal, and the config kept in the database. The move is
idempotent because import is: a note is the same note if the same person has one written at the same moment
with the same text, so moving twice (or again after a move that stopped half-way) adds nothing already there.
The term index is not carried: it is built as the notes arrive.

Beside the export, a move carries what only a database holds (`_held`, `_bring`), with each note id turned
into the target's (the same note by import's rule: the person, the moment it was written, its text):
- the notes' vectors, of every embedder, so the target's embedder has nothing to embed again (a paid model's
  calls). An embedder whose name the target has with other dimensions keeps the target's: those notes are
  embedded again there, as on a file whose embedder changed. The transcript lines' vectors are made again
  by the embedder's catch-up (a line has no identity across databases to match it by);
- the recall log (what each recall chose and skipped, and why: what `explain` and the web page show of
  the past), an entry the target has already (the person, the moment, the query) not twice; an entry's
  notes that did not come along are left out of it.

Nothing is written to the source: it must exist (a file that is not there is refused, never made), and the
target is opened before anything is read, so an unreachable server is refused at once.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import InvalidValue, describe
from .meaning import vectors
from .meaning.embeddings import EmbeddingError
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
    vectors: int = 0  # notes' vectors written (again, on a second move: the same bytes)
    recalls: int = 0  # recall-log entries the target did not have yet


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
            held = there.store.read(_held, space)
        with Mneme(target, space=space, clock=clock, embed="") as here:
            added = here.import_data(data)
            config = here.config.import_rows(data["config"]).written
            vectors, recalls = here.store.write(_bring, space, held, clock())
        moved.append(Moved(space, len(parse(data).notes), added, config, vectors, recalls))
    return moved


@dataclass
class _Held:
    """What a space's database holds beside its export, by the source's note ids."""

    notes: dict[tuple[str, float, str], int]  # (person, written at, text) -> note id
    embedders: dict[int, tuple[str, int]]  # id -> (name, dimensions)
    vectors: list[tuple[int, int, bytes]]  # (note id, embedder id, float32 bytes)
    recalls: list[tuple[str, float, str, str, str]]  # (person, at, query, chosen, skipped)


_OF_SPACE = "join subjects s on s.id = n.subject_id where s.space = ?"


def _notes_of(conn: Any, space: str) -> dict[tuple[str, float, str], int]:
    return {
        (subject, created, text): note_id
        for note_id, subject, created, text in conn.execute(
            f"select n.id, s.subject, n.created_at, n.text from notes n {_OF_SPACE}", (space,)
        )
    }


def _held(conn: Any, space: str) -> _Held:
    return _Held(
        _notes_of(conn, space),
        {eid: (name, dims) for eid, name, dims in conn.execute("select id, name, dimensions from embedders")},
        [
            (note_id, eid, bytes(blob))
            for note_id, eid, blob in conn.execute(
                "select v.note_id, v.embedder_id, v.vector from vectors v join subjects s "
                "on s.id = v.subject_id where s.space = ? order by v.note_id",
                (space,),
            )
        ],
        conn.execute(
            "select s.subject, r.at, r.query, r.chosen, r.skipped from recalls r join subjects s "
            "on s.id = r.subject_id where s.space = ? order by r.id",
            (space,),
        ).fetchall(),
    )


def _bring(conn: Any, space: str, held: _Held, now: float) -> tuple[int, int]:
    """The held vectors and recall log written into the target (in the import's space); returns (vectors
    written, recall entries added)."""
    here = _notes_of(conn, space)
    ids = {there: here[key] for key, there in held.notes.items() if key in here}
    sids = dict(conn.execute(f"select n.id, n.subject_id from notes n {_OF_SPACE}", (space,)).fetchall())
    written = 0
    for eid, (name, dims) in held.embedders.items():
        rows = [(ids[n], sids[ids[n]], blob) for n, e, blob in held.vectors if e == eid and n in ids]
        if not rows:
            continue
        try:
            written += vectors.store_vectors(conn, name, rows, dims, now)
        except EmbeddingError:  # the target's embedder of that name has other dimensions: it embeds them
            continue
    people = dict(conn.execute("select subject, id from subjects where space = ?", (space,)).fetchall())
    have = {
        (sid, at, query)
        for sid, at, query in conn.execute(
            "select r.subject_id, r.at, r.query from recalls r join subjects s on s.id = r.subject_id "
            "where s.space = ?",
            (space,),
        )
    }
    added = 0
    for subject, at, query, chosen, skipped in held.recalls:
        sid = people.get(subject)
        if sid is None or (sid, at, query) in have:
            continue
        mapped = [
            json.dumps([[ids[e[0]], *e[1:]] for e in json.loads(part) if e[0] in ids], ensure_ascii=False)
            for part in (chosen, skipped)
        ]
        conn.execute(
            "insert into recalls(subject_id, at, query, chosen, skipped) values (?, ?, ?, ?, ?)",
            (sid, at, query, *mapped),
        )
        have.add((sid, at, query))
        added += 1
    return written, added


def where(location: str) -> str:
    """A location for messages (a URL without its password)."""
    return redacted(location) if is_url(location) else location
