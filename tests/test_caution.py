"""Cautions (`mneme_core.memory.caution`): a note that states what a reply must not get wrong (an allergy,
an illness, what the person cannot do or fears) counts more when the query is a chat, and only then."""

from __future__ import annotations

import pytest

from mneme_core import Mneme
from mneme_core.memory.caution import CAUTION, cautious

S = "discord:42"


@pytest.mark.parametrize(
    "text",
    [
        "Mia is allergic to mangoes.",
        "I get horribly seasick, even on the ferry.",
        "He broke his wrist skiing two winters ago.",
        "She can't swim and is scared of deep water.",
        "Quit drinking in 2021 and has been sober since.",
        "I’m lactose intolerant.",  # a typographic apostrophe
        "唐思远对芒果过敏，吃了嘴唇会肿起来。",
        "我开健身房以后就把酒彻底戒了。",
        "他不会游泳，一下水就慌。",
        "一看见蛇就腿软，特别怕蛇。",
        "左膝盖做过手术，现在不能爬山。",
    ],
)
def test_a_caution_is_recognised_in_english_and_chinese(text):
    assert cautious(text)


@pytest.mark.parametrize(
    "text",
    [
        "Mia grows mangoes on her balcony.",
        "She is painting the kitchen blue.",  # "pain" inside a word
        "I still call it the best day of my career.",  # "ill" inside a word
        "It was quite a trip.",  # "quit" inside a word
        "He broke up with Tyler in 2022.",
        "她在阳台上种了罗勒和薄荷。",
        "哪怕下雨我们也去。",  # 怕 in 哪怕, "even if"
        "恐怕要晚点到。",  # and in 恐怕, "probably"
        "男朋友送了她一枚戒指。",  # 戒 in 戒指, a ring
        "奶奶最心疼这个小孙子。",  # 疼 in 心疼, to dote on
        "周末去海边玩得很痛快。",  # 痛 in 痛快
    ],
)
def test_a_note_of_no_caution_is_not_one(text):
    assert not cautious(text)


ALLERGY = "Mia is allergic to mangoes"
BALCONY = "Mia grows mangoes on her balcony"


def order(db_path, clock, notes: list[str], query: str) -> tuple[list[str], list[float]]:
    m = Mneme(db_path, space="test", clock=clock)
    try:
        for text in notes:
            m.remember(S, text)
        found = m.recall(S, query, recent=0, important=0)
        return [r.note.text for r in found.chosen], [r.score for r in found.chosen]
    finally:
        m.close()


def test_a_question_leaves_a_caution_where_its_words_put_it(db_path, clock):
    """Both notes share only "mangoes" with the query: asked as a question, they tie, and the newer comes
    first."""
    asked, asked_scores = order(db_path, clock, [ALLERGY, BALCONY], "what about the mangoes?")
    assert asked == [BALCONY, ALLERGY]
    assert asked_scores[0] == pytest.approx(asked_scores[1])


def test_in_a_chat_a_caution_counts_its_share_more(db_path, clock):
    chat = "I just got back from the market\nbought a whole box of mangoes, want some?"
    said, scores = order(db_path, clock, [ALLERGY, BALCONY], chat)
    assert said == [ALLERGY, BALCONY]
    assert scores[0] == pytest.approx(CAUTION * scores[1])


def test_a_chinese_chat_puts_the_allergy_first(db_path, clock):
    allergy, balcony = "她对芒果过敏", "她在阳台上种芒果"
    said, _scores = order(db_path, clock, [allergy, balcony], "我给你寄了一箱芒果\n今天应该就到了")
    assert said[0] == allergy
