"""The local embedder plugin (`plugins/mneme_embed`) on a real model with no network.

The model is WordLlama's 256-dimension static token vectors, which the `wordllama` wheel ships, written
out as a model2vec folder (`mneme_embed.testing`) and loaded by the plugin's own loading code. The test
extra brings model2vec and wordllama; without them these tests are skipped.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("model2vec")
pytest.importorskip("wordllama")

PLUGINS = Path(__file__).resolve().parent.parent / "plugins"
if str(PLUGINS) not in sys.path:
    sys.path.insert(0, str(PLUGINS))

from mneme_embed import DEFAULT_MODEL, LocalEmbeddings, register_embedders  # noqa: E402
from mneme_embed.testing import shipped_test_model  # noqa: E402

from mneme_core import Mneme  # noqa: E402
from mneme_core.meaning import registered_embedders, unregister_embedder  # noqa: E402

S = "discord:42"


@pytest.fixture(scope="module")
def model_folder(tmp_path_factory) -> Path:
    return shipped_test_model(tmp_path_factory.mktemp("models"))


@pytest.fixture(scope="module")
def local(model_folder) -> LocalEmbeddings:
    return LocalEmbeddings(str(model_folder))


def test_the_shipped_model_loads_from_a_folder_and_gives_unit_vectors(local: LocalEmbeddings):
    vectors = local.embed_sync(["my cat", "the weather is nice", "养了一只猫"])

    assert vectors.shape == (3, 256) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert local.name == "model2vec:mneme-wordllama-l2-supercat-256"


def test_related_texts_are_closer_than_unrelated_ones(local: LocalEmbeddings):
    cat, kitten, invoice = local.embed_sync(["my cat is sick", "the kitten has a fever", "pay the invoice"])

    assert cat @ kitten > cat @ invoice


async def test_recall_finds_a_note_by_meaning_with_the_local_model(db_path, clock, local):
    with Mneme(db_path, space="test", clock=clock, embed=local) as m:
        for note in (
            "adopted a kitten from the shelter",
            "paid the electricity invoice",
            "went hiking in the Alps",
            "bought a new laptop for work",
            "the garden needs watering",
        ):
            m.remember(S, note)
        m.embed_pending()  # whatever the background thread has not embedded yet
        assert m.store.read(lambda conn: conn.execute("select count(*) from vectors").fetchone()[0]) == 5
        found = await m.arecall(S, "how is your cat doing", important=0, recent=0)

    assert found.tier == "embeddings"
    assert found.chosen[0].note.text == "adopted a kitten from the shelter"
    assert found.chosen[0].why.startswith("similar ")


def test_the_default_is_multilingual_and_is_not_loaded_when_registered():
    register_embedders(register=lambda factory, name=None: _registered.append((factory, name)))
    (factory, name), *_ = _registered

    embedder = factory()

    assert name == "local"
    assert embedder.model_path == DEFAULT_MODEL == "minishlab/potion-multilingual-128M"
    assert embedder.name == "model2vec:minishlab/potion-multilingual-128M"
    assert embedder._model is None  # loaded on first use only (from the hub's cache), never at start-up


def test_register_embedders_fills_the_core_registry():
    from mneme_core.meaning import register_embedder

    names: list[str] = []

    def register(embedder, name=None):
        names.append(name)
        register_embedder(embedder, name=name, plugin="embed")

    register_embedders(register=register)
    try:
        assert registered_embedders()["local"] == "embed"
        assert registered_embedders()["e5"] == "embed"
    finally:
        for name in names:  # every one, or later tests see this plugin's names in the process registry
            unregister_embedder(name)


_registered: list = []
