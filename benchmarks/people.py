"""A big bot's file: P people x N notes each, recalled for a random person (`recall.py --people`).

One person with 100,000 notes is one axis (`recall.py --sizes`); a bot that has met 10,000 people, each
with a few hundred notes, is the other: 3 million notes in one file, where a recall for one person must not
pay for the others. Each person's notes are half English, half Chinese (`notes.py`, seeded by the person),
so the file holds both scripts throughout.

Building: the notes go in through the engine's own import (`Mneme.import_data`, which indexes them as
`remember` would), `BATCH` notes to a transaction, into a file cached under `CACHE` keyed by its
parameters (people, notes each, seed and the schema's migrations; a file of an older schema is migrated in
a copy), so the next run starts at once. A
3-million-note file takes long to build on two loaded cores; `--people 1000` (300,000 notes) is the
quick version.

Measured on a copy of the cached file (so the cache stays untouched): the open, the first recall after the
open (a random person), `--queries` recalls and prompts for random people (each a query in one of the
person's languages), the file's size per note (per note in the file: the generated notes repeat now and
then, and a person's same text again is one note; with its free pages, which a migration leaves), and the
erase of a few people (each `Mneme.erase`, down to the bytes: secure delete and a truncating checkpoint).

"First recall after open" is the first `recall()` of a new `Mneme` on the copy, in this process: the copy was
just written, so its pages are in the OS's cache (dropping that cache needs root here), but none is in
SQLite's; what it shows is the cost of a cold connection and schema, not of a cold disk (the tables that widen
a question are read by the open, `recall.read_tables`: read by the first recall, in the process that had just
built the file, they took 54-58 ms of it, most of that a full collection of the build's heap). The erases are
timed after what the recalls logged is written (the log's own thread would do it within seconds; an erase
arriving meanwhile waits for that write). `ERASED` erases come one after another; then `BURSTS` more, each
right after `BURST` `remember()` calls for random people, which leave the `-wal` as full of frames not yet
copied as it gets (up to `checkpoint.LIMIT`): the worst case, where the erase's truncating checkpoint copies
the most. Wall times on a loaded machine wait for the CPU: the calling thread's CPU time (`thread_time`; the
sync calls run their SQLite work on it) is shown beside.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import sqlite3
import statistics
import time
from contextlib import closing
from pathlib import Path
from typing import Any

try:
    from notes import make_note, make_queries
except ImportError:  # imported as benchmarks.people
    from benchmarks.notes import make_note, make_queries

CACHE = Path(os.environ.get("MNEME_BENCH_CACHE", "/tmp/mneme-bench-cache"))
BATCH = 60_000
CAP = 200_000
ERASED = 5
BURSTS, BURST = 3, 300  # erases each right after BURST remember() calls for random people
LANGS = ("en", "zh")


def subject(p: int) -> str:
    return f"bench:person{p}"


def person_notes(p: int, per: int, seed: int, now: float) -> list[dict[str, Any]]:
    """Person `p`'s notes: the first half in one language, the rest in the other."""
    first = LANGS[p % 2]
    half = per // 2 if per > 1 else per
    return [
        make_note(first if i < half else LANGS[1 - p % 2], i, seed=seed * 100_003 + p, now=now)
        for i in range(per)
    ]


def _schema_key() -> str:
    from mneme_core.store import schema

    return hashlib.sha1(" ".join(m.name for m in schema.MIGRATIONS).encode()).hexdigest()[:8]


