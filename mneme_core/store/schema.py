"""The schema, as an ordered list of named migrations.

A file records each migration it has had, by name, in `migrations`, and the highest schema level it was
written at in `meta.schema_level`. Opening a file runs the migrations it lacks, in order, each in the same
write transaction that records it. A file whose level is higher than this version knows, or that names a
migration this version does not have, was written by a newer Mneme: it is refused before anything changes,
since an older version could silently damage data it does not understand.

Tables (one file holds many spaces; a space is one companion):
- `subjects`: one row per (space, subject), with a running count of its live notes, so the cap on live notes
  and the rare-word weights never count rows. Ids are never reused (AUTOINCREMENT), so a cached id of an
  erased person can never point at someone else.
- `notes`: one row per note, live or not. "Live" means neither forgotten (`deleted_at`) nor replaced by a
  newer note with the same key (`superseded_by`).
- `terms`, `term_counts` and the postings: the term index. `terms` holds each subject's vocabulary (term ->
  id) and `term_counts` each term's live document frequency; a posting pairs a term with a live note that
  contains it (on three levels: `fresh_postings`, `recent_postings`, `postings`, see `memory.index`), and
  carries what recall's score needs of the note (see `memory.index.carried_of`), so scoring never visits
  the notes it does not choose.
  A note leaves the index the moment it stops being live, so dead notes never cost a recall anything.
- `recalls`: the recall log (what was chosen and skipped, and why), written in batches, off recall's path.
- `profiles`: the short profile card shown above the notes.
- `moods` and `mood_events`: each person's mood as last written (decay is computed on read) and its
  timeline; `moods.told_event` is the last event the companion was told about (news is told once).
- `relationships`: who each person is to the companion (role) and how close they are.
- `config`: each space's own copy of its settings, one JSON value per flat key, with where it came from.
- `lines` and `waiting_observes`: each conversation's lines, and the exchanges waiting to be observed
  (`mneme_core.transcript`); `line_terms` and the line postings: the lines' own term index, on the same
  three levels as the notes' (`transcript.index`).
- `closeness`: each person's closeness over time, a point per change (`relations.history`).
- `check_marks`, `check_fixes`: how far each phase of the health check has looked, and the fixes it applied
  (`mneme_core.check`); `leases`: who runs a job of a space now, and when it is next due (`store.leases`).
- `links`: notes recalled or written together (`memory.links`); `journal` and `journal_about`: the
  companion's own entries and whom each is about (`mneme_core.journal`). A note's lifecycle columns
  (strength, stability, archived_at, ...) are `memory.lifecycle`'s.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import SchemaError

LIVE = "deleted_at is null and superseded_by is null"
# The same, for a query that calls the notes table `n`.
LIVE_N = "n.deleted_at is null and n.superseded_by is null"
# A live note that is not in the archive (`memory.archive`): the everyday selection's notes.
AWAKE = "archived_at is null"
FADING = "kind not in ('fact', 'preference')"  # the kinds that fade (see `notes.newest`)

NOTES_0001 = f"""
create table if not exists meta(key text primary key, value text not null) without rowid;
create table if not exists migrations(name text primary key, applied_at real not null) without rowid;
create table subjects(
    id integer primary key autoincrement,
    space text not null,
    subject text not null,
    live integer not null default 0,
    unique(space, subject)
);
create table notes(
    id integer primary key autoincrement,
    subject_id integer not null,
    kind text not null,
    key text,
    text text not null,
    importance integer not null,
    feeling real not null default 0,
    happened_at real not null,
    created_at real not null,
    recalled_at real,
    recalls integer not null default 0,
    superseded_by integer,
    deleted_at real,
    source text,
    gloss text,
    fold integer not null
);
create index notes_live on notes(subject_id, importance) where {LIVE};
create index notes_fold on notes(subject_id, fold) where {LIVE};
create index notes_key on notes(subject_id, key) where key is not null;
create index notes_all on notes(subject_id);
create index notes_auto on notes(subject_id, created_at) where source in ('auto', 'auto pruned');
create table terms(
    id integer primary key autoincrement,
    subject_id integer not null,
    term text not null,
    df integer not null default 0,
    unique(subject_id, term)
);
create table postings(
    term_id integer not null,
    note_id integer not null,
    fresh_at real,
    weight real not null,
    primary key(term_id, note_id)
) without rowid;
create table fresh_postings(
    note_id integer not null,
    term_id integer not null,
    fresh_at real,
    weight real not null,
    primary key(note_id, term_id)
) without rowid;
create table recalls(
    id integer primary key,
    subject_id integer not null,
    at real not null,
    query text not null,
    chosen text not null,
    skipped text not null
);
create index recalls_subject on recalls(subject_id, id);
create table profiles(
    subject_id integer primary key,
    text text not null,
    updated_at real not null
);
"""


@dataclass(frozen=True)
class Migration:
    """One step of the schema: a name recorded in the file, and what it does."""

    name: str
    apply: Callable[[sqlite3.Connection], None]
    postgres: str | None = None  # a plugin's step in PostgreSQL's words, where SQLite's would not do


def statements(sql: str) -> list[str]:
    """SQL split into whole statements: a `;` inside a trigger's `begin ... end` does not end one."""
    found, pending = [], ""
    for piece in sql.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \t\r\n;"):
                found.append(pending)
            pending = ""
    if pending.strip(" \t\r\n;"):
        found.append(pending)
    return found


