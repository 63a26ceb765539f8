"""The overview: with no query, or a question about the person in general, recall and the prompt block show
what matters about them (pinned, lasting, the freshest of what fades) within the limit and the budget.

The clock of `conftest.py` stands at 2024-03-01 20:00 in the companion's zone (UTC+8). Files are closed and
opened again before asking, as a new session would.
"""

from __future__ import annotations

import pytest

from mneme_core import Mneme, text
from mneme_core.memory import overview

DAY = 86400.0
S = "discord:42"
FIVE = (
    "Lives in Oslo",
    "Has a cat named Mochi",
    "Likes green tea",
    "Works as a night nurse",
    "Plays the cello",
)


def reopened(db_path, clock, **options) -> Mneme:
    return Mneme(db_path, space="test", clock=clock, zone="UTC+8", **options)


@pytest.fixture
def five_facts(db_path, clock):
    with reopened(db_path, clock) as m:
        for fact in FIVE:
            m.remember(S, fact, kind="fact" if not fact.startswith("Likes") else "preference")
    return db_path


def texts(found) -> list[str]:
    return [r.note.text for r in found.chosen]


@pytest.mark.parametrize(
    "query",
    ["", "what do you know about me", "What do you remember about me?", "tell me about myself", "hi!"],
)
def test_five_default_facts_come_back_in_a_new_session(five_facts, clock, query):
    with reopened(five_facts, clock) as m:
        found = m.recall(S, query)
        block = m.prompt(S, query)

    assert found.overview
    assert sorted(texts(found)) == sorted(FIVE)
    assert {r.why for r in found.chosen} == {"lasting"}
    assert sorted(block.splitlines()[1:]) == sorted(f"- {fact}" for fact in FIVE)


@pytest.mark.parametrize("query", ["你记得我什么", "你还记得我吗", "关于我你知道什么", "早上好"])
def test_a_chinese_question_about_the_person_gets_the_overview(tmp_path, clock, query):
    with reopened(tmp_path / "zh.db", clock, display_language="zh") as m:
        for fact in ("住在杭州", "养了一只叫年糕的猫", "喜欢喝乌龙茶"):
            m.remember(S, fact, kind="fact")
        found = m.recall(S, query)

    assert found.overview
    assert sorted(texts(found)) == sorted(["住在杭州", "养了一只叫年糕的猫", "喜欢喝乌龙茶"])


@pytest.mark.parametrize(
    ("query", "general"),
    [
        ("what do you know about me", True),
        ("do you remember me", True),
        ("good morning", True),
        ("what have you learned about me so far", True),
        ("你记得我什么", True),
        ("你对我了解多少", True),
        ("what do you know about my cat", False),
        ("do you remember Paris", False),
        ("你记得我的猫吗", False),
        ("你知道我住哪里吗", False),
        ("", False),  # no terms at all: recall decides that (no query is an overview too)
    ],
)
def test_which_questions_are_about_the_person_in_general(query, general):
    assert overview.general(text.terms(query)) is general


def test_a_topic_in_the_question_is_matched_as_usual(five_facts, clock):
    with reopened(five_facts, clock) as m:
        found = m.recall(S, "what do you know about my cat")

    assert not found.overview
    assert texts(found)[0] == "Has a cat named Mochi"
    assert found.chosen[0].why.startswith("matched: ")


@pytest.fixture
def a_full_life(db_path, clock):
    now = clock()
    with reopened(db_path, clock) as m:
        m.remember(S, "Is called Leo", kind="fact", importance=5)
        for i in range(12):
            m.remember(S, f"Fact number {i} about Leo", kind="fact", importance=4 if i == 3 else 2)
        for i in range(8):
            m.remember(S, f"Chat number {i} with Leo", happened_at=now - (20 - i) * DAY)
        m.remember(S, "Went to the dentist", happened_at=now - 1 * DAY)
        m.remember(S, "Has a piano recital", kind="plan", happened_at=now + 2 * DAY)
    return db_path


def test_the_overview_keeps_room_for_what_happened_lately(a_full_life, clock):
    with reopened(a_full_life, clock) as m:
        found = m.recall(S, "")

    assert [r.why for r in found.chosen] == ["pinned", "important", "lasting", "lasting", "recent", "recent"]
    assert texts(found)[:2] == ["Is called Leo", "Fact number 3 about Leo"]
    # the newest facts among equals, and of what fades the upcoming plan and yesterday's news
    assert texts(found)[2:4] == ["Fact number 11 about Leo", "Fact number 10 about Leo"]
    assert texts(found)[4:] == ["Has a piano recital", "Went to the dentist"]


def test_more_slots_give_a_third_to_what_fades(a_full_life, clock):
    with reopened(a_full_life, clock) as m:
        found = m.recall(S, "", limit=12, budget=2000)

    whys = [r.why for r in found.chosen]
    assert len(whys) == 12
    assert whys.count("pinned") == 1
    assert whys.count("recent") == 4  # 11 slots left after the pinned note: a third, rounded up
    assert whys.count("lasting") + whys.count("important") == 12 - 1 - whys.count("recent")


def test_what_one_part_leaves_goes_to_the_others(db_path, clock):
    now = clock()
    with reopened(db_path, clock) as m:
        m.remember(S, "Likes jazz", kind="preference")
        for i in range(9):
            m.remember(S, f"Chat number {i}", happened_at=now - i * DAY)
        found = m.recall(S, "")

    assert texts(found) == ["Likes jazz"] + [f"Chat number {i}" for i in range(5)]


def test_pinned_notes_take_half_the_slots_then_come_last(db_path, clock):
    with reopened(db_path, clock) as m:
        for i in range(8):
            m.remember(S, f"Core note {i}", kind="fact", importance=5)
        m.remember(S, "Likes jazz", kind="preference")
        m.remember(S, "Went swimming")
        found = m.recall(S, "")
        alone = m.recall(S, "", limit=1)

    assert [r.why for r in found.chosen] == ["pinned"] * 3 + ["lasting", "recent", "pinned"]
    assert texts(found)[:3] == ["Core note 7", "Core note 6", "Core note 5"]
    assert texts(alone) == ["Core note 7"]


def test_the_overview_keeps_to_the_budget(db_path, clock):
    with reopened(db_path, clock) as m:
        for i in range(6):
            m.remember(S, f"Long fact {i}: " + "many words about Leo's life " * 6, kind="fact")
        found = m.recall(S, "", budget=400)

    assert 1 < len(found.chosen) < 6
    assert sum(len(t) for t in texts(found)) <= 400
    assert any(reason == "over the 400-character budget" for _note, reason in found.skipped)


def test_explain_says_it_is_an_overview(five_facts, clock):
    with reopened(five_facts, clock) as m:
        lines = m.recall(S, "what do you know about me").explain().splitlines()
        nobody = m.recall("discord:7", "").explain().splitlines()

    assert lines[0] == "recall for 'what do you know about me' (words, overview):"
    assert len(lines) == 1 + 5 and all(" lasting (a fact or a preference): " in line for line in lines[1:])
    assert nobody[1] == "  nothing remembered about this person yet"


async def test_the_async_twins_show_the_same_overview(five_facts, clock):
    with reopened(five_facts, clock) as m:
        sync = m.prompt(S, "", user_name="Leo")
        other = await m.aprompt(S, "", user_name="Leo")
        found = await m.arecall(S, "你记得我什么")

    assert other == sync and len(sync.splitlines()) == 1 + 5
    assert sorted(texts(found)) == sorted(FIVE)
