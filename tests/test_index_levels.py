"""The term index's three levels (fresh, recent, settled postings): where a posting sits never changes what a
recall finds, what a note's `df` is, or what forgetting, replacing, re-weighting or erasing does; and a file
written with the old two-table layout comes over whole."""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing

import pytest

from mneme_core import Mneme
from mneme_core.memory import index, notes
from mneme_core.store import schema

S = "discord:42"
WORDS = ["cat", "dog", "tea", "rain", "hike", "book", "piano", "garden", "river", "market", "train", "coffee"]
CHINESE = ["猫", "狗", "茶", "雨", "书", "钢琴", "花园", "河", "市场", "火车", "咖啡", "电影", "雪", "海滩"]


@pytest.fixture
def small_levels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Levels a few notes deep, so a short test crosses every boundary many times."""
    monkeypatch.setattr(index, "FRESH_NOTES", 4)
    monkeypatch.setattr(index, "RECENT_NOTES", 12)


def sentences(count: int, seed: int = 7) -> list[tuple[str, int]]:
    rng = random.Random(seed)
    found = []
    for i in range(count):
        pool = CHINESE if i % 3 == 0 else WORDS
        words = rng.sample(pool, 3)
        text = ("我喜欢" + "和".join(words)) if pool is CHINESE else f"talked about {' and '.join(words)} {i}"
        found.append((text, rng.randint(1, 4)))
    return found


def fill(m: Mneme, clock, notes: list[tuple[str, int]]) -> list:
    kept = []
    for i, (text, importance) in enumerate(notes):
        kind = "fact" if i % 5 == 0 else "episode"
        kept.append(m.remember(S, text, kind=kind, importance=importance))
        clock.advance(hours=1)
    return kept


def rows(db_path, sql: str, *args) -> list[tuple]:
    with closing(sqlite3.connect(db_path)) as conn:
        return conn.execute(sql, args).fetchall()


def level_counts(db_path) -> dict[str, int]:
    return {
        table: rows(db_path, f"select count(*) from {table}")[0][0]
        for table in ("fresh_postings", "recent_postings", "postings")
    }


def true_df(m: Mneme) -> dict[str, int]:
    """How many live notes hold each term, counted from the notes themselves."""
    counts: dict[str, int] = {}
    for note in m.notes(S):
        for term in index.note_terms(note.text, note.key, note.gloss):
            counts[term] = counts.get(term, 0) + 1
    return counts


def indexed_df(db_path) -> dict[str, int]:
    return {
        term: df
        for term, df in rows(
            db_path,
            "select term, df + (select count(*) from fresh_postings f where f.term_id = terms.id) "
            "+ (select count(*) from recent_postings r where r.term_id = terms.id) from terms",
        )
        if df
    }


def answers(m: Mneme, queries: list[str]) -> list[list[tuple[int, float, str]]]:
    found = []
    for query in queries:
        recall = m.recall(S, query, recent=0, important=0, log=False)
        found.append([(r.note.id, round(r.score, 9), r.why) for r in recall.chosen])
    return found


QUERIES = ["cat and tea", "piano garden", "猫", "咖啡和电影", "river market train", "coffee"]


def test_every_level_holds_postings_and_recall_finds_the_same_as_one_level(
    tmp_path, clock, monkeypatch: pytest.MonkeyPatch
):
    notes = sentences(37)
    one = Mneme(tmp_path / "one.db", space="t", clock=clock)  # defaults: everything stays fresh here
    start = clock.now
    fill(one, clock, notes)
    monkeypatch.setattr(index, "FRESH_NOTES", 4)
    monkeypatch.setattr(index, "RECENT_NOTES", 12)
    clock.set(start)
    three = Mneme(tmp_path / "three.db", space="t", clock=clock)
    fill(three, clock, notes)

    counts = level_counts(tmp_path / "three.db")
    assert all(counts.values()), counts  # fresh, recent and settled postings all in use
    assert level_counts(tmp_path / "one.db")["postings"] == 0
    assert answers(three, QUERIES) == answers(one, QUERIES)
    assert any(answers(three, QUERIES))
    assert indexed_df(tmp_path / "three.db") == true_df(three)
    one.close()
    three.close()


def test_forgetting_replacing_and_pruning_take_a_note_out_of_whichever_level_holds_it(
    mneme: Mneme, db_path, clock, small_levels
):
    kept = fill(mneme, clock, sentences(30))
    mneme.forget(S, id=kept[0].id)  # settled long ago
    mneme.forget(S, id=kept[20].id)  # recent
    mneme.forget(S, id=kept[-1].id)  # fresh
    mneme.remember(S, "lives in Berlin", kind="fact", key="user.city")
    mneme.remember(S, "lives in Lisbon", kind="fact", key="user.city")

    for note in (kept[0], kept[20], kept[-1]):
        for table in ("recent_postings", "postings"):
            assert rows(db_path, f"select count(*) from {table} where note_id = ?", note.id) == [(0,)]
        low, high = note.id << index.SHIFT, ((note.id + 1) << index.SHIFT) - 1
        assert rows(db_path, "select count(*) from fresh_postings where id between ? and ?", low, high) == [
            (0,)
        ]
    assert indexed_df(db_path) == true_df(mneme)
    assert "berlin" not in indexed_df(db_path)
    assert [r.note.text for r in mneme.recall(S, "Berlin Lisbon", recent=0, important=0).chosen] == [
        "lives in Lisbon"
    ]


def test_a_new_weight_reaches_the_postings_on_every_level(mneme: Mneme, db_path, clock, small_levels):
    kept = fill(mneme, clock, sentences(30))
    for note in (kept[1], kept[22], kept[-2]):  # settled, recent, fresh
        mneme.remember(S, note.text, importance=5)  # the same text again: one note, the higher importance
    _, weight = index.rank_of("episode", 5, 0.0, 0.0, None)
    weighed = index.NOTES.weighed()
    for note in (kept[1], kept[22], kept[-2]):
        low, high = note.id << index.SHIFT, ((note.id + 1) << index.SHIFT) - 1
        carried = {
            tuple(found)
            for table in ("recent_postings", "postings")
            for found in rows(
                db_path, f"select importance, feeling, {weighed} from {table} where note_id = ?", note.id
            )
        } | {
            tuple(found)
            for found in rows(
                db_path,
                f"select importance, feeling, {weighed} from fresh_postings where id between ? and ?",
                low,
                high,
            )
        }
        assert carried == {(5, 0.0, weight)}, note.text  # the weight made in SQL is rank_of's, to the bit


def test_erasing_a_person_empties_every_level_of_their_postings(tmp_path, clock, small_levels):
    m = Mneme(tmp_path / "e.db", space="t", clock=clock)
    fill(m, clock, sentences(30))
    m.remember("discord:7", "talked about cat and tea", kind="fact")
    more = iter(sentences(12, seed=8))  # until every level holds some (where the merges fall varies)
    while not all(level_counts(tmp_path / "e.db").values()):
        fill(m, clock, [next(more)])
    m.erase(S)
    other = rows(tmp_path / "e.db", "select id from terms")
    assert other  # the other person's words stay
    for table in ("fresh_postings", "recent_postings", "postings"):
        column = "term_id"
        left = rows(
            tmp_path / "e.db", f"select count(*) from {table} where {column} not in (select id from terms)"
        )
        assert left == [(0,)], table
    assert [r.note.text for r in m.recall("discord:7", "cat").chosen] == ["talked about cat and tea"]
    m.close()


def test_rebuilding_the_index_settles_every_posting(mneme: Mneme, db_path, clock, small_levels):
    fill(mneme, clock, sentences(30))
    before = answers(mneme, QUERIES)
    mneme.store.write(index.rebuild)
    assert level_counts(db_path)["fresh_postings"] == 0
    assert level_counts(db_path)["recent_postings"] == 0
    assert answers(mneme, QUERIES) == before
    assert indexed_df(db_path) == true_df(mneme)


# -- a file from the two-table layout (schema level 4) --------------------------------------------------


def old_file(path) -> tuple[int, int]:
    """A level-4 file as the previous version wrote it: one note settled in `postings`, one live and one
    forgotten note still in the old `fresh_postings(note_id, term_id, ...)`."""
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("pragma journal_mode=wal")
        for migration in schema.MIGRATIONS[:4]:
            migration.apply(conn)
            conn.execute("insert into migrations(name, applied_at) values (?, 0)", (migration.name,))
        conn.execute("insert into meta(key, value) values ('schema_level', '4')")
        conn.execute("insert into meta(key, value) values ('terms_version', ?)", (index.text.TERMS_VERSION,))
        conn.execute("insert into subjects(space, subject, live) values ('t', ?, 2)", (S,))
        ids = []
        for text, dead in (("the cat likes tea", None), ("the cat hates rain", None), ("a dog in rain", 5.0)):
            (note_id,) = conn.execute(
                "insert into notes(subject_id, kind, text, importance, happened_at, created_at, deleted_at, "
                "fold) values (1, 'fact', ?, 3, 1.0, 1.0, ?, 0) returning id",
                (text, dead),
            ).fetchone()
            ids.append(note_id)
            for term in index.text.terms(text):
                conn.execute("insert or ignore into terms(subject_id, term, df) values (1, ?, 0)", (term,))
        fresh_at, weight = index.rank_of("fact", 3, 0.0, 1.0, None)
        places = (
            (ids[0], "the cat likes tea", "postings"),
            (ids[1], "the cat hates rain", "fresh_postings"),
            (ids[2], "a dog in rain", "fresh_postings"),
        )
        for note_id, text, table in places:
            for term in index.text.terms(text):
                (term_id,) = conn.execute("select id from terms where term = ?", (term,)).fetchone()
                conn.execute(
                    f"insert into {table}(term_id, note_id, fresh_at, weight) values (?, ?, ?, ?)",
                    (term_id, note_id, fresh_at, weight),
                )
                if table == "postings":
                    conn.execute("update terms set df = df + 1 where id = ?", (term_id,))
        conn.commit()
    return ids[0], ids[1]


def test_a_file_of_the_two_table_layout_comes_over_with_its_fresh_postings_settled(tmp_path, clock):
    path = tmp_path / "old.db"
    settled, fresh = old_file(path)
    m = Mneme(path, space="t", clock=clock)
    assert rows(path, "select count(*) from migrations where name = '0005_postings_levels'") == [(1,)]
    assert rows(path, "select count(*) from postings where note_id = ?", fresh)[0][0] > 0
    assert indexed_df(path) == true_df(m)  # the forgotten note's old postings did not come over
    assert indexed_df(path)["cat"] == 2
    assert "dog" not in indexed_df(path)
    assert {r.note.id for r in m.recall(S, "cat", recent=0, important=0).chosen} == {settled, fresh}
    assert m.recall(S, "dog", recent=0, important=0).chosen == []
    m.close()


# -- reading a long history by index ---------------------------------------------------------------------


def test_the_newest_notes_are_read_per_importance_and_match_one_sorted_query(mneme: Mneme, db_path, clock):
    for i in range(60):
        kind = "fact" if i % 4 == 0 else "episode"
        note = mneme.remember(S, f"note number {i}", kind=kind, importance=1 + i * 7 % 5)
        if i % 9 == 0:
            mneme.forget(S, id=note.id)
        clock.advance(minutes=1)
    live = "deleted_at is null and superseded_by is null"
    for fading, kinds in ((False, ""), (True, "and kind not in ('fact', 'preference')")):
        expected = [
            row[0]
            for row in rows(
                db_path,
                f"select id from notes where subject_id = 1 {kinds} and {live} order by id desc limit 7",
            )
        ]
        found = mneme.store.read(lambda conn, f=fading: notes.newest(conn, S, 1, 7, fading=f))
        assert [n.id for n in found] == expected


def test_a_recall_reads_notes_by_index_and_never_scans_or_sorts_the_whole_history(mneme: Mneme, clock):
    fill(mneme, clock, sentences(30))
    mneme.remember(S, "pinned thing", importance=5)
    mneme.recall(S, "warm up", log=False)  # the thread's connection exists from here on
    conn = mneme.store._conn()
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        mneme.recall(S, "cat and tea", log=False)
    finally:
        conn.set_trace_callback(None)
    plans = [
        detail
        for sql in statements
        if sql.lstrip().lower().startswith("select")
        for *_ids, detail in conn.execute("explain query plan " + sql).fetchall()
    ]
    assert any("notes_subject" in detail for detail in plans)
    assert not [d for d in plans if d.startswith("SCAN notes") or d == "SCAN n"], plans
    # every read of a person's notes narrows by importance too (or by id): none reads all of them to sort
    assert "SEARCH notes USING INDEX notes_subject (subject_id=?)" not in plans, plans


# -- the term ids a connection keeps --------------------------------------------------------------------


def test_term_ids_kept_by_one_companion_follow_another_process_renumbering_them(tmp_path, clock):
    path = tmp_path / "two.db"
    one = Mneme(path, space="t", clock=clock)
    two = Mneme(path, space="t", clock=clock)
    try:
        one.remember(S, "my cat likes tea")
        two.store.write(index.rebuild)  # another connection indexes everything again: new term ids
        one.remember(S, "a cat and more tea")  # must not use the ids it saw before
        assert indexed_df(path) == true_df(one)
        assert {r.note.text for r in one.recall(S, "cat", recent=0, important=0).chosen} == {
            "my cat likes tea",
            "a cat and more tea",
        }
    finally:
        one.close()
        two.close()


def test_a_write_that_rolls_back_leaves_no_term_id_behind(mneme: Mneme, db_path):
    failing = {"now": True}

    def refuse(conn):
        if failing["now"]:
            raise RuntimeError("the disk is full")

    mneme.store.piggyback.append(refuse)
    with pytest.raises(RuntimeError):
        mneme.remember(S, "a brand new word: zeppelin")
    failing["now"] = False
    assert rows(db_path, "select count(*) from terms where term = 'zeppelin'") == [(0,)]
    mneme.remember(S, "zeppelin rides again")
    assert indexed_df(db_path) == true_df(mneme)
    assert [r.note.text for r in mneme.recall(S, "zeppelin", recent=0, important=0).chosen] == [
        "zeppelin rides again"
    ]


async def test_a_queued_write_that_fails_alone_leaves_no_term_id_behind(
    mneme: Mneme, db_path, monkeypatch: pytest.MonkeyPatch
):
    import asyncio

    real_add = index.add

    def add_then_fail(conn, subject_id, note):
        real_add(conn, subject_id, note)  # its new terms are in, and seen...
        if "dirigible" in note.text:
            raise RuntimeError("...and then the write fails")  # ...and rolled back to its savepoint

    monkeypatch.setattr(notes.index, "add", add_then_fail)
    kept, failed = await asyncio.gather(
        mneme.aremember(S, "a kite over the bay"),
        mneme.aremember(S, "another new word: dirigible"),
        return_exceptions=True,
    )
    assert kept.text == "a kite over the bay" and isinstance(failed, RuntimeError)
    monkeypatch.setattr(notes.index, "add", real_add)
    await mneme.aremember(S, "a dirigible over the bay")
    assert indexed_df(db_path) == true_df(mneme)
    found = await mneme.arecall(S, "dirigible", recent=0, important=0)
    assert [r.note.text for r in found.chosen] == ["a dirigible over the bay"]
