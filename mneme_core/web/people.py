"""`/api/people`, `/api/person`, `/api/profile`: who the companion knows, one person whole, erasing them."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from .. import people
from ..errors import InvalidValue, describe
from ..mneme import Mneme
from .companions import Companion, NotFound
from .models import Card, Count, PeoplePage, Someone

router = APIRouter(tags=["people"])
ERASE_RULE = "erase removes everything about a person for good: add yes=true"


@router.get("/people", response_model=PeoplePage)
async def listing(
    m: Companion,
    q: Annotated[str, Query(description="A piece of the subject or the name.")] = "",
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
) -> PeoplePage:
    """The people the companion knows, newest activity first, with their live notes, when last seen,
    their role and closeness, and the mood now."""
    found = await people.apeople(m, q, limit=limit, offset=offset)
    return PeoplePage(total=found.total, people=found.people)


async def someone(m: Mneme, subject: str) -> Someone:
    found = await people.aperson(m, subject)
    if found is None:
        raise NotFound(f"the companion {m.space!r} has nothing of {describe(subject)}")
    return Someone(
        person=found,
        profile=await run_in_threadpool(m.profile, subject),
        mood=await m.adescribe_mood(subject),
        relationship=await run_in_threadpool(m.relationship, subject),
        keys=await people.akeys(m, subject),
    )


@router.get("/person", response_model=Someone)
async def person(subject: str, m: Companion) -> Someone:
    """One person: as the list shows them, their profile card, the mood in a line, their role, their keys."""
    return await someone(m, subject)


@router.delete("/person", response_model=Count)
async def erase(subject: str, m: Companion, yes: bool = False) -> Count:
    """Everything about the person, for good (`mneme erase --yes`): notes, history, mood, role, lines."""
    if not yes:
        raise InvalidValue(ERASE_RULE)
    return Count(count=await m.aerase(subject))


@router.put("/profile", response_model=Someone)
async def profile(body: Card, m: Companion) -> Someone:
    """Set the short profile card shown above the person's notes (null or blank removes it)."""
    await run_in_threadpool(m.set_profile, body.subject, body.card)
    return await someone(m, body.subject)
