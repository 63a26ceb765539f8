"""Exchanges waiting to be observed, kept in the database until they were.

After a reply, the exchange (the person's line and the companion's reply) is written here in the same
transaction as the reply's line, so an exchange the companion answered is never lost to a model that is
down, a judge that is slow, or a process that stopped: it waits until it is observed.

The bot layer takes a person's exchanges one at a time, oldest first (`claim`): the mood moves in the order
things were said, so a person's later exchange waits while an earlier one is being retried. A claim is a
lease (`claimed_until`): two processes on one file never observe one exchange at once, and a lease that
outlives its process simply runs out. The outcome is `done` (the row goes) or `failed` (tried again after
`retry_at`, until `tries` attempts were made; then it is given up, counted and logged by the caller, and
the row goes). `release` hands a claimed exchange back untried (a shutdown that came before it ran).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from .. import text
from ..memory import notes

__all__ = ["Waiting", "claim", "done", "due", "failed", "release", "wait"]

ERROR_LIMIT = 300


@dataclass(frozen=True)
class Waiting:
    """One exchange waiting to be observed: whose it is, what was said and answered, and how often it was
    tried already."""

    id: int
    subject: str
    said: str
    reply: str
    user_name: str | None
    source: str
    attempts: int
    created_at: float
    moved: bool = False
    """Whether an earlier attempt moved the mood already (then only the notes are tried again)."""
    platform: str | None = None
    """The platform it was said on, for the events plugins see."""


def wait(
    conn: sqlite3.Connection,
    space: str,
    subject: str,
    line_id: int,
    *,
    user_name: str | None,
    source: str,
    now: float,
    platform: str | None = None,
) -> int:
    """Keep the exchange ending with the companion's line `line_id` until it is observed."""
    sid = notes.subject_id_made(conn, space, subject)
    return conn.execute(
        "insert into waiting_observes(space, subject_id, line_id, user_name, platform, source, next_at, "
        "created_at) values (?, ?, ?, ?, ?, ?, ?, ?) returning id",
        (space, sid, line_id, user_name, platform, source, now, now),
    ).fetchone()[0]


def claim(conn: sqlite3.Connection, space: str, subject: str, now: float, lease: float) -> Waiting | None:
    """The person's oldest waiting exchange, leased until `now + lease`; None when there is none, when it
    is not due yet, or when another worker holds it."""
    sid = notes.subject_id(conn, space, subject)
    while sid is not None:
        row = conn.execute(
            "select w.id, w.next_at, w.claimed_until, w.user_name, w.source, w.attempts, w.created_at, "
            "w.moved, w.platform, r.text, u.text from waiting_observes w "
            "left join lines r on r.id = w.line_id left join lines u on u.id = r.reply_to "
            "where w.subject_id = ? order by w.id limit 1",
            (sid,),
        ).fetchone()
        if row is None:
            return None
        wid, next_at, claimed_until, user_name, source, attempts, created_at, moved, platform, reply, said = (
            row
        )
        if next_at > now or (claimed_until is not None and claimed_until > now):
            return None
        if reply is None or said is None:  # its lines are gone (erased, or let go): nothing to observe
            conn.execute("delete from waiting_observes where id = ?", (wid,))
            continue
        conn.execute("update waiting_observes set claimed_until = ? where id = ?", (now + lease, wid))
        return Waiting(
            wid, subject, said, reply, user_name, source, attempts, created_at, bool(moved), platform
        )
    return None


def due(conn: sqlite3.Connection, space: str, now: float, limit: int) -> list[str]:
    """The people whose oldest waiting exchange could be claimed now, longest waiting first."""
    rows = conn.execute(
        "select s.subject from waiting_observes w join subjects s on s.id = w.subject_id "
        "where w.space = ? and w.id in (select min(id) from waiting_observes where space = ? "
        "group by subject_id) and w.next_at <= ? and (w.claimed_until is null or w.claimed_until <= ?) "
        "order by w.id limit ?",
        (space, space, now, now, limit),
    ).fetchall()
    return [subject for (subject,) in rows]


def done(conn: sqlite3.Connection, waiting_id: int) -> None:
    conn.execute("delete from waiting_observes where id = ?", (waiting_id,))


def failed(
    conn: sqlite3.Connection, waiting_id: int, error: str, retry_at: float, tries: int, moved: bool
) -> bool:
    """Count a failed attempt (`moved`: the mood moved in it or before); True when that was the last of
    `tries` and the exchange is given up."""
    row = conn.execute(
        "update waiting_observes set attempts = attempts + 1, next_at = ?, claimed_until = null, error = ?, "
        "moved = ? where id = ? returning attempts",
        (retry_at, text.one_line(error, ERROR_LIMIT), int(moved), waiting_id),
    ).fetchone()
    if row is None or row[0] < tries:
        return False
    conn.execute("delete from waiting_observes where id = ?", (waiting_id,))
    return True


def release(conn: sqlite3.Connection, waiting_id: int) -> None:
    conn.execute("update waiting_observes set claimed_until = null where id = ?", (waiting_id,))


def erase(conn: sqlite3.Connection, sid: int) -> None:
    conn.execute("delete from waiting_observes where subject_id = ?", (sid,))
