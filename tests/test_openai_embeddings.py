"""The "openai" embedder family against a real HTTP server on loopback that speaks /embeddings: chosen by
name through the plugin's `register_embedders`, made without connecting, its endpoint and key from
`[plugins.openai]`; an HTTP error and vectors of the wrong dimensions fall through to words. No network.

The server (`embeddings_endpoint`) links exactly the texts about cats ("cat", "kitten", "年糕"), by meaning.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import mneme_openai
import pytest
from embeddings_endpoint import Endpoint, serving
from mneme_openai import OpenAIEmbeddings

from mneme_core import Mneme
from mneme_core.errors import InvalidValue
from mneme_core.meaning import EmbeddingError
from mneme_core.meaning.embeddings import choose_embedder
from mneme_core.plugins import make_manager

S = "telegram:7"
KEY = "sk-embed-test-0123456789"
VARIABLE = "MNEME_TEST_EMBED_KEY"


@pytest.fixture(autouse=True)
def no_proxy_for_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy set in the environment must not carry requests meant for the loopback server."""
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")
    monkeypatch.setenv(VARIABLE, KEY)


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    with serving() as found:
        yield found


def config(endpoint: Endpoint, embed: str = "openai:emb-small@4", **settings: Any) -> dict[str, Any]:
    table = {"base_url": endpoint.url, "api_key": {"$env": VARIABLE}, "retries": 0, **settings}
    return {"memory": {"embed": embed}, "plugins": {"openai": table}}


def companion(db_path, clock, endpoint: Endpoint, **settings: Any) -> Mneme:
    return Mneme(
        db_path, space="test", clock=clock, config=config(endpoint, **settings), plugins=[mneme_openai]
    )


# -- registered, chosen, made ---------------------------------------------------------------------------


def test_the_plugin_registers_the_family_and_making_one_connects_to_nothing(endpoint: Endpoint):
    manager = make_manager(load_entry_points=False, plugins=[mneme_openai])
    assert manager.embedders.owner("openai") == mneme_openai.__name__

    made = choose_embedder("openai:emb-small@4", manager.embedders).make(
        lambda name: config(endpoint)["plugins"][name]
    )

    assert isinstance(made, OpenAIEmbeddings)
    assert made.name == "openai:emb-small@4" and made.dimensions == 4
    assert made.provider.where == endpoint.url
    assert endpoint.requests == []


def test_plain_openai_takes_model_and_dimensions_from_its_settings(endpoint: Endpoint):
    manager = make_manager(load_entry_points=False, plugins=[mneme_openai])
    table = {"base_url": endpoint.url, "embedding_model": "nomic-embed-text", "embedding_dimensions": 8}

    plain = choose_embedder("openai", manager.embedders).make(lambda name: table)
    named = choose_embedder("openai:bge-m3:567m", manager.embedders).make(lambda name: table)

    assert (plain.name, plain.dimensions) == ("openai:nomic-embed-text@8", 8)
    assert (named.name, named.dimensions) == ("openai:bge-m3:567m", None)  # the name alone decides


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("openai:emb@wide", "openai:emb@wide: the dimensions after @ are a whole number from 1 to 100000"),
        ("openai:emb@0", "not '0'"),
        ("openai:@4", "openai:<model> or openai:<model>@<dims> names the endpoint's embedding model"),
    ],
)
def test_a_bad_name_is_refused_naming_it_before_the_file_is_opened(db_path, clock, name, says):
    with pytest.raises(InvalidValue) as refused:
        Mneme(db_path, space="test", clock=clock, embed=name, plugins=[mneme_openai])
    assert says in str(refused.value)
    assert not db_path.exists()


# -- against the endpoint -----------------------------------------------------------------------------


async def test_notes_and_queries_are_embedded_by_the_endpoint_and_found_by_meaning(
    db_path, clock, endpoint: Endpoint
):
    with companion(db_path, clock, endpoint) as m:
        assert m.meaning is not None and m.meaning.name == "openai:emb-small@4"
        m.remember(S, "养了一只叫年糕的猫")
        m.remember(S, "works night shifts at the hospital")
        m.embed_pending()
        found = await m.arecall(S, "how is the kitten?", important=0, recent=0)

    assert found.tier == "embeddings"
    assert [r.note.text for r in found.chosen] == ["养了一只叫年糕的猫"]
    asked = endpoint.requests[-1]
    assert asked["path"] == "/v1/embeddings"
    assert asked["json"] == {"model": "emb-small", "input": ["how is the kitten?"], "dimensions": 4}
    assert asked["headers"]["Authorization"] == f"Bearer {KEY}"


async def test_an_http_error_falls_through_to_words_and_keeps_the_key_out_of_the_log(
    db_path, clock, endpoint: Endpoint, caplog
):
    endpoint.refuse_queries = True
    with companion(db_path, clock, endpoint) as m:
        m.remember(S, "adopted a kitten named Mochi")
        m.remember(S, "works night shifts at the hospital")
        m.embed_pending()  # the notes' vectors come back fine
        with caplog.at_level(logging.WARNING, logger="mneme_core.meaning.tiers"):
            found = await m.arecall(S, "is Mochi eating well?", important=0, recent=0)
        failed = m.meaning.counts["failed"]

    assert found.tier == "words"
    assert [r.note.text for r in found.chosen] == ["adopted a kitten named Mochi"]  # by the word Mochi
    assert failed == 1
    assert "answered 401: Incorrect API key provided" in caplog.text
    assert KEY not in caplog.text


async def test_vectors_of_the_wrong_dimensions_fall_through_to_words(db_path, clock, endpoint: Endpoint):
    with companion(db_path, clock, endpoint) as m:
        m.remember(S, "adopted a kitten named Mochi")
        m.embed_pending()
        endpoint.ignore_dimensions = True  # a server that does not honour `dimensions`
        found = await m.arecall(S, "is Mochi eating well?", important=0, recent=0)
        wrong = m.meaning.counts["wrong"]
        m.meaning._rested_until = 0.0  # so the writer tries again rather than resting
        m.remember(S, "my cat likes tuna")
        with pytest.raises(EmbeddingError, match="returned 3 dimensions where it had 4"):
            m.embed_pending()

    assert found.tier == "words"
    assert [r.note.text for r in found.chosen] == ["adopted a kitten named Mochi"]
    assert wrong == 1
