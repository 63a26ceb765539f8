"""A mneme-llm 0.1.0 database, converted in place to Mneme's schema the first time Mneme opens it.

A user switching points `Mneme("companion.db")` at the file mneme-llm wrote. Refusing it would leave them
to find the export command of the program they are leaving; converting it silently would leave them no way
back. So, in this order:

Both steps happen under the file's write lock, taken first (`BEGIN IMMEDIATE`):
1. A copy of the file as it is, made with SQLite's backup API (so what is still in its WAL comes along),
   checked (`quick_check`) and flushed to disk, beside it: `companion.db.mneme-llm.bak` (or `.1.bak`, ...
   if that name is taken). mneme-llm opens the copy as it opened the original.
2. In the same write transaction: every space's rows are read (notes with their history, profile
   cards, moods and timelines, relationships, the config), mneme-llm's tables are dropped, Mneme's schema
   is made, and each space's rows are imported as an export of them would be (`transfer`), its config
   through `config.mneme_llm` (keys without an equivalent are logged and left out). Either all of it
   commits or the file is left exactly as it was.

What does not come along, as with an export: vectors (the embedder embeds the notes again, off the reply's
path), the recall log, the decision micro model and the word centroids, which learn again.

Two processes opening the file at once take turns on the write lock; the second finds it converted and
makes no copy. A conversion that fails rolls back; its copy stays beside the file, which is unchanged.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import urllib.parse
from contextlib import closing
from typing import Any

from .. import text, transfer
from ..config import mneme_llm as their_config
from ..config import stored
from ..config.keys import defaults
from ..config.views import Snapshot
from ..errors import SchemaError
from ..memory import notes
from ..store import schema
from ..transcript.index import LINES_VERSION

__all__ = ["TABLES", "adopt", "backup_path", "convert", "is_mneme_llm"]

log = logging.getLogger(__name__)

TABLES = (
    "memories",
    "recalls",
    "profiles",
    "moods",
    "mood_events",
    "micro_models",
    "vectors",
    "meaning_terms",
    "note_terms",
    "config",
    "relationships",
    "meta",
)
"""mneme-llm 0.1.0's tables (its schema 1), all of which the conversion drops once their rows are read."""

_SPACED = ("memories", "profiles", "moods", "mood_events", "relationships", "config")
_CACHES = ("terms", "folded")  # columns of `memories` that are mneme-llm's own caches


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("select name from sqlite_master where type = 'table'")}


SCHEMA = "1"
"""The `meta.schema_version` of mneme-llm 0.1.0's files, the one schema converted here; a file of another
is refused by the store, with how to export it."""


def _theirs(conn: sqlite3.Connection, tables: set[str]) -> bool:
    if "memories" not in tables or "meta" not in tables or "migrations" in tables:
        return False
    row = conn.execute("select value from meta where key = 'schema_version'").fetchone()
    return row is not None and str(row[0]) == SCHEMA


def is_mneme_llm(path: str | os.PathLike[str]) -> bool:
    """Whether the file at `path` is a mneme-llm 0.1.0 database (read only; a missing or empty file, or
    one of another mneme-llm schema, is not)."""
    path = os.fspath(path)
    if path == ":memory:" or not os.path.isfile(path) or os.path.getsize(path) == 0:
        return False
    try:
        uri = f"file:{urllib.parse.quote(os.path.abspath(path))}?mode=ro"
        with closing(sqlite3.connect(uri, uri=True, timeout=10.0)) as conn:
            return _theirs(conn, _tables(conn))
    except sqlite3.DatabaseError:
        return False  # not SQLite at all: the store says so when it opens it


def backup_path(path: str) -> str:
    """Where the copy goes: `<path>.mneme-llm.bak`, or a numbered name when that one is taken."""
    candidate, number = f"{path}.mneme-llm.bak", 0
    while os.path.exists(candidate):
        number += 1
        candidate = f"{path}.mneme-llm.{number}.bak"
    return candidate


def _back_up(path: str) -> str:
    """Copy the file beside it, checked and on disk. The caller holds the write lock, so what is copied is
    what it converts (the copy reads through a connection of its own: SQLite's backup does not read
    through the connection holding the lock)."""
    copy = backup_path(path)
    with closing(sqlite3.connect(path, timeout=10.0)) as source, closing(sqlite3.connect(copy)) as target:
        source.backup(target)
        found = target.execute("pragma quick_check").fetchone()[0]
    if found != "ok":
        os.remove(copy)
        raise SchemaError(f"{path}: its backup copy did not check out ({found}); nothing was changed")
    with open(copy, "rb") as file:
        os.fsync(file.fileno())
    return copy


