"""Export and import: a round trip keeps every note and its history, imports are idempotent and merge, a real
mneme-llm 0.1.0 export comes across, and a file that is not an export is refused before anything is written.

`data/mneme_llm_0.1.0_export.json` was written by mneme-llm 0.1.0 itself (two people, English and Chinese
notes, a replaced key, a forgotten note, profile cards and a relationship), so the test reads the format the
reference really writes rather than our idea of it.
"""

import json
from itertools import pairwise
from pathlib import Path

import pytest
from conftest import raw_connection

from mneme_core import Mneme
from mneme_core.decide import run
from mneme_core.people import acloseness

DAY = 86400.0
LEO = "discord:1"
MEI = "discord:2"
REFERENCE = Path(__file__).parent / "data" / "mneme_llm_0.1.0_export.json"


@pytest.fixture
def other(locate, clock):
    """A second companion in a file of its own."""
    m = Mneme(locate("other.db"), space="moved", clock=clock, zone="UTC+8")
    try:
        yield m
    finally:
        m.close()


def live(m: Mneme, subject: str) -> set[tuple]:
    return {(n.text, n.kind, n.key, n.importance, n.happened_at) for n in m.notes(subject)}


def everything(m: Mneme) -> dict[str, set[tuple]]:
    return {s: live(m, s) for s in m.subjects()}


def versions(m: Mneme, subject: str, key: str) -> list[tuple[str, bool]]:
    return [(n.text, n.live) for n in m.history(subject, key)]


def linked(m: Mneme, subject: str, key: str) -> bool:
    """Each replaced version points at the version after it."""
    history = m.history(subject, key)
    return all(a.superseded_by == b.id for a, b in pairwise(history))


def live_counts_agree(m: Mneme, db_path) -> bool:
    """The running count of live notes per person matches the notes themselves."""
    with raw_connection(db_path) as conn:
        counted = dict(conn.execute("select subject, live from subjects where space = ?", (m.space,)))
    return counted == {s: len(m.notes(s)) for s in counted}


@pytest.fixture
def filled(mneme: Mneme, clock) -> Mneme:
    now = clock.now
    for city in ("Berlin", "Porto", "Lisbon"):
        mneme.remember(LEO, f"Leo lives in {city}", kind="fact", key="user.city", importance=3)
        clock.advance(hours=1)
    mneme.remember(LEO, "Leo likes oat milk lattes", kind="preference", importance=4)
    mneme.remember(LEO, "Leo went hiking in Kyoto", feeling=0.5, happened_at=now - 3 * DAY)
    mneme.remember(
        LEO, "Leo has a math exam", kind="plan", key="exam.math.date", importance=3, happened_at=now + 2 * DAY
    )
    mneme.remember(LEO, "Leo seems tired lately", kind="reflection", importance=1)
    owed = mneme.remember(LEO, "Leo owes me five euros")
    clock.advance(minutes=5)
    mneme.forget(LEO, id=owed.id)
    mneme.remember(
        MEI,
        "美玲养了一只叫年糕的猫",
        kind="fact",
        key="pet.name",
        importance=5,
        gloss="Mei has a cat, Niangao",
    )
    mneme.remember(MEI, "美玲喜欢喝乌龙茶", kind="preference", source="cli", feeling=0.8)
    mneme.set_profile(LEO, "A calm night owl.")
    mneme.set_profile(MEI, "喜欢猫和茶。")
    clock.advance(hours=1)
    return mneme


# round trip


def test_an_export_comes_back_whole(filled: Mneme, other: Mneme, locate):
    exported = json.loads(json.dumps(filled.export_data(), ensure_ascii=False))

    added = other.import_data(exported)

    assert added == len(exported["notes"]) == 10
    assert everything(other) == everything(filled)
    assert len(everything(other)[LEO]) == 5
    assert (
        versions(other, LEO, "user.city")
        == versions(filled, LEO, "user.city")
        == [
            ("Leo lives in Berlin", False),
            ("Leo lives in Porto", False),
            ("Leo lives in Lisbon", True),
        ]
    )
    assert linked(other, LEO, "user.city")
    assert other.profile(LEO) == "A calm night owl."
    assert other.profile(MEI) == "喜欢猫和茶。"
    assert live_counts_agree(other, locate("other.db"))


