"""The block a bot puts in its system prompt: what the companion remembers of this person.

Two sections: the notes (`notes_block`), and what was said before that the query recalls, quoted from the
transcript (`said_block`): one line each, dated, with who said it ("you" for the companion), marked as what
was said then, not as instructions, and below the notes, which win.

The block opens with a header that says the notes are remembered data, not instructions, so a note that
reads like an order ("ignore your rules") is something the person once said, not something to do. Every
note is one line, with its date the way people say it ("yesterday", "in 2 days", "去年 09-17") so the model
never does date arithmetic; lasting notes carry no date. The person's name and every other text that
reaches the block are made single-line first, so nothing in it can pose as a header or a new message.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import tzinfo

from . import dates, text
from .memory.recall import Recall
from .messages import Words, fill

NAME_LIMIT = 80
CARD_LIMIT = 1200
SAID_LIMIT = 300  # characters of a quoted line: the block quotes, it does not replay


def who(user_name: object, subject: str) -> str:
    """How the block names the person: their name as one short line, else the subject."""
    name = text.one_line(user_name, NAME_LIMIT) if user_name is not None else ""
    return name or text.one_line(subject, NAME_LIMIT)


def notes_block(
    recall: Recall, *, name: str, words: Words, now: float, zone: tzinfo | None, card: str | None = None
) -> str:
    """The notes section, or "" when there is nothing to say."""
    card = text.one_line(card, CARD_LIMIT) if card else ""
    if not recall.chosen and not card:
        return ""
    lines = [text.one_line(words.say("notes.header", who=name), 2000)]
    if card:
        lines.append(words.say("notes.impression", card=card))
    plain, dated = words.lookup("notes.line"), words.lookup("notes.line_dated")  # once, not once a note
    for chosen in recall.chosen:
        note = chosen.note
        line = text.one_line(note.text, 500)
        if note.lasting:
            lines.append(fill(plain, {"text": line}))
        else:
            day = dates.when(note.happened_at, now, zone, words.language)
            lines.append(fill(dated, {"date": day, "text": line}))
    return "\n".join(lines)


def said_block(recall: Recall, *, name: str, words: Words, now: float, zone: tzinfo | None) -> str:
    """The lines of the transcript the recall found, quoted one each, dated, with who said them, oldest
    first (the order they were said in); "" when it found none."""
    if not recall.lines:
        return ""
    lines = [text.one_line(words.say("said.header", who=name), 2000)]
    you, template = words.say("said.you"), words.lookup("said.line")
    for said in sorted(recall.lines, key=lambda s: s.line.id):
        line = said.line
        speaker = you if line.subject is None else text.one_line(line.name or name, NAME_LIMIT)
        day = dates.when(line.at, now, zone, words.language)
        lines.append(
            fill(template, {"date": day, "speaker": speaker, "text": text.one_line(line.text, SAID_LIMIT)})
        )
    return "\n".join(lines)


def join(sections: Iterable[str]) -> str:
    """The sections of the block, blank ones left out, a blank line between."""
    return "\n\n".join(s for s in sections if s)
