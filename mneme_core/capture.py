"""The note writer and the profile writer: the messages they are sent, and what is kept of their replies.

After an exchange judged worth remembering (the `worth_remembering` question), the host's model is asked to
write at most three one-sentence notes about the person, as a JSON array of `{text, kind, key?, importance,
date?}`. Its system prompt (`note_writer`) holds the rules; the user message holds the notes already kept
and the exchange, as data. Every note it writes goes through `NoteFields.lenient` with source "auto": a
wrong kind, key or importance falls back to the default, a note without text is dropped, and a note's text
is one clean line like any other. What a note says stays what the person said: a note that reads like an
order is text, never an instruction, and the prompt block marks it as data.

Plans are dated for the day they happen: the note's `date` (YYYY-MM-DD, noon in the companion's zone), else
a day written in its text ("on 9月17日", "Sept 17": the next such day from today). An episode takes its
`date` too; a fact or a preference has none.

Consolidation: the writer is also shown the person's notes closest to the exchange (`offered`: at most 12,
in 3000 characters), each with its id, and says per fact ADD, UPDATE #id, CONTRADICTS #id or SKIP #id
(`memory.consolidate` applies them). `parse_actions` checks every id against the ones offered: an id never
shown, one used twice, an unknown action or an UPDATE without text is refused (counted, never applied). A
plain list of notes, the answer before consolidation, is read as ADDs.

`parse_notes`, `parse_actions` and `parse_card` never raise: a reply that holds nothing usable (a refusal,
prose, garbage) gives no notes and no card.

The profile writer (`reflect`) turns a person's notes into a short impression, the card shown above the
notes in the prompt block: one line of at most 1200 characters.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any

from . import dates, text
from .decide import json_reply
from .decide.prompt import clip_middle
from .decide.questions import Predicate
from .errors import InvalidType, InvalidValue, describe
from .memory.consolidate import ADD, OPS, SKIP, Action
from .memory.note import Note, NoteFields
from .messages import fill
from .prompting import CARD_LIMIT
from .prompts import PROMPTS

__all__ = [
    "CARD_LIMIT",
    "WORTH",
    "WRITER_INPUT",
    "Parsed",
    "offered",
    "parse_actions",
    "parse_card",
    "parse_notes",
    "reflect_messages",
    "today",
    "worth_question",
    "writer_messages",
]

log = logging.getLogger(__name__)

WORTH = "worth_remembering"
WRITER_INPUT = 12000  # characters of exchange the note writer sees (the head and the newest part)
REFLECT_INPUT = 12000  # characters of notes the profile writer sees
EXISTING_LIMIT = 40  # notes already kept, shown to the note writer so it does not repeat them
NOTE_LINE = 300
OFFERED_LIMIT = 12  # notes closest to the exchange shown with their ids, to ADD / UPDATE / SKIP against
OFFERED_CHARS = 3000
SOURCE = "auto"
DATED = frozenset({"plan", "episode"})
_LABEL = re.compile(r"^(?:impression|profile|card)\s*[:：]\s*", re.IGNORECASE)
_NOTHING = frozenset({"", "none", "n/a", "null", "无"})
_ACTION = re.compile(r"\s*([A-Za-z]+)\s*(?:#?\s*(\d+))?\s*")
_ID = re.compile(r"\s*#?\s*(\d{1,18})\s*")


def worth_question(prompts: Mapping[str, str] = PROMPTS) -> Predicate:
    """The question whether an exchange is worth writing notes about."""
    return Predicate(WORTH, prompts.get("worth") or PROMPTS["worth"])


def today(now: float, zone: tzinfo | None = None) -> str:
    """The day of `now` in the zone as "YYYY-MM-DD (Weekday)", for the note writer's `{today}`."""
    day = dates.local(now, zone)
    return f"{day.year:04d}-{day.month:02d}-{day.day:02d} ({day.strftime('%A')})"


def _names(user_name: object, companion_name: object, language: object) -> dict[str, str]:
    user = text.one_line(user_name, 80) if user_name is not None else ""
    user = user or "the user"
    name = text.one_line(companion_name, 80) if companion_name is not None else ""
    lang = text.one_line(language, 40) if isinstance(language, str) else ""
    return {"name": name or "the assistant", "user": user, "lang": lang or f"the language {user} wrote in"}


def _lines(notes: Sequence[str], limit: int, budget: int) -> list[str]:
    if isinstance(notes, str) or not isinstance(notes, Sequence):
        raise InvalidType(f"notes are a list of strings, not {type(notes).__name__}")
    lines: list[str] = []
    for note in notes:
        line = text.one_line(note, NOTE_LINE) if isinstance(note, str) else ""
        if not line:
            continue
        budget -= len(line) + 3
        if len(lines) >= limit or budget < 0:
            break
        lines.append(f"- {line}")
    return lines


