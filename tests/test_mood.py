"""Mood: feelings, settings and their checks, decay on read, the guardrails, judged changes, told-once news
with its thresholds, the timeline, reset, export and import, and wrong numbers refused before any write."""

from __future__ import annotations

import math

import pytest
from conftest import raw_connection

from mneme_core import InvalidType, InvalidValue
from mneme_core.messages import Words
from mneme_core.mood import EMOTIONS, Change, Emotion, Judgement, MoodSettings, change_of, decay, moods
from mneme_core.store import Storage, open_store

SPACE = "test"
EN, ZH = Words("en"), Words("zh")
DEFAULT = MoodSettings()


def apply(store: Storage, clock, subject: str = "u", settings: MoodSettings = DEFAULT, **change):
    return store.write(moods.apply, SPACE, subject, Change(**change), clock(), settings)


def state(store: Storage, clock, subject: str = "u", settings: MoodSettings = DEFAULT):
    return store.read(moods.state, SPACE, subject, clock(), settings)


def news(store: Storage, clock, settings: MoodSettings = DEFAULT, words: Words = EN, mark: bool = True):
    return store.write(moods.news, SPACE, "u", clock(), settings, words, mark)


def tables(store: Storage) -> tuple[list[tuple], ...]:
    """Everything the mood writes, straight from the file."""
    with raw_connection(store.location) as conn:
        found = tuple(
            conn.execute(f"select * from {t}").fetchall() for t in ("subjects", "moods", "mood_events")
        )
    conn.close()
    return found


# -- feelings and settings -------------------------------------------------------------------------------


def test_the_seven_feelings():
    assert [(e.key, e.label("zh"), e.lowers) for e in EMOTIONS] == [
        ("happy", "开心", False),
        ("calm", "踏实", False),
        ("sweet", "甜蜜", False),
        ("tender", "心疼", True),
        ("worried", "担心", True),
        ("sad", "难过", True),
        ("jealous", "吃醋", False),
    ]
    calm = EMOTIONS[1]
    assert calm.label("en") == "at ease" and calm.label("zh-TW") == "踏实" and calm.label("fr") == "at ease"
    assert EMOTIONS[3].label() == "aching for them"
    assert EMOTIONS[0].description() == "happy (开心)"


def test_a_feeling_of_ones_own():
    proud = Emotion("proud", names={"en": "proud"})
    assert proud.label("zh") == "proud" and not proud.lowers
    assert Emotion("x").label("en") == "x"
    names = {"en": "proud"}
    kept = Emotion("proud", names=names)
    names["en"] = "changed"
    assert kept.label() == "proud"  # a copy: the caller's dict cannot change it
    assert hash(kept) == hash(Emotion("proud", names={"en": "other"}))


@pytest.mark.parametrize("key", ["", "Happy", "none", "two words", 3, "x" * 41])
def test_a_feeling_needs_a_plain_key(key):
    with pytest.raises(InvalidValue, match="a feeling's key"):
        Emotion(key)


