"""Insert and recall benchmark: mneme_core (ours) against the reference mneme-llm 0.1.0, en and zh.

For each engine, language and size N, a worker process (ours: this python; the reference: the python of its
own venv, importing only `mneme_llm` and `notes.py`) starts from a new SQLite file and measures:

- insert: N `remember()` calls for one subject ("discord:42"); wall notes/s averaged over 0→N and over the
  last 10 % (only the calls are timed: notes are generated in chunks outside the clock);
- ours only, if `Mneme.aremember` exists: the first 10 % of the notes again into another file, with
  `asyncio.gather` over batches of 64 `aremember()` calls, timed until close (the pipelined rate);
- after close and reopen: the open time, the first `recall()` on the file (the reference rebuilds its term
  index there), then `--queries` queries through `recall(subject, q)` (default log=True) and the same ones
  through `prompt(subject, q, user_name="Leo")`: median and p95 wall ms (`perf_counter`). "Matched" counts
  the recall queries whose chosen notes include one whose `why` starts with "matched"; then as many
  `prompt(subject, "")` calls, a session's start with no query (and how many notes that block shows);
- the DB file size after `close()` (and the -wal file if one is left), and the worker's peak RSS (ru_maxrss).

Notes and queries come from `notes.py` (the same for both engines; see its docstring). The reference runs
with `luna=False, embed=False, micro=False, meaning_micro=False, memory_language=None` and
`memory.max_notes` raised to 200,000 (ours: `max_notes=200_000`), so every note stays live. Output: one
markdown table per language; "ratio" = reference/ours for times, sizes and RSS and ours/reference for insert
rates, so > 1 means ours is better.

    python benchmarks/recall.py --install-reference   # once: venv + mneme-llm==0.1.0 in ~/.cache/mneme-bench
    python benchmarks/recall.py                       # 1k and 10k notes, en and zh, both engines
    python benchmarks/recall.py --sizes 100000 --lang zh --engines mneme --json zh100k.json
    python benchmarks/recall.py --people 1x100000,10000x300   # ours only: a big bot's file (see people.py)
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import platform
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    import people as many
    from notes import make_notes, make_queries
except ImportError:  # imported as benchmarks.recall
    from benchmarks import people as many
    from benchmarks.notes import make_notes, make_queries

SUBJECT = "discord:42"
MARK = "@@mneme-bench@@ "
ROOT = Path(__file__).resolve().parent.parent
MODULES = {"mneme": "mneme_core", "reference": "mneme_llm"}
CAP = 200_000
ASYNC_BATCH = 64
MB = 1024 * 1024

# (label, result key, format, ratio): "less" = reference/ours (smaller is better), "more" = ours/reference.
ROWS = (
    ("insert, notes/s (avg 0→N)", "insert_rate", "{:,.0f}", "more"),
    ("insert, notes/s (last 10 %)", "insert_rate_tail", "{:,.0f}", "more"),
    ("insert, concurrent aremember, notes/s", "aremember_rate", "{:,.0f}", "more"),
    ("open after reopen, ms", "open_ms", "{:.1f}", "less"),
    ("first recall after open, ms", "first_recall_ms", "{:.1f}", "less"),
    ("recall median, ms", "recall_median_ms", "{:.2f}", "less"),
    ("recall p95, ms", "recall_p95_ms", "{:.2f}", "less"),
    ("prompt median, ms", "prompt_median_ms", "{:.2f}", "less"),
    ("prompt p95, ms", "prompt_p95_ms", "{:.2f}", "less"),
    ("prompt with no query (session start) median, ms", "start_median_ms", "{:.2f}", "less"),
    ("prompt with no query p95, ms", "start_p95_ms", "{:.2f}", "less"),
    ("notes in the block with no query", "start_notes", "{}", None),
    ("queries with a matched note", "matched", "{}", None),
    ("DB file after close, MB", "db_mb", "{:.2f}", "less"),
    ("-wal left after close, MB", "wal_mb", "{:.2f}", None),
    ("peak RSS, MB", "rss_mb", "{:.1f}", "less"),
)


# ----------------------------------------------------------------------------------------------- worker side


def open_engine(engine: str, db: str):
    if engine == "reference":
        from mneme_llm import Mneme

        return Mneme(
            db,
            space="bench",
            luna=False,
            embed=False,
            micro=False,
            meaning_micro=False,
            memory_language=None,
            config={"memory": {"max_notes": CAP}},
        )
    from mneme_core import Mneme

    return Mneme(db, space="bench", max_notes=CAP)


def fresh(db: str) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(db + suffix).unlink(missing_ok=True)


def ms_stats(times: list[float]) -> tuple[float, float]:
    """Median and nearest-rank p95 of `times` (seconds), in ms."""
    s = sorted(times)
    mid = len(s) // 2
    median = s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2
    return median * 1000, s[max(0, -(-len(s) * 95 // 100) - 1)] * 1000


def insert(m, lang: str, n: int, args) -> tuple[float, float]:
    """N remember() calls -> (total seconds, seconds of the last 10 %); notes are made outside the clock."""
    cut, step = n - n // 10, max(1, n // 100)
    edges = sorted({*range(0, n, step), cut, n})
    total = tail = 0.0
    for a, b in itertools.pairwise(edges):
        chunk = list(make_notes(lang, b, seed=args.seed, now=args.now, start=a))
        t = time.perf_counter()
        for note in chunk:
            m.remember(SUBJECT, **note)
        took = time.perf_counter() - t
        total += took
        tail += took if a >= cut else 0.0
    return total, tail


async def insert_async(engine: str, db: str, chunk: list[dict]) -> float:
    m = open_engine(engine, db)
    t = time.perf_counter()
    try:
        for i in range(0, len(chunk), ASYNC_BATCH):
            await asyncio.gather(*(m.aremember(SUBJECT, **note) for note in chunk[i : i + ASYNC_BATCH]))
    finally:
        if hasattr(m, "aclose"):
            await m.aclose()
        else:
            m.close()
    return time.perf_counter() - t


def work(args) -> dict:
    engine, lang, n = args.worker, args.lang, int(args.sizes)
    args.now = args.now or time.time()
    db = str(Path(args.workdir) / f"{engine}-{lang}-{n}.db")
    queries = make_queries(lang, args.queries, seed=args.seed)
    out = {
        "engine": engine,
        "lang": lang,
        "size": n,
        "queries": len(queries),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
    }
    fresh(db)
    m = open_engine(engine, db)
    total, tail = insert(m, lang, n, args)
    m.close()
    out.update(insert_s=total, insert_rate=n / total, insert_rate_tail=(n // 10) / tail if tail else None)

    t = time.perf_counter()
    m = open_engine(engine, db)
    out["open_ms"] = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    m.recall(SUBJECT, queries[0])
    out["first_recall_ms"] = (time.perf_counter() - t) * 1000
    times, matched = [], 0
    for q in queries:
        t = time.perf_counter()
        found = m.recall(SUBJECT, q)
        times.append(time.perf_counter() - t)
        matched += any(str(item.why).startswith("matched") for item in found.chosen)
    out["recall_median_ms"], out["recall_p95_ms"] = ms_stats(times)
    out["matched"] = matched
    times = []
    for q in queries:
        t = time.perf_counter()
        m.prompt(SUBJECT, q, user_name="Leo")
        times.append(time.perf_counter() - t)
    out["prompt_median_ms"], out["prompt_p95_ms"] = ms_stats(times)
    times, shown = [], 0
    for _q in queries:  # a session's start: no query (ours fills it with the overview)
        t = time.perf_counter()
        block = m.prompt(SUBJECT, "", user_name="Leo")
        times.append(time.perf_counter() - t)
        shown = max(shown, sum(line.startswith("- ") for line in block.splitlines()))
    out["start_median_ms"], out["start_p95_ms"] = ms_stats(times)
    out["start_notes"] = shown
    m.close()
    out["db_mb"] = os.path.getsize(db) / MB
    wal = Path(db + "-wal")
    out["wal_mb"] = wal.stat().st_size / MB if wal.exists() else 0.0
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux

    if engine == "mneme" and hasattr(type(m), "aremember"):
        chunk = list(make_notes(lang, max(1, n // 10), seed=args.seed, now=args.now))
        fresh(db + ".async")
        out["aremember_rate"] = len(chunk) / asyncio.run(insert_async(engine, db + ".async", chunk))
        fresh(db + ".async")
    return out


# ----------------------------------------------------------------------------------------------- driver side


def install_reference(venv: Path) -> None:
    print(f"creating {venv} and installing mneme-llm==0.1.0", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "mneme-llm==0.1.0"], check=True
    )


def engine_env(engine: str) -> dict:
    env = dict(os.environ)
    if engine == "mneme":  # ours may be run from a checkout that is not installed
        paths = [str(ROOT / "src"), str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p]
        env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def usable(engine: str, python: str) -> str | None:
    """None if the engine imports in its python, else why not."""
    if not Path(python).exists():
        return f"{python} not found (run with --install-reference)"
    probe = f"import {MODULES[engine]} as e; e.Mneme"
    proc = subprocess.run(
        [python, "-c", probe], check=False, env=engine_env(engine), capture_output=True, text=True
    )
    return None if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["import failed"])[-1]


def run_worker(engine: str, python: str, lang: str, size: int, args, workdir: str, now: float) -> dict:
    flags = {
        "--worker": engine,
        "--lang": lang,
        "--sizes": size,
        "--queries": args.queries,
        "--seed": args.seed,
        "--workdir": workdir,
        "--now": repr(now),
    }
    cmd = [python, str(Path(__file__).resolve()), *(str(x) for pair in flags.items() for x in pair)]
    print(f"· {engine} {lang} {size:,} …", file=sys.stderr, flush=True)
    t = time.perf_counter()
    proc = subprocess.run(cmd, check=False, env=engine_env(engine), stdout=subprocess.PIPE, text=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(MARK)]
    if proc.returncode or not lines:
        print(f"  {engine} {lang} {size:,} failed (exit {proc.returncode})", file=sys.stderr)
        return {"engine": engine, "lang": lang, "size": size, "error": f"exit {proc.returncode}"}
    print(f"  done in {time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)
    return json.loads(lines[-1][len(MARK) :])


def cell(result: dict | None, key: str, fmt: str) -> str:
    if result is None:
        return "—"
    if "error" in result:
        return "failed"
    value = result.get(key)
    if value is None:
        return "—"
    return f"{value}/{result['queries']}" if key == "matched" else fmt.format(value)


def ratio(ours: dict | None, ref: dict | None, key: str, kind: str | None) -> str:
    if not kind or not ours or not ref or "error" in ours or "error" in ref:
        return "—"
    a, b = ours.get(key), ref.get(key)
    if not a or not b:
        return "—"
    return f"{(a / b if kind == 'more' else b / a):.2f}×"


def table(lang: str, sizes: list[int], engines: list[str], results: list[dict]) -> str:
    got = {(r["engine"], r["size"]): r for r in results if r["lang"] == lang}
    head, cols = ["metric"], []
    for size in sizes:
        ran = [e for e in engines if (e, size) in got]
        cols += [(e, size) for e in ran]
        head += [f"{'ours' if e == 'mneme' else 'reference'} {size:,}" for e in ran]
        if len(ran) == 2:
            cols.append(("ratio", size))
            head.append(f"ratio {size:,}")
    lines = [f"### {lang}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, key, fmt, kind in ROWS:
        row = [label]
        for engine, size in cols:
            if engine == "ratio":
                row.append(ratio(got.get(("mneme", size)), got.get(("reference", size)), key, kind))
            else:
                row.append(cell(got.get((engine, size)), key, fmt))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog="See the module docstring for details."
    )
    p.add_argument(
        "--sizes", default="1000,10000", help="comma-separated note counts (the targets are at 100000)"
    )
    p.add_argument("--lang", default="en,zh", help="en, zh or both (comma-separated)")
    p.add_argument("--engines", default="mneme,reference", help="mneme (ours), reference, or both")
    p.add_argument("--queries", type=int, default=200, help="queries per run (default 200)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workdir", help="where the DB files go (default: a temporary directory, removed after)")
    p.add_argument(
        "--reference-venv", default="~/.cache/mneme-bench/ref-venv", help="venv with mneme-llm 0.1.0"
    )
    p.add_argument(
        "--install-reference", action="store_true", help="create that venv and pip-install mneme-llm"
    )
    p.add_argument("--json", metavar="OUT", help="also write the raw results to OUT")
    p.add_argument(
        "--people",
        help="ours only: PxN files (P people x N notes, comma-separated; N is 300 if omitted), see people.py",
    )
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--now", type=float, help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.worker:  # one measurement; JSON on the last marked stdout line
        print(MARK + json.dumps(work(args)), flush=True)
        return 0

    if args.people:
        return run_people(args)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    langs = [s.strip() for s in args.lang.split(",") if s.strip()]
    wanted = [s.strip() for s in args.engines.split(",") if s.strip()]
    if bad := [e for e in wanted if e not in MODULES] + [x for x in langs if x not in ("en", "zh")]:
        p.error(f"unknown engine or language: {', '.join(bad)}")
    venv = Path(args.reference_venv).expanduser()
    if args.install_reference and not (venv / "bin" / "python").exists():
        install_reference(venv)
    pythons = {"mneme": sys.executable, "reference": str(venv / "bin" / "python")}
    engines = []
    for engine in [e for e in MODULES if e in wanted]:  # ours first
        why = usable(engine, pythons[engine])
        if why:
            print(f"NOTE: skipping {engine} ({MODULES[engine]}): {why}", file=sys.stderr)
        else:
            engines.append(engine)

    workdir = args.workdir or tempfile.mkdtemp(prefix="mneme-bench-")
    Path(workdir).mkdir(parents=True, exist_ok=True)
    now, results = time.time(), []
    try:
        for lang in langs:
            for size in sizes:
                for engine in engines:
                    results.append(run_worker(engine, pythons[engine], lang, size, args, workdir, now))
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)

    load = os.getloadavg()
    print(
        f"\n## recall benchmark: python {platform.python_version()}, sqlite {sqlite3.sqlite_version}, "
        f"{os.cpu_count()} CPUs, load {load[0]:.2f}, {args.queries} queries, seed {args.seed}"
    )
    if not engines:
        print("\n(no engine could run: see the notes above)")
    for lang in langs if engines else []:
        print("\n" + table(lang, sizes, engines, results))
    if args.json:
        meta = {"argv": sys.argv[1:], "now": now, "cpus": os.cpu_count(), "load": load}
        Path(args.json).write_text(
            json.dumps({"meta": meta, "results": results}, indent=1, ensure_ascii=False)
        )
    return 0


def run_people(args) -> int:
    """`--people`: the many-people files of `people.py`, in this process (ours only)."""
    specs = [(s.strip() + "x300").split("x")[:2] for s in args.people.split(",") if s.strip()]
    workdir = args.workdir or tempfile.mkdtemp(prefix="mneme-bench-")
    Path(workdir).mkdir(parents=True, exist_ok=True)
    try:
        results = [
            many.measure(int(p), int(n), queries=args.queries, seed=args.seed, workdir=workdir)
            for p, n in specs
        ]
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    load = os.getloadavg()
    print(f"\n## python {platform.python_version()}, sqlite {sqlite3.sqlite_version}, load {load[0]:.2f}")
    print("\n" + many.table(results, args.queries))
    if args.json:
        Path(args.json).write_text(
            json.dumps({"argv": sys.argv[1:], "load": load, "results": results}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