def sql_step(sql: str) -> Callable[[sqlite3.Connection], None]:
    """A migration step that runs a script's statements in order (inside the caller's transaction)."""
    parts = statements(sql)

    def apply(conn: sqlite3.Connection) -> None:
        for statement in parts:
            conn.execute(statement)

    return apply


MOOD_RELATIONS_0002 = """
create table moods(
    subject_id integer primary key,
    value real not null,
    emotions text not null,
    updated_at real not null,
    last_event integer,
    told_event integer
);
create table mood_events(
    id integer primary key autoincrement,
    subject_id integer not null,
    at real not null,
    delta real not null,
    value real not null,
    emotions text not null,
    reason text not null,
    confidence real not null,
    source text not null,
    judge text not null
);
create index mood_events_subject on mood_events(subject_id, id);
create table relationships(
    subject_id integer primary key,
    role text not null,
    closeness real not null,
    since real not null,
    updated_at real not null,
    last_seen real
);
"""

CONFIG_0003 = """
create table config(
    space text not null,
    key text not null,
    value text not null,
    origin text not null,
    updated_at real not null,
    primary key(space, key)
) without rowid;
"""

# Vectors for the meaning tier (`mneme_core.meaning`): one per (note, embedder), float32 little-endian,
# L2-normalised; `embedders` names each model once (two models' vectors are never compared) with its
# dimensions and measured floor. `vector_sets` counts the changes to each person's vectors of an embedder,
# so a process keeping them as a matrix in memory sees another process's writes by one lookup. The triggers
# keep vectors for live notes only: a note forgotten, replaced, pruned, purged or erased loses its vectors
# in the same transaction, whoever wrote it.
VECTORS_0004 = """
create table embedders(
    id integer primary key autoincrement,
    name text not null unique,
    dimensions integer not null,
    floor real,
    floor_vectors integer not null default 0,
    created_at real not null
);
create table vectors(
    note_id integer not null,
    embedder_id integer not null,
    subject_id integer not null,
    vector blob not null,
    primary key(note_id, embedder_id)
) without rowid;
create index vectors_subject on vectors(embedder_id, subject_id, note_id);
create table vector_sets(
    embedder_id integer not null,
    subject_id integer not null,
    changes integer not null default 0,
    primary key(embedder_id, subject_id)
) without rowid;
create trigger vectors_added after insert on vectors begin
    insert into vector_sets(embedder_id, subject_id, changes) values (new.embedder_id, new.subject_id, 1)
    on conflict(embedder_id, subject_id) do update set changes = changes + 1;
end;
create trigger vectors_removed after delete on vectors begin
    update vector_sets set changes = changes + 1
    where embedder_id = old.embedder_id and subject_id = old.subject_id;
end;
create trigger vectors_note_deleted after delete on notes begin
    delete from vectors where note_id = old.id;
end;
create trigger vectors_note_left after update of deleted_at, superseded_by on notes
when new.deleted_at is not null or new.superseded_by is not null begin
    delete from vectors where note_id = new.id;
end;
create trigger vectors_subject_erased after delete on subjects begin
    delete from vector_sets where subject_id = old.id;
end
"""