def test_default_settings_are_mneme_llms():
    s = MoodSettings()
    assert (s.baseline, s.floor, s.ceiling, s.mood_half_life_h, s.emotion_half_life_min) == (
        70,
        0,
        100,
        3,
        90,
    )
    assert (s.step, s.gain, s.threshold, s.tell) == (6, 40, 0.6, "event")
    assert s.thresholds == {"luna": 0.45}
    assert s.weights == {"user": 1.0, "speak-up": 0.7, "duty": 0.5}
    assert s.skip == frozenset({"runtime", "time"}) and s.emotions == EMOTIONS
    assert s.threshold_of("luna") == 0.45 and s.threshold_of("luna+prompt") == 0.45
    assert s.threshold_of("prompt") == 0.6 and s.threshold_of("") == 0.6
    assert s.weight_of("manual") == 1.0
    with pytest.raises(AttributeError):
        s.step = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"baseline": 120}, "baseline is a number from 0 to 100, not 120"),
        ({"floor": 30, "baseline": 20}, "baseline is a number from 30 to 100, not 20"),
        ({"ceiling": 60}, "baseline is a number from 0 to 60, not 70"),
        ({"floor": 50, "ceiling": 40}, "ceiling is a number from 50 to 100, not 40"),
        ({"mood_half_life_h": 0}, "mood_half_life_h is a number from 0.01 to 8760, not 0"),
        ({"emotion_half_life_min": math.nan}, "emotion_half_life_min is a number from 0.01 to 525600"),
        ({"step": True}, "step is a number from 0 to 50, not True"),
        ({"gain": -1}, "gain is a number from 0 to 100"),
        ({"threshold": 1.5}, "threshold is a number from 0 to 1"),
        ({"thresholds": {"luna": 2}}, "thresholds.luna is a number from 0 to 1, not 2"),
        ({"tell": "loud"}, "tell is one of event, mood, off, not 'loud'"),
        ({"weights": {"user": -0.5}}, "weights.user is a number from 0 to 10"),
        ({"weights": {"user": math.inf}}, "weights.user is a number from 0 to 10, not inf"),
        ({"emotions": ()}, "emotions is a list of at least one Emotion"),
        ({"emotions": (EMOTIONS[0], EMOTIONS[0])}, "happy came more than once"),
        ({"skip": [""]}, "skip are words"),
    ],
)
def test_settings_out_of_range_are_refused_by_name(changes, message):
    with pytest.raises(InvalidValue, match=message.replace("(", r"\(").replace(".", r"\.")):
        MoodSettings(**changes)


def test_settings_of_the_wrong_type():
    with pytest.raises(InvalidType):
        MoodSettings(skip="runtime")
    with pytest.raises(InvalidType):
        MoodSettings(weights=[("user", 1)])


def test_settings_keep_their_own_copies():
    weights = {"user": 1.0}
    s = MoodSettings(baseline=75, floor=30, tell="mood", weights=weights, skip=["runtime"])
    weights["user"] = 9.0
    assert s.weights == {"user": 1.0} and s.skip == frozenset({"runtime"}) and s.baseline == 75.0


# -- decay -----------------------------------------------------------------------------------------------


def test_decay_figures():
    assert decay.value_at(61, 70, 3 * 3600, 3) == pytest.approx(65.5)
    assert decay.feelings_at({"tender": 45}, 3 * 3600, 90) == pytest.approx({"tender": 11.25})
    assert decay.feelings_at({"happy": 0.9}, 90 * 60, 90) == {}  # 0.45 is gone
    assert decay.value_at(61, 70, -3600, 3) == 61  # a clock that went back decays nothing


@pytest.mark.parametrize(
    ("value", "face"), [(100, "great"), (79.5, "great"), (79.4, "good"), (62, "good"), (61, "ok"), (42, "ok"),
                        (41.4, "worry"), (25, "worry"), (24.4, "sad"), (0, "sad")],
)  # fmt: skip
def test_faces_by_rounded_value(value, face):
    assert decay.face(value) == face


def test_decay_happens_on_read(store, clock):
    assert apply(store, clock, delta=-9, emotions={"tender": 45}).value == 61
    before = tables(store)
    clock.advance(hours=3)
    now = state(store, clock)
    assert now.value == pytest.approx(65.5) and now.emotions == pytest.approx({"tender": 11.25})
    assert now.face == "good"
    assert tables(store) == before  # nothing ticks, nothing is written by reading
    clock.advance(hours=-6)
    assert state(store, clock).value == 61  # the clock went back: as it was written


def test_someone_never_met_is_at_the_baseline(store, clock):
    now = state(store, clock, "stranger")
    assert (now.value, now.emotions, now.face, now.updated_at) == (70, {}, "good", None)
    assert tables(store) == ([], [], [])


# -- apply and its guardrails ----------------------------------------------------------------------------


def test_sources_weigh_in(store, clock):
    assert apply(store, clock, delta=10, source="speak-up").delta == 7.0
    assert state(store, clock).value == 77.0
    assert apply(store, clock, "d", delta=10, source="duty").delta == 5.0
    assert apply(store, clock, "p", delta=10, source="user").delta == 10.0


def test_closeness_weight_multiplies(store, clock):
    event = apply(store, clock, delta=-6, emotions={"sad": 10}, weight=1.5)
    assert event.delta == -9.0 and event.emotions == {"sad": 15.0} and event.value == 61.0


