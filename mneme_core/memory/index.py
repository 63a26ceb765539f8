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
| after | 326 | 138 (`terms` 90, `term_counts` 48) | 660 |

One person's vocabulary is a few bytes a note at 100,000 notes; many people's cannot be: each of them has
their own words with their own `df`.
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
    """The tables of one term index: the vocabulary (`terms`: a person's term -> its id) and each term's `df`
    (`counts`: id -> df), the three levels of postings, the column naming what a posting points at, the meta
    key counting fresh merges since the last settle; and what a posting carries for recall's first ranking
    beside its key (`carried`, their PostgreSQL types in `types`) with the weight made of it (`weight`, SQL
    where `{t}` is a table's alias and its dot)."""

    terms: str
    counts: str
    fresh: str
    recent: str
    settled: str
    item: str
    merges: str
    carried: tuple[str, ...]
    types: tuple[str, ...]
    weight: str
    owned: bool = False  # the fresh postings name their person (`subject_id`), and are read by it

    @property
    def columns(self) -> str:
        """The carried columns, listed."""
        return ", ".join(self.carried)

    def owner(self, subject_id: int) -> tuple[int, ...]:
        """The fresh postings' `subject_id` value, where they have one (`owned`)."""
        return (subject_id,) if self.owned else ()

    @property
    def fresh_columns(self) -> str:
        """The fresh postings' columns after `id, term_id`."""
        return ("subject_id, " if self.owned else "") + self.columns

    def weighed(self, alias: str = "") -> str:
        """A posting's weight as SQL, on the columns of the table called `alias` (like "h.")."""
        return self.weight.format(t=alias)


NOTES = Postings(
    "terms",
    "term_counts",
    "fresh_postings",
    "recent_postings",
    "postings",
    "note_id",
    "recent_merges",
    ("fresh_at", "importance", "feeling"),
    ("float8", "bigint", "float8"),
    "(0.4 + 0.15 * {t}importance) * (1 + 0.3 * abs({t}feeling))",
)
LINES = Postings(
    "line_terms",
    "line_term_counts",
    "line_fresh_postings",
    "line_recent_postings",
    "line_postings",
    "line_id",
    "line_merges",
    ("fresh_at", "weight"),
    ("float8", "float8"),
    "{t}weight",
    owned=True,
)
MERGES = NOTES.merges  # meta: fresh merges since the recent postings last settled


