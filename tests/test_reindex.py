"""The term index rebuilt person by person after the terms' rules change (`memory.reindex`).

A file is written under other rules (the words reversed: a query by today's rules finds nothing in that
index), then opened under today's. What each person's recall answers, and their term statistics, are
compared with the whole index rebuilt the old way (`index.rebuild` and the lines' `rebuild` in one
transaction) on the same database.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from conftest import raw_connection

from mneme_core import Mneme, text, transcript
from mneme_core.memory import index, reindex

PEOPLE = [f"discord:{n}" for n in range(1, 8)]
ENGLISH = ["cat", "tea", "pottery", "rain", "exam", "bicycle", "piano", "garden", "coffee", "river"]
CHINESE = ["猫", "年糕", "陶艺", "下雨", "考试", "钢琴", "花园", "咖啡"]
QUERIES = ["cat and pottery", "piano exam", "我喜欢年糕", "rain garden coffee", "陶艺和钢琴"]
OLD = "mneme-terms-older"
REAL_TERMS = text.terms


def reversed_terms(said: str) -> list[str]:
    """Other rules: every term backwards."""
    return [term[::-1] for term in REAL_TERMS(said)]


def notes_of(n: int) -> list[str]:
    said = []
    for i in range(12):
        if (i + n) % 3 == 0:
            a, b = CHINESE[(i + n) % len(CHINESE)], CHINESE[(2 * i + n) % len(CHINESE)]
            said.append(f"我喜欢{a}和{b}")
        else:
            said.append(f"talked about {ENGLISH[(i + n) % 10]} and {ENGLISH[(3 * i + n) % 10]} on day {i}")
    return said


async def old_file(db_path, clock, monkeypatch) -> None:
    """Every person's notes and lines, indexed by other rules (`OLD`)."""
    with monkeypatch.context() as patched:
        patched.setattr(text, "TERMS_VERSION", OLD)
        patched.setattr(text, "terms", reversed_terms)
        async with Mneme(db_path, space="test", clock=clock) as m:
            for n, who in enumerate(PEOPLE):
                for i, said in enumerate(notes_of(n)):
                    await m.aremember(who, said, importance=1 + i % 5)
                    clock.advance(hours=1)
                dm = f"dm:{who}"
                line = await m.transcript.aadd_line(dm, subject=who, text=f"my {ENGLISH[n]} likes rain")
                await m.transcript.aadd_reply(dm, text=f"your {ENGLISH[n]} and the piano", reply_to=line.id)
    with raw_connection(db_path) as conn:
        assert reindex.version_of(conn) == OLD


def why(said: str) -> tuple[str, ...]:
    """Why a note was chosen, its matched terms as a set: equally rare terms are named in the vocabulary's
    order, which the whole rebuild on PostgreSQL takes from the table as stored, not in id order."""
    head, _, terms = said.partition(": ")
    return (head, *sorted(terms.split(", ")))


def answers(m: Mneme, who: str) -> list:
    found = []
    for query in QUERIES:
        r = m.recall(who, query, log=False)
        found.append(
            (
                [(c.note.id, round(c.score, 9), why(c.why)) for c in r.chosen],
                [(note.id, why) for note, why in r.skipped],
                [(s.line.id, round(s.score, 9), s.why) for s in r.lines],
            )
        )
    return found


def statistics(db_path, people=PEOPLE) -> tuple:
    """These people's vocabulary with each term's df, settled postings and line counts (a rebuilt person's
    postings are all settled, as after the whole rebuild)."""
    with raw_connection(db_path) as conn:
        return tuple(
            sorted(row for row in conn.execute(sql).fetchall() if row[0] in people)
            for sql in (
                "select s.subject, t.term, t.df from terms t join subjects s on s.id = t.subject_id",
                "select s.subject, t.term, t.df from line_terms t join subjects s on s.id = t.subject_id",
                "select s.subject, t.term, p.note_id, p.fresh_at, p.importance, p.feeling from postings p "
                "join terms t on t.id = p.term_id join subjects s on s.id = t.subject_id",
                "select s.subject, t.term, p.line_id, p.fresh_at from line_postings p "
                "join line_terms t on t.id = p.term_id join subjects s on s.id = t.subject_id",
                "select subject, lines from subjects",
            )
        )


def matched(m: Mneme, who: str, query: str) -> list[str]:
    return [c.note.text for c in m.recall(who, query, log=False).chosen if c.why.startswith("matched")]


def full_rebuild(m: Mneme) -> None:
    """The whole index at once, the old way."""
    m.store.write(index.rebuild)
    m.store.write(transcript.rebuild_index)