def test_the_mood_drops_only_through_a_feeling_that_lowers_it(store, clock):
    event = apply(store, clock, delta=-12, emotions={"jealous": 30})
    assert event.delta == 0 and event.value == 70 and event.emotions == {"jealous": 30.0}
    assert apply(store, clock, "v", delta=-12) is None  # no feeling at all: no drop, nothing else
    assert apply(store, clock, "w", delta=-12, emotions={"jealous": 0.5}) is None
    assert len(tables(store)[2]) == 1  # only the first change was recorded
    # the strongest feeling decides: worry under jealousy lets nothing drop; a tie goes to the lowering one
    assert apply(store, clock, "x", delta=-6, emotions={"jealous": 20, "worried": 10}).delta == 0
    assert apply(store, clock, "y", delta=-6, emotions={"jealous": 20, "worried": 20}).delta == -6


def test_a_change_that_changes_nothing_leaves_no_record(store, clock):
    assert apply(store, clock, delta=0.49, emotions={"happy": 0.99}) is None
    assert apply(store, clock, delta=-0.4, emotions={"sad": 0.9}) is None
    assert apply(store, clock, delta=2, weight=0.2) is None  # 0.4 once weighed
    assert tables(store) == ([], [], [])
    assert apply(store, clock, delta=0.5) is not None
    assert apply(store, clock, emotions={"calm": 1.0}) is not None


def test_value_and_feelings_stay_in_bounds(store, clock):
    settings = MoodSettings(floor=30, ceiling=90)
    assert apply(store, clock, delta=50, emotions={"happy": 80}, settings=settings).value == 90
    event = apply(store, clock, delta=-100, emotions={"sad": 80, "happy": 60}, settings=settings)
    assert event.value == 30
    assert state(store, clock, settings=settings).emotions == {"happy": 100.0, "sad": 80.0}


def test_feelings_are_rounded_and_faint_ones_dropped(store, clock):
    apply(store, clock, emotions={"happy": 10.123456, "calm": 0.4})
    assert state(store, clock).emotions == {"happy": 10.12}


def test_the_event_and_the_mood_are_written_together(store, clock):
    event = apply(store, clock, delta=5, emotions={"happy": 20}, reason="a\nlong\tday", judge="luna")
    _, mood_rows, events = tables(store)
    assert event.id == events[0][0] and event.reason == "a long day" and event.source == "manual"
    assert mood_rows == [(1, 75.0, '{"happy":20.0}', clock(), event.id, None)]


@pytest.mark.parametrize("source", ["runtime", "time"])
def test_skipped_sources_never_move_the_mood(store, clock, source):
    assert apply(store, clock, delta=10, emotions={"happy": 40}, source=source) is None
    assert tables(store) == ([], [], [])


def test_an_unknown_feeling_is_refused(store, clock):
    with pytest.raises(InvalidValue, match="no feeling 'angry'; the feelings are happy, calm, sweet"):
        apply(store, clock, emotions={"angry": 10})
    proud = MoodSettings(emotions=(*EMOTIONS, Emotion("proud")))
    assert apply(store, clock, emotions={"proud": 10}, settings=proud).emotions == {"proud": 10.0}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"delta": math.nan}, "delta is a finite number, not nan"),
        ({"delta": math.inf}, "delta is a finite number, not inf"),
        ({"delta": True}, "delta is a finite number, not True"),
        ({"delta": "5"}, "delta is a finite number"),
        ({"emotions": {"happy": math.inf}}, "the feeling 'happy' is a number from 0 to 100, not inf"),
        ({"emotions": {"sad": -5}}, "the feeling 'sad' is a number from 0 to 100, not -5"),
        ({"confidence": math.nan}, "confidence is a number from 0 to 1, not nan"),
        ({"confidence": 1.5}, "confidence is a number from 0 to 1"),
        ({"weight": -1}, "weight is a finite number, 0 or more, not -1"),
        ({"weight": math.inf}, "weight is a finite number, 0 or more, not inf"),
        ({"source": ""}, "source is a one-line word"),
        ({"judge": "a\nb"}, "judge is a one-line word"),
    ],
)
def test_wrong_numbers_are_refused_before_anything_is_written(store, clock, change, message):
    apply(store, clock, delta=5, emotions={"happy": 10})
    before = tables(store)
    with pytest.raises(InvalidValue, match=message):
        apply(store, clock, **change)
    assert tables(store) == before


