"""The transcript: the conversation itself, kept in the companion's database.

A bot gives its model the recent conversation, not only the current line, and a restart must not cut the
thread; so every line lives in the same file as the notes (`lines`), and so does every exchange still to be
observed (`waiting`). `Transcript` is the facade's part for them (`Mneme.transcript`), used by the bot layer:

- `aadd_line` keeps a person's line (a room's context line too, bounded per room), `aadd_reply` the
  companion's reply and, in the same transaction, the exchange waiting to be observed;
- `arecent` gives a conversation's newest lines within a count and a number of characters;
- `aclaim` / `adue` / `adone` / `afailed` / `arelease` run the waiting exchanges (see `waiting`).

A person's lines go with `erase` (theirs, the companion's replies to them, their direct chat whole), and
`export_data` carries every line. Validation happens here, before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import text
from ..errors import InvalidType, InvalidValue, describe
from ..exchange import SOURCES
from ..memory import notes
from ..memory.note import count_of, subject_of
from . import lines, waiting
from .index import LINES_VERSION
from .index import rebuild as rebuild_index
from .lines import ASSISTANT, USER, Line
from .waiting import Waiting

__all__ = ["ASSISTANT", "LINES_VERSION", "USER", "Line", "Transcript", "Waiting", "erase", "rebuild_index"]

NAME_LIMIT = 80
CONVERSATION_LIMIT = 200


def conversation_of(value: object) -> str:
    """A conversation's name, checked: one line of 1 to 200 characters (`dm:discord:42`)."""
    if not isinstance(value, str) or not value.strip() or len(value) > CONVERSATION_LIMIT:
        raise InvalidValue(
            f"a conversation is named by one line of 1 to {CONVERSATION_LIMIT} characters, like "
            f"'dm:discord:42', not {describe(value)}"
        )
    if text.clean(value) != value:
        raise InvalidValue(f"a conversation's name is one line, not {describe(value)}")
    return value


