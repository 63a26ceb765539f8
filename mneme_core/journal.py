"""The companion's journal: entries in its own words that nothing else writes in.

Three ways in, all the companion's own: `m.journal(text)` (the host passing on what the companion's model
wrote), the `journal` tool its model may call (`tools.builtins`), and, with `journal.daily`, one entry a day
that tending (`mneme_core.tending`) has its model write from the day's lines (`prompts.journal`; at most
`DAY_LINES` lines in `DAY_CHARS` characters, sent as data). No other code path writes here: the note writer
and the health check never do, and an import brings back only the entries a Mneme export carried (so a
`mneme move` keeps the journal; a mneme-llm export has none).

Each entry records whom it is about (the person the tool was called for, the people whose lines the daily
entry read, or `about=` given to `m.journal`), so erasing a person erases every entry about them with them
(a trigger of the `0015_lifecycle` migration, inside erase's wipe down to the bytes).

The prompt shows the journal only when the config asks (`journal.shown`, 0 by default): its newest entries,
oldest first, under a header of its own that marks them as the companion's words, one line each.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import tzinfo
from typing import Any

from . import dates, text
from .decide import run
from .errors import InvalidType, InvalidValue
from .memory.note import count_of, subject_of, subject_or_none
from .memory.notes import subject_id_made

__all__ = ["DAILY", "Entry", "JournalVerbs", "entries", "export_rows", "import_rows", "section", "write"]

ENTRY_LIMIT = 2000
DAY_LINES = 200
DAY_CHARS = 12_000
COMPANION, DAILY = "companion", "daily"


@dataclass(frozen=True)
class Entry:
    """One journal entry: when, what, how it was written ("companion", "daily"), whom it is about."""

    id: int
    at: float
    text: str
    source: str
    about: tuple[str, ...] = ()


def write(
    conn: sqlite3.Connection, space: str, entry_text: str, source: str, about: Sequence[str], at: float
) -> Entry:
    """Write one entry (a transaction function); `about` are subjects (unknown ones are met here)."""
    (entry_id,) = conn.execute(
        "insert into journal(space, at, text, source) values (?, ?, ?, ?) returning id",
        (space, at, entry_text, source),
    ).fetchone()
    for subject in dict.fromkeys(about):
        sid = subject_id_made(conn, space, subject)
        conn.execute("insert into journal_about(entry_id, subject_id) values (?, ?)", (entry_id, sid))
    return Entry(entry_id, at, entry_text, source, tuple(dict.fromkeys(about)))


def entries(conn: sqlite3.Connection, space: str, limit: int, about: str | None = None) -> list[Entry]:
    """The newest entries (about one person, if given), newest first."""
    where, params = "", {"space": space, "limit": limit}
    if about is not None:
        where = (
            " and j.id in (select a.entry_id from journal_about a join subjects s on s.id = a.subject_id "
            "where s.space = :space and s.subject = :about)"
        )
        params["about"] = about
    rows = conn.execute(
        "select j.id, j.at, j.text, j.source, (select json_group_array(s.subject) from journal_about a "
        "join subjects s on s.id = a.subject_id where a.entry_id = j.id) "
        f"from journal j where j.space = :space{where} order by j.id desc limit :limit",
        params,
    ).fetchall()
    return [Entry(i, at, said, source, tuple(json.loads(who))) for i, at, said, source, who in rows]


def section(found: Sequence[Entry], words: Any, now: float, zone: tzinfo | None) -> str:
    """The journal's own section of the prompt: the entries, oldest first, dated, one line each."""
    if not found:
        return ""
    lines = [words.say("journal.header")]
    for entry in sorted(found, key=lambda e: e.id):
        day = dates.when(entry.at, now, zone, words.language)
        lines.append(words.say("notes.line_dated", date=day, text=text.one_line(entry.text, 500)))
    return "\n".join(lines)


def daily_due(conn: sqlite3.Connection, space: str, now: float, zone: tzinfo | None) -> bool:
    """Whether today (in the companion's zone) has no daily entry yet."""
    row = conn.execute(
        "select 1 from journal where space = ? and source = ? and at >= ? limit 1",
        (space, DAILY, dates.day_start(now, zone)),
    ).fetchone()
    return row is None


