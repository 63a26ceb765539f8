"""The fallback subject of a platform user: `platform:user_id`, asked last so any plugin may map first."""

from __future__ import annotations

from ...hookspecs import hookimpl
from ..incoming import subject_for


@hookimpl(trylast=True)
def resolve_subject(platform: str, user_id: str) -> str:
    return subject_for(platform, user_id)