def cached(people: int, per: int, seed: int, log=print) -> Path:
    """The path of the built file for these parameters, building it first if it is not cached yet."""
    from mneme_core import Mneme

    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"people-{people}x{per}-seed{seed}-{_schema_key()}.db"
    if path.exists():
        return path
    building = path.with_suffix(".building")
    for suffix in ("", "-wal", "-shm"):
        Path(str(building) + suffix).unlink(missing_ok=True)
    for older in CACHE.glob(f"people-{people}x{per}-seed{seed}-*.db"):  # another schema's: migrate a copy
        shutil.copyfile(older, building)
        began = time.perf_counter()
        try:
            with Mneme(building, space="bench", max_notes=CAP) as m:
                opened = time.perf_counter() - began
                m.reindex_pending()  # an older file's index, rebuilt here: not during the measurement
        except Exception as err:  # a newer schema's file: build this one anew
            log(f"  {older.name} cannot be migrated here ({err}); building anew")
            continue
        took = time.perf_counter() - began
        log(f"  migrated a copy of {older.name}: opened in {opened:.1f} s, ready in {took:.1f} s")
        os.replace(building, path)
        return path
    now = time.time()
    began = time.perf_counter()
    note_id = 0
    with Mneme(building, space="bench", max_notes=CAP, daily_quota=10_000) as m:
        rows: list[dict[str, Any]] = []
        for p in range(people):
            for note in person_notes(p, per, seed, now):
                note_id += 1
                rows.append({"id": note_id, "subject": subject(p), "created_at": note["happened_at"], **note})
            if len(rows) >= BATCH or p == people - 1:
                m.import_data({"mneme_bots": 1, "space": "bench", "notes": rows})
                rows = []
                took = time.perf_counter() - began
                log(f"  built {note_id:,} notes ({p + 1:,} people) in {took:.0f} s, {note_id / took:,.0f}/s")
    os.replace(building, path)
    for suffix in ("-wal", "-shm", "-turns"):
        Path(str(building) + suffix).unlink(missing_ok=True)
    return path


def _count(db: str) -> int:
    """The notes in the file: the generated ones repeat now and then, and a person's same text again is the
    same note (one person's 100,000 are 83,896 notes; 10,000 people's 300 each are 2,995,463)."""
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute("select count(*) from notes").fetchone()[0]


def _free(db: str) -> int:
    """Bytes of the file's free pages (a migration leaves the old tables' pages free, for the next notes)."""
    with closing(sqlite3.connect(db)) as conn:
        return (
            conn.execute("pragma freelist_count").fetchone()[0]
            * conn.execute("pragma page_size").fetchone()[0]
        )


def _wal_mb(db: str) -> float:
    wal = Path(db + "-wal")
    return wal.stat().st_size / 2**20 if wal.exists() else 0.0


