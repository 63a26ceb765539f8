"""A long Chinese query whose rarest terms are single characters that notes happen to share still reads the
words after them (`recall.WORDS_BEYOND`): the note the words name is found, not the chance characters."""

from __future__ import annotations

import pytest

from mneme_core import Mneme, text
from mneme_core.memory import recall

S = "onebot:42"
# More single characters than the cap holds, each in one note only: each is as rare as a term can be.
CHANCE = "山水火木金土石竹花草鸟鱼虫牛羊马猪狗猫龙虎豹熊狼鹿兔鸡鸭鹅云雨雪风雷电星月日桥船"
# Their words are in two notes each: a little commoner than the characters above.
DRIVING = ["我开车三十年没有出过事故", "我开车三十年了"]


@pytest.mark.parametrize("lines", [1, 2], ids=["one line", "a dialogue"])
def test_the_words_after_the_cap_are_read_so_a_long_query_finds_them(mneme: Mneme, lines: int) -> None:
    assert len(set(CHANCE)) == len(CHANCE) > recall.MAX_TERMS
    assert not set(CHANCE) & text.STOP_CJK_CHARS
    for char in CHANCE:
        mneme.remember(S, char, kind="fact")
    for note in DRIVING:
        mneme.remember(S, note, kind="fact")
    asked = CHANCE + ("\n" if lines == 2 else "，") + "开车三十年"

    found = mneme.recall(S, asked, log=False)

    assert found.chosen[0].note.text in DRIVING
    assert {r.note.text for r in found.chosen[:2]} == set(DRIVING)
    assert {"三十", "十年", "开车"} <= set(found.chosen[0].matched)


def test_only_the_words_of_unspaced_scripts_come_after_the_cap() -> None:
    ranked = [(i, char, 1) for i, char in enumerate(CHANCE)]
    ranked += [(100, "三十", 2), (101, "driving", 2), (102, "年", 2), (103, "十年", 2)]

    kept = recall._capped(ranked)

    assert kept[: recall.MAX_TERMS] == ranked[: recall.MAX_TERMS]
    assert [term for _id, term, _df in kept[recall.MAX_TERMS :]] == ["三十", "十年"]
    many = [(200 + i, f"词{i:02d}", 3) for i in range(40)]
    assert len(recall._capped(ranked + many)) == recall.MAX_TERMS + recall.WORDS_BEYOND
