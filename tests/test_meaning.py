"""The meaning tier: embedders behind one interface, vectors per embedder, the fall-through, hybrid recall.

The embedder here is a fake with a known geometry: each concept is one axis, and a text's vector is the sum
of the axes of the concepts it names in any language ("cat", "kitten", "猫" and "年糕" all point along the
cat axis), plus a small axis of its own so no two notes are identical. So a query and a note share meaning
exactly when they share a concept, whatever their words.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time

import numpy as np
import pytest
from conftest import raw_connection
from tier_fakes import CONCEPTS, S

from mneme_core import Mneme, Recall
from mneme_core.errors import InvalidValue
from mneme_core.meaning import (
    EmbeddingError,
    Embeddings,
    register_embedder,
    registered_embedders,
    unregister_embedder,
)

AXES = list(CONCEPTS)
DIMS = len(AXES) + 8


def concept_vector(text: str, dims: int = DIMS) -> list[float]:
    low = text.lower()
    v = np.zeros(dims)
    for i, (_concept, words) in enumerate(CONCEPTS.items()):
        if any(w in low for w in words):
            v[i] = 1.0
    own = int(hashlib.blake2b(text.encode(), digest_size=2).hexdigest(), 16) % (dims - len(AXES))
    v[len(AXES) + own] += 0.3
    return v.tolist()


class Fake:
    """A sync embedder that counts its calls and can be told to fail, stall or change its dimensions."""

    def __init__(self, dims: int = DIMS) -> None:
        self.dims = dims
        self.calls = 0
        self.texts = 0
        self.fail = False
        self.gate: threading.Event | None = None

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        if self.gate is not None:
            self.gate.wait(5)
        if self.fail:
            raise ConnectionError("the embedding service is down")
        self.texts += len(texts)
        return [concept_vector(t, self.dims) for t in texts]


@pytest.fixture
def fake() -> Fake:
    return Fake()


@pytest.fixture
def meant(db_path, clock, fake):
    m = Mneme(db_path, space="test", clock=clock, zone="UTC+8", embed=Embeddings(fake, name="fake:concepts"))
    try:
        yield m
    finally:
        m.close()


def texts(found) -> list[str]:
    return [r.note.text for r in found.chosen]


def words_alone(m: Mneme, query: str, **options) -> Recall:
    """What words alone find: the same file opened by a companion without an embedder."""
    with Mneme(m.store.location, space=m.space, clock=m.clock, zone="UTC+8") as plain:
        return plain.recall(S, query, **options)


def raw(db_path):
    return raw_connection(db_path)


def vector_count(db_path, embedder: str | None = None) -> int:
    with raw(db_path) as conn:
        if embedder is None:
            return conn.execute("select count(*) from vectors").fetchone()[0]
        return conn.execute(
            "select count(*) from vectors v join embedders e on e.id = v.embedder_id where e.name = ?",
            (embedder,),
        ).fetchone()[0]


def fill(m: Mneme) -> None:
    m.remember(S, "养了一只叫年糕的猫")
    m.remember(S, "喜欢喝乌龙茶", kind="preference")
    m.remember(S, "signed up for the Portland marathon")
    m.remember(S, "my boss keeps moving deadlines")
    m.remember(S, "learning the guitar for Xiaoyu's birthday")
    m.embed_pending()


# finding through meaning, in any language


async def test_an_english_query_finds_a_chinese_note_through_meaning(meant: Mneme):
    fill(meant)

    words = words_alone(meant, "how is my kitten", recent=0, important=0)
    found = await meant.arecall(S, "how is my kitten", recent=0, important=0)

    assert texts(words) == []
    assert found.tier == "embeddings"
    assert texts(found)[0] == "养了一只叫年糕的猫"
    assert found.chosen[0].why.startswith("similar ")


async def test_a_chinese_query_finds_an_english_note_through_meaning(meant: Mneme):
    fill(meant)

    found = await meant.arecall(S, "最近跑步怎么样", recent=0, important=0)

    assert texts(found)[0] == "signed up for the Portland marathon"


async def test_a_mixed_query_finds_notes_by_words_and_by_meaning(meant: Mneme):
    fill(meant)

    found = await meant.arecall(S, "我的 guitar 和 oolong", recent=0, important=0)

    assert set(texts(found)[:2]) == {"learning the guitar for Xiaoyu's birthday", "喜欢喝乌龙茶"}
    guitar = next(r for r in found.chosen if "guitar" in r.note.text)
    assert guitar.why.startswith("matched: guitar") and "similar" in guitar.why


async def test_meaning_adds_to_words_and_keeps_their_order_when_it_says_nothing(meant: Mneme):
    fill(meant)
    meant.remember(S, "drank coffee at the office")  # "office" is work: similar to the boss note
    meant.embed_pending()

    words = words_alone(meant, "coffee", recent=0, important=0)
    hybrid = await meant.arecall(S, "coffee", recent=0, important=0)

    assert texts(hybrid)[: len(texts(words))] == texts(words)


async def test_prompt_uses_meaning_too(meant: Mneme):
    fill(meant)

    block = await meant.aprompt(S, "how is my kitten", important=0, recent=0)

    assert "年糕" in block


# the fall-through


async def test_a_failing_embedder_falls_through_to_words_and_is_rested(meant: Mneme, fake: Fake):
    fill(meant)
    fake.fail = True

    found = await meant.arecall(S, "喜欢喝茶吗", recent=0)
    calls = fake.calls
    again = await meant.arecall(S, "喜欢喝茶吗", log=False, recent=0)

    assert found.tier == again.tier == "words"
    assert texts(found)[0] == "喜欢喝乌龙茶"  # words still find it
    assert fake.calls == calls  # rested: not asked again within the minute
    report = meant.report()["meaning"]
    assert report["failed"] == 1 and report["rested"] == 1
    assert report["placed"] == {"embeddings": 0, "words": 2}


async def test_a_slow_embedder_falls_through_within_its_timeout(db_path, clock):
    async def slow(texts):
        await asyncio.sleep(0 if len(texts) > 1 or texts[0].startswith("养") else 5)
        return [concept_vector(t) for t in texts]

    m = Mneme(db_path, space="test", clock=clock, embed=Embeddings(slow, name="slow", timeout=0.1))
    try:
        m.remember(S, "养了一只叫年糕的猫")
        m.embed_pending()
        started = time.perf_counter()
        found = await m.arecall(S, "how is my kitten")
        took = time.perf_counter() - started
    finally:
        m.close()

    assert found.tier == "words"
    assert took < 1.0
    assert m.report()["meaning"]["slow"] == 1


async def test_an_embedder_that_changes_its_dimensions_falls_through(db_path, clock, fake):
    m = Mneme(db_path, space="test", clock=clock, embed=Embeddings(fake, name="fake:concepts"))
    fill(m)
    m.close()
    other = Fake(dims=DIMS + 3)  # the same name, another model behind it
    m = Mneme(db_path, space="test", clock=clock, embed=Embeddings(other, name="fake:concepts"))
    try:
        found = await m.arecall(S, "how is my kitten")
    finally:
        m.close()

    assert found.tier == "words"
    assert m.report()["meaning"]["wrong"] == 1


def test_embeddings_refuse_vectors_that_cannot_be_used():
    two_rows = Embeddings(lambda texts: [[1.0, 0.0], [0.0, 1.0]], name="two")
    with pytest.raises(EmbeddingError, match="shape"):
        asyncio.run(two_rows.embed(["only one"]))
    nan = Embeddings(lambda texts: [[float("nan"), 1.0]], name="nan")
    with pytest.raises(EmbeddingError, match="NaN"):
        asyncio.run(nan.embed(["x"]))
    fixed = Embeddings(lambda texts: [[1.0, 2.0, 2.0]] * len(texts), name="fixed", dimensions=2)
    with pytest.raises(EmbeddingError, match="3 dimensions"):
        fixed.embed_sync(["x"])
    unit = Embeddings(lambda texts: [[3.0, 4.0]] * len(texts), name="unit").embed_sync(["x"])
    assert unit.dtype == np.float32 and np.allclose(unit, [[0.6, 0.8]])


def test_the_plain_twins_place_the_query_by_meaning_too(meant: Mneme, fake: Fake):
    fill(meant)

    found = meant.recall(S, "how is my kitten", recent=0, important=0)
    block = meant.prompt(S, "how is my kitten")

    assert found.tier == "embeddings"
    assert texts(found)[0] == "养了一只叫年糕的猫"
    assert "年糕" in block
    assert meant.report()["meaning"]["placed"]["embeddings"] == 2


async def test_a_plain_twin_called_inside_a_running_loop_places_by_meaning(meant: Mneme):
    fill(meant)

    found = meant.recall(S, "how is my kitten", recent=0, important=0)

    assert found.tier == "embeddings" and texts(found)[0] == "养了一只叫年糕的猫"


def test_a_companion_without_an_embedder_recalls_by_words_with_no_meaning_report(db_path, clock):
    with Mneme(db_path, space="test", clock=clock) as m:
        m.remember(S, "went hiking")
        assert m.recall(S, "hiking").tier == "words"
        assert "hiking" in m.prompt(S, "hiking")
        assert "meaning" not in m.report()


# storing vectors


def test_notes_are_embedded_after_the_write_not_inside_it(meant: Mneme, fake: Fake, db_path):
    fake.gate = threading.Event()  # the embedder blocks until released

    started = time.perf_counter()
    meant.remember(S, "养了一只叫年糕的猫")
    meant.remember(S, "喜欢喝乌龙茶")
    assert time.perf_counter() - started < 1.0
    assert vector_count(db_path) == 0

    fake.gate.set()
    deadline = time.time() + 5
    while vector_count(db_path) < 2 and time.time() < deadline:
        time.sleep(0.02)
    assert vector_count(db_path) == 2
    with raw(db_path) as conn:
        (blob,) = conn.execute("select vector from vectors limit 1").fetchone()
    vector = np.frombuffer(blob, dtype="<f4")
    assert vector.shape == (DIMS,) and np.isclose(np.linalg.norm(vector), 1.0)


def test_notes_written_before_the_embedder_are_caught_up(db_path, clock, fake):
    with Mneme(db_path, space="test", clock=clock) as plain:
        plain.remember(S, "养了一只叫年糕的猫")
        plain.remember(S, "喜欢喝乌龙茶")

    with Mneme(db_path, space="test", clock=clock, embed=Embeddings(fake, name="fake:concepts")) as m:
        assert m.embed_pending() + vector_count(db_path) >= 2
        assert vector_count(db_path) == 2


def test_the_floor_is_measured_once_per_file_not_at_every_start(db_path, clock, fake):
    from mneme_core.meaning import calibrate

    bundled = len(calibrate.texts())
    with Mneme(db_path, space="test", clock=clock, embed=Embeddings(fake, name="fake:concepts")) as m:
        m.remember(S, "养了一只叫年糕的猫")
        m.embed_pending()
        floor = m.report()["meaning"]["floor"]
    assert fake.texts == bundled + 1  # the bundled set, then the note
    with Mneme(db_path, space="test", clock=clock, embed=Embeddings(fake, name="fake:concepts")) as again:
        again.remember(S, "喜欢喝乌龙茶")
        again.embed_pending()
        assert again.report()["meaning"]["floor"] == floor
    assert fake.texts == bundled + 2  # only the new note: the file kept the floor


async def test_two_embedders_keep_their_vectors_apart(db_path, clock, fake):
    other = Fake()
    with Mneme(db_path, space="test", clock=clock, embed=Embeddings(fake, name="model-a")) as m:
        fill(m)
    with Mneme(db_path, space="test", clock=clock, embed=Embeddings(other, name="model-b")) as m:
        before = await m.arecall(S, "how is my kitten", recent=0, important=0)  # b has no vectors yet
        m.embed_pending()
        after = await m.arecall(S, "how is my kitten", recent=0, important=0)

    assert before.tier == "words" and texts(before) == []
    assert texts(after)[0] == "养了一只叫年糕的猫"
    assert vector_count(db_path, "model-a") == vector_count(db_path, "model-b") == 5
    with raw(db_path) as conn:
        names = conn.execute("select name, dimensions from embedders order by id").fetchall()
    assert names == [("model-a", DIMS), ("model-b", DIMS)]


async def test_forget_purge_and_erase_remove_vectors(meant: Mneme, db_path):
    fill(meant)
    cat = next(n for n in meant.notes(S) if "年糕" in n.text)
    meant.remember("discord:7", "has a tabby cat")
    meant.embed_pending()
    assert vector_count(db_path) == 6

    meant.forget(S, id=cat.id)
    with raw(db_path) as conn:
        assert conn.execute("select count(*) from vectors where note_id = ?", (cat.id,)).fetchone() == (0,)
    meant.remember(S, "lives in Lisbon", kind="fact", key="user.city")
    meant.remember(S, "lives in Porto", kind="fact", key="user.city")  # replaces Lisbon
    meant.embed_pending()
    assert vector_count(db_path) == 4 + 1 + 1
    assert meant.purge(S) == 2  # the forgotten and the replaced note: their vectors left already
    assert vector_count(db_path) == 6

    await meant.arecall(S, "how is my kitten")  # the person's vectors are now in memory too
    assert meant.meaning._index._cache

    meant.erase(S)

    assert vector_count(db_path) == 1  # only the other person's
    assert not meant.meaning._index._cache  # nor in memory
    with raw(db_path) as conn:
        sets = conn.execute(
            "select count(*) from vector_sets where subject_id not in (select id from subjects)"
        )
        assert sets.fetchone() == (0,)


async def test_another_process_writes_are_seen_by_the_matrix_in_memory(db_path, clock, fake, backend):
    embed = Embeddings(fake, name="fake:concepts")
    reader = Mneme(db_path, space="test", clock=clock, embed=embed)
    writer = Mneme(db_path, space="test", clock=clock, embed=Embeddings(Fake(), name="fake:concepts"))
    try:
        fill(writer)
        first = await reader.arecall(S, "how is my kitten", recent=0, important=0)
        writer.remember(S, "the kitten learned to open doors")
        writer.embed_pending()
        second = await reader.arecall(S, "how is my kitten", recent=0, important=0)
        index = reader.meaning._index
        loaded = index.loaded
        third = await reader.arecall(S, "my cat again", recent=0, important=0)
    finally:
        writer.close()
        reader.close()

    assert "the kitten learned to open doors" not in texts(first)
    assert "the kitten learned to open doors" in texts(second)
    # Five, then only the new one; with pgvector none: the server searches them where they are.
    assert loaded == (0 if backend == "pgvector" else 6)
    assert index.loaded == loaded  # nothing changed: the matrix in memory is used as it is
    assert third.tier == "embeddings"


# naming embedders


def test_a_registered_embedder_is_found_by_name_and_registered_once(db_path, clock, fake):
    register_embedder(lambda: Embeddings(fake, name="fake:registered"), name="concepts", plugin="tests")
    try:
        with pytest.raises(InvalidValue, match="already registered by tests"):
            register_embedder(Embeddings(fake, name="x"), name="concepts")
        assert registered_embedders()["concepts"] == "tests"
        with Mneme(db_path, space="test", clock=clock, embed="concepts") as m:
            assert m.meaning.name == "fake:registered"
        with pytest.raises(InvalidValue, match="no embedder is registered as 'nope'"):
            Mneme(db_path, space="test", clock=clock, embed="nope")
    finally:
        unregister_embedder("concepts")


def test_a_bare_function_is_an_embedder_named_after_it(db_path, clock):
    def my_embed(texts):
        return [concept_vector(t) for t in texts]

    with Mneme(db_path, space="test", clock=clock, embed=my_embed) as m:
        assert m.meaning.name.startswith("custom:") and m.meaning.name.endswith("my_embed")


async def test_a_query_function_places_queries_and_the_main_function_embeds_notes():
    sides: list[str] = []

    def notes(texts):
        sides.append("note")
        return [[1.0, 0.0]] * len(texts)

    def questions(texts):
        sides.append("query")
        return [[0.0, 1.0]] * len(texts)

    e = Embeddings(notes, name="sided", query=questions)
    assert (await e.embed(["where is my cat?"])).tolist() == [[0.0, 1.0]]
    assert e.embed_sync(["my cat naps"]).tolist() == [[1.0, 0.0]]
    assert sides == ["query", "note"]
    with pytest.raises(TypeError, match="query is a function"):
        Embeddings(notes, name="sided", query="questions")
