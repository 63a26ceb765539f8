"""An exchange (what was said in one turn of a conversation) as text for the judge and the note writer.

A host hands over an exchange in whatever shape it already has:
- a string, used line by line;
- (who, said) pairs: `[("Leo", "I passed!"), ("Mio", "Congratulations!")]`;
- chat messages: `{"role": "user", "content": "..."}` or `{"name": "Leo", "content": [{"type": "text",
  "text": "..."}]}`, as OpenAI-style APIs keep them. A message's `name` wins over its role; the role `user`
  is the person (`user_name`), `assistant` the companion (`companion_name`), any other role is named as it
  is. `system` and `developer` messages are the host's instructions, not the conversation, and are left out,
  as are parts that are not text (images, tool calls).

Each becomes `who: said` lines, every name and every message made one line first (`text.one_line`), so a
message cannot open a line that pretends to be someone else speaking. What comes out is data for a model,
and the prompts that carry it say so.

`frame` puts the line before it that says who started the exchange (the person, the companion on its own, or
a scheduled task), which is part of what the judge judges, and `judge_questions` gives the three questions
asked about every exchange in one decision request: `mood_change` (a Score, `LEVELS`), `feeling` (a Choice of
the companion's feelings and "none") and `worth_remembering` (a Predicate).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from . import text
from .capture import worth_question
from .decide.questions import Choice, Question, Score
from .errors import InvalidType, InvalidValue, describe
from .messages import fill
from .prompts import PROMPTS

__all__ = [
    "FEELING",
    "FRAMES",
    "LEVELS",
    "MOOD_CHANGE",
    "NONE",
    "SOURCES",
    "as_text",
    "frame",
    "judge_questions",
]

WHO_LIMIT = 80
SAID_LIMIT = 4000
SKIPPED_ROLES = frozenset({"system", "developer"})
FRAMES = {"user": "started_user", "speak-up": "started_speak_up", "duty": "started_duty"}
SOURCES = tuple(FRAMES)
MOOD_CHANGE = "mood_change"
FEELING = "feeling"
NONE = "none"
LEVELS = {
    "-2": "clearly worse",
    "-1": "a little worse",
    "0": "no real change",
    "1": "a little better",
    "2": "clearly better",
}


class Feeling(Protocol):
    """What `judge_questions` needs of a feeling (`mneme_core.mood.Emotion` is one)."""

    key: str

    def description(self) -> str: ...


def _name(value: object, fallback: str) -> str:
    name = text.one_line(value, WHO_LIMIT) if isinstance(value, str) else ""
    return name or fallback


def _content(value: object) -> str:
    """The text of a message's content: a string, or the text parts of a list of parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, Iterable) and not isinstance(value, bytes | Mapping):
        pieces = []
        for part in value:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                pieces.append(part["text"])
        return " ".join(pieces)
    return ""


def _line(item: object, user: str, companion: str) -> tuple[str, str] | None:
    if isinstance(item, Mapping):
        role = item.get("role")
        if role in SKIPPED_ROLES:
            return None
        by_role = {"user": user, "assistant": companion}.get(role) if isinstance(role, str) else None
        who = _name(item.get("name"), by_role or _name(role, ""))
        if not who:
            raise InvalidValue(f"a chat message names who spoke, by 'name' or 'role': {describe(item)}")
        return who, _content(item.get("content"))
    if isinstance(item, tuple | list) and len(item) == 2:
        who, said = item
        name = text.one_line(who, WHO_LIMIT) if who is not None else ""
        if not name:
            raise InvalidValue(f"a (who, said) pair names who spoke: {describe(item)}")
        return name, "" if said is None else str(said)
    raise InvalidType(
        f"an exchange is a string, (who, said) pairs or chat-message dicts; it holds {describe(item)}"
    )


def as_text(exchange: Any, user_name: object = "the user", companion_name: object = "the assistant") -> str:
    """The exchange as `who: said` lines; raises `InvalidType` for another shape, `InvalidValue` when nothing
    was said."""
    user = _name(user_name, "the user")
    companion = _name(companion_name, "the assistant")
    if isinstance(exchange, str):
        lines = [text.one_line(line, SAID_LIMIT) for line in exchange.splitlines()]
    elif isinstance(exchange, Iterable) and not isinstance(exchange, bytes | bytearray | Mapping):
        lines = []
        for item in exchange:
            found = _line(item, user, companion)
            said = text.one_line(found[1], SAID_LIMIT) if found else ""
            if said:
                lines.append(f"{found[0]}: {said}")
    else:
        raise InvalidType(
            f"an exchange is a string, (who, said) pairs or chat-message dicts, not {type(exchange).__name__}"
        )
    lines = [line for line in lines if line]
    if not lines:
        raise InvalidValue("an exchange must say something: it is empty or only blank messages")
    return "\n".join(lines)


def frame(
    exchange_text: str,
    *,
    source: str = "user",
    user_name: object = "the user",
    companion_name: object = "the assistant",
    prompts: Mapping[str, str] = PROMPTS,
) -> str:
    """The judge's input: the line saying who started the exchange, then the exchange."""
    if source not in FRAMES:
        raise InvalidValue(
            f"a judged exchange's source is one of {', '.join(SOURCES)}, not {describe(source)}"
        )
    key = FRAMES[source]
    names = {"name": _name(companion_name, "the assistant"), "user": _name(user_name, "the user")}
    intro = text.one_line(fill(prompts.get(key) or PROMPTS[key], names), 2000)
    return f"{intro}\n{exchange_text}"


def judge_questions(
    feelings: Iterable[Feeling], prompts: Mapping[str, str] = PROMPTS, *, worth: bool = True
) -> list[Question]:
    """The questions asked about an exchange: how the mood moved, which feeling (or none), and, unless
    `worth` is False, whether it is worth remembering."""
    options = {feeling.key: feeling.description() for feeling in feelings}
    options[NONE] = "nothing in particular"
    asked: list[Question] = [
        Score(MOOD_CHANGE, prompts.get("mood_change") or PROMPTS["mood_change"], LEVELS),
        Choice(FEELING, prompts.get("feeling") or PROMPTS["feeling"], options),
    ]
    if worth:
        asked.append(worth_question(prompts))
    return asked
