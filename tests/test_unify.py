"""The unify tier (`plugins/mneme_unify`): the companion's own model glosses notes into the memory language
and translates foreign-script queries, so a Chinese note is found by English words and an English note by
a Chinese query. The model is `tier_fakes.Model`, a stand-in for a paid API that answers from a dictionary."""

from __future__ import annotations

import asyncio
import threading
import time
import unicodedata

import mneme_unify
import pytest
from mneme_unify import scripts
from tier_fakes import Model, S

from mneme_core import ConfigError, Mneme
from mneme_core.plugins import make_manager

QUIET = {"plugins": {"unify": {"background": False}}}


def with_unify():
    manager = make_manager(load_entry_points=False, environ={})
    manager.register(mneme_unify, name="unify")
    return manager


@pytest.fixture
def model() -> Model:
    return Model()


@pytest.fixture
def m(db_path, clock, model):
    found = Mneme(db_path, space="test", clock=clock, complete=model, config=QUIET, plugins=with_unify())
    try:
        yield found
    finally:
        found.close()


def texts(found) -> list[str]:
    return [r.note.text for r in found.chosen]


def glosses(m: Mneme) -> dict[str, str | None]:
    return {n.text: n.gloss for n in m.notes(S)}


async def test_a_chinese_note_is_found_by_an_english_query_through_its_gloss(m: Mneme, model: Model):
    m.remember(S, "我的猫叫年糕")
    m.remember(S, "likes hiking in the hills")
    before = await m.arecall(S, "what is my cat called", recent=0, important=0)

    m.embed_pending()
    found = await m.arecall(S, "what is my cat called", recent=0, important=0)

    assert texts(before) == []
    assert glosses(m) == {"我的猫叫年糕": "my cat is called Niangao", "likes hiking in the hills": None}
    assert [user for _system, user in model.calls] == ["1. 我的猫叫年糕"]  # the English note is not sent
    system = model.calls[0][0]
    assert "English" in system and "never instructions" in system
    assert texts(found) == ["我的猫叫年糕"]
    assert "cat" in found.chosen[0].matched
    assert found.tier == "words"  # an English query needs no translation: the gloss is words


async def test_an_english_note_is_found_by_a_chinese_query_through_translation(m: Mneme, model: Model):
    m.remember(S, "signed up for the Portland marathon")
    m.remember(S, "likes hiking in the hills")
    m.embed_pending()
    assert model.calls == []  # nothing to gloss

    found = await m.arecall(S, "我报名了马拉松吗", recent=0, important=0)
    calls = len(model.calls)
    again = await m.arecall(S, "我报名了马拉松吗", recent=0, important=0)

    assert found.tier == again.tier == "unify"
    assert texts(found) == texts(again) == ["signed up for the Portland marathon"]
    assert found.query == "我报名了马拉松吗"  # the recall says what was asked, not the translation
    assert calls == 1 and model.calls[0][1] == "我报名了马拉松吗"
    assert len(model.calls) == 1  # the translation was kept: asked once
    assert m.recalls(S)[0]["query"] == "我报名了马拉松吗"
    tier = m.report()["meaning"]["tiers"]["unify"]
    assert tier["translated"] == 1 and tier["cached"] == 1


async def test_a_query_in_the_memory_languages_script_is_not_translated(m: Mneme, model: Model):
    m.remember(S, "signed up for the Portland marathon")

    found = await m.arecall(S, "the marathon", recent=0, important=0)

    assert found.tier == "words" and model.calls == []
    assert m.report()["meaning"]["tiers"]["unify"]["same script"] == 1


def scripts_of_letters(said: str, written_in: frozenset[str]) -> float:
    """The share of foreign letters, counted from each letter's Unicode name."""
    letters = [unicodedata.name(c).split()[0] for c in said if c.isalpha()]
    return sum(name not in written_in for name in letters) / len(letters) if letters else 0.0


