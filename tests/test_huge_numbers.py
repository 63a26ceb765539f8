"""Numbers too big for SQLite or for a float are refused like any other wrong value: a `ValueError` (also a
`MnemeError`) naming the value and what is allowed, never an `OverflowError`, and nothing is written."""

from __future__ import annotations

import pytest

from mneme_core import Mneme
from mneme_core.errors import InvalidValue

HUGE = (2**63, 10**400, -(10**400), -(2**63) - 1)
NAMES = dict(zip(HUGE, ("2**63", "10**400", "-10**400", "-2**63-1"), strict=True))

CALLS = {
    "recall limit": lambda m, v: m.recall("u", "cat", limit=v),
    "recall budget": lambda m, v: m.recall("u", "cat", budget=v),
    "recall important": lambda m, v: m.recall("u", "cat", important=v),
    "recall recent": lambda m, v: m.recall("u", "cat", recent=v),
    "prompt limit": lambda m, v: m.prompt("u", "cat", limit=v),
    "remember importance": lambda m, v: m.remember("u", "a new note", importance=v),
    "remember feeling": lambda m, v: m.remember("u", "a new note", feeling=v),
    "remember happened_at": lambda m, v: m.remember("u", "a new note", happened_at=v),
    "relate closeness": lambda m, v: m.relate("u", "friend", closeness=v),
    "forget id": lambda m, v: m.forget("u", id=v),
    "get id": lambda m, v: m.get(v),
    "feel delta": lambda m, v: m.feel("u", delta=v),
    "feel emotions": lambda m, v: m.feel("u", emotions={"happy": v}),
    "feel confidence": lambda m, v: m.feel("u", confidence=v),
    "mood_timeline limit": lambda m, v: m.mood_timeline("u", limit=v),
    "recalls limit": lambda m, v: m.recalls("u", limit=v),
}


# A mood's delta is any finite number (the mood clamps it), so only the ints beyond float's range are wrong.
CASES = [(c, v) for c in CALLS for v in HUGE if c != "feel delta" or abs(v) > 2**1024]


@pytest.mark.parametrize(("call", "value"), CASES, ids=lambda x: x if isinstance(x, str) else NAMES[x])
def test_a_huge_integer_is_a_value_error_and_writes_nothing(mneme: Mneme, db_path, call, value):
    mneme.remember("u", "my cat is called Mochi")
    before = mneme.export_data()
    with pytest.raises(InvalidValue) as refused:
        CALLS[call](mneme, value)
    assert str(value)[:6] in str(refused.value)  # names the value
    after = mneme.export_data()
    for part in ("notes", "moods", "mood_events", "relationships"):
        assert after[part] == before[part]


def test_the_largest_sqlite_id_is_allowed_and_finds_nothing(mneme: Mneme):
    mneme.remember("u", "my cat is called Mochi")
    assert mneme.forget("u", id=2**63 - 1) == 0
    assert mneme.get(2**63 - 1) is None
    with pytest.raises(InvalidValue, match="9223372036854775807"):
        mneme.forget("u", id=2**63)


def test_huge_but_finite_floats_are_still_ranged(mneme: Mneme):
    with pytest.raises(InvalidValue, match="importance is a whole number from 1 to 5"):
        mneme.remember("u", "a note", importance=1e308)
    mneme.feel("u", delta=1e300)  # a finite delta is clamped by the mood's own guardrails, as before
    assert 0 <= mneme.mood("u").value <= 100


IMPORT_FIELDS = {
    "notes": ("id", "importance", "feeling", "happened_at", "created_at", "recalled_at", "recalls"),
    "profiles": ("updated_at",),
    "moods": ("value", "updated_at"),
    "mood_events": ("at", "delta", "value", "confidence"),
    "relationships": ("closeness", "since", "updated_at", "last_seen"),
}


@pytest.fixture
def export(mneme: Mneme) -> dict:
    mneme.remember("u", "my cat is called Mochi", key="pet.name", importance=4)
    mneme.remember("u", "my cat is called Nian Gao", key="pet.name", importance=4)
    mneme.remember("u", "exam on friday", kind="plan")
    mneme.relate("u", "friend")
    mneme.feel("u", delta=-5, emotions={"sad": 20}, reason="a bad day")
    mneme.set_profile("u", "likes cats")
    return mneme.export_data()


@pytest.mark.parametrize("value", HUGE[:3], ids=NAMES.get)
@pytest.mark.parametrize(
    ("part", "field"), [(p, f) for p, fs in IMPORT_FIELDS.items() for f in fs], ids=lambda x: str(x)
)
def test_an_import_with_a_huge_integer_keeps_the_rest(export, tmp_path, clock, part, field, value):
    data = {**export, part: [{**row, field: value} for row in export[part]]}
    with Mneme(tmp_path / "other.db", space="test", clock=clock) as other:
        other.import_data(data)  # no OverflowError: the bad field falls back, or the row is skipped
        brought = other.export_data()
    assert [n["text"] for n in brought["notes"]] == [n["text"] for n in export["notes"]]
    if part == "notes" and field == "id":  # the ids only link versions of a key: the live one is still one
        live = [n for n in brought["notes"] if n["superseded_by"] is None and n["deleted_at"] is None]
        assert sorted(n["text"] for n in live) == ["exam on friday", "my cat is called Nian Gao"]
