"""Choosing the embedder: by name through the companion's plugins (`register_embedders`) or the process's
registry, by the config key `memory.embed`, or by `embed=` (which wins for the process and is never stored);
families ("openai:<model>@<dims>") with their `[plugins.<name>]` settings; refusals before the file is opened.

The embedder is a small fake whose vectors put "cat", "kitten" and "年糕" on one axis, so a query finds a
note by meaning exactly when they share that concept.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mneme_core import Mneme, hookimpl
from mneme_core.config import ConfigError
from mneme_core.errors import InvalidValue
from mneme_core.meaning import Embeddings, register_embedder, unregister_embedder
from mneme_core.meaning.embeddings import choose_embedder
from mneme_core.plugins import PluginError, make_manager

S = "discord:42"
CAT = ("cat", "kitten", "年糕")


def cat_vectors(texts: list[str]) -> list[list[float]]:
    """Axis 0: the text speaks of a cat; axis 1: it does not (so no vector is zero)."""
    return [[1.0, 0.1] if any(w in t.lower() for w in CAT) else [0.0, 1.0] for t in texts]


class Factories:
    """Factories that count their calls, as a plugin would register them."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def plain(self) -> Embeddings:
        self.calls.append({})
        return Embeddings(cat_vectors, name="fake:cats", floor=0.2)

    def family(self, spec: str, settings: dict[str, Any]) -> Embeddings:
        """A family, like "openai": `fam:<model>@<dims>`, refusing a spec without dimensions."""
        self.calls.append({"spec": spec, "settings": settings})
        model, at, dims = spec.rpartition("@")
        if not at or not dims.isdigit():
            raise InvalidValue(f"fam:<model>@<dims> names the dimensions, not {spec!r}")
        return Embeddings(cat_vectors, name=f"fam:{model}@{dims}", floor=0.2, dimensions=int(dims))


@pytest.fixture
def factories() -> Factories:
    return Factories()


@pytest.fixture
def plugin(factories: Factories) -> object:
    class Plugin:
        @hookimpl
        def register_embedders(self, register: Any) -> None:
            register(factories.plain, name="cats")
            register(factories.family, name="fam")

    return Plugin()


def open_with(db_path, clock, plugin, **given: Any) -> Mneme:
    return Mneme(db_path, space="test", clock=clock, plugins=[plugin], **given)


# -- by name, through the companion's own plugins -----------------------------------------------------


async def test_a_name_registered_by_a_plugin_is_made_on_first_use_and_finds_by_meaning(
    db_path, clock, factories, plugin
):
    manager = make_manager(plugins=[plugin])
    assert set(manager.embedders) == {"cats", "fam"}
    assert factories.calls == []  # registering made nothing

    with Mneme(db_path, space="test", clock=clock, plugins=manager, embed="cats") as m:
        assert factories.calls == [{}]
        assert m.meaning is not None and m.meaning.name == "fake:cats"
        m.remember(S, "养了一只叫年糕的猫")
        m.remember(S, "works at the post office")
        m.embed_pending()
        found = await m.arecall(S, "how is the kitten", important=0, recent=0)

    assert found.tier == "embeddings"
    assert [r.note.text for r in found.chosen] == ["养了一只叫年糕的猫"]


def test_two_companions_naming_one_factory_share_what_it_made(tmp_path, clock, factories, plugin):
    with (
        open_with(tmp_path / "a.db", clock, plugin, embed="cats") as a,
        open_with(tmp_path / "b.db", clock, plugin, embed="cats") as b,
    ):
        assert a.meaning is not None and b.meaning is not None
        assert a.meaning.embedder is b.meaning.embedder
    assert factories.calls == [{}]


def test_the_companions_plugins_come_before_the_process_registry(db_path, clock, plugin):
    register_embedder(Embeddings(cat_vectors, name="process:cats"), name="cats", plugin="tests")
    try:
        with open_with(db_path, clock, plugin, embed="cats") as m:
            assert m.meaning is not None and m.meaning.name == "fake:cats"
        with Mneme(db_path, space="test", clock=clock, embed="cats") as m:  # no plugin: the process's
            assert m.meaning is not None and m.meaning.name == "process:cats"
    finally:
        unregister_embedder("cats")


def test_an_unknown_name_is_refused_listing_what_is_registered_before_the_file_is_opened(
    db_path, clock, plugin
):
    register_embedder(Embeddings(cat_vectors, name="process:cats"), name="elsewhere", plugin="tests")
    try:
        with pytest.raises(InvalidValue) as refused:
            open_with(db_path, clock, plugin, embed="nope")
    finally:
        unregister_embedder("elsewhere")

    message = str(refused.value)
    assert message.startswith("embed: no embedder is registered as 'nope'")
    assert "cats" in message and "elsewhere" in message and "fam:<model>" in message
    assert not db_path.exists()


def test_a_plugin_that_registers_something_else_is_refused_at_start_up():
    class Bad:
        @hookimpl
        def register_embedders(self, register: Any) -> None:
            register(42, name="numbers")

    with pytest.raises(PluginError, match="an embedder is an Embeddings or a factory of one, not 42"):
        make_manager(plugins=[Bad()])


# -- families: one registration, many models ----------------------------------------------------------