def test_the_share_of_foreign_letters_decides():
    english = scripts.scripts_of("English")
    assert scripts.needs_translating("my 猫", english)  # 1 letter in 3
    assert not scripts.needs_translating("my kitty Niangao 猫", english)  # 1 in 15
    assert not scripts.needs_translating("2024-03-01 !!", english)  # no letters at all
    assert scripts.needs_translating("I like cats", scripts.scripts_of("中文"))
    assert not scripts.needs_translating("2024-03-01 !!", scripts.scripts_of("中文"))
    # Plain ASCII is told without a lookup a letter, and tells what the letters' names tell.
    for said in ["I like cats", "my kitty Niangao", "2024-03-01 !!", "ok 3", "", "café au lait", "ok 好的"]:
        for language in ["English", "中文", "Russian"]:
            wanted = scripts_of_letters(said, scripts.scripts_of(language))
            assert scripts.foreign_share(said, scripts.scripts_of(language)) == wanted, (said, language)
    assert scripts.scripts_of("Japanese") >= {"HIRAGANA", "CJK"}
    with pytest.raises(TypeError, match="a memory language is a name like 'English', not"):
        scripts.scripts_of(None)


def test_a_failing_batch_is_halved_and_a_note_failing_alone_three_times_keeps_its_text(
    m: Mneme, model: Model
):
    m.remember(S, "我的猫叫年糕")
    m.remember(S, "马拉松")
    m.remember(S, "这一条模型总是答不了")
    model.poison = {"这一条模型总是答不了"}

    m.embed_pending()
    first = [user for _system, user in model.calls]
    m.embed_pending()
    calls = len(model.calls)
    m.embed_pending()

    assert first == [
        "1. 我的猫叫年糕\n2. 马拉松\n3. 这一条模型总是答不了",  # the whole batch fails
        "1. 我的猫叫年糕\n2. 马拉松",  # its first half is glossed
        "1. 这一条模型总是答不了",  # the note alone fails once
        "1. 这一条模型总是答不了",  # and again, in the next pass
    ]
    assert calls == 5 and model.calls[-1][1] == "1. 这一条模型总是答不了"  # a third time alone
    assert len(model.calls) == calls  # then it keeps its own text and is not asked again
    assert glosses(m) == {
        "我的猫叫年糕": "my cat is called Niangao",
        "马拉松": "marathon",
        "这一条模型总是答不了": None,
    }
    assert m.report()["meaning"]["tiers"]["unify"]["kept own text"] == 1


def test_a_model_that_fails_leaves_the_notes_for_the_next_pass(m: Mneme, model: Model):
    m.remember(S, "我的猫叫年糕")
    model.fail = True
    m.embed_pending()
    assert glosses(m) == {"我的猫叫年糕": None}

    model.fail = False
    m.embed_pending()
    assert glosses(m) == {"我的猫叫年糕": "my cat is called Niangao"}
    assert m.report()["meaning"]["tiers"]["unify"]["failed"] == 1


def test_a_note_glossed_by_its_writer_is_not_sent(m: Mneme, model: Model):
    m.remember(S, "我的猫叫年糕", gloss="my cat is Niangao")
    m.embed_pending()
    assert model.calls == []


def test_notes_are_glossed_in_the_background(db_path, clock):
    async def model(system: str, user: str) -> str:  # an async model works as well
        await asyncio.sleep(0)
        return Model()(system, user)

    with Mneme(db_path, space="test", clock=clock, complete=model, plugins=with_unify()) as m:
        m.remember(S, "我的猫叫年糕")
        deadline = time.time() + 5
        while glosses(m)["我的猫叫年糕"] is None and time.time() < deadline:
            time.sleep(0.02)
        assert glosses(m) == {"我的猫叫年糕": "my cat is called Niangao"}
        assert [r.note.text for r in m.recall(S, "cat", recent=0).chosen] == ["我的猫叫年糕"]


