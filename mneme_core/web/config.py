"""`/api/config`, `/api/export`, `/api/check`: the companion's settings, all of its memory as JSON, and
the health check's findings and fixes.

A key is set as `mneme config set` sets it (`Config.set`, each key's own check; as text it is read by the
same `keys.parse`), and the running companion takes it when it next starts, as after the CLI. The health
check is `Mneme.acheck()` where the engine has it; until then the route answers 501 and the page says
the check is not available.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from ..config import keys
from ..errors import InvalidValue
from ..memory.note import subject_of
from ..mneme import Mneme
from .companions import Companion, Unavailable
from .models import Checked, CheckRun, ConfigRow, ConfigShown, Setting, Stored
from .problems import NOT_YET

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


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: _plain(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    return value


def checked(result: Any, fixed: bool) -> Checked:
    """The check's answer as JSON whatever its shape: its findings (a list, or a `findings` field), and
    the rest of it as the summary."""
    plain = _plain(result)
    if isinstance(plain, list):
        findings, summary = plain, {}
    elif isinstance(plain, dict):
        findings = plain.pop("findings", [])
        summary = plain
    else:
        findings, summary = [], {"result": plain}
    rows = [f if isinstance(f, dict) else {"finding": f} for f in findings]
    return Checked(fixed=fixed, findings=rows, summary=summary)


async def _run_check(m: Mneme, subject: str | None, fix: bool) -> Checked:
    check = getattr(m, "acheck", None)
    if not callable(check):
        raise Unavailable("the health check is not available in this version of the engine")
    takes = inspect.signature(check).parameters
    options: dict[str, Any] = {}
    if "fix" in takes:
        options["fix"] = fix
    elif fix:
        raise Unavailable("this engine's health check cannot fix what it finds")
    if subject is not None:
        if "subject" not in takes:
            raise Unavailable("this engine's health check runs on everyone, not one person")
        options["subject"] = subject_of(subject)
    return checked(await check(**options), fix)


@router.get("/check", response_model=Checked, responses=NOT_YET)
async def check(m: Companion, subject: str | None = None) -> Checked:
    """What the health check finds (duplicates, contradictions, broken or injection-looking notes), with
    the fix it proposes for each; nothing is changed."""
    return await _run_check(m, subject, False)


@router.post("/check", response_model=Checked, responses=NOT_YET)
async def fix(body: CheckRun, m: Companion) -> Checked:
    """Run the health check and, with `fix`, apply its fixes (each recorded, reversible from history)."""
    return await _run_check(m, body.subject, body.fix)