def day_lines(conn: sqlite3.Connection, space: str, now: float) -> tuple[list[str], list[str]]:
    """The lines since the last daily entry (at most a day back), one line each with who said them, and
    the people who said them; at most `DAY_LINES` of the newest, within `DAY_CHARS`."""
    row = conn.execute(
        "select max(at) from journal where space = ? and source = ?", (space, DAILY)
    ).fetchone()
    since = max(now - 86400.0, row[0] or 0.0)
    rows = conn.execute(
        "select l.role, l.name, l.text, s.subject from lines l left join subjects s on s.id = l.subject_id "
        "where l.space = ? and l.at > ? and l.at <= ? order by l.id desc limit ?",
        (space, since, now, DAY_LINES),
    ).fetchall()
    said, people, used = [], [], 0
    for role, name, line, subject in rows:
        who = "you" if role != "user" else text.one_line(name or subject or "someone", 60)
        one = f"{who}: {text.one_line(line, 400)}"
        if used + len(one) > DAY_CHARS:
            break
        said.append(one)
        used += len(one) + 1
        if subject is not None:
            people.append(subject)
    return list(reversed(said)), list(dict.fromkeys(people))


# -- moving ----------------------------------------------------------------------------------------------


def export_rows(conn: sqlite3.Connection, space: str) -> list[dict[str, Any]]:
    """Every entry of a space, oldest first, with whom it is about."""
    return [
        {"at": e.at, "text": e.text, "source": e.source, "about": list(e.about)}
        for e in reversed(entries(conn, space, 2**62))
    ]


def import_rows(conn: sqlite3.Connection, space: str, rows: Iterable[object]) -> int:
    """Bring entries in, leniently (a row without text or a time is skipped, an unknown source is the
    companion's) and idempotently (an entry is the same entry if the space has one of the same time, source
    and text); whom it is about comes with it, so an erase after the import still erases it. Returns how
    many were added."""
    added = 0
    for row in rows:
        if not isinstance(row, Mapping):
            continue
        said, at = row.get("text"), dates.seconds_or_none(row.get("at"))
        if not isinstance(said, str) or at is None:
            continue
        said = _text(said)
        if text.is_blank(said):
            continue
        source = row.get("source") if row.get("source") in (COMPANION, DAILY) else COMPANION
        known = conn.execute(
            "select 1 from journal where space = ? and at = ? and source = ? and text = ?",
            (space, at, source, said),
        ).fetchone()
        if known is not None:
            continue
        about = row.get("about")
        who = [s for v in (about if isinstance(about, list) else []) if (s := subject_or_none(v))]
        write(conn, space, said, source, who, at)
        added += 1
    return added


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidType(f"a journal entry is text, not {type(value).__name__}")
    return text.clip(text.clean(value), ENTRY_LIMIT)


def _about(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [subject_of(value)]
    if not isinstance(value, list | tuple):
        raise InvalidType(f"about is a subject or a list of subjects, not {type(value).__name__}")
    return [subject_of(v) for v in value]


class JournalVerbs:
    """The journal, for `Mneme` (which provides the attributes used here)."""

    store: Any
    space: str
    _now: Any

    async def ajournal(self, entry_text: str, *, about: str | Sequence[str] | None = None) -> Entry:
        """Write an entry in the companion's journal (its own words; `about` names whom it is about, so
        that erasing them erases it). Refuses an empty entry."""
        said, who = _text(entry_text), _about(about)
        if text.is_blank(said):
            raise InvalidValue("a journal entry must show something: not empty or only spaces")
        return await self.store.awrite(write, self.space, said, COMPANION, who, self._now())

    def journal(self, entry_text: str, *, about: str | Sequence[str] | None = None) -> Entry:
        return run(lambda: self.ajournal(entry_text, about=about))

    async def ajournal_entries(self, *, limit: int = 20, about: str | None = None) -> list[Entry]:
        """The journal's newest entries (about one person, if given), newest first."""
        who = None if about is None else subject_of(about)
        return await self.store.aread(entries, self.space, count_of("limit", limit, low=1), who)

    def journal_entries(self, *, limit: int = 20, about: str | None = None) -> list[Entry]:
        who = None if about is None else subject_of(about)
        return self.store.read(entries, self.space, count_of("limit", limit, low=1), who)
