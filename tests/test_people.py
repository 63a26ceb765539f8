"""The people a companion knows as a page lists them (`mneme_core.people`), closeness over time
(`relations.history`, migration 0012_closeness), and a prompt that writes nothing (`log=False`)."""

from __future__ import annotations

import pytest

from mneme_core import Mneme, people, relations
from mneme_core.errors import InvalidValue

DAY = 86400.0


async def test_people_are_listed_newest_activity_first_with_counts_names_and_roles(mneme, clock):
    mneme.remember("discord:1", "Has a cat named Mochi", kind="fact")
    mneme.remember("discord:1", "Lives in Lyon", kind="fact", key="user.city")
    clock.advance(hours=1)
    mneme.relate("telegram:2", "friend")
    clock.advance(hours=1)
    await mneme.transcript.aadd_line("dm:onebot:3", subject="onebot:3", text="hi", name="Ming 明")
    listed = await people.apeople(mneme)
    assert listed.total == 3
    assert [p.subject for p in listed.people] == ["onebot:3", "telegram:2", "discord:1"]
    ming, friend, cat = listed.people
    assert (ming.name, ming.last_seen, ming.notes, ming.role) == ("Ming 明", clock.now, 0, None)
    assert (friend.role, friend.closeness, friend.notes, friend.last_seen) == ("friend", 50.0, 0, None)
    assert (cat.notes, cat.last_note, cat.name) == (2, clock.now - 2 * 3600, None)
    assert cat.mood == mneme.mood_settings.baseline and cat.face == mneme.mood("discord:1").face


async def test_people_are_found_by_subject_or_name_and_paged_with_the_total(mneme, clock):
    for i in range(5):
        clock.advance(minutes=1)
        await mneme.transcript.aadd_line(f"dm:t:{i}", subject=f"t:{i}", text="hello", name=f"Leo{i}")
    assert [p.subject for p in (await people.apeople(mneme, "leo3")).people] == ["t:3"]
    assert [p.subject for p in (await people.apeople(mneme, "T:1")).people] == ["t:1"]
    page = await people.apeople(mneme, limit=2, offset=2)
    assert page.total == 5 and [p.subject for p in page.people] == ["t:2", "t:1"]
    past = await people.apeople(mneme, limit=2, offset=10)
    assert past.total == 5 and past.people == []
    assert (await people.apeople(mneme, "nobody")).total == 0
    with pytest.raises(InvalidValue, match="limit is a whole number of 1 or more"):
        await people.apeople(mneme, limit=0)
    with pytest.raises(InvalidValue, match="a search is text of at most 200"):
        await people.apeople(mneme, "x" * 201)


async def test_one_person_and_someone_unknown(mneme):
    mneme.remember("discord:1", "Has a cat", kind="fact")
    found = await people.aperson(mneme, "discord:1")
    assert found is not None and found.notes == 1
    assert await people.aperson(mneme, "discord:999") is None


async def test_a_persons_keys_count_their_versions(mneme, clock):
    mneme.remember("s", "Lives in Lyon", kind="fact", key="user.city")
    clock.advance(days=1)
    mneme.remember("s", "Lives in Paris", kind="fact", key="user.city")
    mneme.remember("s", "Has a cat", kind="fact", key="pet.kind")
    mneme.forget("s", key="pet.kind")
    found = await people.akeys(mneme, "s")
    assert [(k.key, k.versions, k.live) for k in found] == [("pet.kind", 1, False), ("user.city", 2, True)]
    assert found[1].changed_at == clock.now
    assert await people.akeys(mneme, "nobody") == []


async def test_spaces_of_the_file(db_path, clock):
    with Mneme(db_path, space="mio", clock=clock) as mio, Mneme(db_path, space="leo", clock=clock) as leo:
        mio.remember("a", "one", kind="fact")
        mio.remember("b", "two", kind="fact")
        found = await people.aspaces(leo)
    assert [(s.space, s.people, s.notes) for s in found] == [("leo", 0, 0), ("mio", 2, 2)]


# -- closeness over time --------------------------------------------------------------------------------


def seen(m: Mneme, subject: str) -> None:
    m.store.write(relations.seen, m.space, subject, m.clock(), m.relation_settings)


async def test_closeness_keeps_a_point_per_change_and_per_day_together(mneme, clock):
    mneme.relate("s", "friend")
    seen(mneme, "s")  # the day the role was given counts as a day together: no growth, no point
    clock.advance(days=1)
    seen(mneme, "s")
    seen(mneme, "s")  # the same day again: nothing new
    clock.advance(days=30)
    seen(mneme, "s")
    mneme.relate("s", "family", closeness=70)
    found = await people.acloseness(mneme, "s")
    start = clock.now - 31 * DAY
    grown = 50 - 1 / 30 + 1  # a day's fade, then a day's growth
    assert [(p.at - start, p.role, p.closeness) for p in found] == [
        (0.0, "friend", 50.0),
        (DAY, "friend", round(grown, 2)),
        (31 * DAY, "friend", round(grown, 2)),  # a point faded over 30 days, then grew by one
        (31 * DAY, "family", 70.0),
    ]
    assert await people.acloseness(mneme, "nobody") == []


async def test_closeness_history_is_bounded_and_goes_with_the_role_and_the_person(mneme, clock, monkeypatch):
    monkeypatch.setattr(relations, "POINTS", 3)
    mneme.relate("s", "friend")
    for _ in range(5):
        clock.advance(days=1)
        seen(mneme, "s")
    found = await people.acloseness(mneme, "s")
    daily = [round(50 + day * (1 - 1 / 30), 2) for day in range(1, 6)]  # fade a day, grow a day
    assert [p.closeness for p in found] == daily[2:]  # the newest three
    assert [p.closeness for p in await people.acloseness(mneme, "s", limit=1)] == daily[4:]
    mneme.unrelate("s")
    assert await people.acloseness(mneme, "s") == []
    mneme.relate("s", "friend")
    mneme.remember("s", "Has a cat", kind="fact")
    mneme.erase("s")
    assert mneme.store.read(lambda conn: conn.execute("select count(*) from closeness").fetchone()[0]) == 0


async def test_an_imported_relationship_starts_its_history(db_path, tmp_path, clock):
    with Mneme(db_path, space="a", clock=clock) as m:
        m.relate("s", "friend", closeness=60)
        data = m.export_data()
    with Mneme(tmp_path / "other.db", space="a", clock=clock) as other:
        other.import_data(data)
        assert [(p.role, p.closeness) for p in await people.acloseness(other, "s")] == [("friend", 60.0)]


# -- a look at the prompt writes nothing --------------------------------------------------------------


def test_a_prompt_without_log_or_mark_writes_nothing(mneme, clock):
    mneme.remember("s", "Has a cat named Mochi", kind="fact")
    mneme.feel("s", delta=-20, emotions={"worried": 40}, reason="a bad day")
    block = mneme.prompt("s", "how is the cat", log=False, mark=False)
    assert "Has a cat named Mochi" in block and "a bad day" in block
    assert mneme.recalls("s") == []
    assert mneme.notes("s")[0].recalls == 0
    assert mneme.news("s", mark=False) is not None  # still untold
    mneme.prompt("s", "how is the cat")
    assert [entry["query"] for entry in mneme.recalls("s")] == ["how is the cat"]


async def test_aprompt_without_log_writes_no_recall(mneme):
    mneme.remember("s", "Has a cat named Mochi", kind="fact")
    assert "Mochi" in await mneme.aprompt("s", "cat", log=False, mark=False)
    assert mneme.recalls("s") == []
