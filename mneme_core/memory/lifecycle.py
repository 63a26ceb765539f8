"""A note's three measures, kept apart as Mnemos does: strength, stability and accessibility.

- strength: how well it is stored. 1 when written, +1 each time a recall chose it (at most once per
  conversation, see below), up to `MAX_STRENGTH`. The cap lets the weakest go first (`memory.archive`).
- stability: how well it holds against fading. Its half-life is `half_life_days x stability` (30 days x 1
  when written; a lesson starts at `LESSON_STABILITY`). A recall that chose it multiplies it by
  `1.5 + (1 - accessibility)`: x1.5 when it was still fresh, up to x2.5 when it had nearly gone (recalling
  what was nearly forgotten settles it most, the spacing effect), up to `MAX_STABILITY` (64: a half-life of
  some five years).
- accessibility: how easily it comes back now, computed on read, nothing ticks:
  `0.5 ^ (days since it happened or was last recalled / (half_life_days x stability))`. Lasting kinds (fact,
  preference) are always 1: they keep their promise of never fading. With a stability of 1 this is the
  freshness recall always had, so a note no recall chose ranks as before.

Recall's score takes accessibility where it took freshness (`memory.recall`); the postings' own freshness,
which only picks the few dozen candidates recall scores, stays the plain one (a reinforced note's postings
are refreshed by the recall log, as they always were).

Reinforcement is written off recall's path, with the recall log (`memory.recall_log`): a recall only reads,
and hands what it chose over. A note is reinforced at most once per conversation: again only from another
conversation, or from the same one after a pause of `SITTING` (a DM is one conversation for months; a
sitting is what Mnemos calls a session). The notes reinforced together are linked (`memory.links`), and an
archived one is brought back (`memory.archive`).
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidValue, describe
from ..store.schema import LIVE
from .note import LASTING, Note

__all__ = [
    "LESSON_STABILITY",
    "MAX_STABILITY",
    "MAX_STRENGTH",
    "SITTING",
    "Lifecycle",
    "accessibility",
    "accessibility_at",
    "reinforce",
]

DAY = 86400.0
MAX_STRENGTH = 100.0
MAX_STABILITY = 64.0
LESSON_STABILITY = 8.0  # a lesson fades 8 times more slowly than the episode it came from
SITTING = 6 * 3600.0  # a pause this long in one conversation starts another sitting


@dataclass(frozen=True, kw_only=True)
class Lifecycle:
    """The `lifecycle.*` and `journal.*` settings the engine uses (see `config.keys`; `lifecycle.schedule` is
    the runner's, `bot.settings.BotSettings.tend_schedule`)."""

    enabled: bool = True
    archive_below: float = 0.05
    lesson_below: float = 0.1
    lessons: int = 5
    spread: float = 0.5
    hops: int = 2
    link_half_life_days: float = 90.0
    batch: int = 1000
    journal_daily: bool = False
    journal_shown: int = 0

    @classmethod
    def of(cls, found: Mapping[str, Any]) -> Lifecycle:
        """The settings a config's values give (flat keys, as `config.Snapshot.values` holds them)."""
        return cls(
            enabled=found["lifecycle.enabled"],
            archive_below=found["lifecycle.archive_below"],
            lesson_below=found["lifecycle.lesson_below"],
            lessons=found["lifecycle.lessons"],
            spread=found["lifecycle.spread"],
            hops=found["lifecycle.hops"],
            link_half_life_days=found["lifecycle.link_half_life_days"],
            batch=found["lifecycle.batch"],
            journal_daily=found["journal.daily"],
            journal_shown=found["journal.shown"],
        )


def accessibility_at(start: float, stability: float, now: float, half_life_days: float) -> float:
    """How easily a fading note comes back at `now`, having happened (or been recalled) at `start`."""
    if not math.isfinite(stability) or stability <= 0:
        raise InvalidValue(f"a note's stability is a number above 0, not {describe(stability)}")
    return 0.5 ** (max(0.0, now - start) / DAY / (half_life_days * stability))


def accessibility(note: Note, now: float, half_life_days: float) -> float:
    """How easily a note comes back now: 1 for lasting kinds, else its forgetting curve (see above)."""
    if note.kind in LASTING:
        return 1.0
    return accessibility_at(
        max(note.happened_at, note.recalled_at or 0.0), note.stability, now, half_life_days
    )


def reinforce(
    conn: sqlite3.Connection,
    sid: int,
    ids: tuple[int, ...],
    at: float,
    conversation: str | None,
    half_life_days: float,
) -> list[int]:
    """The notes a recall chose, reinforced (inside the recall log's write transaction, before their
    "recalled" marks move): strength +1 and stability up, unless this conversation reinforced them already
    in this sitting; an archived one is brought back either way. Returns the ids reinforced now."""
    if not ids:
        return []
    sitting = conversation or ""
    rows = conn.execute(
        "select id, kind, happened_at, recalled_at, strength, stability, reinforced_at, reinforced_in, "
        f"archived_at from notes where id in (select value from json_each(?)) and subject_id = ? and {LIVE}",
        (json.dumps(list(ids)), sid),
    ).fetchall()
    done = []
    for note_id, kind, happened, recalled, strength, stability, last_at, last_in, archived in rows:
        if archived is not None:
            conn.execute("update notes set archived_at = null where id = ?", (note_id,))
        if last_in == sitting and last_at is not None and at - last_at < SITTING:
            continue
        if kind in LASTING:
            settled = stability
        else:
            now = accessibility_at(max(happened, recalled or 0.0), stability, at, half_life_days)
            settled = min(MAX_STABILITY, stability * (1.5 + (1.0 - now)))
        conn.execute(
            "update notes set strength = ?, stability = ?, reinforced_at = ?, reinforced_in = ? where id = ?",
            (min(MAX_STRENGTH, strength + 1.0), settled, at, sitting, note_id),
        )
        done.append(note_id)
    return done