def _ms(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered) * 1000, ordered[max(0, -(-len(ordered) * 95 // 100) - 1)] * 1000


def measure(people: int, per: int, *, queries: int, seed: int, workdir: str, log=print) -> dict[str, Any]:
    """The numbers of the module docstring for one P x N file."""
    from mneme_core import Mneme

    source = cached(people, per, seed, log)
    db = os.path.join(workdir, source.name)
    shutil.copyfile(source, db)
    with open(db, "rb+") as copied:  # on disk before the clock starts: the first erase's fsync is its own
        os.fsync(copied.fileno())
    out: dict[str, Any] = {"people": people, "per": per, "notes": _count(db)}
    out["db_mb"] = os.path.getsize(db) / 2**20
    out["bytes_per_note"] = os.path.getsize(db) / out["notes"]
    out["free_mb"] = _free(db) / 2**20
    rng = random.Random(seed)
    asked = {lang: make_queries(lang, 200, seed=seed) for lang in LANGS}

    def pick() -> tuple[str, str]:
        return subject(rng.randrange(people)), rng.choice(asked[rng.choice(LANGS)])

    began = time.perf_counter()
    m = Mneme(db, space="bench", max_notes=CAP)
    out["open_ms"] = (time.perf_counter() - began) * 1000
    try:
        who, query = pick()
        began, used = time.perf_counter(), time.thread_time()
        m.recall(who, query)
        out["first_recall_ms"] = (time.perf_counter() - began) * 1000
        out["first_recall_cpu_ms"] = (time.thread_time() - used) * 1000
        for verb, call in (("recall", m.recall), ("prompt", m.prompt)):
            times, cpu, matched = [], [], 0
            for _ in range(queries):
                who, query = pick()
                began, used = time.perf_counter(), time.thread_time()
                found = call(who, query)
                times.append(time.perf_counter() - began)
                cpu.append(time.thread_time() - used)
                if verb == "recall":
                    matched += any(item.why.startswith("matched") for item in found.chosen)
            out[f"{verb}_median_ms"], out[f"{verb}_p95_ms"] = _ms(times)
            out[f"{verb}_cpu_median_ms"], out[f"{verb}_cpu_p95_ms"] = _ms(cpu)
            if verb == "recall":
                out["matched"] = matched
        # What the recalls logged is written first (the log's thread would write it within `WAIT` s): an
        # erase arriving while another write runs waits for it, and that wait is not the erase's.
        m.recall_log.flush()
        times, cpu, erased, wal = [], [], 0, []
        chosen = rng.sample(range(people), min(ERASED + BURSTS, people))
        for n, p in enumerate(chosen):
            if n >= ERASED:  # the worst case: right after a burst of writes, the -wal as full as it gets
                for i in range(BURST):
                    other = rng.randrange(people)
                    m.remember(subject(other), **make_note(LANGS[i % 2], per + i, seed=seed, now=time.time()))
            wal.append(_wal_mb(db))
            began, used = time.perf_counter(), time.thread_time()
            erased += m.erase(subject(p))
            times.append(time.perf_counter() - began)
            cpu.append(time.thread_time() - used)
        calm, burst = times[:ERASED], times[ERASED:] or times[:ERASED]
        out["erase_median_ms"], out["erase_max_ms"] = statistics.median(calm) * 1000, max(calm) * 1000
        out["erase_burst_max_ms"] = max(burst) * 1000
        out["erase_cpu_median_ms"], out["erase_cpu_max_ms"] = statistics.median(cpu) * 1000, max(cpu) * 1000
        out["erase_wal_max_mb"] = max(wal)
        out["erased_each"] = erased / len(times)
    finally:
        m.close()
        for suffix in ("", "-wal", "-shm", "-turns"):
            Path(db + suffix).unlink(missing_ok=True)
    return out


ROWS = (
    ("notes", "notes", "{:,}"),
    ("DB file, MB", "db_mb", "{:,.1f}"),
    ("of which free pages, MB", "free_mb", "{:,.1f}"),
    ("bytes per note", "bytes_per_note", "{:,.0f}"),
    ("open, ms", "open_ms", "{:.1f}"),
    ("first recall after open, ms", "first_recall_ms", "{:.1f}"),
    ("first recall after open, CPU ms", "first_recall_cpu_ms", "{:.1f}"),
    ("recall median / p95, ms", ("recall_median_ms", "recall_p95_ms"), "{:.2f}"),
    ("recall CPU time median / p95, ms", ("recall_cpu_median_ms", "recall_cpu_p95_ms"), "{:.2f}"),
    ("prompt median / p95, ms", ("prompt_median_ms", "prompt_p95_ms"), "{:.2f}"),
    ("prompt CPU time median / p95, ms", ("prompt_cpu_median_ms", "prompt_cpu_p95_ms"), "{:.2f}"),
    ("recalls with a matched note", "matched", "{}"),
    ("erase of a person median / max, ms", ("erase_median_ms", "erase_max_ms"), "{:.1f}"),
    (f"erase right after {BURST} writes, max of {BURSTS}, ms", "erase_burst_max_ms", "{:.1f}"),
    ("erase CPU time median / max, ms", ("erase_cpu_median_ms", "erase_cpu_max_ms"), "{:.1f}"),
    ("-wal before an erase, max, MB", "erase_wal_max_mb", "{:.1f}"),
    ("notes erased per person", "erased_each", "{:.0f}"),
)


def table(results: list[dict[str, Any]], queries: int) -> str:
    head = [f"{r['people']:,} x {r['per']:,}" for r in results]
    lines = [
        f"### many people: a random person's recall ({queries} queries)",
        "",
        "| | " + " | ".join(head) + " |",
        "|---|" + "---|" * len(head),
    ]
    for label, key, fmt in ROWS:
        keys = key if isinstance(key, tuple) else (key,)
        cells = [" / ".join(fmt.format(r[k]) for k in keys) for r in results]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