# Writing a note touches fewer pages (see `memory.index`): postings on three levels, fresh ones ordered by
# note, recent ones and settled ones ordered by term (the old fresh postings settle here); and one index on
# (subject, importance) where there were two (live notes by importance, all notes by subject). It serves
# both: within one importance its entries are in id order, the dead are few beside the live, and a row
# says whether it is live (see `memory.notes.newest_fading`).
POSTINGS_LEVELS_0005 = f"""
update terms set df = df + c.n from
    (select f.term_id, count(*) as n from fresh_postings f join notes n on n.id = f.note_id
     where {LIVE_N} group by f.term_id) c
where terms.id = c.term_id;
insert or replace into postings(term_id, note_id, fresh_at, weight)
    select f.term_id, f.note_id, f.fresh_at, f.weight from fresh_postings f join notes n on n.id = f.note_id
    where {LIVE_N} order by 1, 2;
drop table fresh_postings;
create table fresh_postings(
    id integer primary key,
    term_id integer not null,
    fresh_at real,
    weight real not null
);
create table recent_postings(
    term_id integer not null,
    note_id integer not null,
    fresh_at real,
    weight real not null,
    primary key(term_id, note_id)
) without rowid;
drop index notes_live;
drop index notes_all;
create index notes_subject on notes(subject_id, importance);
"""


# The conversation itself (`mneme_core.transcript`): every line of each conversation, a person's with their
# subject, the companion's with the line it answered; and the exchanges waiting to be observed, kept until
# they were, so none is lost to a model that is down or a process that stopped.
TRANSCRIPT_0006 = """
create table lines(
    id integer primary key autoincrement,
    space text not null,
    conversation text not null,
    subject_id integer,
    role text not null,
    name text,
    text text not null,
    at real not null,
    addressed integer not null,
    reply_to integer
);
create index lines_conversation on lines(space, conversation, id);
create index lines_context on lines(space, conversation, id) where addressed = 0;
create index lines_subject on lines(subject_id, id);
create index lines_reply on lines(reply_to) where reply_to is not null;
create table waiting_observes(
    id integer primary key autoincrement,
    space text not null,
    subject_id integer not null,
    line_id integer not null,
    user_name text,
    platform text,
    source text not null,
    attempts integer not null default 0,
    moved integer not null default 0,
    next_at real not null,
    claimed_until real,
    error text,
    created_at real not null
);
create index waiting_observes_subject on waiting_observes(subject_id, id);
create index waiting_observes_space on waiting_observes(space, id);
"""


