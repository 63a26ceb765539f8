"""The terms' rules changed on a big bot's file: the first recall after, and how long writers wait.

The file is one of `people.py`'s (P people x N notes, built once under `CACHE`), copied, brought to this
schema with its rules unchanged, then marked as written under older rules (`meta.terms_version`), which is
what an upgrade that bumps `text.TERMS_VERSION`, or `text.use_jieba()`, finds. Two ways to rebuild, each on
its own copy:

- before: the whole index in one write transaction (`index.rebuild` and the lines' `rebuild`: what `Mneme`
  did at open until now), then the first recall. Every writer of every process waited for all of it;
- after (`memory.reindex`): the open marks everyone as waiting, the first recall (a random person)
  rebuilds that person, and a background thread rebuilds the rest a few people per write transaction; the
  longest of those is timed inside it. Meanwhile `--queries` recalls for random people (each rebuilding
  its person if still waiting) and as many `remember()` calls (a writer waits for at most one batch), then
  the time until no one waits.

Wall times on a loaded machine wait for the CPU: the calling thread's CPU time (`thread_time`) is beside.

    python benchmarks/reindex.py --people 1000,3000
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

try:
    import people as many
    from notes import make_note, make_queries
except ImportError:  # imported as benchmarks.reindex
    from benchmarks import people as many
    from benchmarks.notes import make_note, make_queries

OLDER = "mneme-terms-older"


def source(people: int, per: int, seed: int) -> Path:
    """A cached file of these parameters, of any schema (`people.cached` builds one when none is)."""
    found = sorted(many.CACHE.glob(f"people-{people}x{per}-seed{seed}-*.db"), key=os.path.getmtime)
    return found[-1] if found else many.cached(people, per, seed)


def base(people: int, per: int, seed: int, workdir: str) -> str:
    """A copy at this schema whose index follows this version's rules (nothing waits)."""
    from mneme_core import Mneme, text

    db = os.path.join(workdir, f"base-{people}x{per}.db")
    shutil.copyfile(source(people, per, seed), db)
    with sqlite3.connect(db) as conn:
        conn.execute("update meta set value = ? where key like '%terms_version'", (text.version(),))
    Mneme(db, space="bench", max_notes=many.CAP).close()
    return db


def older(db: str, name: str) -> str:
    """A copy of `db` marked as indexed under older rules."""
    copy = os.path.join(os.path.dirname(db), name)
    shutil.copyfile(db, copy)
    with sqlite3.connect(copy) as conn:
        conn.execute("update meta set value = ? where key like '%terms_version'", (OLDER,))
    return copy