def test_without_a_model_or_a_memory_language_there_is_no_unify_tier(db_path, clock, model):
    with Mneme(db_path, space="test", clock=clock, plugins=with_unify()) as m:
        assert m.tiers.names == []
    with Mneme(
        db_path, space="test", clock=clock, complete=model, memory_language="", plugins=with_unify()
    ) as m:
        assert m.tiers.names == []


def test_settings_are_checked_naming_the_key(db_path, clock, model, caplog):
    config = {"plugins": {"unify": {"batch": 0}}}
    with pytest.raises(ConfigError, match=r"plugins\.unify\.batch is a whole number from 1 to 256, not 0"):
        Mneme(db_path, space="test", clock=clock, complete=model, config=config, plugins=with_unify())
    Mneme(db_path, space="test", clock=clock, config=config).close()  # without the plugin: kept as given
    with Mneme(db_path, space="test", clock=clock, complete=model, plugins=with_unify()) as m:
        assert m.tiers.names == []  # the stored value is refused when the tier is made, by name
        assert m.config.check().refused == {
            "plugins.unify.batch": "plugins.unify.batch is a whole number from 1 to 256, not 0"
        }
    assert "plugins.unify.batch is a whole number from 1 to 256, not 0" in caplog.text


class HeldRead:
    """The glossing thread's first read, held inside its transaction until `go` is set; then it reads once
    more on the same connection and says how that went in `outcome`."""

    def __init__(self, candidates) -> None:
        self.inside, self.go, self.outcome = threading.Event(), threading.Event(), []
        self._candidates = candidates

    def __call__(self, conn, language, limit):
        if threading.current_thread().name == "mneme-gloss" and not self.inside.is_set():
            self.inside.set()
            self.go.wait(6)  # past the tier's STOP_WAIT: a close that did not wait would close the file first
            try:
                conn.execute("select count(*) from notes").fetchone()
                self.outcome.append("read on an open connection")
            except Exception as err:  # what a closed connection answers in Python (in C: a crash)
                self.outcome.append(f"{type(err).__name__}: {err}")
        return self._candidates(conn, language, limit)


@pytest.fixture
def held(monkeypatch) -> HeldRead:
    from mneme_unify import glossing

    held = HeldRead(glossing.candidates)
    monkeypatch.setattr(glossing, "candidates", held)
    return held


def test_closing_waits_for_the_glossing_thread_to_finish_its_read(db_path, clock, model, held):
    """The glossing thread reads on a connection of its own, which closing the file closes: closed while
    the thread read on it, it crashed the process (a segmentation fault in SQLite). `close` now stops the
    thread first (`Tiers.stop`), so a read in flight ends on an open connection."""
    m = Mneme(db_path, space="test", clock=clock, complete=model, plugins=with_unify())
    m.remember(S, "我的猫叫年糕")
    assert held.inside.wait(5)
    threading.Timer(0.2, held.go.set).start()  # the read goes on while `close` runs
    tier = next(t for t in m.tiers.tiers if t.name == "unify")
    m.close()
    assert held.outcome == ["read on an open connection"]
    assert not tier._thread.is_alive()


async def test_aclose_waits_for_the_glossing_thread_off_the_event_loop(db_path, clock, model, held):
    """A read in flight that can only end once the event loop runs something (here the read waits for a
    task on the loop; in use, the model's gloss is asked on the loop its async client lives on) ends on an
    open connection: `aclose` waits for the thread on a thread of its own, leaving the loop free."""

    async def release() -> None:
        await asyncio.sleep(0.1)
        held.go.set()

    m = Mneme(db_path, space="test", clock=clock, complete=model, plugins=with_unify())
    await m.aremember(S, "我的猫叫年糕")
    assert await asyncio.to_thread(held.inside.wait, 5)
    releasing = asyncio.create_task(release())  # runs only if the loop is free while `aclose` waits
    await m.aclose()
    await releasing
    assert held.outcome == ["read on an open connection"]
