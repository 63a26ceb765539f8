"""Vectors kept and searched the same on every backend: a SQLite file (a matrix in memory), PostgreSQL
keeping arrays (the same matrix), and PostgreSQL with pgvector (the server searches).

Each test here runs three times (`conftest.VECTOR_BACKENDS`). The same notes, embedded by the same
embedder, are written to a SQLite file beside the test's database, and what recall makes of them is
compared: the same notes chosen in the same order with the same scores (to float32's tolerance), the same
`explain()`, and the similarities themselves, on a person small enough for plain cosine and one large
enough to be searched with their mean direction taken out (`meaning.vectors.CENTER_MIN`).
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from urllib.parse import quote

import numpy as np
import pytest
from conftest import pgvector_url, raw_connection
from tier_fakes import FILLER_TOPICS, Fake, S

from mneme_core import Mneme
from mneme_core.meaning import Embeddings
from mneme_core.meaning.vectors import CENTER_MIN

# The last is a Chinese dialogue so far: placed by its lines and by its last line apart, each note the nearer.
QUERIES = (
    "how is my kitten",
    "any good tea lately",
    "the race next month",
    "trouble at the office",
    "最近有什么好茶吗\n我家的猫最近怎么样",
)
CONCEPT_WORDS = ("kitten", "oolong tea", "marathon", "boss", "guitar")


def notes(n: int) -> list[str]:
    """`n` notes, a third of them naming a concept, the rest small talk."""
    made = []
    for i in range(n):
        topic = FILLER_TOPICS[i % len(FILLER_TOPICS)]
        if i % 3 == 0:
            made.append(f"talked about the {CONCEPT_WORDS[(i // 3) % len(CONCEPT_WORDS)]} on day {i}")
        else:
            made.append(f"mentioned the {topic} again, time {i}")
    return made


def companion(location, clock) -> Mneme:
    # The floor is stated: one measured on the file's own notes depends on when the background thread
    # embedded them (at `calibrate.FILE_MIN` vectors and at each doubling), not on the backend.
    embed = Embeddings(Fake(), name="fake", floor=0.3)
    return Mneme(location, space="test", clock=clock, zone="UTC+8", embed=embed)


def filled(location, clock, n: int) -> Mneme:
    """A companion with `n` notes, every one embedded. The notes are written first, with no embedder, and
    embedded by the catch-up when it opens: the background thread that embeds notes as they are written
    may read a batch before the write that made it is committed, and drop a note from it (a race in
    `meaning.tiers`, reported; not the backends' to answer for)."""
    with Mneme(location, space="test", clock=clock, zone="UTC+8") as plain:
        for text in notes(n):
            plain.remember(S, text)
            clock.advance(minutes=5)
    m = companion(location, clock)
    m.embed_pending()
    return m


def seen(m: Mneme, query: str):
    found = m.recall(S, query, log=False)  # nothing reinforced: each recall sees the same notes
    return found, [(r.note.text, r.why, r.score) for r in found.chosen]


@pytest.mark.parametrize("n", [12, CENTER_MIN + 50])
def test_recall_scores_and_explain_are_the_files(db_path, tmp_path, clock, n):
    start = clock.now
    here = filled(db_path, clock, n)
    clock.set(start)
    file = filled(tmp_path / "beside.db", clock, n)
    try:
        for query in QUERIES:
            got, mine = seen(here, query)
            want, theirs = seen(file, query)
            assert got.tier == want.tier == "embeddings"
            assert [(t, w) for t, w, _s in mine] == [(t, w) for t, w, _s in theirs]
            np.testing.assert_allclose([s for *_r, s in mine], [s for *_r, s in theirs], rtol=1e-5, atol=1e-6)
            assert got.explain() == want.explain()
            # The similarities themselves, every note's, and the floor they are measured against.
            assert here.meaning._queries[query].ndim == (2 if "\n" in query else 1)  # two rows: two vectors
            placed_here = here.meaning.placed_at(here.meaning._queries[query])
            placed_file = file.meaning.placed_at(file.meaning._queries[query])
            ids_h, sims_h, floor_h = here.store.read(_similar, placed_here)
            ids_f, sims_f, floor_f = file.store.read(_similar, placed_file)
            assert list(ids_h) == list(ids_f) and len(ids_h) == n
            np.testing.assert_allclose(sims_h, sims_f, rtol=1e-4, atol=2e-6)
            assert floor_h == pytest.approx(floor_f, abs=1e-5)
    finally:
        here.close()
        file.close()


def _similar(conn, placed):
    (sid,) = conn.execute("select id from subjects where subject = ?", (S,)).fetchone()
    return placed.similar(conn, sid)


def test_each_backend_says_how_it_keeps_vectors(db_path, clock, backend, caplog):
    with caplog.at_level(logging.INFO, logger="mneme_core.store.postgres.store"):
        m = filled(db_path, clock, 3)
    try:
        kept = getattr(m.store, "kept", None)
        said = [r.getMessage() for r in caplog.records if "vectors on PostgreSQL" in r.getMessage()]
        with raw_connection(db_path) as conn:
            (blob,) = conn.execute("select vector from vectors order by note_id limit 1").fetchone()
    finally:
        m.close()
    # Every backend hands the engine the same float32 bytes.
    assert np.frombuffer(blob, dtype="<f4").shape == (Fake().dims,)
    if backend == "sqlite":
        assert kept is None and not said  # a file keeps arrays, always
    elif backend == "postgresql":
        assert kept.path == "arrays" and "no pgvector" in kept.why
        assert len(said) == 2 and all(": arrays (the server has no pgvector" in line for line in said)
    else:
        assert kept.path == "pgvector" and "pgvector 0." in kept.why
        assert len(said) == 2 and all(": pgvector (pgvector 0." in line for line in said)  # one an open
        with raw_connection(db_path) as conn:
            types = conn.execute(
                "select table_name, udt_name from information_schema.columns where table_schema = "
                "current_schema() and column_name = 'vector' order by table_name"
            ).fetchall()
        assert types == [("line_vectors", "vector"), ("vectors", "vector")]


def _database_of(base: str, role: str, password: str):
    """A new database on the pgvector server owned by a new role that may not create extensions; (its
    URL as that role, its URL as the superuser)."""
    import psycopg

    name = f"d_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"create role {role} login password '{password}'")
        conn.execute(f"create database {name} owner {role}")
    as_owner = re.sub(r"//[^@]*@/postgres", f"//{role}:{quote(password)}@/{name}", base)
    as_super = base.replace("@/postgres", f"@/{name}")
    return name, as_owner, as_super


def test_a_database_kept_as_arrays_moves_to_pgvector_when_it_can_be_had(backend, clock, tmp_path, caplog):
    """A role that may not create the extension keeps arrays, saying why; once the extension is there,
    the next open converts the vectors it has, and recall gives what it gave before."""
    if backend != "pgvector":
        pytest.skip("about the pgvector server: the others have no extension to come")
    import psycopg

    base = pgvector_url()
    role = f"r_{uuid.uuid4().hex[:8]}"
    name, as_owner, as_super = _database_of(base, role, "pw")
    try:
        m = filled(as_owner, clock, CENTER_MIN + 10)
        try:
            kept = m.store.kept
            before = [seen(m, q)[1] for q in QUERIES]
        finally:
            m.close()
        assert kept.path == "arrays" and "not made here" in kept.why and "permission denied" in kept.why

        with psycopg.connect(as_super, autocommit=True) as conn:
            conn.execute("create extension vector")
        with caplog.at_level(logging.INFO, logger="mneme_core.store.postgres.store"):
            m = companion(as_owner, clock)
        try:
            kept = m.store.kept
            after = [seen(m, q)[1] for q in QUERIES]
            with raw_connection(as_owner) as conn:
                (count,) = conn.execute("select count(*) from vectors").fetchone()
        finally:
            m.close()
        assert kept.path == "pgvector"
        assert f"{CENTER_MIN + 10} vectors kept as arrays until now converted" in kept.why
        assert count == CENTER_MIN + 10
        for b, a in zip(before, after, strict=True):
            assert [(t, w) for t, w, _s in a] == [(t, w) for t, w, _s in b]
            np.testing.assert_allclose([s for *_r, s in a], [s for *_r, s in b], rtol=1e-5, atol=1e-6)
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"drop database if exists {name} with (force)")
            conn.execute(f"drop role if exists {role}")