def test_a_family_member_gets_its_spec_and_its_plugins_settings(db_path, clock, factories, plugin):
    config = {"plugins": {"fam": {"base_url": "http://127.0.0.1:9/v1"}}}
    with open_with(db_path, clock, plugin, config=config, embed="fam:tiny@2") as m:
        assert m.meaning is not None and m.meaning.name == "fam:tiny@2"
        assert m.meaning.embedder.dimensions == 2

    checked, made = factories.calls
    assert checked == {"spec": "tiny@2", "settings": {}}  # the spec checked before the file was opened
    assert made == {"spec": "tiny@2", "settings": {"base_url": "http://127.0.0.1:9/v1"}}


def test_a_bad_spec_is_refused_by_its_factory_before_the_file_is_opened(db_path, clock, plugin):
    with pytest.raises(InvalidValue, match="fam:<model>@<dims> names the dimensions, not 'tiny'"):
        open_with(db_path, clock, plugin, embed="fam:tiny")
    assert not db_path.exists()


def test_a_name_that_is_not_a_family_does_not_answer_its_members(plugin):
    manager = make_manager(plugins=[plugin])
    with pytest.raises(InvalidValue, match="no embedder is registered as 'cats:big'"):
        choose_embedder("cats:big", manager.embedders)


# -- the config key -------------------------------------------------------------------------------------


async def test_memory_embed_in_the_config_chooses_the_embedder(db_path, clock, plugin):
    with open_with(db_path, clock, plugin, config={"memory": {"embed": "cats"}}) as m:
        assert m.config.get("memory.embed") == "cats"
        assert m.meaning is not None and m.meaning.name == "fake:cats"
        m.remember(S, "adopted a kitten")
        m.embed_pending()
        assert (await m.arecall(S, "my cat", important=0, recent=0)).tier == "embeddings"

    with open_with(db_path, clock, plugin) as m:  # the database's copy, with no file given again
        assert m.meaning is not None and m.meaning.name == "fake:cats"


def test_the_argument_wins_for_the_process_and_is_never_stored(db_path, clock, plugin):
    with open_with(db_path, clock, plugin, config={"memory": {"embed": "cats"}}, embed="") as m:
        assert m.meaning is None  # words only, for this process
        assert m.config.get("memory.embed") == "cats"
    with open_with(db_path, clock, plugin, embed="fam:tiny@2") as m:
        assert m.meaning is not None and m.meaning.name == "fam:tiny@2"
        assert m.config.get("memory.embed") == "cats"


def test_words_only_is_the_default(mneme: Mneme):
    assert mneme.config.get("memory.embed") == ""
    assert mneme.meaning is None


@pytest.mark.parametrize("bad", ["two words", "line\nbreak", 7, "-dash-first"])
def test_a_bad_memory_embed_is_refused_naming_it(db_path, clock, bad):
    with pytest.raises(ConfigError) as refused:
        Mneme(db_path, space="test", clock=clock, config={"memory": {"embed": bad}})
    assert 'memory.embed is "" for words only or an embedder\'s registered name' in str(refused.value)
    assert repr(bad)[:20] in str(refused.value)


def test_a_configured_name_nothing_registers_is_refused_naming_the_key(db_path, clock, plugin):
    with open_with(db_path, clock, plugin) as m:
        m.config.set("memory.embed", "gone")

    with pytest.raises(InvalidValue, match=r"memory\.embed: no embedder is registered as 'gone'"):
        open_with(db_path, clock, plugin)
    with open_with(db_path, clock, plugin, embed="") as m:  # still opens for words, to be fixed
        m.config.set("memory.embed", "cats")
    with open_with(db_path, clock, plugin) as m:
        assert m.meaning is not None and m.meaning.name == "fake:cats"


# -- the local embedder plugin -------------------------------------------------------------------------


def test_the_local_plugin_answers_local_without_loading_its_model():
    mneme_embed = pytest.importorskip("mneme_embed")
    manager = make_manager(load_entry_points=False, plugins=[mneme_embed])
    assert manager.embedders.owner("local") == mneme_embed.__name__

    made = choose_embedder("local", manager.embedders).make()

    assert isinstance(made, mneme_embed.LocalEmbeddings)
    assert made.model_path == mneme_embed.DEFAULT_MODEL
    assert made._model is None  # loaded on first use, never by choosing it


async def test_a_local_model_registered_by_name_finds_by_meaning(db_path, clock, tmp_path_factory):
    pytest.importorskip("model2vec")
    pytest.importorskip("wordllama")
    from mneme_embed import LocalEmbeddings
    from mneme_embed.testing import shipped_test_model

    folder = shipped_test_model(tmp_path_factory.mktemp("models"))

    class Shipped:
        @hookimpl
        def register_embedders(self, register: Any) -> None:
            register(lambda: LocalEmbeddings(str(folder)), name="local")

    with Mneme(db_path, space="test", clock=clock, plugins=[Shipped()], embed="local") as m:
        for note in ("adopted a kitten from the shelter", "paid the electricity invoice", "went hiking"):
            m.remember(S, note)
        m.embed_pending()  # whatever the background thread has not embedded yet
        assert m.store.read(lambda conn: conn.execute("select count(*) from vectors").fetchone()[0]) == 3
        found = await m.arecall(S, "how is your cat doing", important=0, recent=0)

    assert found.tier == "embeddings"
    assert found.chosen[0].note.text == "adopted a kitten from the shelter"
    assert np.isfinite(found.chosen[0].score)
