"""The time a question names, in English and Chinese, in the companion's zone; and what recall makes of it."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import pytest

from mneme_core import Mneme, periods
from mneme_core.memory import common
from mneme_core.memory.recall import MUTED, Ask
from mneme_core.periods import holidays

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
        # A day of the week, the weekend, the days just past (NOW is a Sunday).
        ("what did she do last Friday?", date(2024, 6, 14), date(2024, 6, 15)),
        ("what did we do on Sunday?", date(2024, 6, 9), date(2024, 6, 10)),  # the latest before today
        ("what happened this Monday", date(2024, 6, 10), date(2024, 6, 11)),
        ("what did you do over the weekend?", date(2024, 6, 15), date(2024, 6, 17)),  # this one has begun
        ("the week before last", date(2024, 5, 27), date(2024, 6, 3)),
        ("the month before last", date(2024, 4, 1), date(2024, 5, 1)),
        ("what did we talk about the other day", date(2024, 6, 6), date(2024, 6, 16)),
        ("anything new in the past few days?", date(2024, 6, 13), date(2024, 6, 17)),
        ("where did I go a fortnight ago", date(2024, 5, 26), date(2024, 6, 10)),
        ("what did I do this time last year", date(2023, 6, 3), date(2023, 7, 2)),
        ("what was I doing a year ago today", date(2023, 6, 3), date(2023, 7, 2)),
        # Seasons and holidays without "last" or "this": the latest that has begun.
        ("where did they go over the summer?", date(2024, 6, 1), date(2024, 9, 1)),
        ("what did you do in the autumn", date(2023, 9, 1), date(2023, 12, 1)),
        ("the autumn of 2021", date(2021, 9, 1), date(2021, 12, 1)),
        ("what did he get last Christmas?", date(2023, 12, 20), date(2024, 1, 1)),
        ("what did they do at Easter", date(2024, 3, 29), date(2024, 4, 2)),  # Good Friday to Monday
        ("what did we eat at Thanksgiving", date(2023, 11, 23), date(2023, 11, 27)),
        ("what did you get for Valentine's Day", date(2024, 2, 13), date(2024, 2, 16)),
        ("what did she make for the Christmas potluck?", date(2023, 12, 20), date(2024, 1, 1)),
        ("what did Emily buy on Singles' Day", date(2023, 11, 10), date(2023, 11, 13)),
        ("双十一买了啥", date(2023, 11, 10), date(2023, 11, 13)),
        ("what did Owen get up to last October?", date(2023, 10, 1), date(2023, 11, 1)),
        ("what did we do last March", date(2024, 3, 1), date(2024, 4, 1)),  # the latest before this month
        ("where are we going this October", date(2024, 10, 1), date(2024, 11, 1)),
        ("the summer before last", date(2022, 6, 1), date(2022, 9, 1)),  # last summer is 2023's
        ("what happened in early 2023", date(2023, 1, 1), date(2023, 5, 1)),
        ("by late 2022 she had moved", date(2022, 9, 1), date(2023, 1, 1)),
        # A day written out, as `dates` reads it: with its year, or the nearest such day.
        ("what did I tell you on March 5th?", date(2024, 3, 5), date(2024, 3, 6)),
        ("what did she buy on May 7, 2023", date(2023, 5, 7), date(2023, 5, 8)),
        ("what happened on 5 March 2023", date(2023, 3, 5), date(2023, 3, 6)),  # not the month
        ("what's on for July 2nd?", date(2024, 7, 2), date(2024, 7, 3)),  # a plan: nearer ahead
        ("前几天说了什么", date(2024, 6, 6), date(2024, 6, 16)),
        ("这两天怎么样", date(2024, 6, 13), date(2024, 6, 17)),
        ("半年前发生了什么", date(2023, 9, 17), date(2024, 3, 18)),
        ("十五天前", date(2024, 5, 31), date(2024, 6, 3)),  # not 五天前
        ("上周六我们去哪了", date(2024, 6, 8), date(2024, 6, 9)),
        ("星期天吃了什么", date(2024, 6, 9), date(2024, 6, 10)),
        ("这周三的会", date(2024, 6, 12), date(2024, 6, 13)),
        ("上个周末干嘛了", date(2024, 6, 8), date(2024, 6, 10)),
        ("三月十五号发生了什么", date(2024, 3, 15), date(2024, 3, 16)),
        ("去年12月25日", date(2023, 12, 25), date(2023, 12, 26)),
        ("2023年三月", date(2023, 3, 1), date(2023, 4, 1)),
        ("端午节去哪了", date(2024, 5, 28), date(2024, 6, 27)),
        ("清明回老家了吗", date(2024, 4, 3), date(2024, 4, 8)),
        ("去年这个时候在干嘛", date(2023, 6, 3), date(2023, 7, 2)),
        ("年初那会儿", date(2024, 1, 1), date(2024, 4, 1)),
        ("去年底换的工作", date(2023, 10, 1), date(2024, 1, 1)),
    ],
)
def test_a_named_time_is_the_period_it_means(query: str, start: date, end: date) -> None:
    assert span(query) == (start, end)


def test_a_question_without_a_time_names_none() -> None:
    assert span("what is my cat called?") is None
    assert span("我的猫叫什么名字？") is None
    assert span("may I ask what you like?") is None  # "may" alone is not the month
    assert span("this may be wrong") is None and span("he only plays singles") is None
    # What is done every week, or for a week, is no day of it; "this time" alone is now.
    for query in (
        "I go swimming on Mondays",
        "see you every Monday",
        "she paints on Thursday evenings",
        "每周三去游泳",
        "每个周末都加班",
        "一周一次",
    ):
        assert span(query) is None, query
    assert span("this time I mean it, this year") == (date(2024, 1, 1), date(2025, 1, 1))
    assert span("这周一直很忙") == (date(2024, 6, 10), date(2024, 6, 17))  # the week, not its Monday


PHRASES = (
    "3 days ago", "a couple of weeks ago", "several months ago", "THE DAY BEFORE YESTERDAY", "last night",
    "Tonight", "this morning", "past weekend", "this week", "last month", "past year", "this winter",
    "last fall", "the spring of 2021", "over Christmas", "christmas eve", "New Year's Eve", "back in Sept",
    "early December 2022", "mid jan", "August 2020", "during 1999", "两个月前", "十二天前", "几个礼拜前",
    "大前天", "今晚", "上上周", "这个星期", "这礼拜", "上上个月", "本月", "前年冬天", "春季", "明年十二月份",
    "3月", "去年的春节", "寒假", "中秋", "前年年底", "今年上半年", "今年",
    "last Friday", "on Sunday", "over the weekend", "the week before last", "the past two weeks",
    "the other day", "a fortnight ago", "this time last year", "in the spring", "Easter", "Thanksgiving",
    "Halloween", "valentine's day", "late 2022", "March 5th", "5 March 2023", "2023-03-05", "前几天",
    "这两天", "半年前", "上周六", "星期天", "周末", "三月十五号", "2023年", "端午", "清明", "元宵", "七夕",
    "情人节", "去年这个时候", "年初",
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


@pytest.mark.parametrize(
    ("year", "easter", "thanksgiving"),
    [(2023, date(2023, 4, 9), date(2023, 11, 23)), (2024, date(2024, 3, 31), date(2024, 11, 28)),
     (2025, date(2025, 4, 20), date(2025, 11, 27)), (2038, date(2038, 4, 25), date(2038, 11, 25))],
)  # fmt: skip
def test_a_holiday_that_moves_is_worked_out_for_its_year(year: int, easter: date, thanksgiving: date) -> None:
    assert holidays.span("easter", year) == (easter - timedelta(days=2), easter + timedelta(days=2))
    assert holidays.span("thanksgiving", year)[0] == thanksgiving
    assert holidays.span("元旦", year) == (date(year - 1, 12, 31), date(year, 1, 3))  # named by its January
    # The latest that has begun: on Easter Saturday this year's; the day before Good Friday last year's.
    assert holidays.latest("easter", easter - timedelta(days=1))[0] == easter - timedelta(days=2)
    assert holidays.latest("easter", easter - timedelta(days=3)) == holidays.span("easter", year - 1)


def test_a_dialogue_so_far_names_the_time_its_latest_line_names() -> None:
    """What an earlier line named was that moment's talk; the latest line is what is asked now."""
    talk = ["I'm off to Lisbon last week, it was lovely", "oh nice, what did you eat?", "we had sardines"]
    query = "\n".join(talk)
    assert periods.named_latest(query, tuple(talk), NOW, EIGHT) is None
    assert periods.named(query, NOW, EIGHT) is not None  # the whole text does name one
    asked = [*talk, "and what did we cook last Friday?"]
    query = "\n".join(asked)
    found = periods.named_latest(query, tuple(asked), NOW, EIGHT)
    assert found is not None and found.rest_of(query).endswith("and what did we cook  ?")
    assert "last week" in found.rest_of(query)  # only the latest line's phrase is left out
    elsewhere = periods.named_latest("a different text", tuple(asked), NOW, EIGHT)
    assert elsewhere is not None and elsewhere.rest_of("a different text") == "a different text"
    one = "what did we cook last Friday?"
    assert periods.named_latest(one, (), NOW, EIGHT) == periods.named(one, NOW, EIGHT)


