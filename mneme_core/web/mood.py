"""`/api/mood`, `/api/relationship`, `/api/relationships`: how the companion feels about a person and how
it went, who they are to it and how close over time (`mneme mood | relate | relations`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from ..mneme import Mneme
from ..people import acloseness
from ..relations import Relationship
from .companions import Companion
from .models import Count, Mood, Relation, RoleGiven, Whom

router = APIRouter(tags=["mood and relationships"])


async def _mood(m: Mneme, subject: str, limit: int) -> Mood:
    return Mood(
        now=await run_in_threadpool(m.mood, subject),
        line=await m.adescribe_mood(subject),
        timeline=await run_in_threadpool(m.mood_timeline, subject, limit),
    )


@router.get("/mood", response_model=Mood)
async def mood(subject: str, m: Companion, limit: Annotated[int, Query(ge=1, le=500)] = 40) -> Mood:
    """The mood now (decay applied), in a line, and its last changes, newest first, with who judged them."""
    return await _mood(m, subject, limit)


@router.post("/mood/reset", response_model=Mood)
async def reset(body: Whom, m: Companion) -> Mood:
    """Back to the baseline, timeline cleared (`mneme mood --reset`)."""
    await run_in_threadpool(m.reset_mood, body.subject)
    return await _mood(m, body.subject, 40)


async def _relation(m: Mneme, subject: str) -> Relation:
    return Relation(
        relationship=await run_in_threadpool(m.relationship, subject),
        history=await acloseness(m, subject),
    )


@router.get("/relationship", response_model=Relation)
async def relationship(subject: str, m: Companion) -> Relation:
    """Who the person is to the companion and how close now (fade applied), and closeness over time."""
    return await _relation(m, subject)


@router.put("/relationship", response_model=Relation)
async def relate(body: RoleGiven, m: Companion) -> Relation:
    """Give the person a role, at a closeness inside its band or the role's start (`mneme relate`)."""
    await run_in_threadpool(lambda: m.relate(body.subject, body.role, closeness=body.closeness))
    return await _relation(m, body.subject)


@router.delete("/relationship", response_model=Count)
async def unrelate(subject: str, m: Companion) -> Count:
    """The person no longer has a role (`mneme relate --remove`); 1 if they had one."""
    return Count(count=int(await run_in_threadpool(m.unrelate, subject)))


@router.get("/relationships", response_model=list[Relationship])
async def relationships(m: Companion) -> list[Relationship]:
    """Everyone with a role, closest first (`mneme relations`)."""
    return await run_in_threadpool(m.relationships)