def test_an_export_keeps_feelings_sources_and_glosses(filled: Mneme, other: Mneme):
    other.import_data(filled.export_data())

    def extras(m: Mneme) -> set[tuple]:
        return {
            (n.text, n.feeling, n.source, n.gloss, n.created_at) for s in m.subjects() for n in m.notes(s)
        }

    assert extras(other) == extras(filled)
    assert ("美玲喜欢喝乌龙茶", 0.8, "cli", None) in {t[:4] for t in extras(other)}
    assert [r.note.text for r in other.recall(MEI, "cat", recent=0, important=0).chosen] == [
        "美玲养了一只叫年糕的猫"
    ]


def test_an_export_keeps_forgotten_notes_forgotten(filled: Mneme, other: Mneme):
    other.import_data(filled.export_data())

    rows = {row["text"]: row for row in other.export_data()["notes"]}

    assert rows["Leo owes me five euros"]["deleted_at"] is not None
    assert "Leo owes me five euros" not in {n.text for n in other.notes(LEO)}
    assert other.recall(LEO, "euros", recent=0, important=0).chosen == []


def test_imported_notes_are_found_by_recall(filled: Mneme, other: Mneme):
    other.import_data(filled.export_data())

    assert [r.note.text for r in other.recall(MEI, "我的猫", recent=0, important=0).chosen] == [
        "美玲养了一只叫年糕的猫"
    ]
    assert [r.note.text for r in other.recall(LEO, "where does he live", recent=0, important=0).chosen] == [
        "Leo lives in Lisbon"
    ]


def test_importing_twice_adds_nothing_the_second_time(filled: Mneme, other: Mneme):
    exported = filled.export_data()
    first = other.import_data(exported)
    before = (everything(other), len(other.export_data()["notes"]))

    assert first == 10
    assert other.import_data(exported) == 0
    assert (everything(other), len(other.export_data()["notes"])) == before
    assert filled.import_data(exported) == 0  # into the space it came from, too
    assert len(filled.export_data()["notes"]) == 10


def test_an_import_merges_with_what_is_there(mneme: Mneme, other: Mneme, clock, locate):
    other.remember(LEO, "Leo has a hamster", kind="fact", key="pet.name")
    clock.advance(hours=1)
    mneme.remember(LEO, "Leo has a cat named Mochi", kind="fact", key="pet.name", importance=4)
    mneme.remember(LEO, "Leo likes oat milk lattes", kind="preference")
    mneme.remember(LEO, "Leo lives in Lisbon", kind="fact", key="user.city")
    mneme.remember(LEO, "Leo went hiking in Kyoto")
    clock.advance(hours=1)
    other.remember(LEO, "Leo lives in Madrid", kind="fact", key="user.city")
    other.remember(LEO, "Leo likes oat milk lattes", kind="preference")

    added = other.import_data(mneme.export_data())

    texts = [n.text for n in other.notes(LEO)]
    assert added == 3  # the lattes were known already
    assert sorted(texts) == [
        "Leo has a cat named Mochi",
        "Leo likes oat milk lattes",
        "Leo lives in Madrid",
        "Leo went hiking in Kyoto",
    ]
    assert versions(other, LEO, "pet.name") == [
        ("Leo has a hamster", False),
        ("Leo has a cat named Mochi", True),
    ]
    assert {text for text, is_live in versions(other, LEO, "user.city") if is_live} == {"Leo lives in Madrid"}
    assert len(versions(other, LEO, "user.city")) == 2
    assert live_counts_agree(other, locate("other.db"))
    assert other.recall(LEO, "hamster", recent=0, important=0).chosen == []


