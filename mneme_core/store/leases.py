"""Leases: one process at a time runs a job of a space, and every process agrees when it is next due.

A job is a piece of work between conversations (the health check, tending) that two processes on one file
must never run at once. Its row in `leases` says who holds it (`holder`) until when (`until`), and when the
job is next due (`next_at`). `claim` takes it in one write transaction (`BEGIN IMMEDIATE` serialises two
processes racing for it, so exactly one wins) when it is free and, unless forced, due; `finish` lets it go
and says when the job is next due. A holder that dies keeps the lease only until `until`: then anyone may
take it, so a crash never stops a job for good. A lease is meant to outlast the bounded work it covers
(the job's timeout plus a margin), so it needs no renewal.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from .. import text

__all__ = ["Lease", "claim", "finish", "get"]

ERROR_LIMIT = 300
_COLUMNS = "space, name, holder, until, next_at, started_at, finished_at, runs, error"


@dataclass(frozen=True)
class Lease:
    """A job's row: who holds it until when, when it is next due, how often it ran and how it last ended."""

    space: str
    name: str
    holder: str | None
    until: float | None
    next_at: float | None
    started_at: float | None
    finished_at: float | None
    runs: int
    error: str | None


def get(conn: sqlite3.Connection, space: str, name: str) -> Lease | None:
    row = conn.execute(
        f"select {_COLUMNS} from leases where space = ? and name = ?", (space, name)
    ).fetchone()
    return Lease(*row) if row else None


def claim(
    conn: sqlite3.Connection,
    space: str,
    name: str,
    holder: str,
    now: float,
    lease: float,
    first_due: float | None = None,
    force: bool = False,
) -> Lease | None:
    """Take the job's lease until `now + lease`: when no one holds it (or their lease ran out) and, unless
    `force`, it is due. A job never seen before is first due at `first_due` (now when None). Returns the
    lease taken, or None (someone else holds it, or it is not due)."""
    conn.execute(
        "insert into leases(space, name, next_at) values (?, ?, ?) on conflict do nothing",
        (space, name, now if first_due is None else first_due),
    )
    row = conn.execute(
        "update leases set holder = :holder, until = :until, started_at = :now "
        "where space = :space and name = :name and (until is null or until <= :now or holder = :holder) "
        "and (:force or next_at is null or next_at <= :now) "
        f"returning {_COLUMNS}",
        {"holder": holder, "until": now + lease, "now": now, "space": space, "name": name, "force": force},
    ).fetchone()
    return Lease(*row) if row else None


def finish(
    conn: sqlite3.Connection,
    space: str,
    name: str,
    holder: str,
    now: float,
    next_at: float | None,
    error: str | None = None,
) -> bool:
    """Let the lease go (only its holder can) and say when the job is next due (None: keep the date it had,
    as a forced run does); False when the lease was no longer this holder's."""
    row = conn.execute(
        "update leases set holder = null, until = null, finished_at = :now, runs = runs + 1, "
        "error = :error, next_at = coalesce(:next_at, next_at) "
        "where space = :space and name = :name and holder = :holder returning 1",
        {
            "now": now,
            "error": text.one_line(error, ERROR_LIMIT) if error else None,
            "next_at": next_at,
            "space": space,
            "name": name,
            "holder": holder,
        },
    ).fetchone()
    return row is not None