# The transcript is memory too (`mneme_core.transcript.index`): a person's lines (their own, addressed to the
# companion, and the companion's replies to them) get a term index of their own, on the notes' three levels
# (`memory.index.LINES`), so a recall finds a line said weeks ago; `subjects.lines` counts a person's
# indexed lines (their idf's N). Their vectors (`line_vectors`, as `vectors` is for notes) go with a deleted
# line. The lines already in a file are indexed when it is next opened (the lines' terms version is
# missing, see `Mneme._reindex_if_needed`).
LINE_INDEX_0013 = """
alter table subjects add column lines integer not null default 0;
create table line_terms(
    id integer primary key autoincrement,
    subject_id integer not null,
    term text not null,
    df integer not null default 0,
    unique(subject_id, term)
);
create table line_fresh_postings(
    id integer primary key,
    term_id integer not null,
    fresh_at real,
    weight real not null
);
create table line_recent_postings(
    term_id integer not null,
    line_id integer not null,
    fresh_at real,
    weight real not null,
    primary key(term_id, line_id)
) without rowid;
create table line_postings(
    term_id integer not null,
    line_id integer not null,
    fresh_at real,
    weight real not null,
    primary key(term_id, line_id)
) without rowid;
create table line_vectors(
    line_id integer not null,
    embedder_id integer not null,
    subject_id integer not null,
    vector blob not null,
    primary key(line_id, embedder_id)
) without rowid;
create index line_vectors_subject on line_vectors(embedder_id, subject_id, line_id);
create table line_vector_sets(
    embedder_id integer not null,
    subject_id integer not null,
    changes integer not null default 0,
    primary key(embedder_id, subject_id)
) without rowid;
create trigger line_vectors_added after insert on line_vectors begin
    insert into line_vector_sets(embedder_id, subject_id, changes) values (new.embedder_id, new.subject_id, 1)
    on conflict(embedder_id, subject_id) do update set changes = changes + 1;
end;
create trigger line_vectors_removed after delete on line_vectors begin
    update line_vector_sets set changes = changes + 1
    where embedder_id = old.embedder_id and subject_id = old.subject_id;
end;
create trigger line_vectors_line_deleted after delete on lines begin
    delete from line_vectors where line_id = old.id;
end;
create trigger line_vectors_subject_erased after delete on subjects begin
    delete from line_vector_sets where subject_id = old.id;
end
"""


# Closeness over time (`relations`): a point each time a role or closeness is set, on a person's first
# contact of each day (growth), and on import; between points closeness fades as `relations.faded` says.
# The newest `relations.POINTS` per person are kept (about a year of daily contact).
CLOSENESS_0012 = """
create table closeness(
    id integer primary key autoincrement,
    subject_id integer not null,
    at real not null,
    role text not null,
    closeness real not null
);
create index closeness_subject on closeness(subject_id, id);
"""


# The health check (`mneme_core.check`) and the work between conversations: per space and check phase the
# highest note id the phase has looked at (`check_marks`: an incremental run checks only what came after),
# each fix the check applied (`check_fixes`: which notes it changed and how, so it can be undone from the
# history; ids and our own words only, never a note's text), and leases (`leases`: one row per space and job,
# so that one process at a time runs it, and every process knows when it is next due).
CHECKS_0011 = """
create table check_marks(
    space text not null,
    phase text not null,
    note_id integer not null,
    at real not null,
    primary key(space, phase)
) without rowid;
create table check_fixes(
    id integer primary key autoincrement,
    space text not null,
    subject_id integer not null,
    phase text not null,
    by text not null,
    confidence real not null,
    problem text not null,
    signature text not null,
    changes text not null,
    at real not null,
    undone_at real
);
create index check_fixes_space on check_fixes(space, id);
create index check_fixes_subject on check_fixes(subject_id);
create table leases(
    space text not null,
    name text not null,
    holder text,
    until real,
    next_at real,
    started_at real,
    finished_at real,
    runs integer not null default 0,
    error text,
    primary key(space, name)
) without rowid;
"""