def waiting(db_path) -> set[str]:
    with raw_connection(db_path) as conn:
        rows = conn.execute("select s.subject from reindexing r join subjects s on s.id = r.subject_id")
        return {row[0] for row in rows.fetchall()}


@pytest.fixture
def no_background(monkeypatch):
    """The background rebuild does nothing, so what a recall rebuilt is its own doing."""
    monkeypatch.setattr(reindex.Reindexer, "_run", lambda self: None)


def wait_until_none_waits(db_path, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while waiting(db_path):
        assert time.monotonic() < deadline, f"still waiting after {seconds} s: {sorted(waiting(db_path))}"
        time.sleep(0.05)


async def test_a_recall_rebuilds_its_person_alone_and_answers_as_the_whole_rebuild(
    db_path, clock, monkeypatch, no_background
):
    await old_file(db_path, clock, monkeypatch)
    with Mneme(db_path, space="test", clock=clock) as m:
        assert waiting(db_path) == set(PEOPLE)  # opening only marked them
        first = answers(m, PEOPLE[0])
        assert waiting(db_path) == set(PEOPLE[1:])  # that person alone
        assert all(chosen for chosen, _, _ in first)
        assert any(c[2][0] == "matched" for chosen, _, _ in first for c in chosen)
        assert any(lines for _, _, lines in first)  # their lines were rebuilt too
        second = await m.arecall(PEOPLE[1], QUERIES[0], log=False)  # the async twin does the same
        assert waiting(db_path) == set(PEOPLE[2:])
        assert any(c.why.startswith("matched") for c in second.chosen)
        m.reindex_pending()
        assert waiting(db_path) == set()
        each = {who: answers(m, who) for who in PEOPLE}
        rebuilt = statistics(db_path)
        full_rebuild(m)
        assert statistics(db_path) == rebuilt  # each person's df and postings as the whole rebuild's
        assert {who: answers(m, who) for who in PEOPLE} == each
        assert answers(m, PEOPLE[0]) == first


async def test_the_background_rebuilds_everyone_a_few_people_per_transaction(db_path, clock, monkeypatch):
    await old_file(db_path, clock, monkeypatch)
    monkeypatch.setattr(reindex, "PEOPLE", 2)
    monkeypatch.setattr(reindex, "ITEMS", 30)  # two people of 12 notes and 2 lines fit, three would not
    real, sizes = reindex.batch, []

    def left(conn) -> tuple[int, int]:  # people waiting, and their notes and lines
        return conn.execute(
            "select count(*), coalesce(sum(live + lines), 0) from subjects "
            "where id in (select subject_id from reindexing)"
        ).fetchone()

    def counted(conn, version):  # what one write transaction of the background rebuilt
        before = left(conn)
        done = real(conn, version)
        after = left(conn)
        sizes.append((before[0] - after[0], before[1] - after[1]))
        return done

    monkeypatch.setattr(reindex, "batch", counted)
    with Mneme(db_path, space="test", clock=clock) as m:
        wait_until_none_waits(db_path)
        time.sleep(0.1)  # the thread's last batch, which finds no one
        assert sum(people for people, _ in sizes) == len(PEOPLE)
        assert max(people for people, _ in sizes) == 2
        assert max(items for _, items in sizes) <= 30
        assert m.reindexer.waiting == 0
        each = {who: answers(m, who) for who in PEOPLE}
        full_rebuild(m)
        assert {who: answers(m, who) for who in PEOPLE} == each


CHILD = textwrap.dedent(
    """
    import sys, time
    from mneme_core import Mneme
    from mneme_core.memory import reindex

    reindex.PEOPLE, reindex.ITEMS = 1, 1
    real, slow = reindex.rebuild, sys.argv[2] == "slow"

    def told(conn, sid):
        done = real(conn, sid)
        print(sid, flush=True)
        if slow:
            time.sleep(0.3)  # inside the transaction: a kill lands in one now and then
        return done

    reindex.rebuild = told
    m = Mneme(sys.argv[1], space="test")
    m.reindex_pending()
    m.close()
    print("done", flush=True)
    """
)


def child(db_path, how: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db_path), how],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "MNEME_LOAD_PLUGINS": ""},
    )


