"""`/api/config`, `/api/export`, `/api/check`: the companion's settings, all of its memory as JSON, and
the health check's findings and fixes.

A key is set as `mneme config set` sets it (`Config.set`, each key's own check; as text it is read by the
same `keys.parse`), and the running companion takes it when it next starts, as after the CLI. The health
check is `Mneme.acheck()` (`mneme check`): its findings as `as_dict()` gives them, fixed with `fix` at the
space's `check.confidence`.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from ..config import keys
from ..errors import InvalidValue
from ..memory.note import subject_of
from ..mneme import Mneme
from .companions import Companion
from .models import Checked, CheckRun, ConfigRow, ConfigShown, Setting, Stored

router = APIRouter(tags=["config and health"])


@router.get("/config", response_model=ConfigShown)
async def show(
    m: Companion, prefix: Annotated[str, Query(description="Like mood or prompts.")] = ""
) -> ConfigShown:
    """Every key in effect with where its value came from (`mneme config show --origins`), and as TOML."""
    text = await run_in_threadpool(m.config.to_toml, prefix)
    rows = await run_in_threadpool(m.config.rows)
    wanted = [r for r in rows if not prefix or r.key == prefix or r.key.startswith(prefix + ".")]
    return ConfigShown(rows=[ConfigRow(**dataclasses.asdict(r)) for r in wanted], toml=text)


@router.put("/config", response_model=Stored)
async def set_key(body: Setting, m: Companion) -> Stored:
    """Change one key: `value` as JSON, or `text` as the command line gives it (`mneme config set`)."""
    given = "value" in body.model_fields_set
    if given == (body.text is not None):
        raise InvalidValue("config set takes a value or a text, not both or neither")
    value = body.value if given else keys.parse(body.key, body.text or "")
    stored = await run_in_threadpool(m.config.set, body.key, value)
    return Stored(key=body.key, value=stored)


@router.get("/export", response_model=dict[str, Any])
async def export(m: Companion) -> dict[str, Any]:
    """The companion's memory as one JSON document (`mneme export`): every note, history included."""
    return await run_in_threadpool(m.export_data)


async def _run_check(m: Mneme, subject: str | None, fix: bool) -> Checked:
    who = None if subject is None else subject_of(subject)
    confidence = await run_in_threadpool(m.config.get, "check.confidence")
    result = await m.acheck(who, fix=fix, confidence=confidence)
    plain = result.as_dict()
    return Checked(fixed=fix, findings=plain.pop("findings"), summary=plain)


@router.get("/check", response_model=Checked)
async def check(m: Companion, subject: str | None = None) -> Checked:
    """What the health check finds (duplicates, contradictions, broken or injection-looking notes), with
    the fix it proposes for each; nothing is changed."""
    return await _run_check(m, subject, False)


@router.post("/check", response_model=Checked)
async def fix(body: CheckRun, m: Companion) -> Checked:
    """Run the health check and, with `fix`, apply its fixes (each recorded, reversible from history)."""
    return await _run_check(m, body.subject, body.fix)