# The lifecycle (issue 21; `memory.lifecycle`, `memory.links`, `memory.archive`, `tending`, `journal`): each
# note's strength and stability (its accessibility is computed on read), when it went into the archive, when
# a recall last reinforced it and in which conversation, and when its lesson was asked; each person's count
# of archived live notes (kept by trigger, so the cap counts the awake ones without reading rows); the links
# between notes (undirected, `a < b`, one person's), which go with their notes by trigger: a forgotten or
# purged note's links go, a replaced note's pass to the note that replaced it; and the companion's journal,
# with the people each entry is about, which goes with them when they are erased.
LIFECYCLE_0015 = f"""
alter table notes add column strength real not null default 1.0;
alter table notes add column stability real not null default 1.0;
alter table notes add column archived_at real;
alter table notes add column reinforced_at real;
alter table notes add column reinforced_in text;
alter table notes add column lesson_at real;
alter table subjects add column archived integer not null default 0;
create index notes_archived on notes(subject_id, id) where archived_at is not null and {LIVE};
create trigger notes_archived_count after update of archived_at, deleted_at, superseded_by on notes
when (new.archived_at is not null and new.deleted_at is null and new.superseded_by is null)
    != (old.archived_at is not null and old.deleted_at is null and old.superseded_by is null)
begin
    update subjects set archived = archived + (case when new.archived_at is not null
        and new.deleted_at is null and new.superseded_by is null then 1 else -1 end)
    where id = new.subject_id;
end;
create trigger notes_archived_deleted after delete on notes
when old.archived_at is not null and old.deleted_at is null and old.superseded_by is null
begin
    update subjects set archived = archived - 1 where id = old.subject_id;
end;
create table links(
    subject_id integer not null,
    a integer not null,
    b integer not null,
    weight real not null,
    at real not null,
    primary key(a, b)
) without rowid;
create index links_b on links(b);
create index links_subject on links(subject_id);
create trigger links_note_forgotten after update of deleted_at on notes
when new.deleted_at is not null and old.deleted_at is null
begin
    delete from links where a = old.id or b = old.id;
end;
create trigger links_note_replaced after update of superseded_by on notes
when new.superseded_by is not null and old.superseded_by is null
begin
    insert into links(subject_id, a, b, weight, at)
    select subject_id, min(other, new.superseded_by), max(other, new.superseded_by), weight, at
    from (select subject_id, case when a = old.id then b else a end as other, weight, at
          from links where a = old.id or b = old.id)
    where new.superseded_by > 0 and other != new.superseded_by
    on conflict(a, b) do update set weight = max(weight, excluded.weight), at = max(at, excluded.at);
    delete from links where a = old.id or b = old.id;
end;
create trigger links_note_deleted after delete on notes
begin
    delete from links where a = old.id or b = old.id;
end;
create trigger links_subject_erased after delete on subjects
begin
    delete from links where subject_id = old.id;
end;
create table journal(
    id integer primary key autoincrement,
    space text not null,
    at real not null,
    text text not null,
    source text not null
);
create index journal_space on journal(space, id);
create table journal_about(
    entry_id integer not null,
    subject_id integer not null,
    primary key(entry_id, subject_id)
) without rowid;
create index journal_about_subject on journal_about(subject_id);
create trigger journal_entry_deleted after delete on journal
begin
    delete from journal_about where entry_id = old.id;
end;
create trigger journal_subject_erased after delete on subjects
begin
    delete from journal where id in (select entry_id from journal_about where subject_id = old.id);
end
"""


# A person's newest live notes (`notes.newest`, asked twice by every recall), read from the newest back and
# stopping at the limit: the index on (subject_id, importance) held them in id order per importance only,
# so each read was five sorted parts merged (260 µs for a person of 30 notes on a loaded machine; 196 µs
# now, and 106 µs for the fading kinds alone). About 25 bytes a note.
NEWEST_0016 = f"""
create index notes_newest on notes(subject_id, id) where {LIVE};
create index notes_newest_fading on notes(subject_id, id) where {LIVE} and {FADING};
"""


# The term index rebuilt person by person when the terms' rules change (`memory.reindex`): the people whose
# notes and lines are still indexed by the rules before `meta.terms_version`. A recall for one of them
# rebuilds them first; a background thread takes the rest a few at a time. An erased person's row goes with
# them.
REINDEXING_0017 = """
create table reindexing(subject_id integer primary key);
create trigger reindexing_subject_erased after delete on subjects begin
    delete from reindexing where subject_id = old.id;
end
"""


