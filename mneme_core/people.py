"""The people a companion knows, as a page lists them: who, how much is remembered, when last seen.

Read helpers for a person looking at the memory (the web page, `mneme serve`), beside the facade's verbs
rather than in it: each is a transaction function of a connection, and an async function of a `Mneme` that
runs it on the store's reader (`apeople(m)`), so the event loop never waits on SQLite.

- A person is anyone the companion has a row for in this space: a note, a mood, a role, a line said. Their
  name is the one they last spoke under (the transcript keeps it); `last_seen` is their last line or the
  last contact their relationship counted, whichever is newer; `last_note` when their newest note was
  written.
- The list is newest activity first (a line, a note, a contact, a role given), filtered by a piece of the
  subject or the name, and paged in SQL; the count of all that match comes with the page. Each person costs
  a few lookups (their newest line, their newest note, their role) and their mood on the page, and the
  order needs them for everyone: with 10,000 people of 20 notes a page takes 115 ms median, 12 ms when a
  search narrows it, 3 ms with 100 people (`benchmarks/web.py`).
- A person's keys, for their histories: each key with how many versions it has and whether one is live.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import relations
from .errors import InvalidValue, describe
from .memory.note import count_of, subject_of
from .memory.notes import subject_id
from .mood import moods as mood_store
from .mood.settings import MoodSettings
from .relations import Closeness, RelationSettings

if TYPE_CHECKING:
    from .mneme import Mneme

__all__ = [
    "Key",
    "People",
    "Person",
    "Space",
    "acloseness",
    "akeys",
    "apeople",
    "aperson",
    "aspaces",
    "keys",
    "people",
    "spaces",
]

SEARCH_LIMIT = 200


@dataclass(frozen=True)
class Person:
    """One person as the list shows them: mood and closeness as they are now (decay and fade applied)."""

    subject: str
    name: str | None
    notes: int
    last_seen: float | None
    last_note: float | None
    role: str | None
    closeness: float | None
    mood: float
    face: str


@dataclass(frozen=True)
class People:
    """A page of the list, and how many people match in all."""

    total: int
    people: list[Person]


@dataclass(frozen=True)
class Key:
    """One of a person's keys: its versions (replaced and forgotten ones included), whether one is live."""

    key: str
    versions: int
    live: bool
    changed_at: float


@dataclass(frozen=True)
class Space:
    """One companion kept in the file: how many people it knows and their live notes."""

    space: str
    people: int
    notes: int


@dataclass(frozen=True)
class _Now:
    """What turns stored values into values now: the time and the settings that decay and fade them."""

    now: float
    relations: RelationSettings
    mood: MoodSettings


ROWS = """
with known as (
    select s.id, s.subject, s.live,
        (select l.name from lines l where l.subject_id = s.id and l.name is not null
         order by l.id desc limit 1) as name,
        (select l.at from lines l where l.subject_id = s.id order by l.id desc limit 1) as spoke,
        (select max(n.created_at) from notes n where n.subject_id = s.id) as noted,
        r.role, r.closeness, r.updated_at, r.last_seen
    from subjects s left join relationships r on r.subject_id = s.id
    where s.space = :space {only}
)
select id, subject, live, name, spoke, noted, role, closeness, updated_at, last_seen, count(*) over ()
from known
where :q = '' or instr(lower(subject), :q) > 0 or instr(lower(coalesce(name, '')), :q) > 0
order by max(coalesce(spoke, 0), coalesce(last_seen, 0), coalesce(noted, 0), coalesce(updated_at, 0)) desc,
    id desc
limit :limit offset :offset
"""


def _person(conn: sqlite3.Connection, space: str, row: tuple[Any, ...], at: _Now) -> Person:
    _, subject, live, name, spoke, noted, role, closeness, updated_at, last_seen = row[:10]
    seen = max((t for t in (spoke, last_seen) if t is not None), default=None)
    if role is not None:
        band = at.relations.role_of(role)
        closeness = round(relations.faded(band, closeness, updated_at, at.now, at.relations.fade_days), 2)
    mood = mood_store.state(conn, space, subject, at.now, at.mood)
    return Person(subject, name, live, seen, noted, role, closeness, round(mood.value, 2), mood.face)