def _said(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidType(f"a line's text is a string, not {describe(value)}")
    if not value.strip():
        raise InvalidValue("a line must say something: its text is blank")
    return value


def _name(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidType(f"a speaker's name is a string or None, not {describe(value)}")
    return text.one_line(value, NAME_LIMIT) or None


def erase(conn: Any, space: str, subject: str) -> int:
    """Every line by or to a person and their waiting exchanges (inside the caller's erase)."""
    sid = notes.subject_id(conn, space, subject)
    if sid is None:
        return lines.erase_conversation(conn, space, f"dm:{subject}")
    waiting.erase(conn, sid)
    return lines.erase(conn, space, subject, sid)


class Transcript:
    """A companion's conversations and waiting exchanges, on its store (see the module docstring)."""

    def __init__(self, store: Any, space: str, clock: Callable[[], float]) -> None:
        self._store = store
        self._space = space
        self._clock = clock

    # -- lines -----------------------------------------------------------------------------------------

    async def aadd_line(
        self,
        conversation: str,
        *,
        subject: str,
        text: str,
        name: str | None = None,
        addressed: bool = True,
        keep: int | None = None,
    ) -> Line:
        """Keep a person's line. A room's line the companion was not addressed in (`addressed=False`) is
        context: only the newest `keep` of those are kept per room."""
        conversation = conversation_of(conversation)
        subject = subject_of(subject)
        said, who = _said(text), _name(name)
        if not isinstance(addressed, bool):
            raise InvalidType(f"addressed is True or False, not {describe(addressed)}")
        if keep is not None:
            count_of("keep", keep, 1)
        at = float(self._clock())
        line_id = await self._store.awrite(
            _person_line, self._space, conversation, subject, who, said, at, addressed, keep
        )
        return Line(line_id, conversation, subject, USER, who, said[: lines.TEXT_LIMIT], at, addressed)

    async def aadd_reply(
        self,
        conversation: str,
        *,
        text: str,
        reply_to: int | None,
        name: str | None = None,
        observe: str | None = None,
        user_name: str | None = None,
        source: str = "user",
        platform: str | None = None,
    ) -> Line:
        """Keep the companion's reply to line `reply_to`; with `observe` (the person's subject), the
        exchange waits in the same transaction to be observed, with `user_name`, `source` and the
        `platform` it was said on."""
        conversation = conversation_of(conversation)
        said, who = _said(text), _name(name)
        if reply_to is not None:
            count_of("reply_to", reply_to, 1)
        if source not in SOURCES:
            raise InvalidValue(f"an exchange's source is one of {', '.join(SOURCES)}, not {describe(source)}")
        person = None if observe is None else subject_of(observe)
        if person is not None and reply_to is None:
            raise InvalidValue("an exchange to observe needs the line it answered (reply_to)")
        at = float(self._clock())
        line_id = await self._store.awrite(
            _reply,
            self._space,
            conversation,
            said,
            who,
            reply_to,
            at,
            person,
            _name(user_name),
            source,
            platform,
        )
        return Line(line_id, conversation, None, ASSISTANT, who, said[: lines.TEXT_LIMIT], at, True, reply_to)

    async def arecent(
        self, conversation: str, *, before: int | None = None, lines: int = 20, chars: int = 4000
    ) -> list[Line]:
        """The newest lines before line `before` (or the newest), within `lines` and `chars`, oldest first."""
        return await self._store.aread(
            _recent, self._space, *self._recent_args(conversation, before, lines, chars)
        )

    def recent(
        self, conversation: str, *, before: int | None = None, lines: int = 20, chars: int = 4000
    ) -> list[Line]:
        args = self._recent_args(conversation, before, lines, chars)
        return self._store.read(_recent, self._space, *args)

    @staticmethod
    def _recent_args(conversation: object, before: object, count: object, chars: object) -> tuple[Any, ...]:
        if before is not None:
            count_of("before", before, 1)
        return conversation_of(conversation), before, count_of("lines", count), count_of("chars", chars)

    def lines_of(self, subject: str, *, limit: int = 50) -> list[Line]:
        """A person's lines and the companion's replies to them, newest first."""
        return self._store.read(
            lines.of_subject, self._space, subject_of(subject), count_of("limit", limit, 1)
        )

    async def alines_of(self, subject: str, *, limit: int = 50) -> list[Line]:
        return await self._store.aread(
            lines.of_subject, self._space, subject_of(subject), count_of("limit", limit, 1)
        )

    # -- waiting exchanges -----------------------------------------------------------------------------

    async def aclaim(self, subject: str, *, lease: float) -> Waiting | None:
        """The person's oldest waiting exchange, leased for `lease` seconds, if it is due and free."""
        now = float(self._clock())
        return await self._store.awrite(waiting.claim, self._space, subject_of(subject), now, float(lease))

    async def adue(self, *, limit: int = 100) -> list[str]:
        """The people with a waiting exchange that could be claimed now, longest waiting first."""
        now = float(self._clock())
        return await self._store.aread(waiting.due, self._space, now, count_of("limit", limit, 1))

    def due(self, *, limit: int = 100) -> list[str]:
        return self._store.read(waiting.due, self._space, float(self._clock()), count_of("limit", limit, 1))

    async def adone(self, claimed: Waiting) -> None:
        await self._store.awrite(waiting.done, claimed.id)

    async def afailed(
        self, claimed: Waiting, error: str, *, retry_in: float, tries: int, moved: bool = False
    ) -> bool:
        """Count a failed attempt, to be tried again in `retry_in` seconds (`moved`: the mood moved, so
        only the notes are tried again); True when it was the last of `tries` and it is given up."""
        retry_at = float(self._clock()) + float(retry_in)
        return await self._store.awrite(waiting.failed, claimed.id, error, retry_at, tries, moved)

    async def arelease(self, claimed: Waiting) -> None:
        await self._store.awrite(waiting.release, claimed.id)


def _person_line(
    conn: Any,
    space: str,
    conversation: str,
    subject: str,
    name: str | None,
    said: str,
    at: float,
    addressed: bool,
    keep: int | None,
) -> int:
    return lines.add(
        conn,
        space,
        conversation,
        subject=subject,
        role=USER,
        name=name,
        text=said,
        at=at,
        addressed=addressed,
        keep=keep,
    )


def _reply(
    conn: Any,
    space: str,
    conversation: str,
    said: str,
    name: str | None,
    reply_to: int | None,
    at: float,
    person: str | None,
    user_name: str | None,
    source: str,
    platform: str | None,
) -> int:
    line_id = lines.add(
        conn,
        space,
        conversation,
        subject=None,
        role=ASSISTANT,
        name=name,
        text=said,
        at=at,
        addressed=True,
        reply_to=reply_to,
    )
    if person is not None:
        waiting.wait(
            conn, space, person, line_id, user_name=user_name, source=source, now=at, platform=platform
        )
    return line_id


def _recent(
    conn: Any, space: str, conversation: str, before: int | None, count: int, chars: int
) -> list[Line]:
    return lines.recent(conn, space, conversation, before=before, lines=count, chars=chars)