def test_every_holiday_a_question_can_name_has_its_days_in_every_year() -> None:
    named = set(periods._ZH_HOLIDAYS.split("|")) | {"christmas", "new year", "singles", "easter", "valentine"}
    assert named <= set(holidays.NAMES)  # a pattern's holiday is never missing from the table
    for name in holidays.NAMES:
        for year in range(2000, 2041):
            start, end = holidays.span(name, year)
            assert 1 <= (end - start).days <= 62 and start.year in (year - 1, year), (name, year)
        today = date(2024, 6, 16)
        start, _ = holidays.latest(name, today)
        assert start <= today < start + timedelta(days=366), name


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


@pytest.mark.parametrize(
    ("told", "question"),
    [
        (("went hiking with Ana", "went hiking with Ben"), "who did I go hiking with last Saturday?"),
        (("和小王去爬山了", "和小李去爬山了"), "上周六和谁去爬山了？"),
        (("cooked dumplings for the family", "cooked noodles for the family"), "what did I cook at Easter?"),
        (("去外婆家吃了粽子", "去舅舅家吃了饺子"), "端午节去谁家吃饭了？"),
    ],
)
def test_a_day_or_a_holiday_named_boosts_what_happened_then(
    mneme: Mneme, clock: Any, told: tuple[str, str], question: str
) -> None:
    """The newer of two notes alike wins a question that names no time; the one dated in the named day or
    holiday wins when it is named."""
    clock.set(datetime(2024, 8, 20, 21, 0, tzinfo=EIGHT).timestamp())  # a Tuesday, the mneme fixture's zone
    named = periods.named(question, clock.now, mneme.settings.zone)
    assert named is not None and named.reach() < clock.now - 7200
    then = mneme.remember("s", told[0], kind="episode", happened_at=named.start + 3600)
    newer = mneme.remember("s", told[1], kind="episode", happened_at=clock.now - 7200)
    assert mneme.recall("s", named.rest_of(question)).chosen[0].note.id == newer.id
    chosen = [r.note.id for r in mneme.recall("s", question).chosen]
    assert chosen[0] == then.id and newer.id in chosen  # boosted, not filtered


