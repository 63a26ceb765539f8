"""The fall-through of the meaning tiers: embeddings -> word centroids -> the companion's model -> words.

Each tier is real: the embedder is `tier_fakes.Fake` behind `Embeddings`, the centroids and unify tiers are
the plugins, the model is `tier_fakes.Model` (a stand-in for a paid API). The embedder is made to fail, to
stall past its timeout, or to answer with other dimensions than the file holds; each time the query must be
placed by the next tier that can, and `report()` must count it there.
"""

from __future__ import annotations

import asyncio
import time

import mneme_centroids
import mneme_unify
import pytest
from tier_fakes import CAT_NOTE, DIMS, Fake, Model, S, teach

from mneme_core import Mneme
from mneme_core.meaning import Embeddings
from mneme_core.meaning.fallthrough import Reworded
from mneme_core.plugins import make_manager

QUIET = {"plugins": {"unify": {"background": False}}}


def plugins(*modules, extra=()):
    manager = make_manager(load_entry_points=False, environ={})
    for module in modules:
        manager.register(module, name=module.__name__.removeprefix("mneme_"))
    for plugin in extra:
        manager.register(plugin)
    return manager


def texts(found) -> list[str]:
    return [r.note.text for r in found.chosen]


def companion(db_path, clock, embedder, *modules, model=None, extra=()):
    return Mneme(
        db_path,
        space="test",
        clock=clock,
        config=QUIET,
        embed=embedder,
        complete=model,
        plugins=plugins(*modules, extra=extra),
    )


@pytest.fixture
def fake() -> Fake:
    return Fake()


@pytest.fixture
def model() -> Model:
    return Model()


async def taught(db_path, clock, fake, *modules, model=None):
    m = companion(db_path, clock, Embeddings(fake, name="fake", timeout=0.2), *modules, model=model)
    teach(m)
    m.embed_pending()
    return m


async def test_the_embedder_places_a_query_first_and_no_later_tier_is_asked(db_path, clock, fake, model):
    m = await taught(db_path, clock, fake, mneme_centroids, mneme_unify, model=model)
    try:
        calls = len(model.calls)
        found = await m.arecall(S, "猫最近好吗", recent=0, important=0)
        report = m.report()["meaning"]
    finally:
        m.close()

    assert found.tier == "embeddings" and found.query == "猫最近好吗"
    assert len(model.calls) == calls  # an earlier tier placed it: the model is not asked
    assert report["placed"] == {"embeddings": 1, "centroids": 0, "unify": 0, "words": 0}


@pytest.mark.parametrize("trouble", ["fails", "is slow", "changes its dimensions"])
async def test_when_the_embedder_cannot_the_centroids_place_the_query(db_path, clock, fake, trouble):
    m = await taught(db_path, clock, fake, mneme_centroids)
    if trouble == "fails":
        fake.fail = True
    elif trouble == "is slow":
        fake.stall = 1.0
    else:  # the same name, another model behind it
        m.close()
        other = Fake(dims=DIMS + 3)
        m = companion(db_path, clock, Embeddings(other, name="fake"), mneme_centroids)
    try:
        with Mneme(db_path, space="test", clock=clock, config=QUIET) as plain:  # no embedder, no plugin
            words = plain.recall(S, "how is the kitten", recent=0, important=0)
        started = time.perf_counter()
        found = await m.arecall(S, "how is the kitten", recent=0, important=0)
        took = time.perf_counter() - started
        report = m.report()["meaning"]
    finally:
        m.close()

    assert CAT_NOTE not in texts(words)  # words alone cannot find the Chinese note
    assert found.tier == "centroids"
    assert CAT_NOTE in texts(found)
    assert next(r for r in found.chosen if r.note.text == CAT_NOTE).why.startswith("similar ")
    assert took < 0.9
    assert report["placed"] == {"embeddings": 0, "centroids": 1, "words": 0}
    kind = {"fails": "failed", "is slow": "slow", "changes its dimensions": "wrong"}[trouble]
    assert report[kind] == 1


async def test_centroids_pass_a_query_they_know_too_little_of(db_path, clock, fake):
    m = await taught(db_path, clock, fake, mneme_centroids)
    fake.fail = True
    try:
        unknown = await m.arecall(S, "quantum chromodynamics lecture notes", recent=0, important=0)
        report = m.report()["meaning"]
    finally:
        m.close()

    assert unknown.tier == "words"
    assert report["tiers"]["centroids"]["too little known"] == 1


