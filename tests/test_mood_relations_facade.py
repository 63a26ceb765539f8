"""Mood and relationships through the `Mneme` facade: who a person is in the prompt, closeness growing with
each day they talk and fading while they are away, closeness weighing their words, news told once through
the prompt, decay on the frozen clock, erase, and export/import (mneme-llm's export included).

The judge is a scripted fake model (see `tests/test_observe.py`); its sure verdict, "+2" at 0.9 and "happy"
at 0.8, moves the mood 10.5 and bumps happy by 32 for someone without a role. The clock of `conftest.py`
stands at 2024-03-01 20:00 in UTC+8; three hours on is 23:00, four and a half is 00:30 of the next local day.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest
from conftest import raw_connection

from mneme_core import Mneme
from mneme_core.mood import EMOTIONS, Emotion, MoodSettings, moods
from mneme_core.prompts import PROMPTS
from mneme_core.relations import Role

LEO = "discord:1001"
EXCHANGE = [("Leo", "I passed my driving test today!"), ("Mio", "Congratulations, Leo!")]
REFERENCE = Path(__file__).parent / "data" / "mneme_llm_0.1.0_export.json"
CREATOR_LINE = "(Leo is your creator; you are very close.)"


def verdict(
    level: str = "2",
    feeling: str = "happy",
    *,
    level_confidence: float = 0.9,
    feeling_confidence: float = 0.8,
    reason: str | None = None,
) -> str:
    reply: dict[str, object] = {
        "mood_change": {"level": level, "confidence": level_confidence},
        "feeling": {"choice": feeling, "confidence": feeling_confidence},
        "worth_remembering": {"probability": 0.1},
    }
    if reason is not None:
        reply["reason"] = reason
    return json.dumps(reply)


class Judge:
    """A scripted host model that only judges (the note writer is never reached: worth is 0.1)."""

    def __init__(self, reply: str | None = None) -> None:
        self.reply = reply or verdict()
        self.calls = 0
        self.users: list[str] = []

    def __call__(self, system: str, user: str) -> str:
        assert system == PROMPTS["judge"], system[:80]
        self.calls += 1
        self.users.append(user)
        return self.reply


@pytest.fixture
def make(db_path: Path, tmp_path: Path, clock):
    """`make(**options)`: a Mneme on the frozen clock in UTC+8 judged by `Judge()`, closed after the test."""
    made: list[Mneme] = []

    def make(**options: object) -> Mneme:
        options.setdefault("zone", "UTC+8")
        options.setdefault("companion_name", "Mio")
        options.setdefault("complete", Judge())
        path = db_path if not made else tmp_path / f"other{len(made)}.db"
        m = Mneme(path, space="test", clock=clock, **options)
        made.append(m)
        return m

    yield make
    for m in made:
        m.close()


def observe(m: Mneme, subject: str = LEO, **options: object):
    options.setdefault("user_name", "Leo")
    return m.observe(subject, EXCHANGE, **options)


# -- who a person is, in the prompt ----------------------------------------------------------------------


def test_the_prompt_opens_with_who_the_person_is(mneme: Mneme):
    mneme.relate(LEO, "creator")

    assert mneme.prompt(LEO, user_name="Leo") == CREATOR_LINE

    mneme.remember(LEO, "Leo lives in Lisbon", kind="fact")
    block = mneme.prompt(LEO, "Lisbon", user_name="Leo")
    assert block.startswith(CREATOR_LINE + "\n\nNotes about Leo:")
    assert block.splitlines()[-1] == "- Leo lives in Lisbon"


def test_the_prompt_names_the_subject_when_no_name_is_given(mneme: Mneme):
    mneme.relate(LEO, "friend")

    assert mneme.prompt(LEO) == f"({LEO} is your friend; you are on friendly terms.)"


def test_the_prompt_line_in_chinese(make):
    m = make(display_language="zh")
    m.relate(LEO, "creator")

    assert m.prompt(LEO, user_name="Leo") == "（Leo是创造你的人，你们非常亲近。）"


def test_someone_without_a_role_gets_no_line(mneme: Mneme):
    mneme.remember(LEO, "Leo lives in Lisbon", kind="fact")

    assert mneme.prompt(LEO, "Lisbon", user_name="Leo").startswith("Notes about Leo:")
    assert mneme.prompt("nobody", user_name="Ann") == ""


def test_a_role_of_ones_own(make):
    m = make(roles=(Role("teacher", 40, 95, 70, names={"en": "your teacher", "zh": "你的老师"}),))

    assert m.relate(LEO, "teacher").closeness == 70
    assert m.prompt(LEO, user_name="Leo") == "(Leo is your teacher; you are close.)"
    with pytest.raises(ValueError, match="the roles are teacher"):
        m.relate("ann", "friend")  # configured roles replace the built-in ones


# -- relate, checked before anything is written -----------------------------------------------------------


def test_a_second_creator_is_refused_naming_the_holder(mneme: Mneme):
    mneme.relate("alice", "creator")

    with pytest.raises(ValueError, match="alice is already the creator"):
        mneme.relate("bob", "creator")

    assert mneme.relationship("bob") is None
    assert [(r.subject, r.role) for r in mneme.relationships()] == [("alice", "creator")]
    assert mneme.relate("alice", "creator").role == "creator"  # the holder again is fine
    assert mneme.unrelate("alice") is True
    assert mneme.relate("bob", "creator").closeness == 100


@pytest.mark.parametrize(
    ("role", "closeness", "message"),
    [
        ("boss", None, "no role 'boss'"),
        ("Friend", None, "no role"),
        ("friend", 95, "closeness for friend is a number from 20 to 90"),
        ("friend", 10, "closeness for friend"),
        ("creator", 50, "closeness for creator is a number from 80 to 100"),
        ("family", float("nan"), "closeness for family"),
        ("family", True, "closeness for family"),
    ],
)
def test_a_wrong_role_or_closeness_is_refused_before_anything_is_written(
    mneme: Mneme, role, closeness, message
):
    mneme.relate("ann", "family")

    with pytest.raises(ValueError, match=message):
        mneme.relate(LEO, role, closeness=closeness)
    with pytest.raises(ValueError, match=message):
        mneme.relate("ann", role, closeness=closeness)

    assert mneme.relationship(LEO) is None
    assert [(r.subject, r.role, r.closeness) for r in mneme.relationships()] == [("ann", "family", 80)]
    assert mneme.export_data()["relationships"] == [
        {
            "subject": "ann",
            "role": "family",
            "closeness": 80,
            "since": pytest.approx(mneme.clock()),
            "updated_at": pytest.approx(mneme.clock()),
            "last_seen": None,
            "history": [{"at": pytest.approx(mneme.clock()), "role": "family", "closeness": 80}],
        }
    ]


def test_relationships_are_listed_closest_first_and_removed(mneme: Mneme):
    mneme.relate("far", "acquaintance")
    mneme.relate("near", "family", closeness=95)
    mneme.relate("mid", "friend")

    assert [(r.subject, r.closeness) for r in mneme.relationships()] == [
        ("near", 95),
        ("mid", 50),
        ("far", 20),
    ]
    assert mneme.unrelate("mid") is True and mneme.unrelate("mid") is False
    assert mneme.relationship("mid") is None
    assert mneme.prompt("mid", user_name="Mid") == ""


# -- closeness grows with each day together and fades while away -----------------------------------------


def test_talking_on_a_new_local_day_grows_closeness_once(make, clock):
    m = make()
    clock.advance(hours=3)  # 23:00 in UTC+8
    m.relate(LEO, "friend")
    observe(m)
    assert m.relationship(LEO).closeness == 50  # the day the role was given counts as a day together

    clock.advance(hours=1.5)  # 00:30, a new local day
    observe(m)
    assert m.relationship(LEO).closeness == 51
    observe(m)
    assert m.relationship(LEO).closeness == 51  # once a day


def test_only_the_person_talking_counts_as_a_day_together(make, clock):
    m = make()
    clock.advance(hours=3)
    m.relate(LEO, "friend")
    clock.advance(hours=1.5)

    observe(m, source="speak-up")
    observe(m, source="duty")
    observe(m, source="runtime")

    assert m.relationship(LEO).closeness == 50


def test_closeness_fades_while_the_person_is_away(make, clock):
    m = make()
    m.relate(LEO, "friend")
    m.relate("maker", "creator")

    clock.advance(days=91)

    assert m.relationship(LEO).closeness == 46.97  # a point per 30 days
    assert m.relationship("maker").closeness == 100  # the creator never fades
    assert m.prompt("maker", user_name="Ann") == "(Ann is your creator; you are very close.)"
    observe(m)  # back after 91 days: the fade is written, then a day's growth
    assert m.relationship(LEO).closeness == 47.97


def test_the_prompt_line_follows_closeness(make, clock):
    m = make()
    m.relate(LEO, "friend", closeness=40)
    assert m.prompt(LEO, user_name="Leo") == "(Leo is your friend; you are on friendly terms.)"

    clock.advance(days=31)

    assert m.prompt(LEO, user_name="Leo") == "(Leo is your friend; you are not close yet.)"


# -- closeness weighs the person's words -----------------------------------------------------------------


def test_closeness_weighs_the_persons_words(make):
    m = make()
    m.relate("maker", "creator")  # closeness 100: 1.5x
    m.relate("friend", "friend")  # 50: 1x
    m.relate("stranger", "acquaintance", closeness=0)  # 0: 0.5x

    deltas = {s: observe(m, s).mood for s in ("maker", "friend", "stranger", "nobody")}

    assert deltas["maker"].delta == pytest.approx(15.75)
    assert deltas["friend"].delta == pytest.approx(10.5)
    assert deltas["stranger"].delta == pytest.approx(5.25)
    assert deltas["nobody"].delta == pytest.approx(10.5)  # no role: 1x
    assert deltas["maker"].emotions == {"happy": pytest.approx(48.0)}
    assert deltas["stranger"].emotions == {"happy": pytest.approx(16.0)}
    assert m.mood("maker").value == pytest.approx(85.75)
    assert m.mood("stranger").value == pytest.approx(75.25)


def test_closeness_and_source_weigh_together(make):
    m = make()
    m.relate("maker", "creator")

    seen = observe(m, "maker", source="speak-up")

    assert seen.mood.delta == pytest.approx(10.5 * 0.7 * 1.5, abs=0.01)


def test_a_hand_made_change_is_not_weighed_by_closeness(mneme: Mneme):
    mneme.relate("maker", "creator")

    assert mneme.feel("maker", delta=6, emotions={"happy": 10}).delta == 6


# -- news told once, through the prompt -------------------------------------------------------------------


def test_a_sure_change_is_told_once_in_the_next_prompt(make):
    m = make(complete=Judge(verdict(reason="Leo passed his driving test")))
    observe(m)

    first = m.prompt(LEO, user_name="Leo")
    second = m.prompt(LEO, user_name="Leo")

    assert first == (
        "(Your mood 80/100 (great); feeling: happy 32 right now. "
        "What just moved you: Leo passed his driving test. Something worth celebrating: you feel happy.)"
    )
    assert second == ""
    assert m.news(LEO) is None


async def test_a_sure_change_is_told_once_in_the_next_async_prompt(make):
    m = make()
    await m.aobserve(LEO, EXCHANGE, user_name="Leo")

    assert "Your mood 80/100" in await m.aprompt(LEO, user_name="Leo")
    assert "Your mood" not in await m.aprompt(LEO, user_name="Leo")


def _untold_in_file(m: Mneme) -> bool:
    return m.store.read(moods.untold, "test", LEO)


async def test_a_prompt_tells_the_news_without_waiting_for_the_writer(make):
    m = make()
    await m.aobserve(LEO, EXCHANGE, user_name="Leo")
    held, release = threading.Event(), threading.Event()

    def hold(conn):  # a long write: an import, an erase, many observes committing together
        held.set()
        release.wait(30)

    holding = asyncio.ensure_future(m.store.awrite(hold))
    assert await asyncio.to_thread(held.wait, 10)
    try:
        block = await asyncio.wait_for(m.aprompt(LEO, user_name="Leo"), 10)
    finally:
        release.set()
        await holding
    assert "Your mood 80/100" in block


def test_news_a_prompt_told_is_marked_by_the_next_write_and_not_told_twice_meanwhile(make):
    m = make()
    observe(m)
    assert "Your mood 80/100" in m.prompt(LEO, user_name="Leo", log=False)
    assert _untold_in_file(m)  # the mark waits for a write...
    assert m.prompt(LEO, user_name="Leo", log=False) == ""  # ...and this process remembers it told it
    assert m.news(LEO) is None
    m.remember(LEO, "Leo drives now")  # any write carries the mark
    assert not _untold_in_file(m)


def test_news_told_just_before_closing_is_not_told_again_after(make, db_path, clock):
    m = make()
    observe(m)
    assert "Your mood 80/100" in m.prompt(LEO, user_name="Leo", log=False)
    m.close()
    with Mneme(db_path, space="test", clock=clock, zone="UTC+8", companion_name="Mio") as again:
        assert again.news(LEO) is None
        assert "Your mood" not in again.prompt(LEO, user_name="Leo")


def test_a_person_erased_and_met_again_is_told_their_new_news(make):
    m = make()
    observe(m)
    assert "Your mood" in m.prompt(LEO, user_name="Leo", log=False)
    m.erase(LEO)
    observe(m)
    assert "Your mood" in m.prompt(LEO, user_name="Leo", log=False)


def test_the_news_comes_after_who_they_are_and_the_notes(make):
    m = make()
    m.relate(LEO, "creator")
    m.remember(LEO, "Leo lives in Lisbon", kind="fact")
    observe(m)

    sections = m.prompt(LEO, "Lisbon", user_name="Leo").split("\n\n")

    assert len(sections) == 3
    assert sections[0] == CREATOR_LINE
    assert sections[1].startswith("Notes about Leo:")
    assert sections[2].startswith("(Your mood")


def test_a_prompt_that_does_not_mark_leaves_the_news_for_the_next(make):
    m = make()
    observe(m)

    assert "Your mood" in m.prompt(LEO, user_name="Leo", mark=False)
    assert "Your mood" in m.prompt(LEO, user_name="Leo", mark=False)
    assert m.news(LEO, mark=False) is not None
    assert "Your mood" in m.prompt(LEO, user_name="Leo")
    assert "Your mood" not in m.prompt(LEO, user_name="Leo")


def test_an_unsure_judgement_is_recorded_but_never_told(make):
    m = make(complete=Judge(verdict(level_confidence=0.5, feeling_confidence=0.5)))

    seen = observe(m)

    assert seen.mood is not None
    assert seen.mood.confidence == pytest.approx(0.5) and seen.mood.judge == "prompt"
    assert m.mood_timeline(LEO) == [seen.mood]
    assert m.mood(LEO).value > 70
    assert "Your mood" not in m.prompt(LEO, user_name="Leo")
    assert m.news(LEO, mark=False) is None and m.news(LEO) is None


def test_the_threshold_is_the_companions(make):
    m = make(
        complete=Judge(verdict(level_confidence=0.5, feeling_confidence=0.5)),
        mood=MoodSettings(threshold=0.4),
    )
    observe(m)

    assert "Your mood" in m.prompt(LEO, user_name="Leo")


def test_tell_off_never_tells(make):
    m = make(mood=MoodSettings(tell="off"))
    observe(m)

    assert m.mood(LEO).value == pytest.approx(80.5)
    assert m.prompt(LEO, user_name="Leo") == ""


def test_the_news_in_chinese(make):
    m = make(display_language="zh")
    observe(m)

    block = m.prompt(LEO, user_name="Leo")

    assert block.startswith("（你此刻的心情 80/100（欢喜）；开心 32。")
    assert "值得高兴：你感到开心。" in block


def test_a_feeling_of_the_companions_own(make):
    proud = Emotion("proud", names={"en": "proud", "zh": "自豪"})
    judge = Judge(verdict("1", "proud"))
    m = make(complete=judge, mood=MoodSettings(emotions=(*EMOTIONS, proud)))

    seen = observe(m)

    assert '"proud": proud (自豪)' in judge.users[0]
    assert seen.mood.emotions == {"proud": pytest.approx(32.0)}
    assert "You feel proud." in m.prompt(LEO, user_name="Leo")


# -- decay, on the frozen clock ------------------------------------------------------------------------


def test_three_hours_later_the_mood_is_halfway_back(mneme: Mneme, clock):
    event = mneme.feel(LEO, delta=-9, emotions={"sad": 45})
    assert event.value == 61

    clock.advance(hours=3)

    mood = mneme.mood(LEO)
    assert mood.value == pytest.approx(65.5)  # halfway back to 70
    assert mood.emotions == {"sad": pytest.approx(45 / 4)}  # two half-lives of 90 min
    assert mneme.describe_mood(LEO) == "Mood 66/100 (good); feeling: sad 11"
    assert mneme.mood_timeline(LEO) == [event]  # decay writes nothing


def test_a_mood_settles_at_its_own_baseline(make, clock):
    m = make(mood=MoodSettings(baseline=50))
    assert m.mood(LEO).value == 50

    m.feel(LEO, delta=20, emotions={"happy": 30})
    clock.advance(days=5)

    assert m.mood(LEO).value == pytest.approx(50, abs=0.01)
    assert m.mood(LEO).emotions == {}


def test_reset_mood_keeps_the_relationship(make):
    m = make()
    m.relate(LEO, "friend")
    observe(m)

    assert m.reset_mood(LEO) is True

    assert m.mood(LEO).value == 70 and m.mood_timeline(LEO) == []
    assert m.relationship(LEO).role == "friend"
    assert m.reset_mood(LEO) is False


# -- erase ----------------------------------------------------------------------------------------------


def orphans(path: Path) -> dict[str, int]:
    """Rows of the file left without their person (invisible to the facade, but still on disk)."""
    with raw_connection(path) as conn:
        found = {
            table: conn.execute(
                f"select count(*) from {table} where subject_id not in (select id from subjects)"
            ).fetchone()[0]
            for table in ("moods", "mood_events", "relationships")
        }
    conn.close()
    return found


def test_erase_removes_the_mood_its_timeline_and_the_relationship(make, db_path):
    m = make()
    m.relate(LEO, "friend")
    m.relate("ann", "family")
    observe(m)
    observe(m, "ann")
    m.feel(LEO, delta=-3, emotions={"worried": 20})
    m.remember(LEO, "Leo lives in Lisbon", kind="fact")

    assert m.erase(LEO) == 1

    mood = m.mood(LEO)
    assert (mood.value, dict(mood.emotions), mood.updated_at) == (70, {}, None)
    assert m.relationship(LEO) is None
    assert m.mood_timeline(LEO) == []
    assert m.news(LEO) is None and m.prompt(LEO, user_name="Leo") == ""
    assert [r.subject for r in m.relationships()] == ["ann"]  # others keep theirs
    assert len(m.mood_timeline("ann")) == 1
    data = m.export_data()
    assert {row["subject"] for row in data["mood_events"] + data["moods"] + data["relationships"]} == {"ann"}
    assert orphans(db_path) == {"moods": 0, "mood_events": 0, "relationships": 0}  # gone, not just unlinked


# -- export and import ----------------------------------------------------------------------------------


def test_moods_events_and_relationships_travel(make, clock):
    m = make()
    m.relate(LEO, "creator")
    m.relate("ann", "friend", closeness=70)
    observe(m)
    clock.advance(hours=1)
    m.feel("ann", delta=-4, emotions={"tender": 25}, reason="Ann is ill")
    data = m.export_data()

    other = make()
    assert other.import_data(json.loads(json.dumps(data))) == 0  # no notes, but everything else

    for subject in (LEO, "ann"):
        mine, theirs = m.mood(subject), other.mood(subject)
        assert theirs.value == pytest.approx(mine.value)
        assert dict(theirs.emotions) == pytest.approx(dict(mine.emotions))
        strip = [
            (e.at, e.delta, dict(e.emotions), e.reason, e.source, e.judge, e.value)
            for e in m.mood_timeline(subject)
        ]
        assert [
            (e.at, e.delta, dict(e.emotions), e.reason, e.source, e.judge, e.value)
            for e in other.mood_timeline(subject)
        ] == strip
        assert other.relationship(subject) == m.relationship(subject)
    assert other.prompt(LEO, user_name="Leo") == CREATOR_LINE  # imported news is never told

    before = other.export_data()
    assert other.import_data(data) == 0
    again = other.export_data()
    for name in ("moods", "mood_events", "relationships"):
        assert again[name] == before[name]


def test_an_imported_creator_does_not_make_a_second_one(make):
    m = make()
    m.relate("alice", "creator")
    other = make()
    other.relate("bob", "creator")

    other.import_data(m.export_data())

    assert [(r.subject, r.role) for r in other.relationships()] == [("bob", "creator")]


def test_a_mneme_llm_export_brings_its_relationship(mneme: Mneme):
    data = json.loads(REFERENCE.read_text(encoding="utf-8"))

    mneme.import_data(data)

    found = mneme.relationship(LEO)
    assert (found.role, found.closeness, found.since) == ("friend", 50.0, 1780000840.0)
    assert [r.subject for r in mneme.relationships()] == [LEO]
    assert mneme.prompt(LEO, "cat", user_name="Leo").startswith(
        "(Leo is your friend; you are on friendly terms.)"
    )
    mneme.import_data(data)
    assert len(mneme.export_data()["relationships"]) == 1