# The term indexes take less room (`memory.index`: `added` for the vocabulary, `carried_of` for the
# postings). A vocabulary (`terms`, `line_terms`) was a table by id with a unique index on (subject_id,
# term); now it is keyed by (subject_id, term) alone, `without rowid`, and the last id given is in `meta`
# (`term_ids`, `line_term_ids`: carried on from AUTOINCREMENT's, so no id is ever given twice). The fresh
# and recent postings name their person and term (a merge counts them into `df` by the vocabulary's key,
# a recall reads its person's fresh postings by `(subject_id, id)`); the notes' postings, on each level,
# carry their note's importance and feeling where they carried its weight, and the second of its freshness
# (truncated). Measured with dbstat: see `memory.index`.
#
# Each table is rewritten in the migration's transaction: a new table is filled in key order (reading the
# old one in its key order: no sort), the old one dropped (its pages zeroed as they are freed,
# `secure_delete`: the vocabulary held the people's words) and the new one renamed. The old tables' pages
# stay in the file, free, for the next notes to fill (`VACUUM` gives them back to the disk). Copying aside
# into `temp` first and refilling the old pages would not grow the file, but this connection's `temp` is
# in memory (`temp_store`: a gigabyte for a big file's postings), and it cannot be changed back within the
# migration's transaction. Measured: 10,000 people x 300 notes (3 million notes, 2,436 MB) took 75 s at
# open (1,000 x 300: 5.4 s); the file grew to 3,404 MB, 1,600 MB of it free pages; a `VACUUM` then took
# 29 s and left 1,629 MB (570 bytes a note: it packs the pages fuller than the import does).
_POSTING_0018 = "fresh_at real,\n    importance integer not null,\n    feeling real not null"
_LINE_POSTING_0018 = "fresh_at real,\n    weight real not null"
_NAMED_0018 = "subject_id integer not null,\n    term text not null,\n    "


def _rewritten_0018(
    table: str, columns: str, filled: str, after: str = "without rowid", index: str = ""
) -> str:
    """`table` made anew with these columns (and what comes `after` them), from the rows `filled` selects
    (in key order)."""
    return f"""
create table {table}_0018(
    {columns}
) {after};
insert into {table}_0018 {filled};
drop table {table};
alter table {table}_0018 rename to {table};
{index}"""


def _vocabulary_0018(terms: str, given: str) -> str:
    return f"""
insert into meta(key, value) select '{given}', cast(max(
    coalesce((select seq from sqlite_sequence where name = '{terms}'), 0),
    coalesce((select max(id) from {terms}), 0)) as text) where true
    on conflict(key) do update set value = excluded.value;
""" + _rewritten_0018(
        terms,
        "subject_id integer not null,\n    term text not null,\n    id integer not null,\n"
        "    df integer not null default 0,\n    primary key(subject_id, term)",
        f"select subject_id, term, id, df from {terms} order by subject_id, term",
    )


def _settled_0018(table: str) -> str:
    return _rewritten_0018(
        table,
        f"term_id integer not null,\n    note_id integer not null,\n    {_POSTING_0018},\n"
        "    primary key(term_id, note_id)",
        f"select p.term_id, p.note_id, cast(p.fresh_at as integer), n.importance, n.feeling from {table} p "
        "join notes n on n.id = p.note_id order by p.term_id, p.note_id",
    )


def _recent_0018(table: str, item: str, terms: str, notes: bool) -> str:
    carried = _POSTING_0018 if notes else _LINE_POSTING_0018
    copied = "cast(p.fresh_at as integer), n.importance, n.feeling" if notes else "p.fresh_at, p.weight"
    joined = f" join notes n on n.id = p.{item}" if notes else ""
    return _rewritten_0018(
        table,
        f"term_id integer not null,\n    {item} integer not null,\n    {_NAMED_0018}{carried},\n"
        f"    primary key(term_id, {item})",
        f"select p.term_id, p.{item}, t.subject_id, t.term, {copied} from {table} p "
        f"join {terms} t on t.id = p.term_id{joined} order by p.term_id, p.{item}",
    )


def _fresh_0018(table: str, terms: str, notes: bool) -> str:
    carried = _POSTING_0018 if notes else _LINE_POSTING_0018
    copied = "cast(p.fresh_at as integer), n.importance, n.feeling" if notes else "p.fresh_at, p.weight"
    joined = " join notes n on n.id = p.id >> 20" if notes else ""
    columns = "fresh_at, importance, feeling" if notes else "fresh_at, weight"  # what a recall reads of them
    return _rewritten_0018(
        table,
        f"id integer primary key,\n    {_NAMED_0018}term_id integer not null,\n    {carried}",
        f"select p.id, t.subject_id, t.term, p.term_id, {copied} from {table} p "
        f"join {terms} t on t.id = p.term_id{joined} order by p.id",
        "",
        f"create index {table}_subject on {table}(subject_id, id, term_id, {columns});\n",
    )


