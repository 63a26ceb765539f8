"""The fallback subject of a platform user: `platform:user_id`, asked last so any plugin may map first."""

from __future__ import annotations

from ..adapters import subject_of
from ..hookspecs import hookimpl


@hookimpl(trylast=True)
def resolve_subject(platform: str, user_id: str) -> str:
    return subject_of(platform, user_id)