def test_the_extension_is_made_where_it_can_be(backend, clock):
    """A superuser's new database gets `create extension vector` at open."""
    if backend != "pgvector":
        pytest.skip("about the pgvector server")
    import psycopg

    base = pgvector_url()
    name = f"d_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"create database {name}")
    try:
        with companion(base.replace("@/postgres", f"@/{name}"), clock) as m:
            kept = m.store.kept
        assert kept.path == "pgvector" and "created in schema public" in kept.why
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"drop database if exists {name} with (force)")


def test_a_note_committed_after_the_embedder_wakes_is_still_embedded(db_path, clock):
    """The background embedder is woken inside the write that made a note; a write slow to commit must not
    lose the note from the batch (it read the batch before the commit and dropped what it did not see)."""
    m = companion(db_path, clock)
    try:
        m.remember(S, "a first note, to have the thread running")
        m.embed_pending()
        m.store.piggyback.append(lambda conn: time.sleep(0.3))  # after `Meaning.spot`, before the commit
        m.remember(S, "the kitten learned to open doors")
        deadline = time.monotonic() + 5
        while m.meaning.report()["embedded"] < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        m.store.piggyback.pop()
        m.embed_pending()
        with raw_connection(db_path) as conn:
            (count,) = conn.execute("select count(*) from vectors").fetchone()
    finally:
        m.close()
    assert count == 2