def test_wrong_types_are_refused(store, clock):
    with pytest.raises(InvalidType):
        Change(emotions=["happy"])  # type: ignore[arg-type]
    with pytest.raises(InvalidType):
        Change(reason=5)  # type: ignore[arg-type]
    assert tables(store) == ([], [], [])


# -- judged changes --------------------------------------------------------------------------------------


def judged(**fields) -> Judgement:
    base = {"level": 1.0, "feelings": {}, "level_confidence": 0.8, "judge": "prompt"}
    return Judgement(**{**base, **fields})


def test_a_judgement_becomes_a_change():
    change = change_of(
        judged(
            level=1.5,
            feelings={"happy": 0.6, "sweet": 0.15, "sad": 0.14, "none": 0.11},
            feeling_confidence=0.7,
        ),
        DEFAULT,
        EN,
    )
    assert change.delta == pytest.approx(9.0)
    assert change.emotions == pytest.approx({"happy": 24.0, "sweet": 6.0})
    assert change.confidence == 0.7  # the chosen feeling's
    assert change_of(judged(level=-5), DEFAULT, EN).delta == -12  # at most 2 x step
    none = change_of(judged(feelings={"none": 0.7, "happy": 0.3}, feeling_confidence=0.3), DEFAULT, EN)
    assert none.confidence == 0.8 and none.emotions == pytest.approx({"happy": 12.0}) and none.reason == ""
    assert change_of(judged(feelings={"angry": 0.9}), DEFAULT, EN).emotions == {}  # unknown: ignored


def test_a_judgement_without_a_reason_gets_one():
    exchange = "Leo: hi\nassistant: hello\nLeo: my cat died this morning and I can't stop crying about it\n"
    sad = {"sad": 0.8}
    said = change_of(judged(feelings=sad, exchange=exchange, user_name="Leo"), DEFAULT, EN)
    assert said.reason == "Leo said “my cat died this morning and I can't st…”"
    zh = change_of(judged(feelings=sad, exchange="Leo: 考试没考好", user_name="Leo"), DEFAULT, ZH)
    assert zh.reason == "Leo说「考试没考好」"
    out = change_of(judged(feelings=sad, source="speak-up", user_name="Leo"), DEFAULT, EN)
    assert out.reason == "you reached out to Leo"
    given = change_of(judged(feelings=sad, reason="Leo lost his cat", exchange=exchange), DEFAULT, EN)
    assert given.reason == "Leo lost his cat"
    assert change_of(judged(exchange=exchange, user_name="Leo"), DEFAULT, EN).reason == ""  # no feeling


def test_apply_answers(store, clock):
    event = store.write(
        moods.apply_answers,
        SPACE,
        "u",
        judged(
            level=-1, feelings={"tender": 0.9}, feeling_confidence=0.65, user_name="Leo", exchange="Leo: ow"
        ),
        clock(),
        DEFAULT,
        EN,
    )
    assert (event.delta, event.emotions, event.confidence, event.judge) == (
        -6,
        {"tender": 36.0},
        0.65,
        "prompt",
    )
    assert event.reason == "Leo said “ow”"
    skipped = judged(level=2, feelings={"happy": 1.0}, source="runtime")
    assert store.write(moods.apply_answers, SPACE, "u", skipped, clock(), DEFAULT, EN) is None


def test_a_judgement_with_wrong_numbers_is_refused():
    with pytest.raises(InvalidValue, match="level is a finite number"):
        judged(level=math.nan)
    with pytest.raises(InvalidValue, match=r"p\(happy\) is a number from 0 to 1"):
        judged(feelings={"happy": 1.2})
    with pytest.raises(InvalidValue, match="feeling_confidence"):
        judged(feeling_confidence=math.inf)
    with pytest.raises(InvalidValue, match="weight is a finite number, 0 or more"):
        judged(weight=-0.1)
    with pytest.raises(InvalidType, match="exchange is a string"):
        judged(exchange=None)


