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
person's languages), the file's size per note, and the erase of a few people (each `Mneme.erase`, down to
the bytes: secure delete and a truncating checkpoint).
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import statistics
import time
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
        try:
            Mneme(building, space="bench", max_notes=CAP).close()
        except Exception as err:  # a newer schema's file: build this one anew
            log(f"  {older.name} cannot be migrated here ({err}); building anew")
            continue
        log(f"  migrated a copy of {older.name}")
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
    out: dict[str, Any] = {"people": people, "per": per, "notes": people * per}
    out["db_mb"] = os.path.getsize(db) / 2**20
    out["bytes_per_note"] = os.path.getsize(db) / (people * per)
    rng = random.Random(seed)
    asked = {lang: make_queries(lang, 200, seed=seed) for lang in LANGS}

    def pick() -> tuple[str, str]:
        return subject(rng.randrange(people)), rng.choice(asked[rng.choice(LANGS)])

    began = time.perf_counter()
    m = Mneme(db, space="bench", max_notes=CAP)
    out["open_ms"] = (time.perf_counter() - began) * 1000
    try:
        who, query = pick()
        began = time.perf_counter()
        m.recall(who, query)
        out["first_recall_ms"] = (time.perf_counter() - began) * 1000
        for verb, call in (("recall", m.recall), ("prompt", m.prompt)):
            times, matched = [], 0
            for _ in range(queries):
                who, query = pick()
                began = time.perf_counter()
                found = call(who, query)
                times.append(time.perf_counter() - began)
                if verb == "recall":
                    matched += any(item.why.startswith("matched") for item in found.chosen)
            out[f"{verb}_median_ms"], out[f"{verb}_p95_ms"] = _ms(times)
            if verb == "recall":
                out["matched"] = matched
        times, erased = [], 0
        for p in rng.sample(range(people), min(ERASED, people)):
            began = time.perf_counter()
            erased += m.erase(subject(p))
            times.append(time.perf_counter() - began)
        out["erase_median_ms"], out["erase_max_ms"] = statistics.median(times) * 1000, max(times) * 1000
        out["erased_each"] = erased / len(times)
    finally:
        m.close()
        for suffix in ("", "-wal", "-shm", "-turns"):
            Path(db + suffix).unlink(missing_ok=True)
    return out


ROWS = (
    ("notes", "notes", "{:,}"),
    ("DB file, MB", "db_mb", "{:,.1f}"),
    ("bytes per note", "bytes_per_note", "{:,.0f}"),
    ("open, ms", "open_ms", "{:.1f}"),
    ("first recall after open, ms", "first_recall_ms", "{:.1f}"),
    ("recall median / p95, ms", ("recall_median_ms", "recall_p95_ms"), "{:.2f}"),
    ("prompt median / p95, ms", ("prompt_median_ms", "prompt_p95_ms"), "{:.2f}"),
    ("recalls with a matched note", "matched", "{}"),
    ("erase of a person median / max, ms", ("erase_median_ms", "erase_max_ms"), "{:.1f}"),
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
