"""`mneme move` carries what only a database holds, beside the export: the notes' vectors (the target's
embedder has nothing to embed again) and the recall log, with every note id turned into the target's;
both idempotently, both ways.

Each test runs on every backend as the target (`conftest.VECTOR_BACKENDS`: a file, PostgreSQL keeping
arrays, PostgreSQL with pgvector), moving from a SQLite file and back into a new one.
"""

from __future__ import annotations

from conftest import raw_connection
from tier_fakes import Fake, S

from mneme_core import Mneme
from mneme_core.meaning import Embeddings
from mneme_core.move import move

TEXTS = ("养了一只叫年糕的猫", "loves oolong tea", "training for the marathon", "the boss moved the deadline")


def companion(location, clock, fake=None) -> Mneme:
    embed = Embeddings(fake or Fake(), name="fake", floor=0.3)
    return Mneme(location, space="test", clock=clock, zone="UTC+8", embed=embed)


def vectors_by_text(location) -> dict[str, bytes]:
    with raw_connection(location) as conn:
        return {
            text: bytes(blob)
            for text, blob in conn.execute(
                "select n.text, v.vector from vectors v join notes n on n.id = v.note_id"
            ).fetchall()
        }


def log_by_text(m: Mneme) -> list[tuple[str, list[str], list[str]]]:
    """The person's recall log with note texts in place of ids (ids differ between databases)."""
    texts = {n.id: n.text for n in m.notes(S, history=True)}
    return [
        (e["query"], [texts[c[0]] for c in e["chosen"]], [texts[s[0]] for s in e["skipped"]])
        for e in m.recalls(S, limit=50)
    ]


def source_file(tmp_path, clock):
    location = tmp_path / "source.db"
    with companion(location, clock) as m:
        for text in TEXTS:
            m.remember(S, text)
            clock.advance(minutes=1)
        m.embed_pending()
        for query in ("how is my kitten", "any tea lately"):
            m.recall(S, query)
            clock.advance(minutes=1)
        m.recall_log.flush()
        log = log_by_text(m)
        said = m.recall(S, "how is my kitten", log=False).explain()
    return location, log, said


def test_a_move_carries_vectors_and_the_recall_log_both_ways_once(db_path, tmp_path, clock):
    source, log, said = source_file(tmp_path, clock)
    assert len(log) == 2 and log[0][1]  # something was chosen, and logged

    first = move(source, db_path, clock=clock)
    again = move(source, db_path, clock=clock)
    back_to = tmp_path / "back.db"
    home = move(db_path, back_to, clock=clock)
    move(db_path, back_to, clock=clock)

    assert [(m.vectors, m.recalls) for m in first] == [(len(TEXTS), 2)]
    assert [m.recalls for m in again] == [0]  # the vectors written again are the same bytes, not new rows
    assert [(m.vectors, m.recalls) for m in home] == [(len(TEXTS), 2)]
    for there in (db_path, back_to):
        assert vectors_by_text(there) == vectors_by_text(source)  # bit for bit, once each
        fake = Fake()
        with companion(there, clock, fake) as m:
            assert m.embed_pending() == 0 and fake.calls == 0  # nothing to embed again
            assert log_by_text(m) == log
            assert m.recall(S, "how is my kitten", log=False).explain() == said
    with raw_connection(back_to) as conn:
        assert conn.execute("select count(*) from recalls").fetchone() == (2,)


def test_an_embedder_with_other_dimensions_in_the_target_keeps_its_own(db_path, tmp_path, clock):
    source, _log, _said = source_file(tmp_path, clock)
    with companion(db_path, clock, Fake(dims=32)) as m:
        m.remember("discord:7", "has a tabby cat")
        m.embed_pending()

    moved = move(source, db_path, clock=clock)

    assert [m.vectors for m in moved] == [0]
    fake = Fake(dims=32)
    with companion(db_path, clock, fake) as m:
        assert m.embed_pending() == len(TEXTS)  # embedded there, by the target's own embedder
        assert m.recall(S, "how is my kitten").tier == "embeddings"
