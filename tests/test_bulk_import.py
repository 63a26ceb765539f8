"""An import indexes in bulk (`index.add_many`) and writes its notes together, yet leaves the file holding
what writing and indexing each note one by one leaves: the same notes, ids, vocabulary and `df`, the same
postings on the same levels, so every recall and its `explain()` are the same."""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing

import pytest
from test_index_levels import CHINESE, WORDS, sentences

from mneme_core import Mneme, transfer
from mneme_core.memory import index

PEOPLE = [f"discord:{n}" for n in range(5)]
KEYS = ["home", "job", "pet"]
TABLES = {
    "notes": "select * from notes order by id",
    "subjects": "select * from subjects order by id",
    "terms": "select id, subject_id, term, df from terms order by id",
    "postings": "select * from postings order by term_id, note_id",
    "recent_postings": "select * from recent_postings order by term_id, note_id",
    "fresh_postings": "select * from fresh_postings order by id",
    "meta": "select * from meta where key in ('recent_merges', 'term_ids') order by key",
    "sequences": "select * from sqlite_sequence where name = 'notes'",
    "links": "select * from links order by a, b",
}


def export(count: int, seed: int, start: float) -> dict:
    """An export of `count` notes of five people, interleaved: Chinese and English, a key now and then (so
    versions replace each other, across the import's batches too), the same text twice, forgotten and
    replaced rows, lifecycle fields and links."""
    rng = random.Random(seed)
    rows = []
    for i, (text, importance) in enumerate(sentences(count, seed)):
        row = {
            "id": seed * 10_000 + i,
            "subject": rng.choice(PEOPLE),
            "text": text.rsplit(" ", 1)[0] if rng.random() < 0.8 else text,
            "kind": rng.choice(["fact", "episode", "episode", "plan", "preference"]),
            "importance": importance + (rng.random() < 0.1),
            "feeling": rng.choice([0.0, 0.5, -0.8]),
            "created_at": start + i * 60.0,
            "happened_at": start + i * 60.0 - rng.randint(0, 9) * 86400.0,
            "strength": rng.choice([1.0, 3.5]),
            "recalled_at": start + i * 90.0 if rng.random() < 0.2 else None,
        }
        if rng.random() < 0.15:
            row["key"] = rng.choice(KEYS)
        if rng.random() < 0.04:
            row["deleted_at"] = start + i * 61.0
        theirs = [r["id"] for r in rows[-20:] if r["subject"] == row["subject"]]
        if rng.random() < 0.03 and theirs:
            row["superseded_by"] = theirs[-1]
        if rng.random() < 0.03:
            row["archived_at"] = start + i * 62.0
        rows.append(row)
    links = [
        {"a": rows[i]["id"], "b": rows[i + 1]["id"], "weight": 0.5, "at": start}
        for i in range(0, count - 1, 7)
        if rows[i]["subject"] == rows[i + 1]["subject"]
    ]
    return {"mneme_bots": 1, "space": "s", "notes": rows, "links": links}


def one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The way an import went before: each note inserted on its own, indexed as `remember` indexes one."""

    def add_each(conn, events, postings=index.NOTES):
        for event in events:
            if isinstance(event, index.Item):
                index.add_postings(conn, postings, event.subject_id, event.id, event.terms, event.carried)
            else:
                sid, text, key, gloss = conn.execute(
                    "select subject_id, text, key, gloss from notes where id = ?", (event,)
                ).fetchone()
                index.remove(conn, sid, event, text, key, gloss)

    def insert_each(self, values):
        marks = ", ".join("?" * len(values))
        sql = f"insert into notes({transfer.INSERTED}) values ({marks}) returning id"
        return self.conn.execute(sql, values).fetchone()[0]

    monkeypatch.setattr(index, "add_many", add_each)
    monkeypatch.setattr(transfer._Importer, "_insert", insert_each)
    monkeypatch.setattr(transfer, "WAITING", 1)


def held(db) -> dict[str, list[tuple]]:
    with closing(sqlite3.connect(db)) as conn:
        return {name: conn.execute(sql).fetchall() for name, sql in TABLES.items()}


def build(db, exports: list[dict], before: int = 0) -> list:
    """Import the exports into a new file (after `before` notes remembered one by one), then recall."""
    m = Mneme(db, space="s", max_notes=100_000, daily_quota=10_000, clock=lambda: 1.8e9)
    try:
        for i in range(before):
            m.remember(PEOPLE[i % 5], f"remembered first {WORDS[i % 12]} {CHINESE[i % 14]} {i}")
        added = [m.import_data(data) for data in exports]
        found = []
        for who in PEOPLE:
            for query in ("cat and tea", "猫", "咖啡 火车", "talked about river", "钢琴 garden"):
                got = m.recall(who, query, log=False)
                found.append([(n.note.id, n.score, n.why) for n in got.chosen])
                found.append(got.explain())
        return [added, found]
    finally:
        m.close()


@pytest.mark.parametrize("before", [0, 9])
def test_an_import_in_bulk_leaves_what_one_by_one_leaves(tmp_path, monkeypatch, before) -> None:
    monkeypatch.setattr(index, "FRESH_NOTES", 6)  # the levels a few notes deep: many merges and settles
    monkeypatch.setattr(index, "RECENT_NOTES", 30)
    monkeypatch.setattr(transfer, "WAITING", 70)  # and several flushes in each import
    exports = [export(400, seed=1, start=1.7e9), export(150, seed=2, start=1.7e9 + 1e6)]
    exports.append(exports[0])  # the same export again adds nothing
    bulk = build(tmp_path / "bulk.db", exports, before)
    bulk_held = held(tmp_path / "bulk.db")
    with monkeypatch.context() as patched:
        one_by_one(patched)
        each = build(tmp_path / "each.db", exports, before)
    each_held = held(tmp_path / "each.db")
    assert bulk[0][0] > 300 and bulk[0][2] < 5  # (again: a row whose twin was replaced since comes in)
    assert len(each_held["postings"]) > 1000 and each_held["recent_postings"] and each_held["fresh_postings"]
    for name in TABLES:
        assert bulk_held[name] == each_held[name], name
    assert bulk == each


def test_a_big_import_is_indexed_in_batches_of_waiting(tmp_path, monkeypatch) -> None:
    """The waiting list never holds more than `WAITING` notes (an import of millions fits in memory)."""
    monkeypatch.setattr(transfer, "WAITING", 50)
    sizes = []
    real = index.add_many

    def counted(conn, events, postings=index.NOTES):
        sizes.append(sum(isinstance(e, index.Item) for e in events))
        real(conn, events, postings)

    monkeypatch.setattr(index, "add_many", counted)
    with Mneme(tmp_path / "m.db", space="s", max_notes=100_000, daily_quota=10_000) as m:
        m.import_data(export(300, seed=3, start=1.7e9))
    assert max(sizes) <= 50 and sum(sizes) > 250
