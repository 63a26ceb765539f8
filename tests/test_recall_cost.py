"""What a recall reads, and the caches that spare it work, are exactly what they replace (issue 19).

The speed itself is measured in `benchmarks/` (`busy.py`, `recall.py`); these tests pin what must hold for
the cuts to be safe: the statements a recall runs (a person with no transcript lines costs the lines'
recall nothing; only the notes shown are read whole) and caches that never hand out a stale or shared
answer.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from mneme_core import Mneme, text

S = "discord:42"


@pytest.fixture
def m(tmp_path: Path, clock: Any) -> Mneme:
    found = Mneme(tmp_path / "cost.db", space="test", clock=clock)
    yield found
    found.close()


@pytest.fixture
def jieba_off():
    """Whatever a test does to jieba, the next test starts without it."""
    yield
    text.use_jieba(False)


def statements(m: Mneme, call) -> list[str]:
    """The SQL statements `call()` runs on this thread's connection."""
    said: list[str] = []
    m.store.read(lambda conn: conn.set_trace_callback(said.append))
    try:
        call()
    finally:
        m.store.read(lambda conn: conn.set_trace_callback(None))
    return [s for s in said if s not in ("begin", "commit")]


def test_a_person_with_no_lines_costs_the_lines_recall_nothing(m: Mneme) -> None:
    for i in range(12):
        m.remember(S, f"my cat Mochi chased ball number {i}")
    asked = statements(m, lambda: m.recall(S, "what does Mochi chase?", log=False))
    assert asked, "the trace saw the recall"
    assert not [s for s in asked if "line_" in s or "from lines" in s], asked
    assert sum("from subjects" in s for s in asked) == 1, asked  # one read of the person, for both recalls


def test_only_the_notes_a_recall_shows_are_read_whole(m: Mneme) -> None:
    for i in range(30):
        m.remember(S, f"my cat Mochi chased ball number {i}")
    found = m.recall(S, "Mochi ball", log=False, limit=3)
    asked = statements(m, lambda: m.recall(S, "Mochi ball", log=False, limit=3))
    whole = [s for s in asked if s.startswith("select id, text, kind")]
    shown = {r.note.id for r in found.chosen} | {note.id for note, _why in found.skipped}
    assert len(found.chosen) == 3 and len(found.skipped) == 10  # 30 matches: many more than are shown
    assert len(whole) == 1
    read = {int(i) for i in whole[0].split("json_each('[")[1].split("]")[0].split(",")}
    assert read == shown


def test_terms_handed_out_are_the_callers_own(m: Mneme) -> None:
    first = text.terms("my cat Mochi")
    first.append("dog")
    assert text.terms("my cat Mochi") == ["cat", "mochi"]
    found = m.recall(S, "cat")
    assert found.query == "cat"


def test_turning_jieba_on_or_off_forgets_the_terms_kept(monkeypatch: pytest.MonkeyPatch, jieba_off) -> None:
    said = "我的猫叫年糕"
    without = text.terms(said)
    fake = types.ModuleType("jieba")
    fake.__version__ = "0-test"
    fake.setLogLevel = lambda level: None
    fake.initialize = lambda: None
    fake.lcut = lambda run: ["年糕猫"] if "年糕" in run else []
    monkeypatch.setitem(sys.modules, "jieba", fake)

    assert text.use_jieba(True)
    assert text.terms(said) == [*without, "年糕猫"]
    text.use_jieba(False)
    assert text.terms(said) == without
