"""Updating a note by id, and listing a person's notes with filters: the facade's `update`/`revise` (and
their async twins) and `notes(..., kinds, key_prefix, since, until, history, limit, offset)`.

Each test has its own file and the frozen clock of `conftest.py`; what was written is read back from the
file through a second connection where it matters.
"""

from __future__ import annotations

import pytest
from conftest import raw_connection

from mneme_core import Mneme, hookimpl
from mneme_core.errors import InvalidType, InvalidValue

DAY = 86400.0
S = "discord:42"
OTHER = "discord:99"


def live_count(db_path, subject: str = S) -> int:
    with raw_connection(db_path) as conn:
        return conn.execute("select live from subjects where subject = ?", (subject,)).fetchone()[0]


def test_an_update_keeps_the_old_text_in_the_history(mneme: Mneme, db_path, clock):
    old = mneme.remember(S, "Lives in Oslo", kind="fact", key="user.city", importance=4)
    clock.advance(days=1)

    new = mneme.update(S, old.id, "Lives in Bergen")

    assert new is not None and new.id != old.id
    assert (new.text, new.kind, new.key, new.importance) == ("Lives in Bergen", "fact", "user.city", 4)
    assert new.created_at == clock()
    assert [n.text for n in mneme.history(S, "user.city")] == ["Lives in Oslo", "Lives in Bergen"]
    listed = mneme.notes(S, history=True)
    assert [(n.text, n.live, n.superseded_by) for n in listed] == [
        ("Lives in Bergen", True, None),
        ("Lives in Oslo", False, new.id),
    ]
    assert [n.text for n in mneme.notes(S)] == ["Lives in Bergen"]
    assert live_count(db_path) == 1
    # the index follows: the old words find nothing, the new ones find the new note
    assert mneme.recall(S, "Oslo", important=0, recent=0).chosen == []
    assert [r.note.id for r in mneme.recall(S, "Bergen", recent=0).chosen] == [new.id]


def test_a_keyless_note_keeps_its_history_through_its_replacement(mneme: Mneme):
    old = mneme.remember(S, "Went to the dentist", happened_at=mneme.clock() - 2 * DAY)

    new = mneme.update(S, old.id, "Went to the dentist for a filling", importance=3)

    assert new.happened_at == old.happened_at and new.kind == "episode" and new.importance == 3
    (before,) = [n for n in mneme.notes(S, history=True) if not n.live]
    assert (before.id, before.text, before.superseded_by) == (old.id, old.text, new.id)
    assert mneme.purge(S) == 1  # forgotten means gone: the old version too, once purged
    assert [n.id for n in mneme.notes(S, history=True)] == [new.id]


def test_kind_importance_and_time_change_only_when_given(mneme: Mneme):
    old = mneme.remember(S, "Exam on Friday", kind="plan", importance=3, happened_at=mneme.clock() + DAY)

    new = mneme.update(S, old.id, "Exam on Monday", happened_at=mneme.clock() + 4 * DAY, kind="plan")

    assert (new.kind, new.importance, new.happened_at) == ("plan", 3, mneme.clock() + 4 * DAY)


def test_what_an_update_says_happened(mneme: Mneme, db_path):
    cat = mneme.remember(S, "Has a cat named Mochi", kind="fact")
    tea = mneme.remember(S, "Likes green tea", kind="preference")
    theirs = mneme.remember(OTHER, "Has a dog", kind="fact")

    assert mneme.revise(S, cat.id, "Has a cat named Mochi") == ("unchanged", cat)
    assert mneme.revise(S, theirs.id, "Has a parrot") == ("no such note", None)
    assert mneme.revise(S, 999, "Has a parrot") == ("no such note", None)
    outcome, known = mneme.revise(S, tea.id, "has a cat named mochi")
    assert (outcome, known.id) == ("known", cat.id)
    assert [n.text for n in mneme.notes(S)] == ["Has a cat named Mochi"]
    assert live_count(db_path) == 1
    assert mneme.revise(S, tea.id, "Likes oolong") == ("no such note", None)  # no longer live
    assert [n.text for n in mneme.notes(OTHER)] == ["Has a dog"]


@pytest.mark.parametrize(
    ("args", "changes", "error"),
    [
        ((0, "x"), {}, "id is a whole number of 1 or more"),
        (("1", "x"), {}, "id is a whole number"),
        ((1, ""), {}, "must show something"),
        ((1, 42), {}, "must be a string"),
        ((1, "x"), {"importance": 9}, "importance is a whole number from 1 to 5"),
        ((1, "x"), {"kind": "secret"}, "kind is one of"),
        ((1, "x"), {"happened_at": "yesterday"}, "happened_at is a time in seconds"),
    ],
)
def test_a_bad_update_is_refused_before_anything_is_written(mneme: Mneme, args, changes, error):
    note = mneme.remember(S, "Lives in Oslo", kind="fact")

    with pytest.raises((InvalidValue, InvalidType), match=error):
        mneme.update(S, *args, **changes)
    assert mneme.notes(S, history=True) == [note]