async def test_centroids_wait_for_enough_notes(db_path, clock, fake):
    m = companion(db_path, clock, Embeddings(fake, name="fake"), mneme_centroids)
    try:
        teach(m, fillers=5)  # 9 notes: under the 40 the tier waits for
        m.embed_pending()
        fake.fail = True
        found = await m.arecall(S, "how is the kitten", recent=0, important=0)
    finally:
        m.close()

    assert found.tier == "words"
    assert m.report()["meaning"]["tiers"]["centroids"]["too few notes"] == 1


@pytest.mark.parametrize("trouble", ["fails", "is slow", "changes its dimensions"])
async def test_without_centroids_the_model_places_a_foreign_query(db_path, clock, fake, model, trouble):
    m = await taught(db_path, clock, fake, mneme_unify, model=model)
    m.remember(S, "signed up for the Portland marathon")
    m.embed_pending()
    if trouble == "fails":
        fake.fail = True
    elif trouble == "is slow":
        fake.stall = 1.0
    else:
        m.close()
        m = companion(db_path, clock, Embeddings(Fake(dims=DIMS + 3), name="fake"), mneme_unify, model=model)
    try:
        found = await m.arecall(S, "我报名了马拉松吗", recent=0, important=0)
        report = m.report()["meaning"]
    finally:
        m.close()

    assert found.tier == "unify" and found.query == "我报名了马拉松吗"
    assert texts(found)[0] == "signed up for the Portland marathon"
    assert report["placed"] == {"embeddings": 0, "unify": 1, "words": 0}


async def test_with_a_failing_model_too_words_place_the_query(db_path, clock, fake, model):
    m = await taught(db_path, clock, fake, mneme_unify, model=model)
    fake.fail = True
    model.fail = True
    try:
        found = await m.arecall(S, "年糕怎么样", recent=0, important=0)
        again = await m.arecall(S, "年糕怎么样", recent=0, important=0)
        report = m.report()["meaning"]
    finally:
        m.close()

    assert found.tier == again.tier == "words"
    assert texts(found)[0] == CAT_NOTE  # words still find it
    assert report["placed"] == {"embeddings": 0, "unify": 0, "words": 2}
    assert report["tiers"]["unify"]["failed"] == 1 and report["tiers"]["unify"]["rested"] == 1


class Raising:
    """A plugin tier that raises, then (once told) stalls, then answers with something unusable."""

    name = "raising"
    order = 150
    timeout = 0.1

    def __init__(self) -> None:
        self.asked = 0
        self.mode = "raise"

    async def place(self, query):
        self.asked += 1
        if self.mode == "raise":
            raise RuntimeError("broken")
        if self.mode == "stall":
            await asyncio.sleep(5)
        if self.mode == "garbage":
            return "not a placement"
        return Reworded("cat")


class RaisingPlugin:
    def __init__(self) -> None:
        self.tier = Raising()

    @mneme_centroids.hookimpl
    def register_tiers(self, register):
        register(lambda mneme: self.tier, name="raising")


@pytest.mark.parametrize(("mode", "trouble"), [("raise", "failed"), ("stall", "slow"), ("garbage", "wrong")])
async def test_a_plugin_tier_that_breaks_is_rested_and_the_query_falls_through(db_path, clock, mode, trouble):
    plugin = RaisingPlugin()
    plugin.tier.mode = mode
    m = companion(db_path, clock, None, extra=[plugin])
    try:
        m.remember(S, "养了一只叫年糕的猫")
        found = await m.arecall(S, "年糕", recent=0)
        again = await m.arecall(S, "年糕", recent=0)
        report = m.report()["meaning"]
    finally:
        m.close()

    assert found.tier == again.tier == "words"
    assert plugin.tier.asked == 1  # rested after the first time
    assert report["placed"] == {"raising": 0, "words": 2}
    assert report["tiers"]["raising"] == {trouble: 1, "rested": 1}


async def test_a_plugin_tier_can_place_a_query_with_words(db_path, clock):
    plugin = RaisingPlugin()
    plugin.tier.mode = "words"
    m = companion(db_path, clock, None, extra=[plugin])
    try:
        m.remember(S, "has a tabby cat")
        found = await m.arecall(S, "my pet", recent=0)
        block = await m.aprompt(S, "my pet", recent=0)
    finally:
        m.close()

    assert found.tier == "raising" and texts(found) == ["has a tabby cat"] and found.query == "my pet"
    assert "tabby" in block
    assert m.report()["meaning"]["placed"] == {"raising": 2, "words": 0}


def test_words_only_has_no_meaning_report(mneme: Mneme):
    mneme.remember(S, "has a tabby cat")
    assert "meaning" not in mneme.report()
    assert mneme.embed_pending() == 0
