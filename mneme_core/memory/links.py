"""Links: one memory calls up another.

Two notes of one person are linked when they were written together (the notes the note writer kept from one
exchange, `memory.consolidate`) or recalled together (the notes one recall chose and reinforced,
`memory.lifecycle`). A link has a weight from 0 to 1 that grows with use and fades with time:

- each use: `w = w_now + (1 - w_now) x GROWTH` (0.5 the first time, 0.75 the second, 0.875 ...);
- on read: `w_now = w x 0.5 ^ (days since its last use / lifecycle.link_half_life_days)` (90 days by
  default), so nothing ticks; tending drops the links that fell below `FAINT` (`drop_faint`).

Spreading (`spread`). A recall's strong word matches lend a share of their evidence to the notes linked to
them: `lifecycle.spread x w_now x the match's evidence` (0.5 by default), and those lend on again the same
way for a second hop (`lifecycle.hops`, 0 to 2), so a message can bring up a note it never names. It is
bounded three ways: a note takes the largest share lent to it, not the sum, so it never has more than the
best match's half; only the `SOURCES` best matches lend, each along its `FAN` heaviest links; and a share
below `FAINT` of the lender's evidence is not lent. The note lent to says through whom ("through #12
(linked)" in `explain`).

Links go with their notes (triggers of the `0015_lifecycle` migration): a forgotten, purged or erased
note's links go at once, a replaced note's pass to the note that replaced it; they travel in
export/import (`export_rows`, `import_rows`), by the export's note ids.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..store.postgres.dialect import Dialects
from ..store.schema import LIVE

__all__ = [
    "FAINT",
    "FAN",
    "GROWTH",
    "SOURCES",
    "drop_faint",
    "export_rows",
    "import_rows",
    "neighbours",
    "neighbours_of",
    "spread",
    "together",
]

DAY = 86400.0
GROWTH = 0.5
FAINT = 0.05
FAN = 8
SOURCES = 5
PAIRS = 15  # notes linked in one go at most pairwise: the 6 a recall chooses make 15 pairs

# The links of a JSON list of notes, either way round (PostgreSQL reads the list as ids by name: `a` and `b`
# are not named like ids).
LINKED = Dialects(
    "select a, b, weight, at from links where a in (select value from json_each(:ids)) "
    "or b in (select value from json_each(:ids))",
    "select a, b, weight, at from links where a in (select value from mneme_ids(:ids)) "
    "or b in (select value from mneme_ids(:ids))",
)


def weight_now(weight: float, at: float, now: float, half_life_days: float) -> float:
    return weight * 0.5 ** (max(0.0, now - at) / DAY / half_life_days)


def together(
    conn: sqlite3.Connection, sid: int, ids: Sequence[int], now: float, half_life_days: float
) -> int:
    """Link each pair of these notes of one person (written or recalled together); returns the pairs."""
    unique = sorted(set(ids))
    pairs = [(a, b) for i, a in enumerate(unique) for b in unique[i + 1 :]][:PAIRS]
    for a, b in pairs:
        row = conn.execute("select weight, at from links where a = ? and b = ?", (a, b)).fetchone()
        now_w = weight_now(row[0], row[1], now, half_life_days) if row else 0.0
        grown = now_w + (1.0 - now_w) * GROWTH
        conn.execute(
            "insert into links(subject_id, a, b, weight, at) values (?, ?, ?, ?, ?) "
            "on conflict(a, b) do update set weight = excluded.weight, at = excluded.at",
            (sid, a, b, grown, now),
        )
    return len(pairs)


def neighbours(
    conn: sqlite3.Connection, note_id: int, now: float, half_life_days: float
) -> list[tuple[int, float]]:
    """The notes linked to this one with their weight now, heaviest first, at most `FAN`."""
    return neighbours_of(conn, [note_id], now, half_life_days).get(note_id, [])


def neighbours_of(
    conn: sqlite3.Connection, note_ids: Sequence[int], now: float, half_life_days: float
) -> dict[int, list[tuple[int, float]]]:
    """`neighbours` of each of these notes (those with any), in one statement."""
    wanted = set(note_ids)
    listed = json.dumps(list(wanted))
    rows = conn.execute(LINKED, {"ids": listed})
    linked: dict[int, list[tuple[int, float]]] = {}
    for a, b, w, at in rows:
        weight = weight_now(w, at, now, half_life_days)
        if weight < FAINT:
            continue
        if a in wanted:
            linked.setdefault(a, []).append((b, weight))
        if b in wanted:
            linked.setdefault(b, []).append((a, weight))
    for found in linked.values():
        found.sort(key=lambda pair: (-pair[1], pair[0]))
        del found[FAN:]
    return linked


def spread(
    conn: sqlite3.Connection,
    sources: Mapping[int, float],
    *,
    share: float,
    hops: int,
    now: float,
    half_life_days: float,
) -> dict[int, tuple[float, int]]:
    """What the strong matches (`sources`: note id -> evidence) lend along their links: note id -> (the
    largest share lent to it, the id of the note that lent it). The sources themselves take nothing."""
    if share <= 0 or hops <= 0 or not sources:
        return {}
    frontier = dict(sorted(sources.items(), key=lambda item: (-item[1], item[0]))[:SOURCES])
    lent: dict[int, tuple[float, int]] = {}
    for _hop in range(hops):
        reached: dict[int, float] = {}
        linked = neighbours_of(conn, list(frontier), now, half_life_days) if frontier else {}
        for source, evidence in frontier.items():
            for other, weight in linked.get(source, ()):
                gift = share * weight * evidence
                if other in sources or gift < FAINT * evidence or gift <= lent.get(other, (0.0, 0))[0]:
                    continue
                lent[other] = (gift, source)
                reached[other] = max(reached.get(other, 0.0), gift)
        frontier = dict(sorted(reached.items(), key=lambda item: (-item[1], item[0]))[:SOURCES])
    return lent


def drop_faint(conn: sqlite3.Connection, space: str, now: float, half_life_days: float, limit: int) -> int:
    """Tending: drop at most `limit` of the space's links that faded below `FAINT`; returns how many."""
    rows = conn.execute(
        "select l.a, l.b from links l join subjects s on s.id = l.subject_id where s.space = :space "
        "and l.weight * pow(0.5, max(0.0, :now - l.at) / 86400.0 / :hl) < :faint limit :limit",
        {"space": space, "now": now, "hl": half_life_days, "faint": FAINT, "limit": limit},
    ).fetchall()
    for a, b in rows:
        conn.execute("delete from links where a = ? and b = ?", (a, b))
    return len(rows)


