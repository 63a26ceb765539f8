"""A time a question names by an event ("before I moved", "搬家之前"): found in the question, dated by the
person's own notes or lines, and boosting what lies on the asked side of it; a question whose event is not
told, or that names no event, is recalled as before."""

from __future__ import annotations

from typing import Any

import pytest

from mneme_core import Mneme
from mneme_core.transcript.anchors import anchored

DAY = 86400.0
LEO = "telegram:1"
DM = f"dm:{LEO}"


@pytest.mark.parametrize(
    ("question", "before", "event"),
    [
        ("Where did Priya live before she moved to Manchester?", True, "she moved to Manchester"),
        ("What happened to her allotment after she moved?", False, "she moved"),
        ("What has Kwame's dad done since retiring?", False, "retiring"),
        ("How long after her operation did Marisol climb South Sister?", False, "her operation"),
        ("What did Dan's dog do the Sunday before Priya got her new job?", True, "Priya got her new job"),
        ("What did he read until the wedding, and why?", True, "the wedding"),
        ("王珂搬家之前在哪个城市工作？", True, "王珂搬家"),
        ("王珂搬到苏州以后开始了什么运动？", False, "王珂搬到苏州"),
        ("自从换了工作，她心情怎么样？", False, "换了工作"),
    ],
)
def test_an_event_names_the_time_before_or_after_it(question: str, before: bool, event: str) -> None:
    found = anchored(question)

    assert found is not None
    assert (found.before, found.event) == (before, event)


@pytest.mark.parametrize(
    "question",
    [
        "Who is Rosa named after?",
        "Who looks after Juno when Nadia is away?",
        "Did Hattie move house before or after the 10k?",
        "What are Ruth's two jobs after the summer?",
        "What did she do after Christmas?",
        "What do you do after work?",
        "What did you do after that?",
        "Have we talked about this before?",
        "What did she cook before May?",
        "我的猫叫什么名字？",
    ],
)
def test_a_connective_that_names_no_event_is_no_anchor(question: str) -> None:
    assert anchored(question) is None


def _jobs(mneme: Mneme, now: float) -> tuple[int, int]:
    """A bakery job, then a move, then a hospital job; returns the two jobs' note ids."""
    bakery = mneme.remember("s", "worked at a bakery in Leeds", kind="fact", happened_at=now - 900 * DAY)
    mneme.remember("s", "moved to Manchester for a new start", kind="episode", happened_at=now - 500 * DAY)
    hospital = mneme.remember(
        "s", "works at the children's hospital", kind="fact", happened_at=now - 100 * DAY
    )
    return bakery.id, hospital.id


def _order(mneme: Mneme, question: str, ids: tuple[int, ...]) -> list[int]:
    chosen = [r.note.id for r in mneme.recall("s", question, log=False).chosen]
    return [i for i in chosen if i in ids]


def test_a_note_on_the_asked_side_of_the_event_comes_first(mneme: Mneme, clock: Any) -> None:
    bakery, hospital = _jobs(mneme, clock.now)

    assert _order(mneme, "where did I work?", (bakery, hospital)) == [hospital, bakery]  # the fresher
    assert _order(mneme, "where did I work before I moved?", (bakery, hospital)) == [bakery, hospital]
    assert _order(mneme, "where did I work after I moved?", (bakery, hospital)) == [hospital, bakery]


def test_an_event_no_note_tells_of_changes_nothing(mneme: Mneme, clock: Any) -> None:
    _jobs(mneme, clock.now)

    plain = mneme.recall("s", "where did I work?", log=False)
    untold = mneme.recall("s", "where did I work before the wedding?", log=False)

    assert [r.note.id for r in untold.chosen] == [r.note.id for r in plain.chosen]
    assert [round(r.score, 6) for r in untold.chosen] == [round(r.score, 6) for r in plain.chosen]


def test_a_word_most_notes_share_does_not_date_an_event(mneme: Mneme, clock: Any) -> None:
    """ "Leeds" is in every note: it tells of no one moment, so "after Leeds" boosts nothing."""
    for text, days in (
        ("worked in Leeds at a bakery", 900),
        ("Leeds flat had a garden", 500),
        ("works in Leeds at the hospital", 100),
        ("Leeds library card renewed", 50),
    ):
        mneme.remember("s", text, kind="fact", happened_at=clock.now - days * DAY)

    plain = mneme.recall("s", "where did I work in Leeds?", log=False)
    after = mneme.recall("s", "where did I work after Leeds?", log=False)

    assert anchored("where did I work after Leeds?") is not None
    assert [(r.note.id, round(r.score, 6)) for r in after.chosen] == [
        (r.note.id, round(r.score, 6)) for r in plain.chosen
    ]


async def _told_over_days(mneme: Mneme, clock: Any, talk: list[tuple[int, str]], name: str) -> list[int]:
    """Leo's lines, each said on its day (from now); the clock left 100 days on. Returns their ids."""
    start, ids = clock.now, []
    for day, text in talk:
        clock.now = start + day * DAY
        ids.append((await mneme.transcript.aadd_line(DM, subject=LEO, text=text, name=name)).id)
    clock.now = start + 100 * DAY
    return ids


def _lines_order(mneme: Mneme, question: str, ids: tuple[int, ...]) -> list[int]:
    return [r.line.id for r in mneme.recall(LEO, question, log=False).lines if r.line.id in ids]


async def test_a_line_said_before_the_event_was_told_comes_first(mneme: Mneme, clock: Any) -> None:
    car, _, fence = await _told_over_days(
        mneme,
        clock,
        [
            (10, "I want to ask my dad for his old car."),
            (40, "I'm going to propose to Ana next month!"),
            (80, "I want to ask my dad to help with the fence."),
        ],
        "Leo",
    )

    assert _lines_order(mneme, "what did I want to ask my dad?", (car, fence)) == [fence, car]
    assert _lines_order(mneme, "what did I want to ask my dad before proposing?", (car, fence)) == [
        car,
        fence,
    ]
    assert _lines_order(mneme, "what did I want to ask my dad after proposing?", (car, fence)) == [fence, car]


async def test_a_dialogue_so_far_is_not_anchored(mneme: Mneme, clock: Any) -> None:
    bakery, hospital = _jobs(mneme, clock.now)

    dialogue = "hi there\nwhere did I work before I moved?"

    assert _order(mneme, dialogue, (bakery, hospital)) == [hospital, bakery]


async def test_a_chinese_event_dates_the_lines_before_it(mneme: Mneme, clock: Any) -> None:
    """The event's eight terms weigh less than the question's (`recall.MUTED`): at full weight the line
    telling of the move puts the line said before it under the weak cut."""
    home, _, shanghai = await _told_over_days(
        mneme,
        clock,
        [(10, "我在老家的面包店上班，天天早起。"), (40, "我搬到上海了！"), (80, "我现在在上海的医院上班。")],
        "小林",
    )

    # Unanchored, the two answers score alike (each is the other's context, two lines away); the event
    # decides between them either way.
    assert _lines_order(mneme, "我搬到上海之前在哪里上班？", (home, shanghai)) == [home, shanghai]
    assert _lines_order(mneme, "我搬到上海以后在哪里上班？", (home, shanghai)) == [shanghai, home]
