"""What the model is given for one message: the system prompt and the recent conversation.

A provider that takes chat messages (`chat(messages)`, as the OpenAI-compatible plugin and the offline
stand-in do, or a function of one argument) gets the system prompt, the conversation's earlier lines as
`user` and `assistant` messages (in a group each person's line already says who spoke and where,
`incoming.spoken`), and the current line last; consecutive lines of one role are joined into one message,
since several providers refuse two in a row. A model that is a plain `complete(system, user)` gets the
system prompt and the current line, as it always did: what it is given cannot hold a conversation.

The earlier lines are the newest ones within the settings' count and characters (`conversation.lines`,
`conversation.chars`), read from the transcript, so a restart keeps the thread.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..transcript import Line

__all__ = ["Prompted", "compose"]


def compose(persona: str, block: str, sections: Iterable[str]) -> str:
    """The system prompt: the persona, the memory block, then the plugins' sections, blank ones left out."""
    return "\n\n".join(part.strip() for part in (persona, block, *sections) if part and part.strip())


@dataclass(frozen=True)
class Prompted:
    """Everything the model is given for one message."""

    system: str
    current: str
    history: tuple[Line, ...] = ()
    room: bool = False
    """A group: each person's line already says who spoke."""

    def messages(self) -> list[dict[str, str]]:
        """The chat messages: the system prompt, the earlier lines, the current line."""
        found: list[dict[str, str]] = [{"role": "system", "content": self.system}] if self.system else []
        said = [(line.role, line.text) for line in self.history] + [("user", self.current)]
        for role, content in said:
            if found and found[-1]["role"] == role and role != "system":
                found[-1]["content"] += "\n" + content
            else:
                found.append({"role": role, "content": content})
        return found