async def test_a_process_killed_midway_leaves_the_rest_waiting_and_the_next_one_resumes(
    db_path, clock, monkeypatch
):
    await old_file(db_path, clock, monkeypatch)
    process = child(db_path, "slow")
    told = [process.stdout.readline().strip() for _ in range(2)]
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert all(line.isdigit() for line in told)
    left = waiting(db_path)
    # The first was committed before the second began; the second was killed in its transaction (it sleeps
    # there), so it is rolled back, unless the kill came after its commit.
    assert len(PEOPLE) - 2 <= len(left) <= len(PEOPLE) - 1
    with Mneme(db_path, space="test", clock=clock) as m:
        wait_until_none_waits(db_path)
        each = {who: answers(m, who) for who in PEOPLE}
        rebuilt = statistics(db_path)
        full_rebuild(m)
        assert statistics(db_path) == rebuilt
        assert {who: answers(m, who) for who in PEOPLE} == each


async def test_two_processes_starting_together_rebuild_each_person_once(db_path, clock, monkeypatch):
    await old_file(db_path, clock, monkeypatch)
    first, second = child(db_path, "fast"), child(db_path, "fast")
    said = [p.communicate(timeout=120)[0].split() for p in (first, second)]
    ends = [(p.returncode, out[-1:]) for p, out in zip((first, second), said, strict=True)]
    assert ends == [(0, ["done"])] * 2, said
    rebuilt = [sid for out in said for sid in out[:-1]]
    assert sorted(rebuilt) == sorted(set(rebuilt)), said  # each once, by one or the other
    assert len(rebuilt) == len(PEOPLE), said
    assert waiting(db_path) == set()
    with Mneme(db_path, space="test", clock=clock) as m:
        each = {who: answers(m, who) for who in PEOPLE}
        stats = statistics(db_path)
        full_rebuild(m)
        assert statistics(db_path) == stats
        assert {who: answers(m, who) for who in PEOPLE} == each


async def test_forget_erase_and_import_while_people_wait(db_path, clock, monkeypatch, no_background):
    await old_file(db_path, clock, monkeypatch)
    with Mneme(db_path, space="test", clock=clock) as m:
        gone = m.notes(PEOPLE[0])[0]
        m.forget(PEOPLE[0], id=gone.id)  # by today's rules, in an index of other rules
        m.remember(PEOPLE[1], "adopted a hedgehog called Mochi", importance=4)
        assert m.erase(PEOPLE[2]) == 12
        assert PEOPLE[2] not in waiting(db_path)  # their row went with them
        data = {
            "mneme_bots": 1,
            "space": "test",
            "notes": [
                {"subject": PEOPLE[3], "text": "plays the cello in a garden band", "kind": "fact"},
                {"subject": "discord:99", "text": "new here, likes cello and coffee", "kind": "fact"},
            ],
        }
        assert m.import_data(data) == 2
        assert "discord:99" not in waiting(db_path)  # indexed by today's rules as it came in
        assert waiting(db_path) == set(PEOPLE) - {PEOPLE[2]}
        m.reindex_pending()
        people = [who for who in PEOPLE if who != PEOPLE[2]] + ["discord:99"]
        each = {who: answers(m, who) for who in people}
        assert gone.id not in {c[0] for found in each[PEOPLE[0]] for c in found[0]}
        assert matched(m, PEOPLE[1], "hedgehog") == ["adopted a hedgehog called Mochi"]
        assert matched(m, PEOPLE[3], "cello") == ["plays the cello in a garden band"]
        assert matched(m, "discord:99", "cello") == ["new here, likes cello and coffee"]
        assert m.recall(PEOPLE[2], "cat", log=False).chosen == []
        stats = statistics(db_path, people[:-1])
        full_rebuild(m)
        assert statistics(db_path, people[:-1]) == stats
        assert {who: answers(m, who) for who in people} == each


async def test_new_rules_in_a_running_process_start_over_person_by_person(
    db_path, clock, monkeypatch, no_background
):
    with Mneme(db_path, space="test", clock=clock) as m:
        for n, who in enumerate(PEOPLE[:3]):
            for said in notes_of(n):
                m.remember(who, said)
        assert waiting(db_path) == set()
        monkeypatch.setattr(text, "TERMS_VERSION", OLD)  # as `text.use_jieba()` would change them
        monkeypatch.setattr(text, "terms", reversed_terms)
        found = m.recall(PEOPLE[0], "cat", log=False)  # "tac" in the index by the new rules
        assert waiting(db_path) == set(PEOPLE[1:3])
        assert any(c.why.startswith("matched") for c in found.chosen)
        with raw_connection(db_path) as conn:
            assert reindex.version_of(conn) == OLD
        m.reindex_pending()
        each = {who: answers(m, who) for who in PEOPLE[:3]}
        full_rebuild(m)
        assert {who: answers(m, who) for who in PEOPLE[:3]} == each
