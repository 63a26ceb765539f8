"""The archive: where a note goes quiet instead of being deleted.

A live note goes into the archive (`archived_at` set) when
- it has faded far: tending (`mneme_core.tending`) archives the fading notes whose accessibility fell below
  `lifecycle.archive_below` (0.05 by default: some 4.3 half-lives, 130 days for an episode no recall chose,
  years for one recalled a few times, see `memory.lifecycle`);
- the cap on live notes lets it go: past `memory.max_notes` awake notes, the least valuable fading ones
  (importance x strength x accessibility, never a lasting note, a pinned note or the new one) go into the
  archive down to 95 % of the cap, instead of being deleted. The cap counts the awake notes: each person's
  count of archived ones is kept by trigger (`subjects.archived`).

Lasting kinds and importance 5 never go by fading: a fact keeps its promise, a pinned note stays pinned.

An archived note is still live: it keeps its key, its words in the index and its links, `forget`, `purge`
and `erase` treat it as any other, and `notes(..., archived=True)` lists the archive. It is left out of the
everyday selection (the newest notes, the overview: what comes up when nothing is asked about it) and is
found only by a strong match, one with at least `STRONG` of the best match's evidence (`quiet`), recall's
own cut between strong and weak. Measured on the retrieval benchmark's dev set with every turn an episode
note and one tending run before the questions (which archives most of those months-old turns): at 0.2 it
finds what the lifecycle off finds (0.626 @6, 0.656 @10 overall); asking 0.4 of the best found 0.616 and
0.638, and 0.6 found 0.620 and 0.633 (zh @10: 0.679 against 0.798). A recall that chooses it brings it back
(`memory.lifecycle`: the recall log clears `archived_at`, and its accessibility starts again from then).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from ..store.schema import LIVE_N

__all__ = ["STRONG", "fade", "let_go", "quiet"]

STRONG = 0.2  # recall's own cut between strong and weak matches (`memory.recall.WEAK`)

# Accessibility in SQL, for fading notes (`memory.lifecycle.accessibility`; `:now` and `:hl`).
ACCESSIBLE_SQL = (
    "pow(0.5, max(0.0, :now - max(n.happened_at, coalesce(n.recalled_at, 0.0))) / 86400.0 "
    "/ (:hl * n.stability))"
)
FADING = "n.kind not in ('fact', 'preference') and n.importance < 5"


def quiet(archived_at: float | None, evidence: float, best: float) -> bool:
    """Whether a match stays out of a recall: an archived note whose evidence is less than `STRONG` of the
    best match's."""
    return archived_at is not None and evidence < STRONG * best


def fade(
    conn: sqlite3.Connection, space: str, now: float, half_life_days: float, below: float, limit: int
) -> int:
    """Tending: archive at most `limit` of the space's awake fading notes whose accessibility is below
    `below`, the oldest first; returns how many."""
    rows = conn.execute(
        "select n.id from notes n join subjects s on s.id = n.subject_id "
        f"where s.space = :space and {LIVE_N} and n.archived_at is null and {FADING} "
        f"and {ACCESSIBLE_SQL} < :below order by n.id limit :limit",
        {"space": space, "now": now, "hl": half_life_days, "below": below, "limit": limit},
    ).fetchall()
    for (note_id,) in rows:
        conn.execute("update notes set archived_at = ? where id = ?", (now, note_id))
    return len(rows)


def let_go(conn: sqlite3.Connection, sid: int, newest: int, live: int, now: float, rules: Any) -> int:
    """The cap: archive the least valuable awake fading notes down to 95 % of `rules.max_notes` awake ones;
    returns how many went."""
    (archived,) = conn.execute("select archived from subjects where id = ?", (sid,)).fetchone()
    awake = live - archived
    if awake <= rules.max_notes:  # crossed once in a while, not on every note (`memory.notes`)
        return 0
    excess = awake - (rules.max_notes - rules.max_notes // 20)
    victims = conn.execute(
        f"select n.id from notes n where n.subject_id = :sid and {LIVE_N} and n.archived_at is null "
        f"and {FADING} and n.id != :newest "
        f"order by n.importance * n.strength * (0.25 + 0.75 * {ACCESSIBLE_SQL}) asc, n.id asc limit :excess",
        {"sid": sid, "newest": newest, "excess": excess, "now": now, "hl": rules.half_life_days},
    ).fetchall()
    for (note_id,) in victims:
        conn.execute("update notes set archived_at = ? where id = ?", (now, note_id))
    return len(victims)