def offered(known: Sequence[Note]) -> list[Note]:
    """The notes the writer is shown with their ids: the first `OFFERED_LIMIT` that fit `OFFERED_CHARS`."""
    chosen: list[Note] = []
    budget = OFFERED_CHARS
    for note in known:
        budget -= len(_known_line(note)) + 1
        if len(chosen) >= OFFERED_LIMIT or budget < 0:
            break
        chosen.append(note)
    return chosen


def _known_line(note: Note) -> str:
    about = note.kind + (f", {note.key}" if note.key else "")
    return f"#{note.id} ({about}) {text.one_line(note.text, NOTE_LINE)}"


def writer_messages(
    exchange_text: str,
    *,
    user_name: object,
    companion_name: object,
    language: str | None,
    existing: Sequence[str] = (),
    known: Sequence[Note] = (),
    prompts: Mapping[str, str] = PROMPTS,
    now: float | None = None,
    zone: tzinfo | None = None,
) -> tuple[str, str]:
    """The note writer's (system, user) messages. `known`: the notes closest to the exchange, shown with
    their ids (see `offered`); `existing`: texts of notes already kept, without ids (most relevant first);
    `now` and `zone` tell the writer today's date, so it can date "next Friday"."""
    if not isinstance(exchange_text, str) or text.is_blank(exchange_text):
        raise InvalidValue("the note writer needs an exchange with something said in it")
    names = _names(user_name, companion_name, language)
    names["today"] = today(now, zone) if now is not None else "not known"
    system = fill(prompts.get("note_writer") or PROMPTS["note_writer"], names)
    parts = []
    if known:
        parts.append(
            f"Already remembered about {names['user']}, with their ids (SKIP #id what one already says, "
            "UPDATE #id one this exchange changes, CONTRADICTS #id one it makes untrue):\n"
            + "\n".join(_known_line(note) for note in known)
        )
    kept = _lines(existing, EXISTING_LIMIT, WRITER_INPUT // 2)
    if kept:
        parts.append(
            f"Already remembered about {names['user']} (do not write these again):\n" + "\n".join(kept)
        )
    parts.append("The exchange:\n" + clip_middle(exchange_text.strip(), WRITER_INPUT))
    return system, "\n\n".join(parts)


def _items(reply: object) -> list[Any]:
    """The note items of a reply: its first array of notes, or an object's "notes" array, or one note."""
    for found in json_reply.values(reply, "[{"):
        if isinstance(found, list) and (not found or any(isinstance(i, dict | str) for i in found)):
            return found
        if isinstance(found, dict):
            for name in ("notes", "actions"):
                if isinstance(found.get(name), list):
                    return found[name]
            if isinstance(found.get("text"), str) or "action" in found:
                return [found]
    return []


def _row(item: object, now: float, zone: tzinfo | None) -> dict[str, Any] | None:
    """A model's note as a row for `NoteFields.lenient`, dated, or None."""
    if isinstance(item, str):
        item = {"text": item}
    if not isinstance(item, Mapping) or not isinstance(item.get("text"), str):
        return None
    kind = item.get("kind")
    kind = kind.strip().lower() if isinstance(kind, str) else None
    key = item.get("key")
    row = {
        "text": item["text"],
        "kind": kind,
        "key": key.strip().lower() if isinstance(key, str) else key,
        "importance": item.get("importance"),
        "feeling": item.get("feeling"),
        "source": SOURCE,
    }
    if kind in DATED or kind is None:
        day = item.get("date")
        happened = dates.noon(day, zone) if isinstance(day, str) else None
        if happened is None and kind == "plan":
            happened = dates.find(text.clean(item["text"]), now, zone, ahead=True)
        row["happened_at"] = happened
    return row


def parse_notes(reply: object, *, now: float, zone: tzinfo | None = None, limit: int = 3) -> list[NoteFields]:
    """The notes of a note writer's reply, at most `limit`, checked leniently; [] for anything unusable."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InvalidValue(f"limit is a whole number of notes, 0 or more, not {describe(limit)}")
    notes: list[NoteFields] = []
    seen: set[str] = set()
    for item in _items(reply):
        if len(notes) >= limit:
            break
        try:
            row = _row(item, now, zone)
            fields = NoteFields.lenient(row) if row is not None else None
        except (ValueError, TypeError, OverflowError) as err:  # a model's odd value drops its note, not all
            log.info("a written note was dropped: %s", err)
            continue
        if fields is None or text.fold(fields.text) in seen:
            continue
        seen.add(text.fold(fields.text))
        notes.append(fields)
    return notes


@dataclass(frozen=True)
class Parsed:
    """A note writer's answer, checked: the actions to apply, and why each refused item was refused."""

    actions: list[Action] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def _id_of(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and (found := _ID.fullmatch(value)):
        return int(found[1])
    return None


def _op_of(item: object) -> tuple[str | None, int | None]:
    """The action an item names ("UPDATE", "update #12", none: ADD) and the id it gives, if any."""
    if not isinstance(item, Mapping):
        return ADD, None
    said = item.get("action", item.get("op"))
    target = _id_of(item.get("id"))
    if said is None:
        return ADD, target
    found = _ACTION.fullmatch(said) if isinstance(said, str) else None
    if found is None or found[1].upper() not in OPS:
        return None, target
    if found[2] is not None:
        target = target if target is not None else int(found[2])
    return found[1].upper(), target


def parse_actions(
    reply: object,
    *,
    offered: Collection[int],
    now: float,
    zone: tzinfo | None = None,
    limit: int = 3,
) -> Parsed:
    """A note writer's answer as checked actions: at most `limit` that write (SKIPs do not count), each id
    one of `offered`, each used once, each text once; the rest refused with the reason."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InvalidValue(f"limit is a whole number of notes, 0 or more, not {describe(limit)}")
    parsed = Parsed()
    used: set[int] = set()
    seen: set[str] = set()
    for item in _items(reply):
        op, target = _op_of(item)
        if op is None:
            said = item.get("action", item.get("op"))  # type: ignore[union-attr]
            parsed.refused.append(f"an unknown action: {text.one_line(said, 40)}")
            continue
        if op != ADD and (target is None or target not in offered):
            parsed.refused.append(f"{op} of {'no id' if target is None else f'#{target}, never offered'}")
            continue
        if op != ADD and target in used:
            parsed.refused.append(f"{op} of #{target}, which an earlier action took")
            continue
        if op == SKIP:
            used.add(target)  # type: ignore[arg-type]
            parsed.actions.append(Action(SKIP, target))
            continue
        if sum(1 for a in parsed.actions if a.op != SKIP) >= limit:
            parsed.refused.append(f"{op} past the limit of {limit} notes")
            continue
        try:
            row = _row(item, now, zone)
            fields = NoteFields.lenient(row) if row is not None else None
        except (ValueError, TypeError, OverflowError) as err:  # a model's odd value drops its item, not all
            fields = None
            log.info("a written note was dropped: %s", err)
        if fields is None or text.fold(fields.text) in seen:
            parsed.refused.append(f"{op} {'with no text' if fields is None else 'of a text given twice'}")
            continue
        seen.add(text.fold(fields.text))
        if op != ADD:
            used.add(target)  # type: ignore[arg-type]
        parsed.actions.append(Action(op, None if op == ADD else target, fields, _kept(item, fields)))
    return parsed


def _kept(item: object, fields: NoteFields) -> frozenset[str]:
    """What an UPDATE keeps of the old note: the fields the writer did not give."""
    given = item if isinstance(item, Mapping) else {}
    kept = set()
    if fields.kind is None:
        kept.add("kind")
    try:
        float(given.get("importance"))  # type: ignore[arg-type]
    except (TypeError, ValueError):  # not given, or nothing the lenient check could read
        kept.add("importance")
    if fields.happened_at is None:
        kept.add("happened_at")
    return frozenset(kept)


def reflect_messages(
    notes: Sequence[str],
    *,
    user_name: object,
    companion_name: object,
    language: str | None,
    prompts: Mapping[str, str] = PROMPTS,
    previous: str | None = None,
) -> tuple[str, str]:
    """The profile writer's (system, user) messages: the person's notes (most important first) go in the
    user message, or where the prompt puts `{notes}`; `previous` is the card so far, to bring up to date."""
    lines = _lines(notes, 10_000, REFLECT_INPUT)
    names = _names(user_name, companion_name, language)
    names["notes"] = "\n".join(lines)
    template = prompts.get("reflect") or PROMPTS["reflect"]
    system = fill(template, names)
    parts = [] if "{notes}" in template else [f"Notes about {names['user']}:\n" + names["notes"]]
    if previous and not text.is_blank(previous):
        parts.append("Your impression so far, to bring up to date: " + text.one_line(previous, CARD_LIMIT))
    parts.append("Write the impression now.")
    return system, "\n\n".join(parts)


def parse_card(reply: object) -> str | None:
    """The profile card in a reply: one line of at most 1200 characters, or None when it holds none."""
    if not isinstance(reply, str):
        return None
    shown = json_reply.unfence(json_reply.visible(reply)).strip()
    if shown.startswith("{"):
        found = json_reply.first_object(shown) or {}
        said = [v for k, v in found.items() if isinstance(v, str) and k in ("impression", "card", "text")]
        shown = said[0] if said else ""
    card = _LABEL.sub("", text.clean(shown)).strip().strip('"“”')
    if card.strip(" .!。").casefold() in _NOTHING:
        return None
    return text.one_line(card, CARD_LIMIT) or None
