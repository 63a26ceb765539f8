"""An emoji that names a thing is its name in words: "寄一箱过去吧🥭🥭" finds "对芒果过敏" (`emoji_words`)."""

from __future__ import annotations

from importlib import resources
from typing import Any

import pytest

from mneme_core import Mneme, emoji_words, text

S = "discord:42"
DAY = 86400.0
MANGO = "对芒果过敏，吃了嘴巴会肿。"
OTHERS = [
    "在昆明一家花店上班。",
    "每个周末都去斗南花市买花。",
    "我爸上个月刚退休。",
    "在减肥，目标是瘦到一百斤。",
    "顺丰的快递员是我高中同学。",
]


def test_the_table_is_of_this_engines_terms_and_names_things_only() -> None:
    first = resources.files("mneme_core").joinpath(emoji_words.TABLE).read_text(encoding="utf-8")
    assert first.splitlines()[0] == f"# {text.TERMS_VERSION}"
    names = emoji_words.names()
    assert all(len(char) == 1 for char in names)
    assert names["🥭"] == "mango 芒果" and names["🐱"] == "cat 猫"  # "cat face" names the picture
    # Faces, hands, hearts and reactions say how someone feels, not what about.
    assert not {"😂", "😭", "👍", "🙏", "❤", "🔥", "👀", "🕝"} & set(names)


def test_an_emoji_gives_its_names_in_both_languages_once() -> None:
    found = text.terms("我给你寄一箱过去吧🥭🥭")
    assert found[: len(text.terms("我给你寄一箱过去吧"))] == text.terms("我给你寄一箱过去吧")
    assert found.count("mango") == 1 and found.count("芒果") == 1
    # The variation selector some keyboards add changes nothing; a stem is a stem.
    assert set(text.terms("see you friday ✈️")) == set(text.terms("see you friday ✈"))
    assert text.terms("airplane")[0] in text.terms("see you friday ✈️")
    assert "飞机" in text.terms("see you friday ✈️")
    # A face is no term.
    assert text.terms("笑死😂😂") == text.terms("笑死")
    assert text.terms("great news 😂") == text.terms("great news") == ["great", "news"]


@pytest.mark.parametrize("emoji", [True, False])
def test_a_dialogue_that_offers_a_thing_by_its_emoji_finds_the_note_that_names_it(
    mneme: Mneme, clock: Any, emoji: bool
) -> None:
    for said in [MANGO, *OTHERS]:
        mneme.remember(S, said, kind="fact")
        clock.now += DAY
    mango = "🥭🥭" if emoji else ""
    offer = f"我们这边果园的果子上市了 又大又甜 一个有两斤重\n我给你寄一箱过去吧{mango} 顺丰两天就到"

    found = mneme.recall(S, offer, limit=2, log=False)

    # Without the emoji "顺丰" and "斤" are the evidence, and other notes have them.
    assert (MANGO in [r.note.text for r in found.chosen]) is emoji
    if emoji:
        assert "芒果" in next(r.why for r in found.chosen if r.note.text == MANGO)


def test_a_note_kept_with_an_emoji_is_found_by_the_word(mneme: Mneme, clock: Any) -> None:
    mneme.remember(S, "Adopted a rescue 🐶 from the shelter on Elm Street", kind="episode")
    clock.now += DAY
    mneme.remember(S, "Her sister moved to Elm Street last spring", kind="episode")
    clock.now += DAY

    found = mneme.recall(S, "how is the new dog doing?", limit=1, log=False)

    assert found.chosen and "🐶" in found.chosen[0].note.text
