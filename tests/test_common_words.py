"""A word common in any text of its language weighs less in a query than a rare one (`memory.common`): a
line that shares "year" and "new" with the question no longer outbids the one that shares what it is about."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import Any

import pytest

from mneme_core import Mneme, emoji_words, text
from mneme_core.memory import common, forms, kin, kinds, query

S = "discord:42"
DAY = 86400.0


def weight_of(word: str) -> float:
    """What the word's first term weighs: a Chinese word of two characters gives its pair first."""
    return common.weight(text.terms(word)[0])


def test_the_table_is_of_this_engines_terms() -> None:
    first = resources.files("mneme_core.memory").joinpath(common.TABLE).read_text(encoding="utf-8")
    assert first.splitlines()[0] == f"# {text.TERMS_VERSION}"
    # Words reach the table through the stemmer: each form of a common word finds its stem there.
    for word in ("year", "years", "working", "worked", "started", "happened", "places"):
        assert weight_of(word) < 1.0, word


@pytest.mark.parametrize(
    ("common_word", "rare_word"),
    [("year", "kiln"), ("new", "Oaxaca"), ("start", "bouldering"), ("work", "anaesthesia"), ("喜欢", "龙虾")],
)
def test_a_common_word_weighs_less_than_a_rare_one(common_word: str, rare_word: str) -> None:
    assert common.COMMON <= weight_of(common_word) < 1.0
    assert weight_of(rare_word) == 1.0


def test_the_commoner_the_less_down_to_the_floor() -> None:
    # Zipf 6.25 ("new"), 5.96 ("year"), 5.4 ("food"), 4.72 ("flat"): each a little commoner than the next.
    weights = [weight_of(word) for word in ("new", "year", "food", "flat")]
    assert weights == sorted(weights)
    assert weights[0] == common.COMMON  # above the band's top
    assert common.COMMON < weights[2] < weights[3] < 1.0
    # Chinese has its own band, half a point higher: 工作 (5.99) weighs more than "year" (5.96).
    assert weight_of("year") < weight_of("工作") < 1.0
    # Names, numbers and words of other scripts weigh whole.
    assert [weight_of(word) for word in ("Hattie", "2023", "Москва")] == [1.0, 1.0, 1.0]


@pytest.mark.parametrize(
    ("table", "read", "builder"),
    [
        (common, lambda: common.weight("year") < 1.0, "build_common"),
        (kinds, lambda: "cello" in kinds.members("instrument"), "build_kinds"),  # `common.rows` reads both
    ],
)
def test_a_table_of_another_stemmers_terms_is_refused(
    monkeypatch: pytest.MonkeyPatch, table: Any, read: Callable[[], bool], builder: str
) -> None:
    table._table.cache_clear()
    monkeypatch.setattr(text, "TERMS_VERSION", "mneme-terms-0")
    try:
        with pytest.raises(RuntimeError, match=rf"mneme-terms-0.*{builder}\.py"):
            read()
    finally:
        monkeypatch.undo()
        table._table.cache_clear()
    assert read()


def test_opening_reads_the_tables_a_question_is_widened_with_before_anyone_asks(db_path: Any) -> None:
    tables = (common._table, kinds._table, forms._table, kin._table, emoji_words.names)
    for table in tables:
        table.cache_clear()
    with Mneme(db_path, space="test") as m:
        # Read once a process, at first use: left to the first recall, they cost it 54-58 ms in a process
        # with a big heap (benchmarks/recall.py --people), so opening reads them and a recall finds them read.
        assert [table.cache_info().currsize for table in tables] == [1] * len(tables)
        assert "cello" in kinds.members("instrument")
        m.remember(S, "I started learning the cello", kind="episode")
        assert m.recall(S, "any instruments?", log=False).notes


KILNS = ["The kiln died in the middle of a firing", "We named the new kiln Winnie"]
# "year" is in one note, "kiln" in two: by the person's notes alone "year" is the rarer word.
OTHERS = ["Happy new year from the studio!"] + [f"Sold {n} mugs at the market" for n in range(2, 12)]


def test_a_common_word_no_longer_outbids_the_rare_one_the_question_is_about(mneme: Mneme, clock: Any) -> None:
    for said in KILNS + OTHERS:
        mneme.remember(S, said, kind="episode")
        clock.now += DAY

    found = mneme.recall(S, "What happened with the kilns over the year?", limit=2, log=False)

    assert sorted(r.note.text for r in found.chosen) == sorted(KILNS)


async def test_the_transcript_is_weighed_the_same_way(mneme: Mneme, clock: Any) -> None:
    dm = f"dm:{S}"
    for said in KILNS + OTHERS:
        line = await mneme.transcript.aadd_line(dm, subject=S, text=said, name="Hattie")
        await mneme.transcript.aadd_reply(dm, text="Oh!", reply_to=line.id, name="Mio")
        clock.now += DAY

    found = await mneme.arecall(S, "What happened with the kilns over the year?", lines=2, log=False)

    assert sorted(r.line.text for r in found.lines) == sorted(KILNS)


def test_a_one_line_questions_single_chinese_characters_weigh_whole() -> None:
    asked = "橘子能随便吃猫粮吗？"
    assert common.weight("吃") < 1.0
    assert "吃" not in query.weighted((), text.terms(asked), asked)
    # In a dialogue's chatter they weigh as common as they are; a pair weighs so in a question too.
    dialogue = ("今天好累", "那就多吃点")
    assert query.weighted(dialogue, text.terms("\n".join(dialogue)))["吃"] == common.weight("吃")
    asked = "她喜欢吃什么？"
    assert query.weighted((), text.terms(asked), asked)["喜欢"] == common.weight("喜欢") < 1.0
