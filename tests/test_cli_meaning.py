"""`mneme recall SUBJECT QUERY --meaning [EMBEDDER]` on a real file: the configured embedder (the installed
`openai` plugin's, through its entry point, against the loopback /embeddings of `embeddings_endpoint`) or
one named; pending notes embedded first; the tier that placed the query shown; bad input refused with
exit code 2. Other commands open the file with words only, so they never call the endpoint.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from embeddings_endpoint import Endpoint, serving

from mneme_core.cli import main
from mneme_core.meaning import Embeddings, register_embedder, unregister_embedder

S = "telegram:7"
SPACE = "mio"


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The installed openai plugin only; no proxy for loopback; no shell defaults for the file."""
    monkeypatch.setenv("MNEME_LOAD_PLUGINS", "openai")
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")
    for name in ("MNEME_DB", "MNEME_SPACE", "MNEME_CONFIG"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    with serving() as found:
        yield found


@pytest.fixture
def bot_toml(tmp_path: Path, endpoint: Endpoint) -> Path:
    path = tmp_path / "bot.toml"
    path.write_text(
        f'[memory]\nembed = "openai:emb-small@4"\n\n'
        f'[plugins.openai]\nbase_url = "{endpoint.url}"\nretries = 0\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture
def run(db_path: Path):
    runner = CliRunner()

    def invoke(*args: str, config: Path | None = None) -> Result:
        where = ["--db", str(db_path), "--space", SPACE]
        if config is not None:
            where += ["--config", str(config)]
        return runner.invoke(main, [*where, *args])

    return invoke


def ok(result: Result) -> str:
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


def remember_two(run, config: Path | None = None) -> None:
    ok(run("remember", S, "养了一只叫年糕的猫", config=config))
    ok(run("remember", S, "works night shifts at the hospital", config=config))


def test_meaning_with_the_configured_embedder_embeds_what_is_pending_and_says_the_tier(
    run, bot_toml, endpoint: Endpoint
):
    remember_two(run, bot_toml)
    assert endpoint.requests == []  # remembering opened the file with words only
    assert ok(run("recall", S, "how is the kitten?")) == ""  # no word in common

    shown = ok(run("recall", S, "how is the kitten?", "--meaning")).splitlines()

    assert shown == [
        "recall for 'how is the kitten?' (embeddings; embedder openai:emb-small@4):",
        "#1 养了一只叫年糕的猫",
    ]
    embedded = [t for r in endpoint.requests for t in r["json"]["input"]]
    assert {"养了一只叫年糕的猫", "works night shifts at the hospital"} <= set(embedded)


def test_meaning_explained_and_as_json(run, bot_toml):
    remember_two(run, bot_toml)

    explained = ok(run("recall", S, "how is the kitten?", "--explain", "--meaning"))
    found = json.loads(ok(run("recall", S, "how is the kitten?", "--json", "--meaning")))

    assert explained.startswith("recall for 'how is the kitten?' (embeddings):\n  + #1 ")
    assert found["tier"] == "embeddings" and found["embedder"] == "openai:emb-small@4"
    assert [c["note"]["text"] for c in found["chosen"]] == ["养了一只叫年糕的猫"]


def test_a_named_embedder_wins_over_the_config(run):
    def cats(texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.1] if "kitten" in t or "猫" in t else [0.0, 1.0] for t in texts]

    register_embedder(Embeddings(cats, name="fake:cats", floor=0.2), name="cats", plugin="tests")
    try:
        remember_two(run)  # memory.embed is "": words only
        shown = ok(run("recall", S, "how is the kitten?", "--meaning", "cats")).splitlines()
    finally:
        unregister_embedder("cats")

    assert shown == [
        "recall for 'how is the kitten?' (embeddings; embedder fake:cats):",
        "#1 养了一只叫年糕的猫",
    ]


def test_an_endpoint_that_refuses_leaves_recall_to_words_with_a_warning(run, bot_toml, endpoint):
    ok(run("remember", S, "adopted a kitten named Mochi", config=bot_toml))
    endpoint.refuse_queries = True

    result = run("recall", S, "is Mochi eating well?", "--meaning")

    assert ok(result).splitlines() == [
        "recall for 'is Mochi eating well?' (words; embedder openai:emb-small@4):",
        "#1 adopted a kitten named Mochi",
    ]


def test_failing_to_embed_the_notes_is_one_line_and_recall_goes_on(run, bot_toml, endpoint):
    ok(run("remember", S, "adopted a kitten named Mochi", config=bot_toml))
    endpoint.ignore_dimensions = True

    result = run("recall", S, "is Mochi eating well?", "--meaning")

    assert result.exit_code == 0
    assert "mneme: embedding notes with openai:emb-small@4 failed: openai:emb-small@4 returned 3" in (
        result.stderr
    )
    assert result.stdout.splitlines()[1:] == ["#1 adopted a kitten named Mochi"]


def test_meaning_without_an_embedder_configured_recalls_by_words_and_says_so(run):
    remember_two(run)

    result = run("recall", S, "the cat at the hospital", "--meaning")

    assert ok(result) == "#2 works night shifts at the hospital\n"  # by words: no cat in Chinese
    (said,) = result.stderr.splitlines()
    assert said.startswith('mneme: memory.embed is "" (words only), so this recall is by words: name an ')
    assert "like --meaning local (registered: openai" in said
    as_json = json.loads(ok(run("recall", S, "hospital", "--meaning", "--json")))
    assert as_json["tier"] == "words" and as_json["embedder"] is None


def test_an_unknown_embedder_is_refused_naming_it(run):
    remember_two(run)
    result = run("recall", S, "how is the kitten?", "--meaning", "nope")

    assert result.exit_code == 2
    assert "embed: no embedder is registered as 'nope' (registered: openai, openai:<model>" in result.output


def test_a_configured_embedder_not_installed_here_leaves_the_other_commands_working(run, bot_toml, db_path):
    remember_two(run, bot_toml)
    ok(run("config", "set", "memory.embed", "elsewhere:model"))

    assert "养了一只叫年糕的猫" in ok(run("notes", S))
    refused = run("recall", S, "cat", "--meaning")
    assert refused.exit_code == 2
    assert "memory.embed: no embedder is registered as 'elsewhere:model'" in refused.output