def _ms(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered) * 1000, ordered[max(0, -(-len(ordered) * 95 // 100) - 1)] * 1000


def whole(conn: Any, version: str) -> None:
    """What `Mneme` did at open until now (`_reindex`): every note and line again, in one transaction."""
    from mneme_core import transcript
    from mneme_core.memory import index, reindex

    index.rebuild(conn)
    transcript.rebuild_index(conn)
    for key in reindex.KEYS:
        conn.execute("update meta set value = ? where key = ?", (version, key))


def before(db: str, who: str, query: str) -> dict[str, float]:
    """The whole index in one write transaction, then the first recall."""
    from mneme_core import Mneme, text
    from mneme_core.store import open_store

    out: dict[str, float] = {}
    store = open_store(db)
    try:
        began, used = time.perf_counter(), time.thread_time()
        store.write(whole, text.version())
        out["rebuild_s"] = time.perf_counter() - began
        out["rebuild_cpu_s"] = time.thread_time() - used
    finally:
        store.close()
    began = time.perf_counter()
    m = Mneme(db, space="bench", max_notes=many.CAP)
    try:
        m.recall(who, query)
    finally:
        m.close()
    out["first_recall_ms"] = out["rebuild_s"] * 1000 + (time.perf_counter() - began) * 1000
    out["longest_write_ms"] = out["rebuild_s"] * 1000
    return out


def after(
    db: str, people: int, per: int, queries: int, seed: int, picks: list[tuple[str, str]]
) -> dict[str, Any]:
    """Person by person: the open, the first recall, recalls and writes during the background, its batches."""
    from mneme_core import Mneme
    from mneme_core.memory import reindex

    real, batches = reindex.batch, []

    def timed(conn: Any, version: str) -> list[int]:
        began, used = time.perf_counter(), time.thread_time()
        done = real(conn, version)
        if done:
            batches.append((time.perf_counter() - began, len(done), time.thread_time() - used))
        return done

    reindex.batch = timed
    out: dict[str, Any] = {}
    try:
        began = time.perf_counter()
        m = Mneme(db, space="bench", max_notes=many.CAP)
        opened = time.perf_counter()
        out["open_ms"] = (opened - began) * 1000
        try:
            (who, query), rest = picks[0], picks[1:]
            began, used = time.perf_counter(), time.thread_time()
            m.recall(who, query)
            out["first_recall_ms"] = (time.perf_counter() - began) * 1000
            out["first_recall_cpu_ms"] = (time.thread_time() - used) * 1000
            recalls, writes, cpu = [], [], []
            for i, (who, query) in enumerate(rest[:queries]):
                began, used = time.perf_counter(), time.thread_time()
                m.recall(who, query)
                recalls.append(time.perf_counter() - began)
                cpu.append(time.thread_time() - used)
                note = make_note(many.LANGS[i % 2], per + i, seed=seed, now=time.time())
                began = time.perf_counter()
                m.remember(who, **note)
                writes.append(time.perf_counter() - began)
            out["during_recall_median_ms"], out["during_recall_p95_ms"] = _ms(recalls)
            out["during_recall_cpu_median_ms"], out["during_recall_cpu_p95_ms"] = _ms(cpu)
            out["during_write_median_ms"], out["during_write_p95_ms"] = _ms(writes)
            out["during_write_max_ms"] = max(writes) * 1000
            while m.store.read(reindex.waiting):
                time.sleep(0.2)
            out["all_current_s"] = time.perf_counter() - opened
        finally:
            m.close()
    finally:
        reindex.batch = real
    out["batches"] = len(batches)
    out["longest_write_ms"] = max(t for t, _, _ in batches) * 1000
    out["batch_median_ms"] = statistics.median(t for t, _, _ in batches) * 1000
    out["batch_cpu_median_ms"], out["batch_cpu_max_ms"] = _ms([c for _, _, c in batches])
    out["batch_cpu_max_ms"] = max(c for _, _, c in batches) * 1000
    out["people_per_batch_max"] = max(n for _, n, _ in batches)
    return out


def measure(people: int, per: int, queries: int, seed: int, workdir: str) -> dict[str, Any]:
    rng = random.Random(seed)
    asked = {lang: make_queries(lang, 200, seed=seed) for lang in many.LANGS}
    picks = [
        (many.subject(rng.randrange(people)), rng.choice(asked[rng.choice(many.LANGS)]))
        for _ in range(queries + 1)
    ]
    db = base(people, per, seed, workdir)
    out: dict[str, Any] = {"people": people, "per": per}
    try:
        copy = older(db, "before.db")
        out["before"] = before(copy, *picks[0])
        os.remove(copy)
        copy = older(db, "after.db")
        out["after"] = after(copy, people, per, queries, seed, picks)
        os.remove(copy)
    finally:
        for name in os.listdir(workdir):
            os.remove(os.path.join(workdir, name))
    return out


def table(results: list[dict[str, Any]], queries: int) -> str:
    lines = []
    for r in results:
        b, a = r["before"], r["after"]
        notes = r["people"] * r["per"]
        lines += [
            f"### new terms' rules on {r['people']:,} people x {r['per']} notes ({notes:,} notes)",
            "",
            "| | before: whole index at once | after: person by person | ratio |",
            "|---|---|---|---|",
            f"| first recall after the change, ms | {b['first_recall_ms']:,.0f} | {a['first_recall_ms']:.1f} "
            f"| {b['first_recall_ms'] / a['first_recall_ms']:,.0f}x |",
            f"| longest write transaction of the rebuild, ms | {b['longest_write_ms']:,.0f} "
            f"| {a['longest_write_ms']:.1f} | {b['longest_write_ms'] / a['longest_write_ms']:,.0f}x |",
            f"| rebuild CPU time (whole) / first recall CPU, ms | {b['rebuild_cpu_s'] * 1000:,.0f} "
            f"| {a['first_recall_cpu_ms']:.1f} | |",
            f"| open, ms | (in the first recall) | {a['open_ms']:.1f} | |",
            f"| background: batches, median / longest ms, people per batch at most | | {a['batches']:,}, "
            f"{a['batch_median_ms']:.1f} / {a['longest_write_ms']:.1f}, {a['people_per_batch_max']} | |",
            f"| until no one waits, s | {b['rebuild_s']:,.1f} | {a['all_current_s']:,.1f} | |",
            f"| background batch CPU time median / max, ms | | {a['batch_cpu_median_ms']:.1f} / "
            f"{a['batch_cpu_max_ms']:.1f} | |",
            f"| during it: {queries} recalls median / p95, ms | (nothing answers) | "
            f"{a['during_recall_median_ms']:.2f} / {a['during_recall_p95_ms']:.2f} | |",
            f"| during it: recall CPU time median / p95, ms | | "
            f"{a['during_recall_cpu_median_ms']:.2f} / {a['during_recall_cpu_p95_ms']:.2f} | |",
            f"| during it: {queries} remember() median / p95 / max, ms | (waits for all) | "
            f"{a['during_write_median_ms']:.2f} / {a['during_write_p95_ms']:.2f} / "
            f"{a['during_write_max_ms']:.1f} | |",
            "",
        ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--people", default="1000", help="people counts (comma-separated), 300 notes each")
    parser.add_argument("--per", type=int, default=300)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    results = []
    for count in (int(p) for p in args.people.split(",") if p.strip()):
        workdir = tempfile.mkdtemp(prefix="mneme-reindex-")
        try:
            results.append(measure(count, args.per, args.queries, args.seed, workdir))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    load = os.getloadavg()
    print(f"\n## python {platform.python_version()}, sqlite {sqlite3.sqlite_version}, load {load[0]:.2f}\n")
    print(table(results, args.queries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