COMPACT_INDEX_0018 = (
    _settled_0018("postings")
    + _recent_0018("recent_postings", "note_id", "terms", notes=True)
    + _fresh_0018("fresh_postings", "terms", notes=True)
    + _recent_0018("line_recent_postings", "line_id", "line_terms", notes=False)
    + _fresh_0018("line_fresh_postings", "line_terms", notes=False)
    + _vocabulary_0018("terms", "term_ids")
    + _vocabulary_0018("line_terms", "line_term_ids")
)


MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001_notes", sql_step(NOTES_0001)),
    Migration("0002_mood_relations", sql_step(MOOD_RELATIONS_0002)),
    Migration("0003_config", sql_step(CONFIG_0003)),
    Migration("0004_vectors", sql_step(VECTORS_0004)),
    Migration("0005_postings_levels", sql_step(POSTINGS_LEVELS_0005)),
    Migration("0006_transcript", sql_step(TRANSCRIPT_0006)),
    Migration("0011_checks", sql_step(CHECKS_0011)),
    Migration("0012_closeness", sql_step(CLOSENESS_0012)),
    Migration("0013_line_index", sql_step(LINE_INDEX_0013)),
    Migration("0015_lifecycle", sql_step(LIFECYCLE_0015)),
    Migration("0016_newest", sql_step(NEWEST_0016)),
    Migration("0017_reindexing", sql_step(REINDEXING_0017)),
    Migration("0018_compact_index", sql_step(COMPACT_INDEX_0018)),
)
LEVEL = len(MIGRATIONS)


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("select name from sqlite_master where type = 'table'")}


def check(conn: sqlite3.Connection, path: str, plugged: tuple[Migration, ...] = ()) -> list[Migration]:
    """The migrations this file lacks; raises `SchemaError` for a file this version must not touch.

    `plugged` are plugins' migrations (named `<plugin>:<name>`, run after the core's). A file that had a
    plugin's migration the plugin is not installed for now is not "newer": its tables just wait. Reads only,
    so a refused file is left exactly as it was.
    """
    steps = (*MIGRATIONS, *plugged)
    tables = _tables(conn)
    if "memories" in tables and "meta" in tables and "migrations" not in tables:
        row = conn.execute("select value from meta where key = 'schema_version'").fetchone()
        raise SchemaError(
            f"{path} was written by mneme-llm (schema {row[0] if row else 'unknown'}), not Mneme: Mneme(...) "
            "converts mneme-llm 0.1.0's files (schema 1) in place after a backup copy; for another, export "
            "it with `mneme-llm export --out data.json` and `mneme import data.json`"
        )
    if tables and "migrations" not in tables:
        raise SchemaError(
            f"{path} is an SQLite file of another program (tables: {', '.join(sorted(tables))})"
        )
    if not tables:
        return list(steps)
    row = conn.execute("select value from meta where key = 'schema_level'").fetchone()
    level = int(row[0]) if row else 0
    done = {name for (name,) in conn.execute("select name from migrations")}
    known = {m.name for m in steps}
    if level > LEVEL or {name for name in done - known if ":" not in name}:
        raise SchemaError(
            f"{path} was written by a newer Mneme (schema level {level}, this version knows {LEVEL}); "
            "upgrade mneme-bots to open it"
        )
    return [m for m in steps if m.name not in done]


def migrate(conn: sqlite3.Connection, path: str, now: float, plugged: tuple[Migration, ...] = ()) -> None:
    """Bring the file up to this version inside one write transaction (the caller holds it)."""
    for migration in check(conn, path, plugged):
        migration.apply(conn)
        conn.execute("insert into migrations(name, applied_at) values (?, ?)", (migration.name, now))
    conn.execute(
        "insert into meta(key, value) values ('schema_level', ?) "
        "on conflict(key) do update set value = excluded.value "
        "where cast(value as integer) < cast(excluded.value as integer)",
        (str(LEVEL),),
    )
