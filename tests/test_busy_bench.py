"""The many-people benchmark's own count: the notes a run writes are the ones its judge found worth keeping.

`benchmarks/busy.py` reports "notes written / expected" as its proof that nothing was lost or written twice;
with `--worth` the judge keeps only a share of the exchanges, and the count must follow it exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import busy  # noqa: E402


def test_the_turns_worth_keeping_are_the_same_every_run_and_about_the_share_asked():
    turns = [(f"person{p}", t) for p in range(400) for t in range(3)]
    kept = [turn for turn in turns if busy.worth_keeping(*turn, 0.2)]
    assert kept == [turn for turn in turns if busy.worth_keeping(*turn, 0.2)]
    assert 0.15 * len(turns) < len(kept) < 0.25 * len(turns)
    assert all(busy.worth_keeping(*turn, 1.0) for turn in turns)
    assert not any(busy.worth_keeping(*turn, 0.0) for turn in turns)
    # A bigger share keeps every turn a smaller one kept.
    assert set(kept) <= {turn for turn in turns if busy.worth_keeping(*turn, 0.5)}


def test_a_run_writes_exactly_the_notes_its_judge_found_worth_keeping(tmp_path):
    out = tmp_path / "run.json"
    asked = ["--people", "12", "--turns", "3", "--notes", "5", "--worth", "0.5", "--json", str(out)]
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "busy.py"), *asked],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    found = json.loads(out.read_text())
    expected = sum(busy.worth_keeping(f"person{p}", t, 0.5) for p in range(12) for t in range(3))
    assert 0 < expected < 36
    assert found["turns"] == 36
    assert found["notes_expected"] == expected
    assert found["notes_written"] == expected
