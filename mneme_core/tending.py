"""Tending: the work between conversations that keeps memory alive, in bounded batches.

`await m.atend()` (and `mneme tend`, and the runner's nightly chore `tend`, `lifecycle.schedule`, 03:30 in
the companion's zone by default, see `bot.chores`) does, in this order:

1. lessons: at most `lifecycle.lessons` model calls (5), one per episode faded below
   `lifecycle.lesson_below` whose lesson was never asked (`mneme_core.lessons`); none without a model;
2. fading to the archive: at most `lifecycle.batch` (1000) awake fading notes whose accessibility fell
   below `lifecycle.archive_below` go into the archive (`memory.archive`);
3. link decay: at most `lifecycle.batch` links that faded below `links.FAINT` are dropped (`memory.links`);
4. the journal: with `journal.daily` and a model, the day's entry if today has none (`mneme_core.journal`).

Each step is its own short write transaction (a model call never holds the write lock), so a reply's write
waits at most one batch. `TendResult.more` says a batch was full and another run would find more. With
`lifecycle.enabled` off, nothing is done.

One at a time: a run holds the space's lease `tend` (`store.leases`) for as long as its model calls may
take, so a second run, in this process or another on the file, is refused with `TendBusy` (the runner's
chore counts it as busy); a run that dies loses the lease when it runs out.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from . import capture, journal, lessons, text
from .decide import acomplete, run
from .errors import InvalidType, InvalidValue, MnemeError, describe
from .memory import archive, links
from .messages import fill
from .prompts import PROMPTS
from .store import leases

if TYPE_CHECKING:
    from .mneme import Complete

__all__ = ["LEASE", "TendBusy", "TendResult", "TendVerbs"]

log = logging.getLogger(__name__)

LEASE = "tend"
MARGIN = 60.0


class TendBusy(MnemeError, RuntimeError):
    """Another run is tending this space (in this process or another on the file)."""


@dataclass(frozen=True)
class TendResult:
    """What one run did."""

    archived: int = 0
    links_dropped: int = 0
    lessons_asked: int = 0
    lessons_kept: int = 0
    lessons_failed: int = 0
    journal: int = 0
    more: bool = False
    enabled: bool = True

    def counts(self) -> dict[str, int]:
        """The counts, for a chore's report (`bot.chores`)."""
        return {k: int(v) for k, v in asdict(self).items() if k != "enabled"}


async def _lessons(m: Any, complete: Any, now: float, timeout: float) -> tuple[int, int, int, bool]:
    life, hl = m.lifecycle, m.settings.half_life_days
    if complete is None or life.lessons <= 0:
        return 0, 0, 0, False
    due = await m.store.aread(lessons.due, m.space, now, hl, life.lesson_below, life.lessons)
    system = lessons.system_of(m.prompts, m.settings.companion_name, m.memory_language)
    asked = kept = failed = 0
    for episode in due:
        user = await m.store.aread(
            lessons.message, m.space, episode, now, life.link_half_life_days, m.settings.zone
        )
        try:
            reply = await acomplete(complete, system, user, timeout=timeout)
        except Exception as err:  # the host's model: anything can go wrong there; asked again next run
            failed += 1
            log.warning("asking the lesson of note #%d failed: %s", episode.id, err)
            continue
        asked += 1
        said = lessons.answer_of(reply)
        fields = lessons.fields_of(episode, said) if said else None
        if fields is not None and m._filtering:
            fields = await m.plugins.afilter_note(m, episode.subject, fields)
        lesson = await m.store.awrite(lessons.keep, m.space, episode, fields, now, m._rules)
        if lesson is not None:
            kept += 1
            if m.meaning is not None:
                m.meaning.again([lesson.id])
    return asked, kept, failed, len(due) >= life.lessons


async def _daily(m: Any, complete: Any, now: float, timeout: float) -> int:
    if complete is None or not m.lifecycle.journal_daily:
        return 0
    if not await m.store.aread(journal.daily_due, m.space, now, m.settings.zone):
        return 0
    said, people = await m.store.aread(journal.day_lines, m.space, now)
    if not said:
        return 0
    lang = text.one_line(m.memory_language, 40) if isinstance(m.memory_language, str) else ""
    system = fill(
        m.prompts.get("journal") or PROMPTS["journal"],
        {
            "name": m.settings.companion_name,
            "lang": lang or "the language of the day's lines",
            "today": capture.today(now, m.settings.zone),
        },
    )
    try:
        reply = await acomplete(complete, system, "\n".join(said), timeout=timeout)
    except Exception as err:  # the host's model; the day is tried again at the next run
        log.warning("writing the day's journal entry failed: %s", err)
        return 0
    entry = text.clip(text.clean(reply.strip()), journal.ENTRY_LIMIT)
    if text.is_blank(entry) or entry.strip(" .!").lower() == "none":
        entry = "(nothing to say today)"
    await m.store.awrite(journal.write, m.space, entry, journal.DAILY, people, now)
    return 1


async def tend(m: Any, complete: Any, timeout: float) -> TendResult:
    """One run (see the module docstring); raises `TendBusy` while another holds the lease."""
    life = m.lifecycle
    if not life.enabled:
        return TendResult(enabled=False)
    holder = uuid.uuid4().hex
    lease = (life.lessons + 2) * timeout + MARGIN
    if await m.store.awrite(leases.claim, m.space, LEASE, holder, m._now(), lease, None, True) is None:
        raise TendBusy(f"another run is tending space {m.space!r}; try again when it is done")
    error = None
    try:
        now = m._now()
        asked, kept, failed, more = await _lessons(m, complete, now, timeout)
        hl = m.settings.half_life_days
        archived = await m.store.awrite(archive.fade, m.space, now, hl, life.archive_below, life.batch)
        dropped = await m.store.awrite(links.drop_faint, m.space, now, life.link_half_life_days, life.batch)
        wrote = await _daily(m, complete, now, timeout)
        full = more or archived >= life.batch or dropped >= life.batch
        return TendResult(archived, dropped, asked, kept, failed, wrote, full)
    except BaseException as err:
        error = f"{type(err).__name__}: {err}"
        raise
    finally:
        await m.store.awrite(leases.finish, m.space, LEASE, holder, m._now(), None, error)


class TendVerbs:
    """Tending, for `Mneme` (which provides the attributes used here)."""

    complete: Any

    async def atend(self, *, complete: Complete | None = None, timeout: float = 60.0) -> TendResult:
        """Tend the memory between conversations: lessons of faded episodes (asked of `complete`, else the
        companion's model; none without one), faded notes into the archive, faded links dropped, the day's
        journal entry if `journal.daily`. Bounded batches (see `mneme_core.tending`); raises `TendBusy`
        while another run tends this space."""
        if complete is not None and not callable(complete):
            raise InvalidType(f"complete must be a function (system, user) -> text, not {describe(complete)}")
        number = isinstance(timeout, int | float) and not isinstance(timeout, bool)
        if not number or not 0 < timeout < 86_400:
            raise InvalidValue(
                f"timeout is a number of seconds above 0 (below a day), not {describe(timeout)}"
            )
        return await tend(self, complete or self.complete, float(timeout))

    def tend(self, **options: Any) -> TendResult:
        return run(lambda: self.atend(**options))
