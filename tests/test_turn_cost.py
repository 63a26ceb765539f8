"""The shortcuts a turn takes past `dataclasses.replace` give what it gives, and refuse what it refuses."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from mneme_core.errors import MnemeError
from mneme_core.memory.note import COLUMNS, Note, note_of, with_id
from mneme_core.mood import Judgement
from mneme_core.observe import _weighed


def _judged() -> Judgement:
    return Judgement(
        level=0.75,
        feelings={"happy": 0.6, "none": 0.4},
        level_confidence=0.9,
        feeling_confidence=0.7,
        judge="prompt",
        reason="they laughed",
        exchange="Leo: hi",
        user_name="Leo",
    )


@pytest.mark.parametrize("weight", [0.0, 0.35, 1.0, 2.5])
def test_weighed_is_replace(weight: float) -> None:
    judged = _judged()
    made = _weighed(judged, weight)
    assert made == replace(judged, weight=weight)
    assert repr(made) == repr(replace(judged, weight=weight))
    assert made.weight == weight and judged.weight == 1.0  # the original is untouched
    assert made.feelings == judged.feelings and made.feelings is not judged.feelings


@pytest.mark.parametrize("weight", [-1.0, math.nan, math.inf, True, "1"])
def test_weighed_refuses_what_replace_refuses(weight: object) -> None:
    with pytest.raises(MnemeError) as replaced:
        replace(_judged(), weight=weight)
    with pytest.raises(MnemeError) as weighed:
        _weighed(_judged(), weight)  # type: ignore[arg-type]
    assert str(weighed.value) == str(replaced.value)


def test_note_of_and_with_id_are_the_dataclass() -> None:
    row = (
        7,
        "Likes tea.",
        "preference",
        "drink.tea",
        3,
        0.5,
        1.0,
        2.0,
        4,
        "auto",
        3.0,
        None,
        None,
        "tea",
        2.0,
        1.5,
        None,
    )
    assert len(row) == len(COLUMNS.split(","))
    note = note_of("discord:1", row)
    made = Note(7, "discord:1", *row[1:])
    assert note == made and repr(note) == repr(made) and hash(note) == hash(made)
    moved = with_id(note, 12)
    assert moved == replace(made, id=12) and note.id == 7
    with pytest.raises(AttributeError):  # still frozen
        moved.id = 3  # type: ignore[misc]
    with pytest.raises(ValueError):  # a row that is not one of `COLUMNS`
        note_of("discord:1", row[:-1])


def test_counting_reads_a_persons_fresh_postings_as_the_whole_scan_does(tmp_path) -> None:
    """A recall reads the person's fresh postings alone, by `(subject_id, id)` (`index.counting`): the same
    rows, in the same order, as a scan of the whole table, whoever else wrote in between, after a forget of
    their oldest note, and for someone with none fresh."""
    import json
    import sqlite3

    from mneme_core import Mneme, text
    from mneme_core.memory import index

    path = tmp_path / "fresh.db"
    with Mneme(path) as m:
        for i in range(12):
            m.remember("ann", f"Ann's cat Miso likes tuna number {i}.")
            m.remember("bob", f"Bob's cat Pixel likes tuna number {i}.")
            if i % 4 == 0:
                m.remember("cy", "Cy keeps a cat too, and tuna.")
        oldest = min(n.id for n in m.notes("ann"))
        assert m.forget("ann", id=oldest) == 1
        m.remember("dee", "Dee has no cat at all.")
    conn = sqlite3.connect(path)
    fresh_people = conn.execute(
        "select count(distinct n.subject_id) from fresh_postings f join notes n on n.id = f.id >> ?",
        (index.SHIFT,),
    ).fetchone()[0]
    assert fresh_people >= 3  # the fresh table holds several people's notes, interleaved
    statement = index.counting(index.NOTES)
    whole = statement.replace("where f.subject_id = ? and ", "where ")  # every fresh posting looked at
    assert whole != statement
    seen = 0
    for subject in ("ann", "bob", "cy", "dee", "nobody"):
        row = conn.execute("select id from subjects where subject = ?", (subject,)).fetchone()
        sid = row[0] if row else 999
        for query in ("cat tuna", "Miso number 3", "Pixel", "no cat at all", "zebra"):
            asked = json.dumps(text.terms(query), ensure_ascii=False)
            ours = conn.execute(statement, index.params(index.NOTES, sid, asked)).fetchall()
            assert ours == conn.execute(whole, (sid, asked)).fetchall(), (subject, query)
            seen += sum(1 for part, *_ in ours if part == 1)
    assert seen > 0  # fresh postings were read, not just none on both sides
