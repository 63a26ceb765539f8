"""`/api/recall`, `/api/prompt`, `/api/recalls`: what would be recalled and why, the block a model would
be given, and what was recalled lately.

A look here writes nothing: recall runs with `log=False` and the prompt with `log=False, mark=False`, so
no entry joins the recall log, no note is kept fresh by being looked at, and news of the mood stays untold.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from ..memory import notes
from .companions import Companion
from .models import Block, Chosen, LogEntry, Looked, Recalled, Skipped
from .notes import Kinds, Since, Until, moment

router = APIRouter(tags=["recall"])


@router.get("/recall", response_model=Recalled)
async def recall(
    subject: str,
    m: Companion,
    query: Annotated[str, Query(description="What they said; empty for what matters about them.")] = "",
    limit: Annotated[int, Query(ge=1, le=50)] = 6,
    budget: Annotated[int, Query(ge=0, le=20000)] = 800,
    kind: Kinds = None,
    since: Since = None,
    until: Until = None,
) -> Recalled:
    """What recall would choose for the query, in order, with the score and the reason for each, and what
    it skipped and why (`mneme recall --explain`); nothing is logged."""
    found = await m.arecall(
        subject,
        query,
        limit=limit,
        budget=budget,
        log=False,
        kinds=kind or None,
        since=moment(since, "since", m),
        until=moment(until, "until", m, end=True),
    )
    return Recalled(
        query=found.query,
        tier=found.tier,
        overview=found.overview,
        chosen=[Chosen(note=r.note, score=r.score, why=r.why, matched=list(r.matched)) for r in found.chosen],
        skipped=[Skipped(id=n.id, text=n.text, reason=why) for n, why in found.skipped],
        explain=found.explain(),
    )


@router.get("/prompt", response_model=Block)
async def prompt(
    subject: str,
    m: Companion,
    query: Annotated[str, Query(description="What the person said.")] = "",
    user_name: Annotated[str | None, Query(description="How the block names the person.")] = None,
) -> Block:
    """The block `aprompt` would put in the system prompt for this query, as a model would read it."""
    return Block(block=await m.aprompt(subject, query, user_name=user_name, log=False, mark=False))


def _texts(conn: Any, space: str, ids: list[int]) -> dict[int, str]:
    """The text of each note named that is still in the file."""
    found = (notes.get(conn, space, note_id) for note_id in dict.fromkeys(ids))
    return {note.id: note.text for note in found if note is not None}


@router.get("/recalls", response_model=list[LogEntry])
async def recalls(
    subject: str, m: Companion, limit: Annotated[int, Query(ge=1, le=200)] = 20
) -> list[LogEntry]:
    """What was recalled for the person lately, newest first: the query, what was chosen and skipped and
    why, with each note's text while it is still there (`mneme recalls`)."""
    entries = await run_in_threadpool(m.recalls, subject, limit)
    ids = [note_id for entry in entries for note_id, _ in (*entry["chosen"], *entry["skipped"])]
    texts = await m.store.aread(_texts, m.space, ids)

    def looked(pairs: list[list[Any]]) -> list[Looked]:
        return [Looked(id=note_id, why=why, text=texts.get(note_id)) for note_id, why in pairs]

    return [
        LogEntry(at=e["at"], query=e["query"], chosen=looked(e["chosen"]), skipped=looked(e["skipped"]))
        for e in entries
    ]