# PostgreSQL types the select list's parameters itself (a `None` fresh_at would be text) and reads the JSON
# list of term ids with `mneme_ids`.
ADD_FRESH = {
    p.fresh: Dialects(
        f"insert or ignore into {p.fresh}(id, term_id, {p.fresh_columns}) "
        f"select (? << {SHIFT}) + key, value, {', '.join('?' * (p.owned + len(p.carried)))} "
        "from json_each(?)",
        f"insert into {p.fresh}(id, term_id, {p.fresh_columns}) select (?::bigint << {SHIFT}) + key, value, "
        f"{', '.join(['?::bigint'] * p.owned + ['?::' + t for t in p.types])} from mneme_ids(?) "
        "on conflict do nothing",
    )
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
    their ids in the list's order. The ids are the `counts` table's (AUTOINCREMENT, or an identity: never
    reused), given one per row in the order rows are inserted, so the list's first term has the smallest.

    The vocabulary is two tables (migration `0018_compact_index`): `terms` keyed by (subject id, term),
    which is how a term is looked up, holding its id (`without rowid`: the key is the table), and `counts`,
    an id's `df`, which is how a merge counts postings in. It was one table by id with an index on
    (subject id, term): each term's text and subject twice, 40 bytes a term where these take some 30.
    A person's vocabulary is some 4.6 terms a note, so in a bot of many people of a few hundred notes each
    it was 183 bytes a note (dbstat, 1,000 x 300: 93 the table, 90 its index)."""
    if not new:
        return []
    ids = sorted(
        row[0]
        for row in conn.execute(
            f"insert into {p.counts}(df) select 0 from json_each(?) returning id",
            ("[" + ",".join("0" * len(new)) + "]",),
        )
    )
    conn.executemany(
        f"insert into {p.terms}(subject_id, term, id) values (?, ?, ?)",
        [(sid, term, term_id) for (sid, term), term_id in zip(new, ids, strict=True)],
    )
    return ids


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
    conn.execute(
        ADD_FRESH[postings.fresh],
        (
            item_id,
            *postings.owner(subject_id),
            *carried,
            json.dumps(term_ids(conn, subject_id, terms, postings)),
        ),
    )
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
    marks = ", ".join("?" * (p.owned + len(p.carried)))
    conn.executemany(
        f"insert or ignore into {p.fresh}(id, term_id, {p.fresh_columns}) values (?, ?, {marks})",
        [
            (
                (item.id << SHIFT) + position,
                ids[p.terms, item.subject_id, term],
                *p.owner(item.subject_id),
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
    append fills them), counted into `df` on the settled level. In a SQLite file they go through a table of
    the connection's own (`temp`, in memory) with a statement per item, then in one sorted statement; on
    PostgreSQL they are sorted here."""
    if not items:
        return
    marks = ", ".join("?" * len(p.carried))
    if not isinstance(conn, sqlite3.Connection):
        pairs = sorted(
            (ids[p.terms, item.subject_id, term], item.id, *item.carried)
            for item in items.values()
            for term in item.terms
        )
        conn.executemany(
            f"insert or replace into {table}(term_id, {p.item}, {p.columns}) values (?, ?, {marks})", pairs
        )
        if table == p.settled:
            counts = Counter(pair[0] for pair in pairs)
            conn.executemany(
                f"update {p.counts} set df = df + ? where id = ?", [(n, i) for i, n in counts.items()]
            )
        return
    bulk = f"temp.bulk_{p.settled}"
    conn.execute(
        f"create table if not exists {bulk}(term_id integer not null, item integer not null, {p.columns})"
    )
    conn.executemany(
        f"insert into {bulk} select value, ?, {marks} from json_each(?)",
        [
            (
                item.id,
                *item.carried,
                "[" + ",".join([str(ids[p.terms, item.subject_id, term]) for term in item.terms]) + "]",
            )
            for item in items.values()
        ],
    )
    conn.execute(
        f"insert or replace into {table}(term_id, {p.item}, {p.columns}) "
        f"select term_id, item, {p.columns} from {bulk} order by term_id, item"
    )
    if table == p.settled:
        conn.execute(
            f"update {p.counts} set df = df + c.n from (select term_id, count(*) as n from {bulk} "
            f"group by term_id) c where {p.counts}.id = c.term_id"
        )
    conn.execute(f"delete from {bulk}")


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
        f"insert or replace into {p.recent}(term_id, {p.item}, {p.columns}) "
        f"select term_id, id >> {SHIFT}, {p.columns} from {p.fresh} order by term_id, id"
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
    their terms' `df` (one pass over the vocabulary); returns how many."""
    p = postings
    conn.execute(
        f"update {p.counts} set df = df + c.n from "
        f"(select term_id, count(*) as n from {p.recent} group by term_id) c where {p.counts}.id = c.term_id"
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

    The fresh postings are everyone's newest (up to `FRESH_NOTES` notes' worth, some 5,000 rows): on the
    file, the notes' are read from the person's oldest live note among them on, not from the table's start
    (nothing when they have none, as most people of a busy bot): the same rows in the same order, since a
    person's term ids are in their own notes' postings alone and only live notes have postings. 57 -> 34 µs
    a recall with 90 notes fresh from 300 people; 168 -> 170 µs with 232 fresh notes all of one person.
    PostgreSQL reads them all.

    The lines' fresh postings name their person (`owned`, migration `0019_line_owners`: a reply is indexed
    under the person it answers, so no index of `lines` finds a person's newest), and are read by
    `(subject_id, id)`: the person's alone, in the same order, on both backends. With 251 lines fresh
    from 300 people (4,320 postings), the statement took 237-252 µs (median, two runs), reading the whole
    table, and takes 22-24 µs; a recall's CPU time went from 0.45-0.60 ms to 0.16 ms (people of a few
    lines and no notes). Writing 2,310 exchanges took the same time (3.8-5.3 s either way). The statement
    takes the subject id once more at its end (`params`)."""
    p = postings
    known = (
        f"with known as (select t.id, t.term, c.df from {p.terms} t join {p.counts} c on c.id = t.id "
        "where t.subject_id = ? and t.term in (select value from json_each(?))) "
        "select 0, id, term, df, null, null from known "
    )
    recent = (
        f"union all select 2, r.term_id, null, count(*), null, null from {p.recent} r "
        "where r.term_id in (select id from known) group by r.term_id"
    )
    fresh = (
        f"union all select 1, f.id >> {SHIFT}, null, f.term_id, f.fresh_at, {p.weighed('f.')} "
        f"from {p.fresh} f "
        "where f.term_id in (select id from known) "
    )
    if p.owned:
        return known + fresh + "and f.subject_id = ? " + recent
    if p != NOTES:
        return known + fresh + recent
    theirs = (  # the person's oldest live note among the fresh ones: notes_newest, one probe
        f"(select id from notes where subject_id = ?1 and {LIVE} "
        f"and id >= (select min(id) >> {SHIFT} from {p.fresh}) order by id limit 1)"
    )
    return Dialects(known + fresh + f"and f.id >= {theirs} << {SHIFT} " + recent, known + fresh + recent)


def params(postings: Postings, subject_id: int, terms: str) -> tuple[int | str, ...]:
    """The parameters of `counting(postings)`, for a person and a JSON list of terms."""
    return (subject_id, terms, *postings.owner(subject_id))


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
        "update term_counts set df = df - 1 where id in "
        "(select id from terms where subject_id = :s and term in (select value from json_each(:t))) "
        "and exists (select 1 from postings p where p.term_id = term_counts.id and p.note_id = :n)",
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
    unused = conn.execute(
        "select id from terms where subject_id = ? "
        "and not exists (select 1 from postings p where p.term_id = terms.id) "
        "and not exists (select 1 from recent_postings r where r.term_id = terms.id) "
        "and id not in (select term_id from fresh_postings)",
        (subject_id,),
    ).fetchall()
    if unused:
        listed = json.dumps([term_id for (term_id,) in unused])
        conn.execute("delete from term_counts where id in (select value from json_each(?))", (listed,))
        conn.execute(
            "delete from terms where subject_id = ? and id in (select value from json_each(?))",
            (subject_id, listed),
        )
    return len(unused)


def forget_vocabulary(conn: sqlite3.Connection, p: Postings, subject_id: int) -> None:
    """Delete a person's postings on every level of index `p` and their vocabulary (an erase, a rebuild)."""
    forget_term_ids(conn)
    mine = f"(select id from {p.terms} where subject_id = ?)"
    for table in (p.settled, p.recent, p.fresh, p.counts):
        column = "id" if table == p.counts else "term_id"
        conn.execute(f"delete from {table} where {column} in {mine}", (subject_id,))
    conn.execute(f"delete from {p.terms} where subject_id = ?", (subject_id,))


def rebuild(conn: sqlite3.Connection) -> int:
    """Index every live note again (after the tokenizer changed); returns how many notes were indexed."""
    forget_term_ids(conn)
    for table in ("postings", "recent_postings", "fresh_postings", "terms", "term_counts"):
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