def test_after_a_merge_a_keys_history_is_still_oldest_first(mneme: Mneme, other: Mneme, clock):
    mneme.remember(LEO, "Leo lives in Lisbon", kind="fact", key="user.city")
    clock.advance(hours=1)
    other.remember(LEO, "Leo lives in Madrid", kind="fact", key="user.city")

    other.import_data(mneme.export_data())

    assert versions(other, LEO, "user.city") == [
        ("Leo lives in Lisbon", False),
        ("Leo lives in Madrid", True),
    ]
    assert linked(other, LEO, "user.city")


def test_an_export_without_creation_times_imported_twice_adds_nothing(mneme: Mneme, clock):
    rows = [
        {"id": 1, "subject": LEO, "text": "Leo lives in Berlin", "key": "user.city", "superseded_by": 2},
        {"id": 2, "subject": LEO, "text": "Leo lives in Lisbon", "key": "user.city"},
        {"id": 3, "subject": LEO, "text": "Leo owes me five euros", "deleted_at": clock.now - DAY},
    ]
    data = {"mneme_bots": 1, "notes": rows}

    assert mneme.import_data(data) == 3
    clock.advance(hours=1)

    assert mneme.import_data(data) == 0
    assert len(mneme.export_data()["notes"]) == 3


def test_the_newer_profile_card_wins(mneme: Mneme, other: Mneme, clock):
    mneme.set_profile(LEO, "Calm.")
    mneme.set_profile(MEI, "Quiet.")
    exported = mneme.export_data()
    clock.advance(hours=1)
    other.set_profile(LEO, "Calm, and lately tired.")
    clock.advance(hours=1)
    mneme.set_profile(MEI, "Quiet, and funny once you know her.")

    other.import_data(exported)
    other.import_data(mneme.export_data())

    assert other.profile(LEO) == "Calm, and lately tired."
    assert other.profile(MEI) == "Quiet, and funny once you know her."


# a real export of mneme-llm 0.1.0


@pytest.fixture
def reference() -> dict:
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


def test_a_mneme_llm_export_comes_across(mneme: Mneme, reference, db_path):
    rows = reference["memories"]
    live_rows = [r for r in rows if r["deleted_at"] is None and r["superseded_by"] is None]
    assert len(rows) == 13 and len(live_rows) == 11

    assert mneme.import_data(reference) == 13

    for row in live_rows:
        assert (row["text"], row["kind"], row["key"], row["importance"], row["happened_at"]) in live(
            mneme, row["subject"]
        )
    assert sum(len(mneme.notes(s)) for s in mneme.subjects()) == 11
    assert live_counts_agree(mneme, db_path)


def test_a_mneme_llm_export_keeps_its_history_forgotten_notes_and_profiles(mneme: Mneme, reference):
    leo, mei = "discord:1001", "discord:2002"

    mneme.import_data(reference)

    assert versions(mneme, leo, "user.city") == [
        ("Leo lives in Berlin", False),
        ("Leo moved to Lisbon", True),
    ]
    assert linked(mneme, leo, "user.city")
    forgotten = "美玲不想让别人知道她的工资"
    assert forgotten not in {n.text for n in mneme.notes(mei)}
    rows = {row["text"]: row for row in mneme.export_data()["notes"]}
    assert rows[forgotten]["deleted_at"] == 1780000780.0
    assert mneme.profile(leo) == "Leo: a calm night owl who loves cats and long walks."
    assert mneme.profile(mei) == "美玲：喜欢猫和茶的设计师。"
    assert [r.note.text for r in mneme.recall(mei, "我的猫", recent=0, important=0).chosen] == [
        "美玲养了一只叫年糕的猫"
    ]


