"""The overview: what matters about a person when the query names no topic.

A session starts (an agent waking, a bot greeting someone) with no query, or with a question about the
person in general ("what do you know about me", "你记得我什么", "good morning"). Word evidence has nothing
to weigh then, and the few extras a matched query gets (two lasting notes of importance 4+, one recent
episode) leave out most of what is known: five facts of the default importance made an empty block. So the
limit and the budget are filled with what matters, in this order:

1. pinned notes (importance 5), newest first, taking at most half of the slots at first;
2. lasting notes (facts and preferences), the most important first, the newest first among equals;
3. fading notes (episodes, plans, reflections): of the newest `SCAN` of each importance, the freshest
   times the most important (`index.rank_of`), so an upcoming plan or yesterday's news comes before last
   month's small talk;

with a third of the slots that are left (rounded up, at least `recent`) kept for the fading notes while
there are any, so a long list of facts never hides what happened lately; what one part leaves unused goes
to the others, and pinned notes past the first half come last. Each part reads each importance alone from
the newest back (the index on (subject, importance) keeps each importance in id order) and stops early:
twice the limit of lasting notes, `SCAN` fading ones, so the cost is bounded however long the history is
(about 3 ms for a person with 10,000 notes, as much as a recall for a topic).

A query is about the person in general when every term it has is a word of knowing, remembering, telling or
greeting (`GENERAL_WORDS`), or a Chinese character of those or a function character (`GENERAL_CHARS`): "what
do you know about my cat" names the cat, and is matched as usual.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from .. import text
from ..store.schema import AWAKE, LIVE
from . import index
from .note import COLUMNS, Note, note_of

SCAN = 50  # fading notes per importance read at most, from the newest back
DAY = 86400.0

GENERAL_WORDS = frozenset(
    text.terms(
        """
        know knew known knowing remember remembered remembering recall recalled memory memories remind tell
        told telling say said learn learned learnt think thought everything anything something thing things
        stuff much far lately myself person kind life summary summarize describe introduce again hello hi hey
        good morning afternoon evening night thanks thank back
        """
    )
)
"""English words (as `text.terms` makes them) that ask about the person, not about a topic."""

GENERAL_CHARS = (
    frozenset(
        "记得知道了解认识关于印象回忆忘说讲告诉聊多少东西事情样怎么些切全部所想好早晚上午安嗨喂谢来介绍描述总结"
    )
    | text.STOP_CJK_CHARS
)
"""Chinese characters that ask about the person, not about a topic, and function characters."""


def general(terms: Sequence[str]) -> bool:
    """Whether a query of these terms (`text.terms`) asks about the person in general."""
    return bool(terms) and all(t in GENERAL_WORDS or set(t) <= GENERAL_CHARS for t in terms)


def _rows(conn: sqlite3.Connection, subject: str, sql: str, params: dict[str, Any]) -> list[Note]:
    return [note_of(subject, row) for row in conn.execute(sql, params)]


def _per_importance(kinds: str, where: str, order: str, each: str = ":limit") -> str:
    """The newest `each` live notes of each importance below the pinned matching `kinds`/`where`, then
    `order`, `:limit`. Each part names its importance alone, so SQLite reads (subject, importance) in id
    order and stops at `SCAN`: with a range on importance beside it, it sorted every note (11 ms at 10,000
    notes instead of under 1)."""
    parts = " union all ".join(
        f"select * from (select {COLUMNS} from notes where subject_id = :sid and importance = {importance} "
        f"and {LIVE} {kinds} {where} order by id desc limit {each})"
        for importance in range(4, 0, -1)
    )
    return f"select * from ({parts}) order by {order} limit :limit"


def fill(
    conn: sqlite3.Connection,
    filler: Any,
    *,
    subject: str,
    sid: int,
    limit: int,
    recent: int,
    now: float,
    half_life_days: float,
    where: str = "",
    params: dict[str, Any] | None = None,
) -> None:
    """Offer the overview to `filler` (recall's: `offer(note, score, why) -> bool` under the limit and the
    budget, `room()` the slots left); `where`/`params` narrow every part (the kinds and dates asked for)."""
    args = {"sid": sid, "limit": 2 * limit, **(params or {})}
    pinned = _rows(
        conn,
        subject,
        f"select {COLUMNS} from notes where subject_id = :sid and importance = 5 and {LIVE} {where} "
        "order by id desc limit :limit",
        args,
    )
    lasting = _rows(
        conn,
        subject,
        _per_importance("and kind in ('fact', 'preference')", where, "importance desc, id desc"),
        args,
    )
    fading = _freshest(
        _rows(
            conn,
            subject,
            _per_importance(
                f"and kind not in ('fact', 'preference') and {AWAKE}", where, "id desc", str(SCAN)
            ),
            {**args, "limit": 4 * SCAN},
        ),
        now,
        half_life_days,
    )
    _offer(filler, pinned, max(1, limit // 2))
    left = filler.room()
    kept_for_fading = min(len(fading), max(min(recent, left), -(-left // 3)))
    _offer(filler, lasting, left - kept_for_fading)
    _offer(filler, fading, kept_for_fading)
    for notes in (lasting, fading, pinned):
        _offer(filler, notes, filler.room())


def why(note: Note) -> str:
    """Why the overview chose a note: pinned, important (4), lasting, or recent (what fades)."""
    if note.importance == 5:
        return "pinned"
    if note.lasting:
        return "important" if note.importance == 4 else "lasting"
    return "recent"


def _offer(filler: Any, notes: list[Note], count: int) -> None:
    taken = 0
    for note in notes:
        if taken >= count:
            return
        if filler.offer(note, 0.0, why(note)):
            taken += 1


def _freshest(notes: list[Note], now: float, half_life_days: float) -> list[Note]:
    """Fading notes by freshness times importance and feeling (the weights recall scores with)."""

    def worth(note: Note) -> tuple[float, int]:
        fresh_at, weight = index.rank_of(
            note.kind, note.importance, note.feeling, note.happened_at, note.recalled_at
        )
        fresh = 1.0 if fresh_at is None else 0.5 ** (max(0.0, now - fresh_at) / DAY / half_life_days)
        return fresh * weight, note.id

    return sorted(notes, key=worth, reverse=True)
