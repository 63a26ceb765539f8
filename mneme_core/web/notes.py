"""`/api/notes`, `/api/history`, `/api/keys`, `/api/purge`: a person's notes, kept, corrected, forgotten.

Every write is the engine's verb, as `mneme remember | forget | purge` and the MCP `update` tool call it,
so validation, `filter_note` and `track_event` apply alike; notes written here have the source "web" (a
person's hand: never under the daily quota for model-written notes).
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from starlette.concurrency import run_in_threadpool

from .. import dates
from ..errors import InvalidValue, describe
from ..memory.note import Note
from ..mneme import Mneme
from .companions import Companion, NotFound, Unavailable
from .models import Count, Kept, NewNote, NoteChange, NotesPage, Purge
from .problems import NOT_YET

router = APIRouter(tags=["notes"])
SOURCE = "web"
DAY = 86400.0
# An id SQLite can hold (a larger one would overflow inside the engine rather than find nothing).
NoteId = Annotated[int, Path(ge=1, le=2**63 - 1, description="The note's id, like 42.")]
Kinds = Annotated[list[str] | None, Query(description="Only these kinds (repeat for several).")]
Since = Annotated[str | None, Query(description="Happened on or after this day (YYYY-MM-DD) or time (s).")]
Until = Annotated[str | None, Query(description="Happened up to this day included, or before this time.")]


def moment(value: str | None, field: str, m: Mneme, *, end: bool = False) -> float | None:
    """A day (YYYY-MM-DD, the start of it in the companion's zone; for the `end` of a range, the start of
    the next, so the day counts) or a time in seconds."""
    if value is None or value == "":
        return None
    zone = m.settings.zone
    noon = dates.noon(value, zone)
    if noon is not None:
        return dates.day_start(noon + DAY if end else noon, zone)
    try:
        return float(value)
    except ValueError:
        raise InvalidValue(
            f"{field} is a day like 2024-03-01 or a time in seconds, not {describe(value)}"
        ) from None


def happened(m: Mneme, day: str | None, seconds: float | None) -> float | None:
    """When a note happened: `date` as the CLI's --date takes it (noon that day), or `happened_at`."""
    if day is not None and seconds is not None:
        raise InvalidValue("give date or happened_at, not both")
    if day is None:
        return seconds
    found = dates.noon(day, m.settings.zone)
    if found is None:
        raise InvalidValue(f"date is a day like 2026-09-17, not {describe(day)}")
    return found


@router.get("/notes", response_model=NotesPage, responses=NOT_YET)
async def listing(
    subject: str,
    m: Companion,
    kind: Kinds = None,
    key_prefix: Annotated[str | None, Query(description="Keys starting with this, like user.")] = None,
    since: Since = None,
    until: Until = None,
    history: Annotated[bool, Query(description="Replaced and forgotten notes too.")] = False,
    archived: Annotated[
        bool, Query(description="Only the archive: notes that faded or the cap let go.")
    ] = False,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
) -> NotesPage:
    """A person's notes, newest first, filtered and paged (`Mneme.anotes`)."""
    options: dict[str, Any] = {
        "kinds": kind or None,
        "key_prefix": key_prefix or None,
        "since": moment(since, "since", m),
        "until": moment(until, "until", m, end=True),
        "history": history,
        "limit": limit + 1,
        "offset": offset,
    }
    if archived:
        if "archived" not in inspect.signature(m.anotes).parameters:
            raise Unavailable("archived notes are not available in this version of the engine")
        options["archived"] = True
    found = await m.anotes(subject, **options)
    more = len(found) > limit
    return NotesPage(notes=found[:limit], next_offset=offset + limit if more else None)


async def _note(m: Mneme, note_id: int) -> Note:
    found = await run_in_threadpool(m.get, note_id)
    if found is None:
        raise NotFound(f"there is no note #{note_id} in {m.space!r}")
    return found


@router.get("/notes/{note_id}", response_model=Note)
async def one(note_id: NoteId, m: Companion) -> Note:
    """One note by id, live or not."""
    return await _note(m, note_id)


@router.post("/notes", response_model=Kept)
async def remember(body: NewNote, m: Companion) -> Kept:
    """Keep a note (`mneme remember`): kept, replaced (same key), known (already said), or vetoed."""
    outcome, note = await m.akeep(
        body.subject,
        body.text,
        kind=body.kind,
        key=body.key,
        importance=body.importance,
        feeling=body.feeling,
        happened_at=happened(m, body.date, body.happened_at),
        source=SOURCE,
    )
    return Kept(outcome=outcome, note=note)


@router.put("/notes/{note_id}", response_model=Kept)
async def update(note_id: NoteId, body: NoteChange, m: Companion) -> Kept:
    """Correct a live note (`Mneme.update`): a new version takes its place and the old one stays in its
    history; the kind, importance and time stay as they were unless given."""
    note = await _note(m, note_id)
    outcome, now = await m.arevise(
        note.subject,
        note_id,
        body.text,
        kind=body.kind,
        importance=body.importance,
        happened_at=happened(m, body.date, body.happened_at),
        source=SOURCE,
    )
    if outcome == "no such note":
        raise NotFound(
            f"note #{note_id} is not live any more (replaced or forgotten): correct its newest version"
        )
    return Kept(outcome=outcome, note=now)


@router.delete("/notes/{note_id}", response_model=Count)
async def forget(note_id: NoteId, m: Companion) -> Count:
    """Forget a note (`mneme forget --id`): hidden, kept in its key's history until purge."""
    note = await _note(m, note_id)
    count = await m.aforget(note.subject, id=note_id)
    if count == 0:
        raise NotFound(f"note #{note_id} is not live any more (replaced or forgotten)")
    return Count(count=count)


@router.delete("/keys", response_model=Count)
async def forget_key(subject: str, key: str, m: Companion) -> Count:
    """Forget the live note of a key (`mneme forget --key`); 0 when none was live."""
    return Count(count=await m.aforget(subject, key=key))


@router.get("/history", response_model=list[Note])
async def history(subject: str, key: str, m: Companion) -> list[Note]:
    """Every version of a key, replaced and forgotten ones included, oldest first (`mneme history`)."""
    return await run_in_threadpool(m.history, subject, key)


@router.post("/purge", response_model=Count)
async def purge(body: Purge, m: Companion) -> Count:
    """Erase hidden and replaced notes for good (`mneme purge`), of one person or everyone."""
    return Count(count=await run_in_threadpool(m.purge, body.subject))