def test_a_mneme_llm_export_imported_again_adds_nothing(mneme: Mneme, reference):
    mneme.import_data(reference)
    before = (everything(mneme), len(mneme.export_data()["notes"]))

    assert mneme.import_data(reference) == 0
    assert (everything(mneme), len(mneme.export_data()["notes"])) == before


# what is not an export


def nothing_written(m: Mneme) -> bool:
    return m.subjects() == [] and m.export_data()["notes"] == [] and m.export_data()["profiles"] == []


@pytest.mark.parametrize("data", [[], [{"text": "hi"}], "mneme_bots", None, 1])
def test_an_export_that_is_not_an_object_is_a_type_error(mneme: Mneme, data):
    with pytest.raises(TypeError, match="JSON object"):
        mneme.import_data(data)
    assert nothing_written(mneme)


@pytest.mark.parametrize(("data", "named"), [({}, "none"), ({"foo": 1, "bar": [2]}, "foo, bar")])
def test_an_object_of_unknown_format_is_a_value_error_naming_its_keys(mneme: Mneme, data, named):
    with pytest.raises(ValueError) as caught:
        mneme.import_data(data)
    message = str(caught.value)
    assert "mneme_bots" in message and "mneme_llm" in message
    assert message.endswith(named)
    assert nothing_written(mneme)


GOOD = {"subject": LEO, "text": "Leo likes jazz"}


@pytest.mark.parametrize(
    "data",
    [
        {"mneme_bots": 1, "notes": "x"},
        {"mneme_bots": 1, "notes": {"subject": LEO, "text": "Leo likes jazz"}},
        {"mneme_bots": 1, "notes": [GOOD, "Leo likes tea"]},
        {"mneme_bots": 1, "notes": [GOOD], "profiles": "Calm."},
        {"mneme_llm": 1, "memories": [GOOD, 5]},
    ],
    ids=["notes-a-string", "notes-an-object", "a-row-not-an-object", "profiles-a-string", "llm-row-a-number"],
)
def test_a_malformed_export_is_refused_and_nothing_is_written(mneme: Mneme, data):
    with pytest.raises(ValueError, match="list of JSON objects"):
        mneme.import_data(data)
    assert nothing_written(mneme)


def test_rows_without_text_or_subject_are_skipped(mneme: Mneme):
    rows = [
        {"subject": LEO, "text": "Leo likes jazz", "kind": "preference", "importance": 3},
        {"subject": LEO},
        {"subject": LEO, "text": "  \n "},
        {"subject": LEO, "text": 42},
        {"text": "nobody's note"},
        {"subject": "", "text": "a blank subject"},
        {"subject": 7, "text": "a number for a subject"},
        {"subject": "a\nb", "text": "a subject of two lines"},
    ]

    added = mneme.import_data({"mneme_bots": 1, "notes": rows})

    assert added == 1
    assert mneme.subjects() == [LEO]
    assert live(mneme, LEO) == {("Leo likes jazz", "preference", None, 3, mneme.clock())}


@pytest.mark.parametrize("importance", ["high", [3], {"level": 3}, float("nan"), float("inf")])
def test_a_bad_importance_gets_the_default(mneme: Mneme, importance):
    rows = [{"subject": LEO, "text": "Leo likes jazz", "importance": importance, "kind": "mood"}]

    assert mneme.import_data({"mneme_bots": 1, "notes": rows}) == 1

    (note,) = mneme.notes(LEO)
    assert (note.text, note.importance, note.kind) == ("Leo likes jazz", 2, "episode")


# links across people


def crossed_links(m: Mneme) -> int:
    with raw_connection(m.store.location) as conn:
        return conn.execute(
            "select count(*) from notes a join notes b on b.id = a.superseded_by "
            "where a.subject_id != b.subject_id"
        ).fetchone()[0]


