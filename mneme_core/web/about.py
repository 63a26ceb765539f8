"""`/api/about` and `/api/spaces`: who the companion is, what this engine has, and the page's sentences."""

from __future__ import annotations

import inspect
from datetime import timedelta, tzinfo

from fastapi import APIRouter, Request

from .. import __version__
from ..memory.note import KINDS
from ..mneme import Mneme
from ..people import Space, aspaces
from .companions import Companion
from .models import About, Features, RoleInfo
from .words import page_words

router = APIRouter(tags=["about"])


def zone_name(zone: tzinfo | None) -> str:
    """The zone as the page's script reads it: an IANA name ("Asia/Shanghai"), a fixed offset ("+08:00"),
    or "" for the machine's own."""
    if zone is None:
        return ""
    key = getattr(zone, "key", None)
    if isinstance(key, str):
        return key
    offset = zone.utcoffset(None) or timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def features(m: Mneme, mcp: bool) -> Features:
    """What the engine has: the health check (`Mneme.acheck`), archived notes once `anotes` takes
    `archived` (the page shows that filter as "not available" until then)."""
    return Features(
        check=True,
        archive="archived" in inspect.signature(m.anotes).parameters,
        mcp=mcp,
    )


@router.get("/about", response_model=About)
async def about(request: Request, m: Companion) -> About:
    """The companion's name, display language and zone, its kinds and roles, the file's spaces, what this
    engine has, and the page's sentences in the display language."""
    language = m.settings.display_language
    roles = [
        RoleInfo(key=r.key, label=r.label(language), floor=r.floor, ceiling=r.ceiling, start=r.start)
        for r in m.relation_settings.roles
    ]
    return About(
        space=m.space,
        companion=m.settings.companion_name,
        display_language=language,
        zone=zone_name(m.settings.zone),
        now=m._now(),
        version=__version__,
        kinds=list(KINDS),
        roles=roles,
        spaces=await aspaces(m),
        features=features(m, request.app.state.mcp),
        words=page_words(language),
    )


@router.get("/spaces", response_model=list[Space])
async def spaces(m: Companion) -> list[Space]:
    """Every companion kept in the file, with how many people it knows and their live notes."""
    return await aspaces(m)
