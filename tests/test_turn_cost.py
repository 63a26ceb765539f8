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