def test_a_plugin_filters_an_update_like_a_new_note(tmp_path, clock):
    events = []

    class Redact:
        @hookimpl
        def filter_note(self, note):
            if "password" in note.text:
                return False
            return None

        @hookimpl
        def track_event(self, event):
            events.append((event.name, dict(event.data)))

    with Mneme(tmp_path / "f.db", space="test", clock=clock, plugins=[Redact()]) as m:
        note = m.remember(S, "Uses a laptop", kind="fact")
        assert m.revise(S, note.id, "The password is hunter2") == ("vetoed", None)
        assert [n.text for n in m.notes(S, history=True)] == ["Uses a laptop"]
        new = m.update(S, note.id, "Uses a desktop")
    assert ("updated", {"outcome": "updated", "old": note.id, "id": new.id}) in events


async def test_the_async_twin_updates_the_same_way(mneme: Mneme):
    old = await mneme.aremember(S, "Lives in Oslo", kind="fact", key="user.city")

    new = await mneme.aupdate(S, old.id, "Lives in Bergen")
    outcome, same = await mneme.arevise(S, new.id, "Lives in Bergen")

    assert [n.text for n in mneme.history(S, "user.city")] == ["Lives in Oslo", "Lives in Bergen"]
    assert (outcome, same) == ("unchanged", new)


# listing


@pytest.fixture
def listed(mneme: Mneme) -> Mneme:
    now = mneme.clock()
    mneme.remember(S, "Lives in Oslo", kind="fact", key="user.city", happened_at=now - 30 * DAY)
    mneme.remember(S, "Lives in Bergen", kind="fact", key="user.city", happened_at=now - 2 * DAY)
    mneme.remember(S, "Named Leo", kind="fact", key="user.name", happened_at=now - 30 * DAY)
    mneme.remember(S, "Cat named Mochi", kind="fact", key="pet.name", happened_at=now - 10 * DAY)
    mneme.remember(S, "Exam on Friday", kind="plan", key="exam.date", happened_at=now + 1 * DAY)
    mneme.remember(S, "Went hiking", happened_at=now - 5 * DAY)
    gone = mneme.remember(S, "Had a cold", happened_at=now - 3 * DAY)
    mneme.forget(S, id=gone.id)
    return mneme


def texts(found) -> list[str]:
    return [n.text for n in found]


def test_listing_keeps_to_the_filters(listed: Mneme):
    now = listed.clock()

    assert texts(listed.notes(S)) == [
        "Went hiking",
        "Exam on Friday",
        "Cat named Mochi",
        "Named Leo",
        "Lives in Bergen",
    ]
    assert texts(listed.notes(S, kinds=["plan", "episode"])) == ["Went hiking", "Exam on Friday"]
    assert texts(listed.notes(S, key_prefix="user.")) == ["Named Leo", "Lives in Bergen"]
    assert texts(listed.notes(S, key_prefix="User.ci")) == ["Lives in Bergen"]
    assert texts(listed.notes(S, key_prefix="user", history=True)) == [
        "Named Leo",
        "Lives in Bergen",
        "Lives in Oslo",
    ]
    assert texts(listed.notes(S, since=now - 6 * DAY, until=now)) == ["Went hiking", "Lives in Bergen"]
    assert texts(listed.notes(S, since=now - 6 * DAY, until=now, history=True)) == [
        "Had a cold",
        "Went hiking",
        "Lives in Bergen",
    ]
    assert texts(listed.notes(S, limit=2)) == ["Went hiking", "Exam on Friday"]
    assert texts(listed.notes(S, limit=2, offset=2)) == ["Cat named Mochi", "Named Leo"]
    assert listed.notes(S, key_prefix="user_") == []  # `_` is a letter of a key here, not a wildcard


async def test_the_async_listing_is_the_same(listed: Mneme):
    assert await listed.anotes(S, kinds=["fact"], key_prefix="user.") == listed.notes(
        S, kinds=["fact"], key_prefix="user."
    )


@pytest.mark.parametrize(
    ("filters", "error"),
    [
        ({"key_prefix": "user city"}, "is not the start of a key"),
        ({"key_prefix": 7}, "a key prefix must be a string"),
        ({"history": "yes"}, "history is true or false"),
        ({"limit": -1}, "limit is a whole number"),
        ({"offset": 1.5}, "offset is a whole number"),
        ({"kinds": ["fact", "rumour"]}, "kinds are among"),
        ({"until": 10.0, "since": 20.0}, "must come after since"),
    ],
)
def test_bad_listing_filters_are_refused(listed: Mneme, filters, error):
    with pytest.raises((InvalidValue, InvalidType), match=error):
        listed.notes(S, **filters)
