"""The term index: which live notes of a person contain which words.

A note's terms are the terms (see `mneme_core.text.terms`) of its text, its key's words and its gloss. Each
person has a vocabulary in `terms` (their term -> its id); each (term, note) pair is a posting. How many of
the person's live notes contain a term (its `df`) is `term_counts.df` (the settled postings) plus its recent
and fresh postings (see below).
The index changes in the transaction that makes a note live or takes it out of life (forgotten, replaced,
pruned), so it only ever describes live notes and a recall never has to filter out the dead.

Postings live on three levels, for the sake of writing. A recall reads postings by term; but a new note's
terms each sit on a different page of a table ordered by term, and a commit writes every page it touched to
the WAL (a Chinese note has some 27 terms), while a big merge touches nearly every page of a big table.

- `fresh_postings`, ordered by note (its id is `note_id << 20 | position`), where a new note's postings
  share a page: each note costs about one page. A recall scans it (at most `FRESH_NOTES` notes' worth).
- `recent_postings`, ordered by term, small: every `FRESH_NOTES` notes the fresh postings move here in one
  statement, touching at most the few hundred pages this table has. A recall counts them by term.
- `postings`, ordered by term, everything older: every `RECENT_NOTES` notes the recent postings move here in
  key order, and are counted into their terms' `df`: one pass over the big tables for thousands of notes
  instead of one per few hundred.

A recall reads the newest postings of each term from `recent_postings` first, then `postings` (see
`counting`), so the split never changes what it finds. The work is a few statements per note, done
inside SQLite over a JSON list of terms, so indexing costs about the same whether a note has three terms or
thirty.

The same three levels index the transcript's lines (`LINES`, tables of their own, see `transcript.found`): a
`Postings` value names the tables, and every function here takes one (the notes' by default).

Room. The index is most of a file: a note has some 16 postings (a Chinese one more, an English one fewer)
and, in a bot of many people with a few hundred notes each, some 4.6 terms of its person's vocabulary that
no other note of theirs has. Migration `0018_compact_index` made both smaller (`added`, `carried_of`);
dbstat on a file of 1,000 people x 300 notes built by the import, bytes a note:

| | postings | vocabulary | whole file |
|---|---|---|---|
| before | 455 | 183 (`terms` 93, its index 90) | 836 |
| after | 326 | 96 (`terms`) | 620 |

At 10,000 people x 300 notes (`benchmarks/recall.py --people`) the file went from 853 to 631 bytes a note
(postings 469 -> 339, vocabulary 191 -> 99), one person's 100,000 notes from 622 to 491. One person's
vocabulary is a few bytes a note; many people's cannot be: each of them has their own words with their own
`df`, and the term ids, some 14 million, take a byte more in each posting.

What it cost: the fresh postings name their person and term (a merge counts them into `df` by the
vocabulary's key) and new terms take their ids from `meta`, so writing does a little more: 3,000
`remember()` for 300 people, 458 -> 520 µs of CPU each (median of three interleaved runs, 361-497 ->
512-529); 2,310 exchanges kept in the transcript, 2.5 -> 3.0 s of CPU (2.5-2.6 -> 2.6-3.6).
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import dataclass
from functools import cache

from .. import text
from ..store.postgres.dialect import Dialects
from ..store.schema import LIVE
from .note import COLUMNS, LASTING, Note, key_terms, note_of

FRESH_NOTES = 256
RECENT_NOTES = 4096
SHIFT = 20  # fresh_postings.id = note_id << SHIFT | the term's position in the note


@dataclass(frozen=True)
class Postings:
    """The tables of one term index: the vocabulary (`terms`: a person's term -> its id and `df`), the three
    levels of postings, the column naming what a posting points at, the meta keys counting fresh merges
    since the last settle (`merges`) and holding the last term id given (`given`); and what a posting
    carries for recall's first ranking beside its key (`carried`, their PostgreSQL types in `types`) with the
    weight made of it (`weight`, SQL where `{t}` is a table's alias and its dot)."""

    terms: str
    fresh: str
    recent: str
    settled: str
    item: str
    merges: str
    given: str
    carried: tuple[str, ...]
    types: tuple[str, ...]
    weight: str

    @property
    def columns(self) -> str:
        """The carried columns, listed."""
        return ", ".join(self.carried)

    def weighed(self, alias: str = "") -> str:
        """A posting's weight as SQL, on the columns of the table called `alias` (like "h.")."""
        return self.weight.format(t=alias)


NOTES = Postings(
    "terms",
    "fresh_postings",
    "recent_postings",
    "postings",
    "note_id",
    "recent_merges",
    "term_ids",
    ("fresh_at", "importance", "feeling"),
    ("float8", "bigint", "float8"),
    "(0.4 + 0.15 * {t}importance) * (1 + 0.3 * abs({t}feeling))",
)
LINES = Postings(
    "line_terms",
    "line_fresh_postings",
    "line_recent_postings",
    "line_postings",
    "line_id",
    "line_merges",
    "line_term_ids",
    ("fresh_at", "weight"),
    ("float8", "float8"),
    "{t}weight",
)
MERGES = NOTES.merges  # meta: fresh merges since the recent postings last settled


# An item's fresh postings in one statement over a JSON list of its terms, each term's id read from the
# person's vocabulary by its key (`term_ids` has just added the new ones; `cross join`: the list first, or
# SQLite reads the person's whole vocabulary); PostgreSQL types the select list's parameters itself (a
# `None` fresh_at would be text).
ADD_FRESH = {
    p.fresh: Dialects(
        f"insert or ignore into {p.fresh}(id, subject_id, term_id, term, {p.columns}) "
        f"select (:item << {SHIFT}) + j.key, :sid, t.id, j.value, "
        f"{', '.join(f':c{i}' for i in range(len(p.carried)))} "
        f"from json_each(:terms) j cross join {p.terms} t on t.subject_id = :sid and t.term = j.value",
        f"insert into {p.fresh}(id, subject_id, term_id, term, {p.columns}) "
        f"select (:item::bigint << {SHIFT}) + j.key, :sid::bigint, t.id, j.value, "
        f"{', '.join(f':c{i}::{t}' for i, t in enumerate(p.types))} "
        f"from mneme_texts(:terms) j join {p.terms} t on t.subject_id = :sid and t.term = j.value "
        "on conflict do nothing",
    )
    for p in (NOTES, LINES)
}
# A person's new terms, from a JSON list, their ids counting up from `?`.
ADD_TERMS = {
    p.terms: f"insert into {p.terms}(subject_id, term, id, df) select ?, value, ? + key, 0 from json_each(?)"
    for p in (NOTES, LINES)
}


def note_terms(note_text: str, key: str | None, gloss: str | None) -> list[str]:
    """The terms a note is found by."""
    return text.terms(" ".join(part for part in (note_text, key_terms(key), gloss or "") if part))


def rank_of(
    kind: str, importance: int, feeling: float, happened_at: float, recalled_at: float | None
) -> tuple[float | None, float]:
    """What recall's score needs of a note besides its evidence, kept on each of its postings.

    `fresh_at`: the moment its freshness counts from (None for lasting kinds, which never fade);
    `weight`: `(0.4 + 0.15 importance) x (1 + 0.3 |feeling|)`. Keeping them on the postings lets a recall
    score thousands of candidates without visiting their notes, and only the winners are read.
    """
    fresh_at = None if kind in LASTING else max(happened_at, recalled_at or 0.0)
    return fresh_at, (0.4 + 0.15 * importance) * (1 + 0.3 * abs(feeling))


def carried_of(
    kind: str, importance: int, feeling: float, happened_at: float, recalled_at: float | None
) -> tuple[float | None, int, float]:
    """What a note's postings carry (`NOTES.carried`): `rank_of`'s `fresh_at` to the second (truncated),
    the note's importance and its feeling; recall makes the weight of the last two where it ranks
    (`NOTES.weight`, the same float `rank_of` gives).

    Why not the weight itself: a posting was some 29 bytes and a note has some 16 of them, and a weight took
    8 of those bytes, where an importance takes 1 and a feeling of 0 none (SQLite keeps 0 and 1 in the
    record's header alone). A second, where a `time.time()` moment took 8 bytes, takes 4: SQLite keeps a
    whole REAL as an integer on disk. Postings went from 455 to 326 bytes a note (see the module docstring).

    A posting's freshness and weight choose which notes recall scores (its first `k`, `recall.word_ranked`),
    whose scores are then worked out from the notes themselves; only the follow-up query's share
    (`hops`) is in proportion to a posting's score. So the second changes a score by float noise: 3,000
    recalls (a third of them dialogues) on 1,000 people x 300 notes, before and after: the same notes
    chosen and skipped, the same `explain()`, scores within 5.4e-8 of each other."""
    fresh_at, _weight = rank_of(kind, importance, feeling, happened_at, recalled_at)
    return (None if fresh_at is None else float(int(fresh_at)), importance, feeling)


class TermIds:
    """The term ids one connection has seen, per (subject, term): most of a new note's terms are words the
    person used before, and looking them up costs more than writing the note's postings.

    Kept on the connection (see `store.Connection`), which forgets it when a transaction of it rolls back;
    valid while no other connection has committed (`PRAGMA data_version` says when one has), and cleared when
    this connection deletes terms (`erase`, `rebuild`)."""

    LIMIT = 200_000

    def __init__(self) -> None:
        self.version: int | None = None
        self.ids: dict[tuple[str, int, str], int] = {}  # (vocabulary table, subject id, term)

    @classmethod
    def of(cls, conn: sqlite3.Connection) -> TermIds | None:
        kept = getattr(conn, "__dict__", None)
        if kept is None:  # a plain sqlite3 connection: nowhere to keep them, look terms up each time
            return None
        found = kept.get("term_ids")
        if found is None:
            found = kept["term_ids"] = cls()
        (version,) = conn.execute("pragma data_version").fetchone()
        if version != found.version or len(found.ids) > cls.LIMIT:
            found.version, found.ids = version, {}
        return found


def forget_term_ids(conn: sqlite3.Connection) -> None:
    """This connection is deleting terms: the ids it has seen may go."""
    kept = getattr(conn, "__dict__", None)
    if kept is not None:
        kept.pop("term_ids", None)


def term_ids(
    conn: sqlite3.Connection, subject_id: int, terms: list[str], postings: Postings = NOTES
) -> list[int]:
    """The id of each term in the person's vocabulary, the new ones added (in `terms`' order)."""
    seen = TermIds.of(conn)
    known = {} if seen is None else seen.ids
    table = postings.terms
    missing = [term for term in terms if (table, subject_id, term) not in known]
    if missing:
        found = dict(
            conn.execute(
                f"select term, id from {table} where subject_id = ? "
                "and term in (select value from json_each(?))",
                (subject_id, json.dumps(missing, ensure_ascii=False)),
            ).fetchall()
        )
        new = [term for term in dict.fromkeys(missing) if term not in found]
        found.update(zip(new, added(conn, postings, [(subject_id, term) for term in new]), strict=True))
        if seen is None:
            known = {(table, subject_id, term): term_id for term, term_id in found.items()}
        else:
            known.update(((table, subject_id, term), term_id) for term, term_id in found.items())
    return [known[table, subject_id, term] for term in terms]


def added(conn: sqlite3.Connection, p: Postings, new: list[tuple[int, str]]) -> list[int]:
    """Add these (subject id, term) pairs, none of them in the vocabulary yet, with a `df` of 0; returns
    their ids, counting up from the last id given (`meta`, `p.given`: an id is never given twice, as
    AUTOINCREMENT gave them), in the list's order.

    The vocabulary is keyed by (subject id, term), `without rowid`: the key is the table, and a term is
    looked up by it (migration `0018_compact_index`). It was a table by id with an index on (subject id,
    term), each term's text and subject twice, for the merges: they counted postings into `df` by term id.
    Now the fresh and recent postings, a few thousand notes' worth, carry their person and term too, and a
    merge counts them in by the key. A person's vocabulary is some 4.6 terms a note, so in a bot of many
    people of a few hundred notes each this was 183 bytes a note (dbstat, 1,000 x 300: 93 the table, 90 its
    index), where the one table takes 96. A table by id for the `df` beside the vocabulary by key (tried
    first) took 138: 90 and 48."""
    if not new:
        return []
    (last,) = conn.execute(
        "insert into meta(key, value) values (?, ?) "
        "on conflict(key) do update set value = cast(cast(meta.value as bigint) + ? as text) returning value",
        (p.given, str(len(new)), len(new)),
    ).fetchone()
    first = int(last) - len(new) + 1
    start = 0
    for end in range(1, len(new) + 1):  # one statement per run of one person's terms
        if end == len(new) or new[end][0] != new[start][0]:
            listed = json.dumps([term for _sid, term in new[start:end]], ensure_ascii=False)
            conn.execute(ADD_TERMS[p.terms], (new[start][0], first + start, listed))
            start = end
    return list(range(first, first + len(new)))


def add(conn: sqlite3.Connection, subject_id: int, note: Note) -> None:
    """Index a note that has just become live (or changed its text, key or gloss)."""
    terms = note_terms(note.text, note.key, note.gloss)
    carried = carried_of(note.kind, note.importance, note.feeling, note.happened_at, note.recalled_at)
    add_postings(conn, NOTES, subject_id, note.id, terms, carried)


def add_postings(
    conn: sqlite3.Connection,
    postings: Postings,
    subject_id: int,
    item_id: int,
    terms: list[str],
    carried: tuple[float | int | None, ...],
) -> None:
    """Index one item (a note, a line) by its terms, in the fresh postings, each carrying `carried` (the
    values of `postings.carried`); merged every `FRESH_NOTES`."""
    if not terms:
        return
    term_ids(conn, subject_id, terms, postings)  # the new ones added: the statement reads their ids
    values = {"item": item_id, "sid": subject_id, "terms": json.dumps(terms, ensure_ascii=False)}
    conn.execute(ADD_FRESH[postings.fresh], values | {f"c{i}": value for i, value in enumerate(carried)})
    oldest = conn.execute(f"select id >> {SHIFT} from {postings.fresh} order by id limit 1").fetchone()
    if oldest and item_id - oldest[0] >= FRESH_NOTES:
        merge(conn, postings)


@dataclass(frozen=True)
class Item:
    """One item to index in bulk (`add_many`): whose, its id, its terms and what its postings carry (the
    values of `Postings.carried`)."""

    subject_id: int
    id: int
    terms: list[str]
    carried: tuple[float | int | None, ...]


def add_many(conn: sqlite3.Connection, events: list[Item | int], postings: Postings = NOTES) -> None:
    """Index many new items (an import) at once: `events` are, in order, items made live (`Item`, in id
    order) and the ids of those of them taken out of life again (replaced by a newer version of their key).

    Each posting lands on the level that `add_postings` and `remove` called one by one, in that order, would
    have left it on (so a recall finds the same): the merges and settles those calls would have made are
    worked out here, and each item's postings are written once, straight to their last level, in key order;
    the postings already on the levels move as those merges would have moved them. One by one, an import
    spent some 40 % of its time indexing (two statements a note, a merge every 256 notes rewriting the
    recent postings, a settle every 4,096 rewriting the vocabulary's df); here it is a few statements per
    level and two per person for the vocabulary."""
    p = postings
    items = [event for event in events if isinstance(event, Item) and event.terms]
    if not items:
        return
    ids = _term_ids_of(conn, items, p)
    (oldest_before,) = conn.execute(f"select min(id) >> {SHIFT} from {p.fresh}").fetchone()
    row = conn.execute("select value from meta where key = ?", (p.merges,)).fetchone()
    merges = int(row[0]) if row else 0
    fresh: dict[int, Item] = {}
    recent: dict[int, Item] = {}
    settled: dict[int, Item] = {}
    moved = merged = settling = False
    for event in events:  # add_postings' and remove's schedule, replayed
        if not isinstance(event, Item):
            for level in (fresh, recent, settled):
                level.pop(event, None)
            continue
        if not event.terms:
            continue
        fresh[event.id] = event
        oldest = oldest_before if oldest_before is not None and not moved else next(iter(fresh))
        if event.id - oldest >= FRESH_NOTES:
            recent.update(fresh)
            fresh, merges = {}, merges + 1
            moved, merged = moved or oldest_before is not None, True
            if merges * FRESH_NOTES >= RECENT_NOTES:
                settled.update(recent)
                recent, settling, merges = {}, True, 0
    if moved:  # what was fresh went where the first merge took it
        _fresh_to_recent(conn, p)
    if settling:
        settle(conn, p)
    _write_level(conn, p, p.settled, settled, ids)
    _write_level(conn, p, p.recent, recent, ids)
    marks = ", ".join("?" * len(p.carried))
    conn.executemany(
        f"insert or ignore into {p.fresh}(id, subject_id, term_id, term, {p.columns}) "
        f"values (?, ?, ?, ?, {marks})",
        [
            (
                (item.id << SHIFT) + position,
                item.subject_id,
                ids[p.terms, item.subject_id, term],
                term,
                *item.carried,
            )
            for item in fresh.values()
            for position, term in enumerate(item.terms)
        ],
    )
    if merged:
        _count_merges(conn, p, merges)


def _write_level(
    conn: sqlite3.Connection,
    p: Postings,
    table: str,
    items: dict[int, Item],
    ids: dict[tuple[str, int, str], int],
) -> None:
    """Write items' postings to the recent or the settled level in key order (so the pages fill as an
    append fills them), counted into `df` on the settled level; a recent posting carries its person and
    term (see `settle`). In a SQLite file they go through a table of the connection's own (`temp`, in
    memory) with a statement per item, then in one sorted statement; on PostgreSQL they are sorted here."""
    if not items:
        return
    marks = ", ".join("?" * len(p.carried))
    recent = table == p.recent
    if not isinstance(conn, sqlite3.Connection):
        rows = sorted(
            (ids[p.terms, item.subject_id, term], item.id, *item.carried, item.subject_id, term)
            for item in items.values()
            for term in item.terms
        )
        if recent:
            sql = f"insert or replace into {table}(term_id, {p.item}, {p.columns}, subject_id, term) "
            conn.executemany(sql + f"values (?, ?, {marks}, ?, ?)", rows)
        else:
            sql = f"insert or replace into {table}(term_id, {p.item}, {p.columns}) values (?, ?, {marks})"
            conn.executemany(sql, [row[:-2] for row in rows])
            _counted(conn, p, items)
        return
    bulk = f"temp.bulk_{p.settled}"
    conn.execute(
        f"create table if not exists {bulk}(term_id integer not null, item integer not null, {p.columns}, "
        "subject_id integer not null, term text not null)"
    )
    conn.executemany(
        f"insert into {bulk} select i.value, ?, {marks}, ?, t.value "
        "from json_each(?) i join json_each(?) t on t.key = i.key",
        [
            (
                item.id,
                *item.carried,
                item.subject_id,
                "[" + ",".join([str(ids[p.terms, item.subject_id, term]) for term in item.terms]) + "]",
                json.dumps(item.terms, ensure_ascii=False),
            )
            for item in items.values()
        ],
    )
    kept = f"{p.columns}, subject_id, term" if recent else p.columns
    conn.execute(
        f"insert or replace into {table}(term_id, {p.item}, {kept}) "
        f"select term_id, item, {kept} from {bulk} order by term_id, item"
    )
    if not recent:
        _counted(conn, p, items)
    conn.execute(f"delete from {bulk}")


def _counted(conn: sqlite3.Connection, p: Postings, items: dict[int, Item]) -> None:
    """Count settled items' postings into their terms' `df`, by the vocabulary's key."""
    counts = Counter((item.subject_id, term) for item in items.values() for term in item.terms)
    conn.executemany(
        f"update {p.terms} set df = df + ? where subject_id = ? and term = ?",
        [(n, sid, term) for (sid, term), n in counts.items()],
    )


def _term_ids_of(conn: sqlite3.Connection, items: list[Item], p: Postings) -> dict[tuple[str, int, str], int]:
    """(vocabulary, subject id, term) -> term id for every term of `items` (the keys of `TermIds`), the new
    ones added in the order they first appear (the ids `term_ids` note by note would have given them)."""
    seen = TermIds.of(conn)
    found = {} if seen is None else seen.ids
    table = p.terms
    wanted = dict.fromkeys((table, item.subject_id, term) for item in items for term in item.terms)
    missing = [(sid, term) for key in wanted if key not in found for _, sid, term in (key,)]
    by_subject: dict[int, list[str]] = {}
    for sid, term in missing:
        by_subject.setdefault(sid, []).append(term)
    for sid, terms in by_subject.items():
        rows = conn.execute(
            f"select term, id from {table} where subject_id = ? and term in (select value from json_each(?))",
            (sid, json.dumps(terms, ensure_ascii=False)),
        ).fetchall()
        found.update(((table, sid, term), term_id) for term, term_id in rows)
    new = [(sid, term) for sid, term in missing if (table, sid, term) not in found]
    found.update(((table, sid, term), i) for (sid, term), i in zip(new, added(conn, p, new), strict=True))
    return found


def _fresh_to_recent(conn: sqlite3.Connection, p: Postings) -> int:
    moved = conn.execute(
        f"insert or replace into {p.recent}(term_id, {p.item}, {p.columns}, subject_id, term) "
        f"select term_id, id >> {SHIFT}, {p.columns}, subject_id, term from {p.fresh} order by term_id, id"
    ).rowcount
    conn.execute(f"delete from {p.fresh}")
    return moved


def _count_merges(conn: sqlite3.Connection, p: Postings, merges: int) -> None:
    conn.execute(
        "insert into meta(key, value) values (?, ?) on conflict(key) do update set value = excluded.value",
        (p.merges, str(merges)),
    )


def merge(conn: sqlite3.Connection, postings: Postings = NOTES) -> int:
    """Move the fresh postings into the recent ones (and every `RECENT_NOTES` items, the recent postings
    into the settled ones); returns how many fresh postings moved."""
    p = postings
    moved = _fresh_to_recent(conn, p)
    row = conn.execute("select value from meta where key = ?", (p.merges,)).fetchone()
    merges = (int(row[0]) if row else 0) + 1
    if merges * FRESH_NOTES >= RECENT_NOTES:
        settle(conn, p)
        merges = 0
    _count_merges(conn, p, merges)
    return moved


def settle(conn: sqlite3.Connection, postings: Postings = NOTES) -> int:
    """Move the recent postings into the settled ones (in key order: one pass over them), counting them into
    their terms' `df` by the vocabulary's key, which each recent posting carries (one pass over the
    vocabulary); returns how many."""
    p = postings
    conn.execute(
        f"update {p.terms} set df = df + c.n from (select subject_id, term, count(*) as n from {p.recent} "
        f"group by subject_id, term) c where {p.terms}.subject_id = c.subject_id and {p.terms}.term = c.term"
    )
    moved = conn.execute(
        f"insert or replace into {p.settled}(term_id, {p.item}, {p.columns}) "
        f"select term_id, {p.item}, {p.columns} from {p.recent} order by term_id, {p.item}"
    ).rowcount
    conn.execute(f"delete from {p.recent}")
    return moved


@cache
def counting(postings: Postings) -> str:
    """One statement for what a recall reads of a term index before it ranks (`recall.counted`): the
    person's terms among those asked (`(0, id, term, df)`, in the vocabulary's order), their fresh postings
    (`(1, item id, None, term id, fresh_at, weight)`, in the fresh table's order) and how many recent
    postings each has (`(2, term id, None, count)`), each row tagged by its part and padded to six columns.
    One round trip instead of three.

    The fresh postings are everyone's newest (up to `FRESH_NOTES` items' worth, some 5,000 rows); each
    names its person, and a recall reads its person's alone from the index `(subject_id, id, ...)`, which
    holds what it reads of them: the same rows in the same order, on both backends (migration
    `0018_compact_index`). Before, the notes' were read from the person's oldest live note among them on,
    and the lines' all of them: a reply is indexed under the person it answers, so no index of `lines`
    found a person's. Medians of this statement: with 251 lines fresh from 300 people (4,320 postings),
    242-288 -> 20-31 µs, a recall's CPU time 0.39-0.66 -> 0.19-0.21 ms (people of a few lines and no
    notes); 10,000 people x 300 notes, 259 -> 34 µs; one person with all 5,521 fresh postings, 358 -> 406
    µs. The statement takes the subject id twice (`params`)."""
    p = postings
    return (
        f"with known as (select id, term, df from {p.terms} where subject_id = ? "
        "and term in (select value from json_each(?))) "
        "select 0, id, term, df, null, null from known "
        f"union all select 1, f.id >> {SHIFT}, null, f.term_id, f.fresh_at, {p.weighed('f.')} "
        f"from {p.fresh} f where f.subject_id = ? and f.term_id in (select id from known) "
        f"union all select 2, r.term_id, null, count(*), null, null from {p.recent} r "
        "where r.term_id in (select id from known) group by r.term_id"
    )


def params(postings: Postings, subject_id: int, terms: str) -> tuple[int | str, ...]:
    """The parameters of `counting(postings)`, for a person and a JSON list of terms."""
    return (subject_id, terms, subject_id)


def _fresh_range(note_id: int) -> tuple[int, int]:
    return note_id << SHIFT, ((note_id + 1) << SHIFT) - 1


def remove(
    conn: sqlite3.Connection,
    subject_id: int,
    note_id: int,
    note_text: str,
    key: str | None,
    gloss: str | None,
) -> None:
    """Take a note out of the index (it was forgotten, replaced or pruned)."""
    terms = note_terms(note_text, key, gloss)
    if not terms:
        return
    listed = json.dumps(terms, ensure_ascii=False)
    conn.execute(
        "update terms set df = df - 1 where subject_id = :s and term in (select value from json_each(:t)) "
        "and exists (select 1 from postings p where p.term_id = terms.id and p.note_id = :n)",
        {"s": subject_id, "t": listed, "n": note_id},
    )
    for table in ("recent_postings", "postings"):
        conn.execute(
            f"delete from {table} where note_id = :n and term_id in "
            "(select id from terms where subject_id = :s and term in (select value from json_each(:t)))",
            {"s": subject_id, "t": listed, "n": note_id},
        )
    conn.execute("delete from fresh_postings where id between ? and ?", _fresh_range(note_id))


def drop_unused(conn: sqlite3.Connection, subject_id: int) -> int:
    """Delete the person's terms that no posting on any level refers to (their last live note left, and
    was purged); returns how many. A scan of the person's vocabulary with two index probes per term."""
    forget_term_ids(conn)
    return conn.execute(
        "delete from terms where subject_id = ? "
        "and not exists (select 1 from postings p where p.term_id = terms.id) "
        "and not exists (select 1 from recent_postings r where r.term_id = terms.id) "
        "and id not in (select term_id from fresh_postings)",
        (subject_id,),
    ).rowcount


def forget_vocabulary(conn: sqlite3.Connection, p: Postings, subject_id: int) -> None:
    """Delete a person's postings on every level of index `p` and their vocabulary (an erase, a rebuild)."""
    forget_term_ids(conn)
    for table in (p.settled, p.recent, p.fresh):
        conn.execute(
            f"delete from {table} where term_id in (select id from {p.terms} where subject_id = ?)",
            (subject_id,),
        )
    conn.execute(f"delete from {p.terms} where subject_id = ?", (subject_id,))


def rebuild(conn: sqlite3.Connection) -> int:
    """Index every live note again (after the tokenizer changed); returns how many notes were indexed."""
    forget_term_ids(conn)
    for table in ("postings", "recent_postings", "fresh_postings", "terms"):
        conn.execute(f"delete from {table}")
    rows = conn.execute(f"select subject_id, {COLUMNS} from notes where {LIVE}").fetchall()
    for row in rows:
        add(conn, row[0], note_of("", row[1:]))
    merge(conn)
    settle(conn)
    return len(rows)


def refresh(conn: sqlite3.Connection, subject_id: int, note: Note) -> None:
    """A note's importance, feeling or freshness changed: bring its postings up to date, on every level."""
    terms = note_terms(note.text, note.key, note.gloss)
    fresh_at, importance, feeling = carried_of(
        note.kind, note.importance, note.feeling, note.happened_at, note.recalled_at
    )
    values = {
        "f": fresh_at,
        "i": importance,
        "e": feeling,
        "n": note.id,
        "s": subject_id,
        "t": json.dumps(terms, ensure_ascii=False),
    }
    for table in ("recent_postings", "postings"):
        conn.execute(
            f"update {table} set fresh_at = :f, importance = :i, feeling = :e "
            "where note_id = :n and term_id in "
            "(select id from terms where subject_id = :s and term in (select value from json_each(:t)))",
            values,
        )
    low, high = _fresh_range(note.id)
    conn.execute(
        "update fresh_postings set fresh_at = ?, importance = ?, feeling = ? where id between ? and ?",
        (fresh_at, importance, feeling, low, high),
    )