def test_the_words_naming_a_time_weigh_less_and_still_find_a_line_that_names_it_too(
    mneme: Mneme, clock: Any
) -> None:
    """ "for Christmas" told a week into January, past the period's reach: the boost misses it, the word
    does not (it was left out of the question before, and the other gift won)."""
    clock.set(datetime(2024, 11, 21, 12, 0, tzinfo=EIGHT).timestamp())
    told = mneme.remember(
        "s",
        "I finally used the cookbook you gave me for Christmas",
        kind="episode",
        happened_at=datetime(2024, 1, 7, 18, 0, tzinfo=EIGHT).timestamp(),
    )
    mneme.remember("s", "you gave me headphones for my birthday", kind="episode", happened_at=clock.now - DAY)
    question = "What did you give me last Christmas?"
    named = periods.named(question, clock.now, mneme.settings.zone)
    ask = Ask(space="s", subject="s", query=question, now=clock.now, half_life_days=30.0, period=named)
    assert named is not None and not named.holds(told.happened_at)
    assert ask.naming == {"last", "christma"}  # the stems of the phrase's words, not "give"
    assert ask.weights["christma"] == pytest.approx(MUTED * common.weight("christma"))
    assert ask.weights.get("give", 1.0) == pytest.approx(common.weight("give"))
    assert mneme.recall("s", question).chosen[0].note.id == told.id


def test_a_question_asking_when_and_a_line_telling_when() -> None:
    assert periods.asks_when("When did Corinne move out?")
    assert periods.asks_when("周然的妈妈是什么时候来杭州的？")
    assert periods.asks_when("What year did they marry?")
    assert periods.asks_when("Roughly when did the foster dog arrive?")
    assert periods.asks_when("她啥时候搬的家？")
    assert not periods.asks_when("What did she cook last week?")
    for said in (
        "Left last week.",
        "We finished on the 8th",
        "She died in 2015.",
        "We went over the weekend",
        "上周来的",
        "三月二十二",
        "周六去的",
        "端午回的老家",
        "前几天刚搬",
    ):
        assert periods.tells_when(said), said
    for said in ("Packed! There was a queue down the street.", "Eight episodes, called Sunken Stories."):
        assert not periods.tells_when(said), said