def export_rows(conn: sqlite3.Connection, space: str) -> list[dict[str, Any]]:
    """The space's links, by note id, JSON-ready."""
    rows = conn.execute(
        "select l.a, l.b, l.weight, l.at from links l join subjects s on s.id = l.subject_id "
        "where s.space = ? order by l.a, l.b",
        (space,),
    ).fetchall()
    return [{"a": a, "b": b, "weight": w, "at": at} for a, b, w, at in rows]


def import_rows(conn: sqlite3.Connection, rows: Iterable[Mapping[str, Any]], ids: Mapping[Any, int]) -> int:
    """Links from an export, their notes' ids mapped to the ones here (`ids`: export id -> id); a link whose
    notes are not both here, live and one person's is skipped. The heavier weight wins. Returns how many."""
    added = 0
    for row in rows:
        a, b = ids.get(row.get("a")), ids.get(row.get("b"))
        weight, at = row.get("weight"), row.get("at")
        if a is None or b is None or a == b or not _number(weight) or not _number(at):
            continue
        owners = conn.execute(
            f"select distinct subject_id from notes where id in (select value from json_each(?)) and {LIVE}",
            (json.dumps([a, b]),),
        ).fetchall()
        both = conn.execute(
            f"select count(*) from notes where id in (select value from json_each(?)) and {LIVE}",
            (json.dumps([a, b]),),
        ).fetchone()[0]
        if len(owners) != 1 or both != 2:
            continue
        low, high = min(a, b), max(a, b)
        conn.execute(
            "insert into links(subject_id, a, b, weight, at) values (?, ?, ?, ?, ?) "
            "on conflict(a, b) do update set weight = max(links.weight, excluded.weight), "
            "at = max(links.at, excluded.at)",
            (owners[0][0], low, high, min(1.0, max(0.0, float(weight))), float(at)),
        )
        added += 1
    return added


def _number(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and value == value
        and abs(value) < 1e300
    )