def people(
    conn: sqlite3.Connection, space: str, at: _Now, query: str = "", limit: int = 50, offset: int = 0
) -> People:
    """A page of the people of `space`, newest activity first; `query` keeps those whose subject or name
    holds it (letters in any case)."""
    rows = conn.execute(
        ROWS.format(only=""),
        {"space": space, "q": query.lower(), "limit": limit, "offset": offset},
    ).fetchall()
    total = rows[0][10] if rows else _count(conn, space, query, offset)
    return People(total, [_person(conn, space, row, at) for row in rows])


def _count(conn: sqlite3.Connection, space: str, query: str, offset: int) -> int:
    """How many match, for a page past the end (it has no row to carry the count)."""
    if offset == 0:
        return 0
    row = conn.execute(
        ROWS.format(only=""), {"space": space, "q": query.lower(), "limit": 1, "offset": 0}
    ).fetchone()
    return row[10] if row else 0


def person(conn: sqlite3.Connection, space: str, subject: str, at: _Now) -> Person | None:
    """One person, or None when the companion has nothing of them."""
    row = conn.execute(
        ROWS.format(only="and s.subject = :subject"),
        {"space": space, "subject": subject, "q": "", "limit": 1, "offset": 0},
    ).fetchone()
    return None if row is None else _person(conn, space, row, at)


def keys(conn: sqlite3.Connection, space: str, subject: str) -> list[Key]:
    """A person's keys, the most lately changed first."""
    sid = subject_id(conn, space, subject)
    if sid is None:
        return []
    rows = conn.execute(
        "select key, count(*), "
        "max(case when deleted_at is null and superseded_by is null then 1 else 0 end), max(created_at) "
        "from notes where subject_id = ? and key is not null group by key order by max(id) desc",
        (sid,),
    ).fetchall()
    return [Key(key, versions, bool(live), changed) for key, versions, live, changed in rows]


def spaces(conn: sqlite3.Connection) -> list[Space]:
    """Every companion kept in the file (a space with a config or a person), by name."""
    rows = conn.execute(
        "select space, count(*), coalesce(sum(live), 0) from subjects group by space "
        "union all select distinct space, 0, 0 from config where space not in (select space from subjects) "
        "order by 1"
    ).fetchall()
    return [Space(space, count, live) for space, count, live in rows]


# -- on a Mneme ---------------------------------------------------------------------------------------------


def _now(m: Mneme) -> _Now:
    return _Now(m._now(), m.relation_settings, m.mood_settings)


def _search(query: object) -> str:
    if not isinstance(query, str) or len(query) > SEARCH_LIMIT:
        raise InvalidValue(f"a search is text of at most {SEARCH_LIMIT} characters, not {describe(query)}")
    return query.strip()


async def apeople(m: Mneme, query: str = "", *, limit: int = 50, offset: int = 0) -> People:
    """A page of the people `m` knows (see `people`)."""
    query = _search(query)
    count_of("limit", limit, low=1)
    count_of("offset", offset)
    return await m.store.aread(people, m.space, _now(m), query, limit, offset)


async def aperson(m: Mneme, subject: str) -> Person | None:
    return await m.store.aread(person, m.space, subject_of(subject), _now(m))


async def akeys(m: Mneme, subject: str) -> list[Key]:
    return await m.store.aread(keys, m.space, subject_of(subject))


async def acloseness(m: Mneme, subject: str, limit: int = relations.POINTS) -> list[Closeness]:
    """The person's closeness over time, oldest first (`relations.history`)."""
    count_of("limit", limit, low=1)
    return await m.store.aread(relations.history, m.space, subject_of(subject), limit)


async def aspaces(m: Mneme) -> list[Space]:
    return await m.store.aread(spaces)
