"""Migration `0018_compact_index` (`memory.index`: the vocabulary keyed by person and term; the fresh and
recent postings naming their person and term; the notes' postings carrying importance, feeling and the
second of their freshness): a file or a PostgreSQL schema as 0017 left it comes over holding exactly the index
the engine writes now, so every recall and its `explain()` are the same, and no term id is ever given
twice."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from conftest import is_postgres, raw_connection

from mneme_core import Mneme
from mneme_core.memory import index
from mneme_core.store import schema

S, T = "discord:42", "discord:7"
WORDS = ["cat", "dog", "tea", "rain", "hike", "book", "piano", "garden", "river", "market", "train", "coffee"]
CHINESE = ["猫", "狗", "茶", "雨", "书", "钢琴", "花园", "河", "市场", "火车", "咖啡", "电影", "雪", "海滩"]
QUERIES = [
    "cat and tea",
    "piano garden",
    "猫",
    "咖啡和电影",
    "river market train",
    "coffee",
    "Leah",
    "pottery bowl",
]
LEVELS = ("postings", "recent_postings", "fresh_postings")
TALK = [
    ("my sister Leah got engaged!", "Congratulations! To whom?"),
    ("to Marcus, they met climbing", "A climber, lovely."),
    ("I started a pottery class", "Show me your first bowl!"),
]
# Everything the index holds, in an order that does not depend on the backend.
SNAPSHOT = {
    "terms": "select subject_id, term, id, df from terms order by id",
    "line_terms": "select subject_id, term, id, df from line_terms order by id",
    "postings": "select term_id, note_id, fresh_at, importance, feeling from postings order by 1, 2",
    "recent_postings": "select term_id, note_id, subject_id, term, fresh_at, importance, feeling "
    "from recent_postings order by 1, 2",
    "fresh_postings": "select id, subject_id, term_id, term, fresh_at, importance, feeling "
    "from fresh_postings order by 1",
    "line_postings": "select term_id, line_id, fresh_at, weight from line_postings order by 1, 2",
    "line_recent_postings": "select term_id, line_id, subject_id, term, fresh_at, weight "
    "from line_recent_postings order by 1, 2",
    "line_fresh_postings": "select id, subject_id, term_id, term, fresh_at, weight from line_fresh_postings "
    "order by 1",
}


@pytest.fixture
def small_levels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Levels a few notes deep, so every level holds postings when the file is migrated."""
    monkeypatch.setattr(index, "FRESH_NOTES", 4)
    monkeypatch.setattr(index, "RECENT_NOTES", 12)


def written(m: Mneme, clock: Any, location: Any) -> None:
    """Two people's notes (English and Chinese, lasting and fading, a feeling, a replaced key, a forgotten
    note, moments with fractions of a second) and a conversation's lines."""
    for i in range(40):
        who = S if i % 4 else T
        words = [WORDS[(i * 5 + k) % len(WORDS)] for k in range(3)]
        said = "我喜欢" + "和".join(CHINESE[(i + k) % len(CHINESE)] for k in range(3)) if i % 3 == 0 else ""
        m.remember(
            who,
            said or f"talked about {' and '.join(words)} {i}",
            kind=("fact", "episode", "plan", "preference")[i % 4],
            importance=1 + i % 5,
            feeling=(0.0, 0.35, -0.8)[i % 3],
            key="user.city" if i in (6, 18) else None,
        )
        clock.advance(hours=5, seconds=0.37)
    m.forget(S, id=m.notes(S)[3].id)
    more = 0
    while not all(snapshot(location)[table] for table in LEVELS):  # where merges fall varies
        m.remember(S, f"went to the {WORDS[more % len(WORDS)]} again {more}", kind="episode")
        clock.advance(hours=1, seconds=0.37)
        more += 1

    async def talk() -> None:  # some lines merged, the newest still fresh (a reply among them)
        for said, answer in TALK:
            line = await m.transcript.aadd_line("dm:" + S, subject=S, text=said, name="Leo")
            await m.transcript.aadd_reply("dm:" + S, text=answer, reply_to=line.id, name="Mio", observe=S)
            clock.advance(hours=1, seconds=0.37)

    asyncio.run(talk())


