"""What reliability costs: write rate, WAL size, erase and purge latency, and writers under contention.

    python benchmarks/reliability.py                       # this checkout, 3 runs
    python benchmarks/reliability.py --runs 5 --contention 20 --json out.json
    PYTHONPATH=/a/copy/of/another/commit python benchmarks/reliability.py   # the same for another version

Each run starts from a new temporary folder (on the same disk as the system's temporary files) and measures:

- write: 4,000 `remember()` calls, en notes of `notes.py`, 200 for each of 20 people; notes/s, and the size
  of the `-wal` and the `.db` right after, the file still open (what a running bot leaves on disk);
- concurrent: the same 4,000 notes into a new file through `asyncio.gather` over batches of 64 `aremember()`
  calls, timed until `aclose()`;
- erase: `erase()` of 10 of the 20 people, one by one, the file still open: ms each;
- purge: 50 of one person's notes forgotten, then `purge()` of that person: ms;
- contention (`--contention S`, 0 to skip): 4 processes, each with 8 coroutines calling `aremember()` in a
  loop on one file for S seconds: writes done, latency p50/p99/max, and writes that raised.

The table shows the median over runs (min-max in brackets). Nothing here asserts: the numbers go in the
issue's closing note, before and after a change, measured on the same machine the same day.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import tempfile
import time
from pathlib import Path

try:
    from notes import make_notes
except ImportError:  # imported as benchmarks.reliability
    from benchmarks.notes import make_notes

PEOPLE = 20
EACH = 200
ERASED = 10
BATCH = 64
MB = 1024 * 1024
NOW = 1_709_294_400.0


def _notes() -> list[tuple[str, dict]]:
    notes = list(make_notes("en", PEOPLE * EACH, seed=1, now=NOW))
    return [(f"person:{i % PEOPLE}", note) for i, note in enumerate(notes)]


def _sizes(db: Path) -> tuple[float, float]:
    wal = db.with_name(db.name + "-wal")
    return db.stat().st_size / MB, (wal.stat().st_size / MB if wal.exists() else 0.0)


def write_run(folder: Path, notes: list[tuple[str, dict]]) -> dict:
    from mneme_core import Mneme

    db = folder / "write.db"
    m = Mneme(db, space="bench", clock=lambda: NOW)
    try:
        start = time.perf_counter()
        for subject, note in notes:
            m.remember(subject, **note)
        took = time.perf_counter() - start
        db_mb, wal_mb = _sizes(db)
        erase_ms = []
        for i in range(ERASED):
            start = time.perf_counter()
            m.erase(f"person:{i}")
            erase_ms.append((time.perf_counter() - start) * 1000)
        kept = m.notes(f"person:{ERASED}")[:50]
        for note in kept:
            m.forget(f"person:{ERASED}", id=note.id)
        start = time.perf_counter()
        m.purge(f"person:{ERASED}")
        purge_ms = (time.perf_counter() - start) * 1000
    finally:
        m.close()
    return {
        "write notes/s": len(notes) / took,
        "-wal after 4,000 notes, MB": wal_mb,
        ".db after 4,000 notes, MB": db_mb,
        "erase median, ms": statistics.median(erase_ms),
        "erase max, ms": max(erase_ms),
        "purge of 50 notes, ms": purge_ms,
    }


async def _concurrent(db: Path, notes: list[tuple[str, dict]]) -> float:
    from mneme_core import Mneme

    m = Mneme(db, space="bench", clock=lambda: NOW)
    start = time.perf_counter()
    try:
        for i in range(0, len(notes), BATCH):
            await asyncio.gather(*(m.aremember(s, **note) for s, note in notes[i : i + BATCH]))
    finally:
        await m.aclose()
    return len(notes) / (time.perf_counter() - start)


def _contender(db: str, seconds: float, n: int, start_at: float, out) -> None:
    from mneme_core import Mneme

    async def main() -> tuple[list[float], int]:
        m = Mneme(db, space="bench")
        latencies: list[float] = []
        errors = 0
        await asyncio.sleep(max(0.0, start_at - time.time()))
        end = time.monotonic() + seconds

        async def loop(k: int) -> None:
            nonlocal errors
            i = 0
            while time.monotonic() < end:
                t = time.perf_counter()
                try:
                    await m.aremember(f"w{n}.{k}", f"note {i} of writer {n}.{k} about the garden and the cat")
                    latencies.append(time.perf_counter() - t)
                except Exception:  # a benchmark's boundary: counted, not hidden
                    errors += 1
                i += 1

        try:
            await asyncio.gather(*(loop(k) for k in range(8)))
        finally:
            await m.aclose()
        return latencies, errors

    out.put(asyncio.run(main()))


def contention_run(folder: Path, seconds: float, processes: int = 4) -> dict:
    from mneme_core import Mneme

    db = folder / "contended.db"
    Mneme(db, space="bench").close()
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    start_at = time.time() + 3.0  # every process imported and opened before the clock starts
    workers = [
        ctx.Process(target=_contender, args=(str(db), seconds, n, start_at, out)) for n in range(processes)
    ]
    for w in workers:
        w.start()
    results = [out.get(timeout=seconds + 120) for _ in workers]
    for w in workers:
        w.join()
    latencies = sorted(x for lat, _ in results for x in lat)
    errors = sum(e for _, e in results)

    def at(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000

    wal_mb = _sizes(db)[1]
    return {
        "contention: writes": len(latencies),
        "contention: writes/s": len(latencies) / seconds,
        "contention: p50, ms": at(0.50),
        "contention: p99, ms": at(0.99),
        "contention: max, ms": latencies[-1] * 1000,
        "contention: errors": errors,
        "contention: -wal after, MB": wal_mb,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--contention", type=float, default=10.0, help="seconds of 4-process writing (0: skip)")
    p.add_argument("--json", metavar="OUT", help="also write the raw results to OUT")
    args = p.parse_args()
    import mneme_core

    notes = _notes()
    runs = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="mneme-rel-") as folder:
            found = write_run(Path(folder), notes)
            found["concurrent aremember notes/s"] = asyncio.run(_concurrent(Path(folder) / "c.db", notes))
            runs.append(found)
    if args.contention > 0:
        with tempfile.TemporaryDirectory(prefix="mneme-rel-") as folder:
            runs[0].update(contention_run(Path(folder), args.contention))
    print(f"mneme_core from {Path(mneme_core.__file__).parent}, {args.runs} runs, {os.cpu_count()} cores\n")
    print("| measure | median [min-max] |\n| --- | --- |")
    for key in runs[0]:
        values = [r[key] for r in runs if key in r]
        fmt = "{:,.0f}" if max(values) >= 100 else "{:.2f}"
        spread = f" [{fmt.format(min(values))}-{fmt.format(max(values))}]" if len(values) > 1 else ""
        print(f"| {key} | {fmt.format(statistics.median(values))}{spread} |")
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=2))


if __name__ == "__main__":
    main()
