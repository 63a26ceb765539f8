"""The offline stand-in model: what answers when no model is configured, so Mneme works with no key and no
network. It says plainly that it is a stand-in and shows what a model would have been told, memory block
included, so a newcomer sees the engine work. It has no `judge`: observing with it judges nothing, so it
remembers nothing either (`mneme demo` scripts a judge for that).

Like a real provider it takes the conversation as chat messages (`chat`), and says how many earlier lines
of it a model would have been given besides the current one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import text

__all__ = ["HEADER", "OfflineModel"]

HEADER = "[offline stand-in: no model is configured, so nobody is thinking here]"


class OfflineModel:
    """A provider that answers with what it was given (`chat(messages)`, or `complete(system, user)`)."""

    name = "offline"

    def __init__(self, settings: Mapping[str, Any] | None = None) -> None:
        self.settings = dict(settings or {})

    def __repr__(self) -> str:
        return "OfflineModel()"

    async def complete(self, system: str, user: str) -> str:
        return self._shown(system, user, 0)

    async def chat(self, messages: Sequence[Mapping[str, Any]]) -> str:
        system = "\n\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")
        said = [m for m in messages if m.get("role") != "system"]
        user = str(said[-1].get("content") or "") if said else ""
        return self._shown(system, user, max(len(said) - 1, 0))

    @staticmethod
    def _shown(system: str, user: str, earlier: int) -> str:
        told = system.strip() or "(nothing yet: no persona, nothing remembered)"
        lines = [HEADER, f"You said: “{text.one_line(user, 300)}”"]
        if earlier:
            lines.append(f"(with {earlier} earlier messages of this conversation)")
        return "\n".join([*lines, "What a model would have been told first:", told])
