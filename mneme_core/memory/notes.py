"""Writing and reading notes: the transaction functions behind remember, forget, purge, erase and friends.

Each function here takes a `sqlite3.Connection` already inside the right transaction (the store opens it)
and does one product verb completely, so a verb is atomic and costs one hop to SQLite's thread.

The write rules, in the order they apply to a new note:
1. Same text (case-folded) as a live note of the person: nothing new is written. The old note keeps the
   higher importance; if the new one brings a key the old one lacked, the old one takes it and replaces the
   key's older value ("replaced"), otherwise the outcome is "known". Under a key, only notes with that key
   or with no key count as the same.
2. The daily quota: a note a model wrote on its own (`source="auto"`) below importance 4 is refused once the
   person has `daily_quota` such notes since local midnight ("over quota").
3. The note is written and indexed; a note with a key replaces the key's live note ("replaced").
4. The cap: past `max_notes` live notes, the least valuable fading notes (importance x freshness; never a
   lasting note, a pinned note or the new one) are let go down to 95 % of the cap, so the cap is crossed
   once in a while rather than on every note. With the lifecycle on (`Rules.archive`), they go quiet into
   the archive instead of being deleted, and the cap counts the awake notes (`memory.archive`).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass, replace
from datetime import tzinfo
from typing import Any

from .. import dates, text
from ..store.schema import AWAKE, FADING, LIVE, LIVE_N
from . import archive, index
from .note import COLUMNS, Note, NoteFields, note_of, with_id

KEPT, REPLACED, KNOWN, OVER_QUOTA = "kept", "replaced", "known", "over quota"
UPDATED, UNCHANGED, NO_SUCH_NOTE = "updated", "unchanged", "no such note"

# Freshness in SQL: 1 for lasting kinds, else halving every `:hl` days since the later of when it
# happened and when it was last recalled (a plan ahead of its day is fresh).
FRESH_SQL = (
    "(case when n.kind in ('fact', 'preference') then 1.0 else "
    "pow(0.5, max(0.0, :now - max(n.happened_at, coalesce(n.recalled_at, 0.0))) / 86400.0 / :hl) end)"
)


@dataclass(frozen=True, kw_only=True)
class Rules:
    """The settings the write rules and freshness depend on."""

    half_life_days: float = 30.0
    daily_quota: int = 8
    max_notes: int = 50_000
    zone: tzinfo | None = None
    lifecycle: bool = True  # the cap archives rather than deletes, notes written together are linked
    link_half_life_days: float = 90.0  # (`memory.archive`, `memory.links`; `lifecycle.*`)

    @classmethod
    def of(cls, settings: Any) -> Rules:
        """The rules a companion's settings (`config.Settings`) give."""
        return cls(
            half_life_days=settings.half_life_days,
            daily_quota=settings.daily_quota,
            max_notes=settings.max_notes,
            zone=settings.zone,
        )