def test_a_note_replaced_by_another_persons_note_is_skipped_and_counted(filled: Mneme, other: Mneme, caplog):
    data = filled.export_data()
    mei_note = next(n for n in data["notes"] if n["subject"] == MEI)
    berlin = next(n for n in data["notes"] if n["text"] == "Leo lives in Berlin")
    berlin["superseded_by"] = mei_note["id"]  # Leo's old city "replaced" by Mei's cat
    with caplog.at_level("WARNING", logger="mneme_core.transfer"):
        added = other.import_data(data)
    assert added == len(data["notes"]) - 1
    texts = [n["text"] for n in other.export_data()["notes"]]
    assert "Leo lives in Berlin" not in texts and "美玲养了一只叫年糕的猫" in texts
    assert versions(other, LEO, "user.city") == [("Leo lives in Porto", False), ("Leo lives in Lisbon", True)]
    assert any(
        "skipped 1 note" in r.getMessage() and "another person" in r.getMessage() for r in caplog.records
    )
    assert crossed_links(other) == 0  # no note points at another person's note


def test_an_id_shared_by_two_people_links_nobody_across(filled: Mneme, other: Mneme):
    data = filled.export_data()
    porto = next(n for n in data["notes"] if n["text"] == "Leo lives in Porto")
    mei_note = next(n for n in data["notes"] if n["subject"] == MEI)
    mei_note["id"] = porto["id"]  # a hand-edited export: two rows claim one id
    other.import_data(data)
    assert crossed_links(other) == 0
    assert [n.text for n in other.notes(MEI)]  # Mei's notes came across


# the journal and closeness over time


@pytest.fixture
def kept(filled: Mneme, clock) -> Mneme:
    """`filled`, with journal entries (one about Leo, one about nobody) and closeness that moved twice."""
    filled.journal("Leo laughed at my joke about owls today.", about=LEO)
    clock.advance(hours=2)
    filled.journal("A quiet evening; I read the old notes again.")
    filled.relate(LEO, "friend", closeness=60)
    clock.advance(days=1)
    filled.relate(LEO, "friend", closeness=72)
    return filled


def journal_of(m: Mneme) -> list[tuple]:
    return [(e.at, e.text, e.source, e.about) for e in m.journal_entries(limit=50)]


def closeness_of(m: Mneme, subject: str) -> list[tuple]:
    return [(p.at, p.role, p.closeness) for p in run(lambda: acloseness(m, subject))]


def test_the_journal_and_closeness_over_time_come_back_whole(kept: Mneme, other: Mneme):
    exported = json.loads(json.dumps(kept.export_data(), ensure_ascii=False))

    other.import_data(exported)

    assert len(journal_of(kept)) == 2
    assert journal_of(other) == journal_of(kept)
    assert journal_of(other)[-1][3] == (LEO,)
    assert len(closeness_of(kept, LEO)) >= 2
    assert closeness_of(other, LEO) == closeness_of(kept, LEO)


def test_importing_the_journal_twice_adds_nothing(kept: Mneme, other: Mneme):
    exported = kept.export_data()
    other.import_data(exported)
    first = (journal_of(other), closeness_of(other, LEO))

    other.import_data(exported)

    assert (journal_of(other), closeness_of(other, LEO)) == first


def test_an_imported_journal_entry_about_a_person_goes_with_their_erase(kept: Mneme, other: Mneme):
    other.import_data(kept.export_data())

    other.erase(LEO)

    assert [e.text for e in other.journal_entries(limit=50)] == [
        "A quiet evening; I read the old notes again."
    ]


def test_journal_rows_without_text_or_time_are_skipped(mneme: Mneme):
    mneme.import_data(
        {
            "mneme_bots": 1,
            "journal": [
                {"at": 5.0, "text": "   "},
                {"text": "no time"},
                {"at": "yesterday", "text": "a time that is not one"},
                {"at": 10.0, "text": "kept", "source": "made-up", "about": ["discord:9", 7]},
            ],
        }
    )

    assert [(e.text, e.source, e.about) for e in mneme.journal_entries()] == [
        ("kept", "companion", ("discord:9",))
    ]