# -- news ------------------------------------------------------------------------------------------------


def test_news_is_told_once(store, clock):
    assert news(store, clock) is None
    apply(store, clock, delta=-9, emotions={"tender": 45}, reason="Leo failed his exam.", confidence=0.9)
    clock.advance(minutes=1)
    assert news(store, clock) == (
        "(Your mood 61/100 (ok); feeling: aching for them 45 right now. What just moved you: Leo failed his "
        "exam. They are hurting: your heart aches for them.)"
    )
    assert news(store, clock) is None
    apply(store, clock, delta=7, emotions={"happy": 23}, reason="Ann got the job", confidence=0.9)
    told = news(store, clock)
    assert "What just moved you: Ann got the job. Something worth celebrating: you feel happy." in told


def test_news_in_chinese(store, clock):
    apply(store, clock, delta=-9, emotions={"tender": 45}, reason="Leo说「考试没考好」")
    assert news(store, clock, words=ZH) == (
        "（你此刻的心情 61/100（一般）；心疼 45。刚才心里那一下：Leo说「考试没考好」。这让你心疼对方。）"
    )


def test_an_unsure_judgement_is_recorded_but_never_told(store, clock):
    assert apply(store, clock, delta=6, emotions={"happy": 20}, confidence=0.5, judge="prompt") is not None
    assert news(store, clock) is None
    assert len(store.read(moods.timeline, SPACE, "u")) == 1
    apply(store, clock, delta=6, emotions={"happy": 20}, confidence=0.5, judge="luna")  # luna's bar is 0.45
    assert news(store, clock) is not None
    apply(store, clock, delta=6, emotions={"happy": 20}, confidence=0.5, judge="luna+prompt")
    assert news(store, clock) is not None


def test_the_newest_sure_change_is_told_and_an_unsure_one_never_later(store, clock):
    apply(store, clock, delta=6, emotions={"happy": 20}, reason="sure", confidence=0.9)
    apply(store, clock, delta=6, emotions={"calm": 20}, reason="unsure", confidence=0.2)
    assert "What just moved you: sure." in news(store, clock)
    apply(store, clock, delta=6, emotions={"calm": 20}, reason="unsure again", confidence=0.2)
    assert news(store, clock) is None


def test_news_without_marking(store, clock):
    apply(store, clock, delta=6, emotions={"happy": 20})
    assert news(store, clock, mark=False) == news(store, clock, mark=False) is not None
    assert news(store, clock) is not None and news(store, clock) is None


def test_tell_mood_omits_the_reason_and_off_never_tells(store, clock):
    apply(store, clock, delta=6, emotions={"happy": 20}, reason="Ann got the job")
    told = news(store, clock, settings=MoodSettings(tell="mood"))
    assert told == (
        "(Your mood 76/100 (good); feeling: happy 20 right now. Something worth celebrating: you feel happy.)"
    )
    apply(store, clock, delta=6, reason="again")
    assert news(store, clock, settings=MoodSettings(tell="off")) is None
    assert store.read(moods.untold, SPACE, "u")  # off tells nothing and marks nothing


def test_cues(store, clock):
    apply(store, clock, delta=1)
    assert news(store, clock) == "(Your mood 71/100 (good) right now.)"  # no feeling, no cue
    proud = MoodSettings(emotions=(*EMOTIONS, Emotion("proud", names={"en": "proud", "zh": "自豪"})))
    apply(store, clock, emotions={"proud": 30, "happy": 10}, settings=proud)
    assert news(store, clock, settings=proud).endswith("You feel proud.)")
    apply(store, clock, emotions={"proud": 30}, settings=proud)
    assert news(store, clock, settings=proud, words=ZH).endswith("你感到自豪。）")
    for emotion in EMOTIONS:
        for words in (EN, ZH):
            assert words.say(f"cue.{emotion.key}")


def test_untold(store, clock):
    assert not store.read(moods.untold, SPACE, "u")
    apply(store, clock, delta=5)
    assert store.read(moods.untold, SPACE, "u")
    news(store, clock)
    assert not store.read(moods.untold, SPACE, "u")