def fold_hash(note_text: str) -> int:
    """A 64-bit fingerprint of a note's case-folded text, to find a duplicate through an index."""
    digest = hashlib.blake2b(text.fold(note_text).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


# -- subjects --------------------------------------------------------------------------------------------


def subject_id(conn: sqlite3.Connection, space: str, subject: str) -> int | None:
    row = conn.execute("select id from subjects where space = ? and subject = ?", (space, subject)).fetchone()
    return row[0] if row else None


def subject_id_made(conn: sqlite3.Connection, space: str, subject: str) -> int:
    found = subject_id(conn, space, subject)
    if found is not None:
        return found
    return conn.execute(
        "insert into subjects(space, subject) values (?, ?) returning id", (space, subject)
    ).fetchone()[0]


def count_live(conn: sqlite3.Connection, sid: int, change: int) -> int:
    return conn.execute(
        "update subjects set live = live + ? where id = ? returning live", (change, sid)
    ).fetchone()[0]


# -- writing ---------------------------------------------------------------------------------------------


def keep(
    conn: sqlite3.Connection, space: str, subject: str, fields: NoteFields, now: float, rules: Rules
) -> tuple[str, Note | None]:
    """Write one note under the rules above; returns the outcome and the note that holds the text."""
    sid = subject_id_made(conn, space, subject)
    fold = fold_hash(fields.text)
    same = text.fold(fields.text)
    for row in conn.execute(
        f"select {COLUMNS} from notes where subject_id = ? and fold = ? and {LIVE} order by id", (sid, fold)
    ).fetchall():
        old = note_of(subject, row)
        if text.fold(old.text) == same and (fields.key is None or old.key in (None, fields.key)):
            return merge(conn, sid, old, fields)
    if over_quota(conn, sid, fields, now, rules):
        return OVER_QUOTA, None
    note = Note(
        id=0,
        subject=subject,
        text=fields.text,
        kind=fields.kind or "episode",
        key=fields.key,
        importance=fields.importance,
        feeling=fields.feeling,
        happened_at=now if fields.happened_at is None else fields.happened_at,
        created_at=now,
        source=fields.source,
        gloss=fields.gloss,
    )
    note = _insert(conn, sid, note, fold)
    note_id = note.id
    replaced = supersede(conn, sid, note.key, note_id) if note.key else 0
    live = count_live(conn, sid, 1 - replaced)
    if live > rules.max_notes:
        prune(conn, sid, note_id, live, now, rules)
    return (REPLACED if replaced else KEPT), note


def over_quota(conn: sqlite3.Connection, sid: int, fields: NoteFields, now: float, rules: Rules) -> bool:
    """Whether the daily quota refuses this note: a model's own note (`source="auto"`) below importance 4,
    once the person has `daily_quota` such notes since local midnight."""
    if fields.source != "auto" or fields.importance >= 4:
        return False
    since = dates.day_start(now, rules.zone)
    (today,) = conn.execute(
        "select count(*) from notes where subject_id = ? and source in ('auto', 'auto pruned') "
        "and created_at >= ?",
        (sid, since),
    ).fetchone()
    return today >= rules.daily_quota


def _insert(conn: sqlite3.Connection, sid: int, note: Note, fold: int) -> Note:
    """Write a new row for `note` and index it; returns it with its id."""
    (note_id,) = conn.execute(
        "insert into notes(subject_id, kind, key, text, importance, feeling, happened_at, created_at, "
        "source, "
        "gloss, fold) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id",
        (
            sid,
            note.kind,
            note.key,
            note.text,
            note.importance,
            note.feeling,
            note.happened_at,
            note.created_at,
            note.source,
            note.gloss,
            fold,
        ),
    ).fetchone()
    note = with_id(note, note_id)
    index.add(conn, sid, note)
    return note


def revise(
    conn: sqlite3.Connection,
    space: str,
    subject: str,
    note_id: int,
    fields: NoteFields,
    kept: frozenset[str],
    now: float,
) -> tuple[str, Note | None]:
    """Change a live note: a new version takes its place (its key too) and the old one is replaced by it,
    so it stays in the history until purge. `kept` names the fields of the old note that stay (kind,
    importance, happened_at); the key and the feeling always do. Returns "updated", "unchanged" (nothing
    differs), "known" (another live note already says it: the old one is replaced by that one), or
    NO_SUCH_NOTE."""
    sid = subject_id(conn, space, subject)
    row = None
    if sid is not None:
        row = conn.execute(
            f"select {COLUMNS} from notes where id = ? and subject_id = ? and {LIVE}", (note_id, sid)
        ).fetchone()
    if row is None:
        return NO_SUCH_NOTE, None
    old = note_of(subject, row)
    new = replace(
        old,
        text=fields.text,
        kind=old.kind if "kind" in kept else fields.kind or old.kind,
        importance=old.importance if "importance" in kept else fields.importance,
        happened_at=old.happened_at if "happened_at" in kept else fields.happened_at,
        source=fields.source,
        created_at=now,
        recalls=0,
        recalled_at=None,
        gloss=old.gloss if text.fold(old.text) == text.fold(fields.text) else None,
    )
    if (new.text, new.kind, new.importance, new.happened_at) == (
        old.text,
        old.kind,
        old.importance,
        old.happened_at,
    ):
        return UNCHANGED, old
    fold = fold_hash(new.text)
    for other in conn.execute(
        f"select {COLUMNS} from notes where subject_id = ? and fold = ? and id != ? and {LIVE}",
        (sid, fold, old.id),
    ).fetchall():
        known = note_of(subject, other)
        if text.fold(known.text) == text.fold(new.text) and known.key in (None, old.key):
            replace_with(conn, sid, old, known.id)
            count_live(conn, sid, -1)
            return KNOWN, known
    new = _insert(conn, sid, new, fold)
    replace_with(conn, sid, old, new.id)
    return UPDATED, new


def replace_with(conn: sqlite3.Connection, sid: int, old: Note, newer: int) -> None:
    """`old` is replaced by the note `newer`: it leaves the index and stays in the history until purge
    (the caller counts the live note it loses, if it does)."""
    conn.execute("update notes set superseded_by = ? where id = ?", (newer, old.id))
    index.remove(conn, sid, old.id, old.text, old.key, old.gloss)


def merge(conn: sqlite3.Connection, sid: int, old: Note, new: NoteFields) -> tuple[str, Note]:
    """The same text again: keep one note, with the best of both."""
    merged = replace(old, importance=max(old.importance, new.importance), gloss=old.gloss or new.gloss)
    takes_key = new.key is not None and old.key != new.key
    if takes_key:
        merged = replace(
            merged,
            key=new.key,
            kind=new.kind or old.kind,
            happened_at=old.happened_at if new.happened_at is None else new.happened_at,
            feeling=new.feeling or old.feeling,
        )
    if merged == old:
        return KNOWN, old
    conn.execute(
        "update notes set key = ?, kind = ?, importance = ?, gloss = ?, happened_at = ?, feeling = ? "
        "where id = ?",
        (
            merged.key,
            merged.kind,
            merged.importance,
            merged.gloss,
            merged.happened_at,
            merged.feeling,
            old.id,
        ),
    )
    if (merged.key, merged.gloss) != (old.key, old.gloss):
        index.remove(conn, sid, old.id, old.text, old.key, old.gloss)
        index.add(conn, sid, merged)
    else:
        index.refresh(conn, sid, merged)
    if not takes_key:
        return KNOWN, merged
    replaced = supersede(conn, sid, merged.key, old.id)
    if replaced:
        count_live(conn, sid, -replaced)
    return (REPLACED if replaced else KEPT), merged


def supersede(
    conn: sqlite3.Connection, sid: int, key: str | None, newer: int, unindex: Any = index.remove
) -> int:
    """The key's other live notes are replaced by `newer`, and leave the index (through `unindex`, which an
    import that indexes in bulk gives); returns how many."""
    rows = conn.execute(
        f"update notes set superseded_by = ? where subject_id = ? and key = ? and id != ? and {LIVE} "
        "returning id, text, key, gloss",
        (newer, sid, key, newer),
    ).fetchall()
    for note_id, note_text, note_key, gloss in rows:
        unindex(conn, sid, note_id, note_text, note_key, gloss)
    return len(rows)


def _unindex(conn: sqlite3.Connection, sid: int, rows: list[tuple[int, str, str | None, str | None]]) -> int:
    for note_id, note_text, key, gloss in rows:
        index.remove(conn, sid, note_id, note_text, key, gloss)
    if rows:
        count_live(conn, sid, -len(rows))
    return len(rows)


def prune(conn: sqlite3.Connection, sid: int, newest: int, live: int, now: float, rules: Rules) -> int:
    """Let go of the least valuable fading notes, down to 95 % of the cap (into the archive, with
    `rules.lifecycle`)."""
    if rules.lifecycle:
        return archive.let_go(conn, sid, newest, live, now, rules)
    excess = live - (rules.max_notes - rules.max_notes // 20)
    victims = conn.execute(
        f"select n.id from notes n where n.subject_id = :sid and {LIVE_N} "
        "and n.kind not in ('fact', 'preference') and n.importance < 5 and n.id != :newest "
        f"order by n.importance * (0.25 + 0.75 * {FRESH_SQL}) asc, n.id asc limit :excess",
        {"sid": sid, "newest": newest, "excess": excess, "now": now, "hl": rules.half_life_days},
    ).fetchall()
    rows = []
    for (note_id,) in victims:
        rows += conn.execute(
            "update notes set deleted_at = ?, source = trim(coalesce(source, '') || ' pruned') "
            "where id = ? returning id, text, key, gloss",
            (now, note_id),
        ).fetchall()
    return _unindex(conn, sid, rows)


def forget(
    conn: sqlite3.Connection, space: str, subject: str, note_id: int | None, key: str | None, now: float
) -> int:
    """Hide live notes by id or key (they stay in the file and in their key's history until purge)."""
    sid = subject_id(conn, space, subject)
    if sid is None:
        return 0
    where, arg = ("id = ?", note_id) if note_id is not None else ("key = ?", key)
    rows = conn.execute(
        f"update notes set deleted_at = ? where subject_id = ? and {where} and {LIVE} "
        "returning id, text, key, gloss",
        (now, sid, arg),
    ).fetchall()
    return _unindex(conn, sid, rows)


def purge(conn: sqlite3.Connection, space: str, subject: str | None) -> int:
    """Erase hidden and replaced notes for good (the whole space when no subject is given), and with them
    what only they referred to: the words no live note has (`index.drop_unused`), and the recall log's rows
    that mention them. Their vectors go by trigger."""
    if subject is None:
        sids = [row[0] for row in conn.execute("select id from subjects where space = ?", (space,))]
    else:
        sid = subject_id(conn, space, subject)
        sids = [] if sid is None else [sid]
    removed = 0
    for sid in sids:
        gone = {
            row[0]
            for row in conn.execute(
                f"delete from notes where subject_id = ? and not ({LIVE}) returning id", (sid,)
            )
        }
        if gone:
            removed += len(gone)
            _unlog(conn, sid, gone)
        index.drop_unused(conn, sid)  # also words left by notes purged before this version
    return removed


def _unlog(conn: sqlite3.Connection, sid: int, gone: set[int]) -> None:
    """Delete the person's recall-log rows that mention a purged note, chosen or skipped: the query was
    asked of it (and may hold its words), so the row goes whole (at most `recall_log.KEEP` rows to read)."""
    for row_id, chosen, skipped in conn.execute(
        "select id, chosen, skipped from recalls where subject_id = ?", (sid,)
    ).fetchall():
        if any(entry[0] in gone for entry in (*json.loads(chosen), *json.loads(skipped))):
            conn.execute("delete from recalls where id = ?", (row_id,))


def erase(conn: sqlite3.Connection, space: str, subject: str) -> int:
    """Everything about a person, for good: notes, history, index, recall log, profile, mood and its
    timeline, relationship and its closeness over time; returns how many notes were erased."""
    sid = subject_id(conn, space, subject)
    if sid is None:
        return 0
    index.forget_vocabulary(conn, index.NOTES, sid)
    removed = conn.execute("delete from notes where subject_id = ?", (sid,)).rowcount
    conn.execute("delete from recalls where subject_id = ?", (sid,))
    for table in ("profiles", "moods", "relationships", "closeness"):
        conn.execute(f"delete from {table} where subject_id = ?", (sid,))
    conn.execute("delete from mood_events where subject_id = ?", (sid,))
    conn.execute("delete from subjects where id = ?", (sid,))
    return removed


def set_profile(conn: sqlite3.Connection, space: str, subject: str, card: str | None, now: float) -> None:
    if card is None:
        sid = subject_id(conn, space, subject)
        if sid is not None:
            conn.execute("delete from profiles where subject_id = ?", (sid,))
        return
    sid = subject_id_made(conn, space, subject)
    conn.execute(
        "insert into profiles(subject_id, text, updated_at) values (?, ?, ?) "
        "on conflict(subject_id) do update set text = excluded.text, updated_at = excluded.updated_at",
        (sid, card, now),
    )


# -- reading ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Within:
    """Which of a person's notes a listing or a recall keeps to: kinds, the time they happened (`since`
    included, `until` not), a key prefix; `history` takes replaced and forgotten notes too (listings);
    `archived` True keeps to the archive, False to the awake notes, None takes both (`memory.archive`)."""

    kinds: tuple[str, ...] | None = None
    since: float | None = None
    until: float | None = None
    key_prefix: str | None = None
    history: bool = False
    archived: bool | None = None

    def sql(self, table: str = "", when: str = "happened_at") -> tuple[str, dict[str, object]]:
        """The filters but `history` as SQL (`and ...` on the columns of `table`, like "n."; the times on
        the column `when`), and their parameters."""
        parts, params = [], {}
        if self.kinds is not None:
            parts.append(f"{table}kind in (select value from json_each(:w_kinds))")
            params["w_kinds"] = json.dumps(list(self.kinds))
        if self.since is not None:
            parts.append(f"{table}{when} >= :w_since")
            params["w_since"] = self.since
        if self.until is not None:
            parts.append(f"{table}{when} < :w_until")
            params["w_until"] = self.until
        if self.key_prefix is not None:
            parts.append(f"substr({table}key, 1, length(:w_prefix)) = :w_prefix")
            params["w_prefix"] = self.key_prefix
        if self.archived is not None:
            parts.append(f"{table}archived_at is {'not ' if self.archived else ''}null")
        return "".join(" and " + part for part in parts), params


def notes(
    conn: sqlite3.Connection,
    space: str,
    subject: str,
    within: Within,
    limit: int | None = None,
    offset: int = 0,
) -> list[Note]:
    """A person's notes (live ones unless `within.history`), newest first."""
    sid = subject_id(conn, space, subject)
    if sid is None:
        return []
    where, params = within.sql()
    live = "" if within.history else f" and {LIVE}"
    rows = conn.execute(
        f"select {COLUMNS} from notes where subject_id = :sid{live}{where} "
        "order by id desc limit :limit offset :offset",
        {"sid": sid, "limit": 2**62 if limit is None else limit, "offset": offset, **params},
    ).fetchall()
    return [note_of(subject, row) for row in rows]


def newest(
    conn: sqlite3.Connection,
    subject: str,
    sid: int,
    limit: int,
    *,
    fading: bool = False,
    where: str = "",
    params: dict[str, object] | None = None,
) -> list[Note]:
    """A person's newest awake notes (of the fading kinds only, if asked; `where`, "and ...", narrows them
    further with `params`), newest first, the archive not among them: read from the newest back along the
    index of (subject, id) for live notes (`schema.NEWEST_0016`), stopping at `limit`."""
    kinds = f" and {FADING}" if fading else ""
    rows = conn.execute(
        f"select {COLUMNS} from notes where subject_id = :sid and {LIVE} and {AWAKE}{kinds}{where} "
        "order by id desc limit :limit",
        {"sid": sid, "limit": limit, **(params or {})},
    )
    return [note_of(subject, row) for row in rows]


def leading(conn: sqlite3.Connection, space: str, subject: str, limit: int) -> list[Note]:
    """A person's most important live notes, newest first among equals (for the profile card)."""
    sid = subject_id(conn, space, subject)
    if sid is None:
        return []
    rows = conn.execute(
        f"select {COLUMNS} from notes where subject_id = ? and {LIVE} "
        "order by importance desc, id desc limit ?",
        (sid, limit),
    )
    return [note_of(subject, row) for row in rows]


def history(conn: sqlite3.Connection, space: str, subject: str, key: str) -> list[Note]:
    """Every version of a key, forgotten ones included, oldest first, in the order they replaced each
    other: the live note (if any) is last, and an older note that took the key over comes after the ones
    it replaced. Versions no link orders keep the order they were written in."""
    sid = subject_id(conn, space, subject)
    if sid is None:
        return []
    rows = conn.execute(
        f"select {COLUMNS} from notes where subject_id = ? and key = ? order by created_at, id", (sid, key)
    )
    found = [note_of(subject, row) for row in rows]
    ahead = _versions_ahead({n.id: n.superseded_by for n in found})
    return sorted(found, key=lambda n: -ahead[n.id])  # stable: creation order among equals


def _versions_ahead(successor: dict[int, int | None]) -> dict[int, int]:
    """For each version, how many versions replaced it after it, following `superseded_by` links (a
    link out of the key, or -1, ends a chain). One pass over every chain, so a key with 100,000
    versions costs 100,000 steps; a loop of links, which only a damaged file has, counts as its end."""
    ahead: dict[int, int] = {}
    for start in successor:
        path: list[int] = []
        on_path: set[int] = set()
        at: int | None = start
        while at in successor and at not in ahead and at not in on_path:
            path.append(at)
            on_path.add(at)
            at = successor[at]
        count = ahead.get(at, 0) if at in successor else -1  # type: ignore[arg-type]
        for version in reversed(path):
            count += 1
            ahead[version] = count
    return ahead


def get(conn: sqlite3.Connection, space: str, note_id: int) -> Note | None:
    row = conn.execute(
        f"select s.subject, {', '.join('n.' + c.strip() for c in COLUMNS.split(','))} "
        "from notes n join subjects s on s.id = n.subject_id where n.id = ? and s.space = ?",
        (note_id, space),
    ).fetchone()
    return note_of(row[0], row[1:]) if row else None


def subjects(conn: sqlite3.Connection, space: str) -> list[str]:
    """The people with at least one live note, in the order they were first met."""
    return [
        row[0]
        for row in conn.execute(
            "select subject from subjects where space = ? and live > 0 order by id", (space,)
        )
    ]


def profile(conn: sqlite3.Connection, space: str, subject: str) -> tuple[str, float] | None:
    sid = subject_id(conn, space, subject)
    return None if sid is None else profile_of(conn, sid)


def profile_of(conn: sqlite3.Connection, sid: int) -> tuple[str, float] | None:
    """The person's card and when it was written, by their id."""
    row = conn.execute("select text, updated_at from profiles where subject_id = ?", (sid,)).fetchone()
    return (row[0], row[1]) if row else None
