"""The lifecycle (issue 21): strength, stability and accessibility, the archive, links, lessons, the journal
and tending, each with the frozen clock."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import is_postgres, raw_connection

from mneme_core import Mneme
from mneme_core.bot.chores import tending
from mneme_core.bot.settings import BotSettings
from mneme_core.cli import main
from mneme_core.config import ConfigError
from mneme_core.memory.lifecycle import LESSON_STABILITY, accessibility
from mneme_core.store import leases
from mneme_core.tending import LEASE, TendBusy
from mneme_core.tools.toolbox import Toolbox

LEO, MIA = "leo:1", "mia:2"
DAY = 86400.0


def rows(m: Mneme, sql: str, *args: object) -> list[tuple]:
    return m.store.read(lambda conn: conn.execute(sql, args).fetchall())


def chosen(recall) -> list[str]:
    return [r.note.text for r in recall.chosen]


class Model:
    """A scripted companion's model: the note writer gets `notes` as JSON; lessons and the journal their
    own answers; every call is counted by what it was asked."""

    def __init__(self, notes=(), lesson="Leo finds his feet again after a setback.", entry="A good day."):
        self.notes, self.lesson, self.entry = list(notes), lesson, entry
        self.calls: list[str] = []

    def __call__(self, system: str, user: str) -> str:
        if "nearly faded" in system:
            self.calls.append("lesson")
            return self.lesson
        if "journal" in system:
            self.calls.append("journal")
            return self.entry
        self.calls.append("writer")
        return json.dumps(self.notes)


# -- the three measures ------------------------------------------------------------------------------


def test_a_recalled_episode_outlives_an_unrecalled_one(mneme, clock):
    used = mneme.remember(LEO, "Leo ran the Lisbon half marathon", kind="episode")
    unused = mneme.remember(LEO, "Leo repainted the kitchen blue", kind="episode")
    mneme.recall(LEO, "how was the marathon", conversation="dm:leo:1")
    mneme.recall(LEO, "the marathon again", conversation="dm:leo:1")  # the same sitting: once
    mneme.recall_log.flush()
    once = mneme.get(used.id)
    assert (once.strength, once.stability) == (2.0, pytest.approx(1.5))
    assert mneme.get(unused.id).strength == 1.0

    clock.advance(days=40)  # another sitting: reinforced again, and more, since it had faded
    mneme.recall(LEO, "the marathon", conversation="dm:leo:1")
    mneme.recall_log.flush()
    twice = mneme.get(used.id)
    assert twice.strength == 3.0 and twice.stability > 1.5 * 1.5

    clock.advance(days=100)
    now = clock.now
    assert (
        accessibility(mneme.get(unused.id), now, 30.0) < 0.05 < accessibility(mneme.get(used.id), now, 30.0)
    )
    done = mneme.tend()
    assert done.archived == 1
    assert mneme.get(unused.id).archived_at == now and mneme.get(used.id).archived_at is None
    assert [n.id for n in mneme.notes(LEO, archived=True)] == [unused.id]
    assert [n.id for n in mneme.notes(LEO, archived=False)] == [used.id]
    assert {n.id for n in mneme.notes(LEO)} == {used.id, unused.id}  # still live, still forgettable
    # The archive is not in the everyday selection: the newest notes, the overview.
    assert chosen(mneme.recall(LEO, "")) == ["Leo ran the Lisbon half marathon"]


def test_lasting_kinds_and_importance_5_never_fade_into_the_archive(mneme, clock):
    fact = mneme.remember(LEO, "Leo is allergic to peanuts", kind="fact")
    pinned = mneme.remember(LEO, "Leo's mother died in May", kind="episode", importance=5)
    faded = mneme.remember(LEO, "Leo tried a new cafe", kind="episode")
    clock.advance(days=3650)
    assert accessibility(mneme.get(fact.id), clock.now, 30.0) == 1.0
    assert mneme.tend().archived == 1
    assert [n.id for n in mneme.notes(LEO, archived=True)] == [faded.id]
    assert chosen(mneme.recall(LEO, ""))[:2] == ["Leo's mother died in May", "Leo is allergic to peanuts"]
    assert mneme.get(pinned.id).archived_at is None


def test_an_archived_note_returns_on_a_strong_match_and_is_brought_back(mneme, clock):
    old = mneme.remember(LEO, "Leo lost his grandfather's watch at the beach", kind="episode")
    clock.advance(days=200)
    assert mneme.tend().archived == 1
    fresh = mneme.remember(LEO, "Leo went to the beach with Ana on Sunday", kind="episode")
    # Out of the everyday selection: the overview, and the newest notes offered when nothing matches.
    assert chosen(mneme.recall(LEO, "")) == [fresh.text]
    assert chosen(mneme.recall(LEO, "any plans for the weekend", recent=2)) == [fresh.text]
    strong = mneme.recall(LEO, "where did I lose the watch", recent=0, conversation="dm:leo:1")
    assert chosen(strong) == [old.text]
    mneme.recall_log.flush()
    back = mneme.get(old.id)
    assert back.archived_at is None and back.recalled_at == clock.now
    assert accessibility(back, clock.now, 30.0) == 1.0
    assert mneme.notes(LEO, archived=True) == []


def test_the_cap_archives_what_it_lets_go_and_counts_the_awake_notes(db_path, clock):
    with Mneme(db_path, space="t", clock=clock, max_notes=20) as m:
        ids = [m.remember(LEO, f"Leo's day number {i} at the park", kind="episode").id for i in range(30)]
        awake = m.notes(LEO, archived=False)
        archived = m.notes(LEO, archived=True)
        assert len(awake) <= 20 and len(awake) + len(archived) == 30
        assert all(n.deleted_at is None and n.archived_at is not None for n in archived)
        assert ids[-1] in {n.id for n in awake}  # never the new one
        ((count,),) = rows(m, "select archived from subjects where subject = ?", LEO)
        assert count == len(archived)
        m.forget(LEO, id=archived[0].id)  # a forgotten archived note leaves the count (trigger)
        ((count,),) = rows(m, "select archived from subjects where subject = ?", LEO)
        assert count == len(archived) - 1


def test_with_the_lifecycle_off_the_cap_deletes_and_nothing_is_tended(db_path, clock):
    with Mneme(db_path, space="t", clock=clock, max_notes=20, config={"lifecycle.enabled": False}) as m:
        for i in range(30):
            m.remember(LEO, f"Leo's day number {i} at the park", kind="episode")
        assert len(m.notes(LEO)) <= 20 and m.notes(LEO, archived=True) == []
        clock.advance(days=400)
        assert m.tend().enabled is False and m.notes(LEO, archived=True) == []


# -- links --------------------------------------------------------------------------------------------


DOG = [
    {"text": "Leo adopted a dog from the shelter", "kind": "episode"},
    {"text": "Biscuit is a beagle with one floppy ear", "kind": "fact"},
]


async def test_a_link_brings_up_an_unnamed_note_and_explain_says_so(db_path, clock):
    model = Model(DOG)
    with Mneme(db_path, space="t", clock=clock, complete=model) as m:
        kept = await m.acapture(LEO, "Leo: I adopted a dog! His name is Biscuit, a beagle.", user_name="Leo")
        dog, biscuit = (n.id for n in kept)
        m.remember(LEO, "Leo works at a bakery", kind="fact")
        found = m.recall(LEO, "what did I get from the shelter", important=0, recent=0)
        assert chosen(found) == [DOG[0]["text"], DOG[1]["text"]]
        assert f"+ #{biscuit} through #{dog} (linked)" in found.explain()
    with Mneme(db_path, space="t", clock=clock, config={"lifecycle.enabled": False}) as off:
        assert chosen(off.recall(LEO, "what did I get from the shelter", important=0, recent=0)) == [
            DOG[0]["text"]
        ]


def test_notes_recalled_together_are_linked_and_the_link_fades(mneme, clock):
    tea = mneme.remember(LEO, "Leo drinks jasmine tea every morning", kind="episode")
    cup = mneme.remember(LEO, "Leo's cup is a gift from his sister", kind="episode")
    mneme.recall(LEO, "jasmine tea in his cup", conversation="dm:leo:1")
    mneme.recall_log.flush()
    [(weight,)] = rows(mneme, "select weight from links where a = ? and b = ?", tea.id, cup.id)
    assert weight == pytest.approx(0.5)
    found = mneme.recall(LEO, "what does he drink", recent=0, important=0)
    assert chosen(found) == [tea.text, cup.text] and found.chosen[1].why == f"through #{tea.id} (linked)"
    clock.advance(days=90 * 5)  # five half-lives: 0.5 / 32 < links.FAINT
    assert mneme.tend().links_dropped == 1
    assert rows(mneme, "select * from links") == []


def test_links_go_with_forget_pass_to_a_replacing_note_and_travel_in_export(db_path, clock, tmp_path):
    with Mneme(db_path, space="t", clock=clock) as m:
        a = m.remember(LEO, "Leo plays chess on Fridays", kind="episode", key="hobby.chess")
        b = m.remember(LEO, "Leo's chess club meets at the library", kind="episode")
        c = m.remember(LEO, "Leo beat his coach at chess", kind="episode")
        m.recall(LEO, "chess", conversation="dm:leo:1")
        m.recall_log.flush()
        assert len(rows(m, "select * from links")) == 3
        newer = m.remember(LEO, "Leo plays chess on Saturdays now", kind="episode", key="hobby.chess")
        linked = {(x, y) for x, y in rows(m, "select a, b from links")}
        assert not m.get(a.id).live
        assert linked == {(b.id, c.id), (b.id, newer.id), (c.id, newer.id)}  # a's links passed on
        exported = m.export_data()
        assert {(r["a"], r["b"]) for r in exported["links"]} == linked
        m.forget(LEO, id=c.id)
        assert {(x, y) for x, y in rows(m, "select a, b from links")} == {(b.id, newer.id)}
        assert m.purge(LEO) == 2 and len(rows(m, "select * from links")) == 1
    with Mneme(tmp_path / "other.db", space="t", clock=clock) as other:
        other.import_data(exported)
        texts = {n.id: n.text for n in other.notes(LEO)}
        pairs = {(texts.get(x), texts.get(y)) for x, y in rows(other, "select a, b from links")}
        assert len(pairs) == 3 and frozenset((b.text, newer.text)) in {frozenset(pair) for pair in pairs}
        other.import_data(exported)  # twice: nothing more
        assert len(rows(other, "select * from links")) == 3


# -- lessons ------------------------------------------------------------------------------------------


def test_a_lesson_is_asked_once_kept_linked_and_slow_to_fade(db_path, clock):
    model = Model()
    with Mneme(db_path, space="t", clock=clock, complete=model) as m:
        episode = m.remember(LEO, "Leo failed his driving test and was upset", kind="episode", importance=3)
        trivial = m.remember(LEO, "Leo had toast", kind="episode", importance=1)
        clock.advance(days=80)  # not faded enough yet: 0.16
        assert m.tend().lessons_asked == 0 and model.calls == []
        clock.advance(days=30)
        first = m.tend()
        assert (first.lessons_asked, first.lessons_kept) == (1, 1) and model.calls == ["lesson"]
        assert m.tend().lessons_asked == 0 and model.calls == ["lesson"]  # once
        [lesson] = m.notes(LEO, kinds=["lesson"])
        assert lesson.text == "Leo finds his feet again after a setback." and lesson.importance == 3
        assert lesson.stability == LESSON_STABILITY and lesson.source == "lesson"
        assert rows(m, "select weight from links where a = ? and b = ?", episode.id, lesson.id) == [(1.0,)]
        clock.advance(days=200)  # the details fade into the archive; the lesson holds (stability 8)
        assert m.tend().archived == 2
        assert m.get(trivial.id).archived_at is not None and m.get(episode.id).archived_at is not None
        assert m.get(lesson.id).archived_at is None


def test_without_a_model_nothing_is_asked_and_a_failed_call_is_asked_again(db_path, clock):
    with Mneme(db_path, space="t", clock=clock) as m:
        episode = m.remember(LEO, "Leo moved out of his parents' flat", kind="episode")
        clock.advance(days=120)
        assert m.tend().lessons_asked == 0
        [(asked,)] = rows(m, "select lesson_at from notes where id = ?", episode.id)
        assert asked is None

        def failing(system: str, user: str) -> str:
            raise ConnectionError("the endpoint is down")

        assert m.tend(complete=failing).lessons_failed == 1
        said = m.tend(complete=Model(lesson="NONE"))
        assert (said.lessons_asked, said.lessons_kept) == (1, 0)
        assert m.notes(LEO, kinds=["lesson"]) == [] and m.tend(complete=Model()).lessons_asked == 0


# -- the journal --------------------------------------------------------------------------------------


def test_the_journal_is_shown_only_when_the_config_asks(db_path, clock):
    with Mneme(db_path, space="t", clock=clock) as m:
        m.remember(LEO, "Leo likes kites", kind="preference")
        entry = m.journal("I was glad Leo laughed today.", about=LEO)
        assert [e.text for e in m.journal_entries()] == [entry.text] and entry.about == (LEO,)
        assert "journal" not in m.prompt(LEO, "kites").lower()
        with pytest.raises(ValueError, match="must show something"):
            m.journal("   ")
    with Mneme(db_path, space="t", clock=clock, config={"journal.shown": 2}) as shown:
        block = shown.prompt(LEO, "kites")
        assert "Your own journal" in block and "I was glad Leo laughed today." in block


async def test_the_journal_tool_writes_for_the_subject_the_host_chose(mneme):
    said = await Toolbox(mneme, subject=MIA).acall("journal", {"text": "Mia trusts me more now."})
    assert said.startswith("Written in your journal") and [e.about for e in mneme.journal_entries()] == [
        (MIA,)
    ]


async def test_one_daily_entry_from_the_days_lines(db_path, clock):
    model = Model(entry="Leo told me about his exam; I hope it goes well.")
    with Mneme(db_path, space="t", clock=clock, complete=model, config={"journal.daily": True}) as m:
        await m.transcript.aadd_line(f"dm:{LEO}", subject=LEO, text="My exam is on Friday", name="Leo")
        clock.advance(hours=1)
        assert (await m.atend()).journal == 1
        assert (await m.atend()).journal == 0  # once a day
        [entry] = m.journal_entries()
        assert entry.source == "daily" and entry.about == (LEO,) and model.calls == ["journal"]


# -- erase ----------------------------------------------------------------------------------------------


async def test_erase_leaves_no_link_lesson_or_journal_line_about_the_person(db_path, clock):
    model = Model(DOG, lesson="Leo opens up about the things he loves.")
    with Mneme(db_path, space="t", clock=clock, complete=model) as m:
        await m.acapture(LEO, "Leo: I adopted a dog named Biscuit", user_name="Leo")
        m.remember(MIA, "Mia sings in a choir", kind="episode")
        m.recall(MIA, "choir", conversation="dm:mia:2")
        clock.advance(days=120)
        assert (await m.atend()).lessons_kept == 1
        m.journal("Leo's dog made me smile.", about=LEO)
        m.journal("Leo and Mia both wrote today.", about=[LEO, MIA])
        kept = m.journal("A quiet evening.")
        assert rows(m, "select count(*) from links") == [(2,)]
        m.erase(LEO)
        assert rows(m, "select count(*) from links") == [(0,)]
        assert rows(m, "select count(*) from notes where kind = 'lesson'") == [(0,)]
        assert [e.id for e in m.journal_entries()] == [kept.id]
        assert rows(m, "select count(*) from journal_about") == [(0,)]
    if is_postgres(db_path):  # the server's pages are its own: no row anywhere holds the words
        with raw_connection(db_path) as conn:
            names = conn.execute(
                "select table_name from information_schema.tables where table_schema = current_schema()"
            ).fetchall()
            data = repr([conn.execute(f"select * from {name}").fetchall() for (name,) in names]).encode()
    else:
        data = b"".join(path.read_bytes() for path in db_path.parent.glob(db_path.name + "*"))
    assert b"opens up about" not in data and b"dog made me smile" not in data and b"both wrote" not in data


# -- tending: one at a time, scheduled ----------------------------------------------------------------------


async def test_tending_is_one_run_at_a_time_across_processes(mneme, clock):
    taken = mneme.store.write(
        leases.claim, mneme.space, LEASE, "another process", clock.now, 600.0, None, True
    )
    assert taken is not None
    with pytest.raises(TendBusy, match="another run is tending"):
        await mneme.atend()
    clock.advance(seconds=601)  # its holder died: the lease ran out
    assert (await mneme.atend()).enabled


def test_the_runner_schedules_tending_nightly_unless_told_otherwise(mneme):
    nightly = tending(mneme, BotSettings())
    assert nightly is not None and (nightly.name, nightly.at, nightly.every) == ("tend", (3, 30), None)
    assert tending(mneme, BotSettings(tend_schedule="6h")).every == 6 * 3600
    assert tending(mneme, BotSettings(tend_schedule="off")) is None
    with pytest.raises(ValueError, match="tend_schedule"):
        BotSettings(tend_schedule="nightly")


def test_the_lifecycle_keys_are_checked(db_path, clock):
    with pytest.raises(ConfigError, match=r"lifecycle\.hops"):
        Mneme(db_path, space="t", clock=clock, config={"lifecycle.hops": 3})
    with pytest.raises(ConfigError, match=r"journal\.shown"):
        Mneme(db_path, space="t", clock=clock, config={"journal.shown": -1})


def test_mneme_tend_and_the_archive_from_the_shell(db_path, clock, monkeypatch):
    for name in ("MNEME_DB", "MNEME_SPACE", "MNEME_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    with Mneme(db_path, space="t", clock=clock) as m:
        m.remember(LEO, "Leo went sailing once", kind="episode", happened_at=clock() - 300 * DAY)
        m.remember(LEO, "Leo lives in Porto", kind="fact")
    runner = CliRunner()
    tended = runner.invoke(main, ["--db", str(db_path), "--space", "t", "tend"])
    assert tended.exit_code == 0 and tended.stdout.startswith("archived 1 notes, dropped 0 faded links")
    listed = runner.invoke(main, ["--db", str(db_path), "--space", "t", "notes", LEO, "--archived"])
    assert listed.exit_code == 0 and listed.stdout.count("\n") == 1
    assert "(archived) Leo went sailing once" in listed.stdout
    every = runner.invoke(main, ["--db", str(db_path), "--space", "t", "notes", LEO])
    assert "Leo lives in Porto" in every.stdout and "(archived) Leo went sailing once" in every.stdout
    again = runner.invoke(main, ["--db", str(db_path), "--space", "t", "tend", "--json"])
    assert json.loads(again.stdout)["archived"] == 0


def test_another_conversation_reinforces_again_at_once(mneme):
    note = mneme.remember(LEO, "Leo ran the Lisbon half marathon", kind="episode")
    for conversation in ("dm:leo:1", "group:discord:9", "dm:leo:1"):
        mneme.recall(LEO, "the marathon", conversation=conversation)
        mneme.recall_log.flush()
    assert mneme.get(note.id).strength == 4.0  # 1, then the dm, the group, and the dm again (left between)


def test_tending_works_in_bounded_batches(db_path, clock):
    with Mneme(db_path, space="t", clock=clock, config={"lifecycle.batch": 2}) as m:
        for i in range(5):
            m.remember(LEO, f"Leo's errand number {i}", kind="episode")
        clock.advance(days=300)
        runs = [m.tend() for _ in range(3)]
        assert [r.archived for r in runs] == [2, 2, 1] and [r.more for r in runs] == [True, True, False]
        assert len(m.notes(LEO, archived=True)) == 5