# -- describe, timeline, reset ---------------------------------------------------------------------------


def test_describe(store, clock):
    describe = store.read(moods.describe, SPACE, "u", clock(), DEFAULT, EN)
    assert describe == "Mood 70/100 (good)"
    apply(store, clock, delta=4, emotions={"tender": 31, "happy": 4.9, "sad": 6})
    assert store.read(moods.describe, SPACE, "u", clock(), DEFAULT, EN) == (
        "Mood 74/100 (good); feeling: aching for them 31, sad 6"
    )
    assert (
        store.read(moods.describe, SPACE, "u", clock(), DEFAULT, ZH) == "心情 74/100（开心）；心疼 31、难过 6"
    )


def test_timeline_and_reset(store, clock):
    for delta in (5, 6, 7):
        apply(store, clock, delta=delta)
        clock.advance(minutes=1)
    assert [e.delta for e in store.read(moods.timeline, SPACE, "u")] == [7, 6, 5]
    assert [e.delta for e in store.read(moods.timeline, SPACE, "u", 2)] == [7, 6]
    assert store.read(moods.timeline, SPACE, "nobody") == []
    assert store.write(moods.reset, SPACE, "u") is True
    assert store.write(moods.reset, SPACE, "u") is False
    assert state(store, clock).value == 70 and store.read(moods.timeline, SPACE, "u") == []


def test_spaces_are_apart(store, clock):
    apply(store, clock, delta=10)
    assert store.read(moods.state, "other", "u", clock(), DEFAULT).value == 70


# -- export and import -----------------------------------------------------------------------------------


def test_export(store, clock):
    apply(store, clock, delta=-9, emotions={"tender": 45}, reason="r", confidence=0.9, judge="luna")
    clock.advance(minutes=5)
    apply(store, clock, "v", delta=6, source="speak-up")
    rows = store.read(moods.export_rows, SPACE)
    assert rows["moods"][0] == {
        "subject": "u",
        "value": 61.0,
        "emotions": {"tender": 45.0},
        "updated_at": clock() - 300,
    }
    assert [e["subject"] for e in rows["mood_events"]] == ["u", "v"]
    assert rows["mood_events"][1] == {
        "subject": "v",
        "at": clock(),
        "delta": 4.2,
        "value": 74.2,
        "emotions": {},
        "reason": "",
        "confidence": 1.0,
        "source": "speak-up",
        "judge": "manual",
    }


def test_import_is_lenient_idempotent_and_never_told(store, clock, locate):
    apply(store, clock, delta=-9, emotions={"tender": 45}, reason="r", confidence=0.9, judge="luna")
    rows = store.read(moods.export_rows, SPACE)
    other = open_store(locate("other.db"), clock=clock)
    try:
        bad = [
            {"subject": ""},
            {"subject": "x", "at": "yesterday", "value": "3"},
            {"subject": "x", "value": None},
        ]
        args = (SPACE, rows["moods"] + bad, rows["mood_events"] + bad, clock(), DEFAULT)
        assert other.write(moods.import_rows, *args) == 1
        assert other.write(moods.import_rows, *args) == 0  # the same export again adds nothing
        assert other.read(moods.export_rows, SPACE) == rows
        assert other.read(moods.state, SPACE, "u", clock(), DEFAULT).value == 61
        assert other.write(moods.news, SPACE, "u", clock(), DEFAULT, EN) is None
        # mneme-llm keeps feelings as JSON text; an older mood does not replace a newer one
        old = {"subject": "u", "value": 90, "emotions": '{"happy": 10}', "updated_at": clock() - 60}
        other.write(moods.import_rows, SPACE, [old], [], clock(), DEFAULT)
        assert other.read(moods.state, SPACE, "u", clock(), DEFAULT).value == 61
        newer = {**old, "updated_at": clock() + 1}
        other.write(moods.import_rows, SPACE, [newer], [], clock(), DEFAULT)
        assert other.read(moods.export_rows, SPACE)["moods"][0]["emotions"] == {"happy": 10.0}
    finally:
        other.close()
