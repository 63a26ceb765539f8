"""The offline stand-in model: what answers when no model is configured, so Mneme works with no key and no
network. It says plainly that it is a stand-in and shows what a model would have been told, memory block
included, so a newcomer sees the engine work. It has no `judge`: observing with it judges nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import text
from ..hookspecs import hookimpl

HEADER = "[offline stand-in: no model is configured, so nobody is thinking here]"


class OfflineModel:
    """`complete(system, user)` that answers with what it was given."""

    name = "offline"

    def __init__(self, settings: Mapping[str, Any] | None = None) -> None:
        self.settings = dict(settings or {})

    def __repr__(self) -> str:
        return "OfflineModel()"

    async def complete(self, system: str, user: str) -> str:
        said = text.one_line(user, 300)
        told = system.strip() or "(nothing yet: no persona, nothing remembered)"
        return f"{HEADER}\nYou said: “{said}”\nWhat a model would have been told first:\n{told}"


@hookimpl(trylast=True)
def register_providers(register: Any) -> None:
    register(OfflineModel)