def _rows(conn: sqlite3.Connection, table: str, space: str) -> list[dict[str, Any]]:
    cursor = conn.execute(f"select * from {table} where space = ?", (space,))
    names = [d[0] for d in cursor.description]
    return [{k: v for k, v in zip(names, row, strict=True) if k not in _CACHES} for row in cursor]


def _read(conn: sqlite3.Connection, tables: set[str]) -> dict[str, dict[str, Any]]:
    """Every space's rows, as mneme-llm's export of that space holds them."""
    present = [t for t in _SPACED if t in tables]
    spaces = sorted({row[0] for t in present for row in conn.execute(f"select distinct space from {t}")})
    found = {}
    for space in spaces:
        export: dict[str, Any] = {"mneme_llm": 1, "space": space}
        for table in present:
            export[table] = _rows(conn, table, space)
        found[space] = export
    return found


def _config(conn: sqlite3.Connection, space: str, rows: list[dict[str, Any]], now: float) -> None:
    """The keys the companion chose (not mneme-llm's defaults), mapped and written as imported."""
    decoded = []
    for row in rows:
        try:
            decoded.append({**row, "value": json.loads(row["value"])})
        except (TypeError, ValueError):
            log.warning("%s: the stored config key %s is not JSON and is left out", space, row.get("key"))
    translated = their_config.chosen(decoded)
    changes, skipped = stored.settled(
        [{"key": k, "value": v} for k, v in translated.values.items()], defaults()
    )
    stored.write_imported(conn, space, changes, now)
    for key, why in {**translated.left_out, **skipped}.items():
        log.warning("%s: config %s is left out: %s", space, key, why)


def _rules(conn: sqlite3.Connection, space: str) -> transfer.Rules:
    snapshot = Snapshot(stored.values_of(conn, space))
    settings = snapshot.settings()
    return transfer.Rules(
        notes.Rules.of(settings), snapshot.mood_settings(), snapshot.relation_settings(settings.zone)
    )


def _convert(conn: sqlite3.Connection, path: str, now: float) -> tuple[str, dict[str, int]] | None:
    """The conversion itself, inside the caller's write transaction: the backup copy's path and the notes
    added per space, or None when another process converted the file first."""
    tables = _tables(conn)
    if not _theirs(conn, tables):
        return None
    copy = _back_up(path)  # under the write lock: one copy, of the file as it is converted
    spaces = _read(conn, tables)
    for table in TABLES:
        if table in tables:
            conn.execute(f'drop table "{table}"')
    schema.migrate(conn, path, now)
    added = {}
    for space, export in spaces.items():
        _config(conn, space, export.pop("config", []), now)
        added[space] = transfer.bring_in(conn, space, transfer.parse(export), now, _rules(conn, space))
    # The notes were indexed with this tokenizer as they came in (and mneme-llm keeps no lines): no rebuild
    # on the first open.
    for key in ("terms_version", LINES_VERSION):
        conn.execute("insert or replace into meta(key, value) values (?, ?)", (key, text.version()))
    return copy, added


def convert(path: str | os.PathLike[str], now: float) -> str | None:
    """Convert a mneme-llm database in place, after a backup copy; returns the copy's path, or None when
    the file turned out to be converted already (by another process)."""
    path = os.fspath(path)
    with closing(sqlite3.connect(path, isolation_level=None, timeout=10.0)) as conn:
        conn.execute("begin immediate")
        try:
            done = _convert(conn, path, now)
            conn.execute("commit")
        except BaseException:
            conn.execute("rollback")
            raise
    if done is None:
        return None
    copy, added = done
    log.warning(
        "%s was a mneme-llm 0.1.0 database: converted to Mneme's (%s); mneme-llm's file is kept as %s",
        path,
        ", ".join(f"space {space}: {count} notes" for space, count in added.items()),
        copy,
    )
    return copy


def adopt(path: str | os.PathLike[str], now: float) -> str | None:
    """Convert the file at `path` if it is a mneme-llm database (see `convert`); else do nothing."""
    return convert(path, now) if is_mneme_llm(path) else None
