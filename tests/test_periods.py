"""The time a question names, in English and Chinese, in the companion's zone; and what recall makes of it."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import pytest

from mneme_core import Mneme, periods

EIGHT = timezone(timedelta(hours=8))
NOW = datetime(2024, 6, 16, 21, 0, tzinfo=EIGHT).timestamp()  # a Sunday evening in Shanghai


def span(query: str, now: float = NOW, zone=EIGHT) -> tuple[date, date] | None:
    found = periods.named(query, now, zone)
    if found is None:
        return None
    day = lambda ts: datetime.fromtimestamp(ts, zone).date()  # noqa: E731
    return day(found.start), day(found.end)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("what did I eat yesterday?", date(2024, 6, 15), date(2024, 6, 16)),
        ("where was I last week?", date(2024, 6, 3), date(2024, 6, 10)),
        ("what did we do last weekend", date(2024, 6, 8), date(2024, 6, 10)),
        ("what happened last month", date(2024, 5, 1), date(2024, 6, 1)),
        ("where did he go last summer?", date(2023, 6, 1), date(2023, 9, 1)),
        ("what did she buy in May?", date(2024, 5, 1), date(2024, 6, 1)),
        ("what did she buy in July?", date(2023, 7, 1), date(2023, 8, 1)),  # the latest July that began
        ("in March 2023 what happened", date(2023, 3, 1), date(2023, 4, 1)),
        ("what did I say two weeks ago", date(2024, 5, 30), date(2024, 6, 6)),  # half a week around it
        ("去年夏天他去了哪里？", date(2023, 6, 1), date(2023, 9, 1)),
        ("上个月说了什么", date(2024, 5, 1), date(2024, 6, 1)),
        ("上周我们聊了什么", date(2024, 6, 3), date(2024, 6, 10)),
        ("去年国庆去爬了哪座山", date(2023, 10, 1), date(2023, 10, 9)),
        ("今年三月底公司怎么了", date(2024, 3, 1), date(2024, 4, 1)),
        ("五一假期去了哪里", date(2024, 5, 1), date(2024, 5, 6)),
        ("昨天吃了什么", date(2024, 6, 15), date(2024, 6, 16)),
        ("三天前发生了什么", date(2024, 6, 12), date(2024, 6, 15)),
    ],
)
def test_a_named_time_is_the_period_it_means(query: str, start: date, end: date) -> None:
    assert span(query) == (start, end)


def test_a_question_without_a_time_names_none() -> None:
    assert span("what is my cat called?") is None
    assert span("我的猫叫什么名字？") is None
    assert span("may I ask what you like?") is None  # "may" alone is not the month


PHRASES = (
    "3 days ago", "a couple of weeks ago", "several months ago", "THE DAY BEFORE YESTERDAY", "last night",
    "Tonight", "this morning", "past weekend", "this week", "last month", "past year", "this winter",
    "last fall", "the spring of 2021", "over Christmas", "christmas eve", "New Year's Eve", "back in Sept",
    "early December 2022", "mid jan", "August 2020", "during 1999", "两个月前", "十二天前", "几个礼拜前",
    "大前天", "今晚", "上上周", "这个星期", "这礼拜", "上上个月", "本月", "前年冬天", "春季", "明年十二月份",
    "3月", "去年的春节", "寒假", "中秋", "前年年底", "今年上半年", "今年",
)  # fmt: skip


def test_a_query_without_any_hint_is_passed_over_and_every_named_time_has_one() -> None:
    """`named` looks for a hint before its patterns: every phrase a pattern matches holds one."""
    for phrase in PHRASES:
        framed = f"do you remember {phrase}?" if phrase.isascii() else f"还记得{phrase}吗"
        for query in (phrase, phrase.upper(), framed):
            matched = any(pattern.search(query) for _name, pattern in periods._PATTERNS)
            assert matched, query  # the phrases are ones the patterns know
            assert periods._may_name(query), query
    assert not periods._may_name("what is my cat called?") and not periods._may_name("我的猫叫什么名字？")


def test_the_day_is_the_companions_day() -> None:
    early = datetime(2024, 6, 16, 1, 0, tzinfo=EIGHT).timestamp()  # still the 15th in UTC
    assert span("yesterday", early, EIGHT) == (date(2024, 6, 15), date(2024, 6, 16))
    assert span("yesterday", early, UTC) == (date(2024, 6, 14), date(2024, 6, 15))


def test_a_period_reaches_a_little_past_its_end_and_leaves_its_words_out_of_the_query() -> None:
    found = periods.named("where did he go camping last summer?", NOW, EIGHT)
    assert found is not None
    end = found.end
    assert found.holds(end + 3 * 86400) and not found.holds(end + 8 * 86400)
    assert found.rest_of("where did he go camping last summer?") == "where did he go camping  ?"


DAY = 86400.0


def test_recall_boosts_what_happened_in_the_named_period(mneme: Mneme, clock: Any) -> None:
    year_ago = mneme.remember(
        "s", "went camping by a lake", kind="episode", happened_at=clock.now - 365 * DAY
    )
    week_ago = mneme.remember(
        "s", "went camping in the hills", kind="episode", happened_at=clock.now - 8 * DAY
    )

    assert mneme.recall("s", "where did I go camping?").chosen[0].note.id == week_ago.id  # fresher
    last_year = mneme.recall("s", "where did I go camping last year?")
    assert last_year.chosen[0].note.id == year_ago.id
    assert {r.note.id for r in last_year.chosen} >= {year_ago.id, week_ago.id}  # boosted, not filtered


def test_a_question_asking_when_and_a_line_telling_when() -> None:
    assert periods.asks_when("When did Corinne move out?")
    assert periods.asks_when("周然的妈妈是什么时候来杭州的？")
    assert periods.asks_when("What year did they marry?")
    assert not periods.asks_when("What did she cook last week?")
    for said in ("Left last week.", "We finished on the 8th", "She died in 2015.", "上周来的", "三月二十二"):
        assert periods.tells_when(said), said
    for said in ("Packed! There was a queue down the street.", "Eight episodes, called Sunken Stories."):
        assert not periods.tells_when(said), said