def snapshot(location: Any) -> dict[str, list[tuple]]:
    with raw_connection(location) as conn:
        return {name: [tuple(row) for row in conn.execute(sql).fetchall()] for name, sql in SNAPSHOT.items()}


def answers(m: Mneme) -> list[str]:
    return [m.recall(who, query, log=False).explain() for who in (S, T) for query in QUERIES]


# The index as 0017 left it: each vocabulary a table by id with its df and a unique (subject, term), the
# fresh and recent postings without their person and term, a note's posting with the note's exact
# freshness and its weight (`index.rank_of`).
OLD_TERMS = """
create table {terms}_0017(
    id integer primary key autoincrement,
    subject_id integer not null,
    term text not null,
    df integer not null default 0,
    unique(subject_id, term)
);
insert into {terms}_0017(id, subject_id, term, df) select id, subject_id, term, df from {terms};
drop table {terms};
alter table {terms}_0017 rename to {terms}
"""
OLD_POSTINGS = """
alter table {table} add column weight real not null default 0;
update {table} set weight = (0.4 + 0.15 * n.importance) * (1 + 0.3 * abs(n.feeling)),
    fresh_at = case when n.kind in ('fact', 'preference') then null
        else max(n.happened_at, coalesce(n.recalled_at, 0.0)) end
    from notes n where n.id = {note};
alter table {table} drop column importance;
alter table {table} drop column feeling
"""
UNNAMED = """
alter table {table} drop column subject_id;
alter table {table} drop column term
"""
GIVEN = 1000  # the highest term id the old vocabulary ever gave (its sequence): some were purged since


def as_0017(location: Any) -> None:
    """Turn the index back into 0017's layout, and the schema's records with it."""
    with raw_connection(location) as conn:
        steps = "drop index fresh_postings_subject; drop index line_fresh_postings_subject;"
        steps += OLD_TERMS.format(terms="terms") + ";" + OLD_TERMS.format(terms="line_terms") + ";"
        for table in LEVELS:
            note = "{table}.id >> 20" if table == "fresh_postings" else "{table}.note_id"
            steps += OLD_POSTINGS.format(table=table, note=note.format(table=table)) + ";"
        for table in ("recent_postings", "fresh_postings", "line_recent_postings", "line_fresh_postings"):
            steps += UNNAMED.format(table=table) + ";"
        for statement in schema.statements(steps):
            conn.execute(statement)
        if is_postgres(location):
            conn.execute("select setval(pg_get_serial_sequence('terms', 'id'), ?)", (GIVEN,))
        else:
            conn.execute("update sqlite_sequence set seq = ? where name = 'terms'", (GIVEN,))
        conn.execute("delete from meta where key in ('term_ids', 'line_term_ids')")
        conn.execute("delete from migrations where name = '0018_compact_index'")
        conn.execute("update meta set value = ? where key = 'schema_level'", (str(schema.LEVEL - 1),))


def test_a_file_as_0017_left_it_comes_over_with_the_index_the_engine_writes(
    db_path: Any, clock: Any, small_levels: None
) -> None:
    m = Mneme(db_path, space="t", clock=clock)
    written(m, clock, db_path)
    clock.advance(days=3)
    before, held = answers(m), snapshot(db_path)
    m.close()
    assert all(held[table] for table in LEVELS)  # every level holds postings
    assert held["line_recent_postings"] and held["line_fresh_postings"]
    assert any(row[2] is not None and row[2] == int(row[2]) for row in held["postings"])
    as_0017(db_path)
    with raw_connection(db_path) as conn:
        assert conn.execute(
            "select count(*) from postings where fresh_at != cast(fresh_at as integer)"
        ).fetchone()[0]  # the old postings had fractions of a second

    m = Mneme(db_path, space="t", clock=clock)
    try:
        assert snapshot(db_path) == held
        assert answers(m) == before
        m.remember(S, "a zeppelin over the harbour")  # a new term: an id the old vocabulary never gave
        with raw_connection(db_path) as conn:
            (newest,) = conn.execute("select id from terms where term = 'zeppelin'").fetchone()
        assert newest > GIVEN
        matched = [r.note.text for r in m.recall(S, "zeppelin").chosen if r.why.startswith("matched")]
        assert matched == ["a zeppelin over the harbour"]
    finally:
        m.close()
