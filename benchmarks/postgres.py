"""PostgreSQL beside SQLite (and the reference): recall at size, and many writers at once.

1. Recall: one person with N notes (`notes.py`, the same notes as `recall.py`), brought into a new SQLite file
   by one `import_data`, and its rows copied into a new PostgreSQL schema (`copied`: the same notes and term
   index on both; an import on a server pays a round trip per statement, and 100,000 notes took longer than
   20 minutes on a loaded machine); then `--queries` recalls, median and p95 wall ms. The reference
   (mneme-llm 0.1.0, its own venv, see `recall.py --install-reference`) runs its own worker from `recall.py`
   at the same sizes, on SQLite.
2. Writers: `--procs` processes x `--tasks` asyncio tasks, each task its own person, for `--seconds`: a
   turn is `aremember` then `arecall` of the same person. Turns per second (all processes), p50/p99 turn
   latency, lost writes (acknowledged notes missing afterwards: must be 0), and leaks (a recall that showed
   another person's note: must be 0).

3. Vector recall (`--vectors`): the same person's notes with a vector each (256 dimensions from a fixed
   hash embedder, no model: the search is measured, not a model), recalled on the SQLite file (a matrix in
   memory), on PostgreSQL keeping arrays (the same matrix, read from the server once) and on PostgreSQL
   with pgvector (the server computes every similarity at each recall: `store.postgres.vectors`). The
   pgvector server is the pgserver wheel's PostgreSQL 16 (`--pgvector-url` to use another).

A PostgreSQL server is needed: `--url postgresql://...`, or one is started for the run as the tests do
(`tests/pgserver.py`: Debian's PostgreSQL 15, fsync off, on loopback) and stopped at the end. The machine is
whatever runs it: quote medians and ratios, and say how loaded it was.

    python benchmarks/postgres.py                          # 10k and 100k recall, 4 x 8 writers for 60 s
    python benchmarks/postgres.py --sizes 10000 --seconds 20 --no-reference
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The benchmarks are imported as a package from the checkout's root (as the tests do).
# tests/pgserver.py, the tests' throwaway server, ahead of the installed pgserver wheel of the same name.
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from urllib.parse import quote  # noqa: E402

from benchmarks.notes import make_notes, make_queries  # noqa: E402
from benchmarks.recall import ms_stats, run_worker, usable  # noqa: E402

SUBJECT = "discord:42"
SPACE = "bench"
REFERENCE_PYTHON = Path.home() / ".cache" / "mneme-bench" / "ref-venv" / "bin" / "python"


MADE: list[str] = []


def new_schema(base: str) -> str:
    """A new, empty schema on the server, as a URL (dropped by `drop_schemas`)."""
    import psycopg

    name = f"bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"create schema {name}")
    MADE.append(name)
    return f"{base}{'&' if '?' in base else '?'}options={quote(f'-csearch_path={name}')}"


def drop_schemas(base: str) -> None:
    """The schemas this run made (another run on the same server keeps its own)."""
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:
        for name in MADE:
            conn.execute(f"drop schema if exists {name} cascade")


# -- 1. recall at size ---------------------------------------------------------------------------------------


def export_of(n: int, now: float) -> dict:
    notes = []
    for i, note in enumerate(make_notes("en", n, seed=1, now=now)):
        notes.append({"id": i + 1, "subject": SUBJECT, "created_at": now - (n - i), **note})
    return {"mneme_bots": 1, "space": SPACE, "notes": notes}


def recall_on(location: str, n: int, queries: list[str], now: float, copy_of: str | None = None) -> dict:
    """Fill `location` (an import, or with `copy_of` a copy of that file's rows), then time the recalls."""
    from mneme_core import Mneme

    t = time.perf_counter()
    if copy_of is None:
        with Mneme(location, space=SPACE, max_notes=200_000, clock=lambda: now) as m:
            added = m.import_data(export_of(n, now))
    else:
        added = copied(copy_of, location)
    filled = time.perf_counter() - t
    with Mneme(location, space=SPACE, max_notes=200_000, clock=lambda: now) as m:
        m.recall(SUBJECT, queries[0], log=False)
        times = []
        for q in queries:
            t = time.perf_counter()
            m.recall(SUBJECT, q, log=False)
            times.append(time.perf_counter() - t)
    median, p95 = ms_stats(times)
    return {"notes": added, "fill_s": filled, "median_ms": median, "p95_ms": p95}


DIMS = 256


def hashed(texts: list[str]) -> list[list[float]]:
    """A fixed embedder: each text's vector drawn from its hash (the search's cost, not a model's)."""
    import hashlib

    import numpy as np

    out = []
    for text in texts:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
        out.append(np.random.default_rng(seed).normal(size=DIMS).tolist())
    return out


def embedded(location: str, n: int, now: float) -> int:
    """The file's notes given their vectors (with the embedder's floor stated: nothing measured)."""
    from mneme_core import Mneme
    from mneme_core.meaning import Embeddings

    embed = Embeddings(hashed, name="hashed", floor=0.1, batch=2000)
    with Mneme(location, space=SPACE, max_notes=200_000, clock=lambda: now, embed=embed) as m:
        return m.embed_pending()


def vector_recall_on(location: str, queries: list[str], now: float) -> dict:
    from mneme_core import Mneme
    from mneme_core.meaning import Embeddings

    embed = Embeddings(hashed, name="hashed", floor=0.1)
    with Mneme(location, space=SPACE, max_notes=200_000, clock=lambda: now, embed=embed) as m:
        t = time.perf_counter()
        first = m.recall(SUBJECT, queries[0], log=False)
        opened = time.perf_counter() - t
        assert first.tier == "embeddings", first.tier
        times, cpu = [], []
        for q in queries:
            t, c = time.perf_counter(), time.process_time()
            m.recall(SUBJECT, q, log=False)
            times.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
        path = getattr(getattr(m.store, "kept", None), "path", "arrays")
    median, p95 = ms_stats(times)
    return {
        "median_ms": median,
        "p95_ms": p95,
        "cpu_ms": ms_stats(cpu)[0],
        "first_ms": opened * 1000,
        "path": path,
    }


def copied(source: str, target: str) -> int:
    """Every row of the SQLite file `source` copied into the new PostgreSQL schema `target` (migrated
    first): the same notes and the same term index, by COPY, with the triggers off (the rows are copied as
    they are). An import on a server pays a round trip per statement, some ten a note: 100,000 notes took
    longer than 20 minutes on the loaded 2-core machine. Returns the notes copied."""
    import sqlite3

    import psycopg

    from mneme_core import Mneme

    Mneme(target, space=SPACE).close()
    src = sqlite3.connect(source)
    try:
        with psycopg.connect(target) as dst:
            dst.execute("set session_replication_role = replica")
            tables = [
                t
                for (t,) in dst.execute(
                    "select table_name from information_schema.tables "
                    "where table_schema = current_schema() and table_type = 'BASE TABLE'"
                )
            ]
            for table in tables:
                have = {row[1] for row in src.execute(f"pragma table_info({table})")}
                cols = [
                    c
                    for (c,) in dst.execute(
                        "select column_name from information_schema.columns where table_schema = "
                        "current_schema() and table_name = %s order by ordinal_position",
                        (table,),
                    )
                    if c in have
                ]
                if not cols or table == "migrations":
                    continue
                dst.execute(f"delete from {table}")
                names = ", ".join(cols)
                kinds = dict(
                    dst.execute(
                        "select column_name, udt_name from information_schema.columns where table_schema = "
                        "current_schema() and table_name = %s",
                        (table,),
                    ).fetchall()
                )
                at = cols.index("vector") if kinds.get("vector") == "vector" else None
                with dst.cursor().copy(f"copy {table} ({names}) from stdin") as copy:
                    for row in src.execute(f"select {names} from {table}"):
                        if at is not None:  # pgvector's column takes its text form
                            row = (*row[:at], as_text(row[at]), *row[at + 1 :])
                        copy.write_row(row)
                found = (
                    dst.execute("select pg_get_serial_sequence(%s, 'id')", (table,)) if "id" in cols else None
                )
                sequence = found.fetchone()[0] if found else None
                if sequence:  # identities go on after the copied ids
                    dst.execute(
                        f"select setval('{sequence}', (select coalesce(max(id), 0) + 1 from {table}), false)"
                    )
            dst.commit()
            dst.autocommit = True
            dst.execute("analyze")  # the planner's statistics, as autovacuum would gather them in time
            (count,) = dst.execute("select count(*) from notes").fetchone()
    finally:
        src.close()
    return count


def as_text(blob: bytes) -> str:
    import numpy as np

    return "[" + ",".join(repr(float(x)) for x in np.frombuffer(blob, dtype="<f4")) + "]"


def reference_recall(n: int, queries: int, workdir: str, now: float) -> dict | None:
    why = usable("reference", str(REFERENCE_PYTHON))
    if why is not None:
        print(f"  the reference is left out: {why}", file=sys.stderr)
        return None
    args = argparse.Namespace(queries=queries, seed=1)
    found = run_worker("reference", str(REFERENCE_PYTHON), "en", n, args, workdir, now)
    if "error" in found:
        return None
    return {"median_ms": found["recall_median_ms"], "p95_ms": found["recall_p95_ms"]}


# -- 2. many writers ----------------------------------------------------------------------------------------

WRITER = """
import asyncio, json, sys, time
from mneme_core import Mneme

location, proc, tasks, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])

async def main():
    m = Mneme(location, space="bench", max_notes=200_000)
    print("ready", flush=True)
    sys.stdin.readline()
    deadline = time.monotonic() + seconds
    latencies, acknowledged, leaks = [], [], 0

    async def task(t):
        nonlocal leaks
        person, i = f"p{proc}-{t}", 0
        while time.monotonic() < deadline:
            start = time.perf_counter()
            note = await m.aremember(person, f"{person} said thing number {i} about gardens")
            found = await m.arecall(person, f"thing number {i} gardens", log=False)
            latencies.append(time.perf_counter() - start)
            acknowledged.append([person, note.id])
            leaks += sum(not n.text.startswith(person + " ") for n in found.notes)
            i += 1

    await asyncio.gather(*(task(t) for t in range(tasks)))
    await m.aclose()
    print(json.dumps({"latencies": latencies, "acknowledged": acknowledged, "leaks": leaks}), flush=True)

asyncio.run(main())
"""


def writers_on(location: str, procs: int, tasks: int, seconds: float) -> dict:
    from mneme_core import Mneme

    Mneme(location, space=SPACE).close()  # made and migrated before the writers start
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    started = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, location, str(p), str(tasks), str(seconds)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for p in range(procs)
    ]
    for proc in started:
        assert proc.stdout.readline() == "ready\n"
    t = time.perf_counter()
    for proc in started:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    outs = [json.loads(proc.communicate(timeout=seconds + 300)[0].splitlines()[-1]) for proc in started]
    wall = time.perf_counter() - t
    latencies = sorted(x for out in outs for x in out["latencies"])
    acknowledged = [(person, note_id) for out in outs for person, note_id in out["acknowledged"]]
    with Mneme(location, space=SPACE, max_notes=200_000) as m:
        kept = {(person, n.id) for person in {p for p, _ in acknowledged} for n in m.notes(person)}
    lost = sum((person, note_id) not in kept for person, note_id in acknowledged)

    def quantile(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000

    return {
        "turns": len(latencies),
        "turns_per_s": len(latencies) / wall,
        "p50_ms": quantile(0.50),
        "p99_ms": quantile(0.99),
        "lost": lost,
        "leaks": sum(out["leaks"] for out in outs),
    }


# -- the run ------------------------------------------------------------------------------------------------


def sizes(args: argparse.Namespace) -> list[int]:
    return [int(s) for s in args.sizes.split(",") if s]


def begun(args: argparse.Namespace, *tables: str) -> tuple[dict, float, list[str]]:
    """What a run records (the load before it and a table per measure), its clock and its queries."""
    found: dict = {"load_before": os.getloadavg(), **{table: {} for table in tables}}
    return found, time.time(), make_queries("en", args.queries, seed=1)


def files(args: argparse.Namespace, work: str) -> list[tuple[int, str]]:
    """(notes, the file for that size) for each size asked."""
    return [(n, str(Path(work) / f"{n}.db")) for n in sizes(args)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a PostgreSQL server to use (default: start one for the run)")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--procs", type=int, default=4)
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--json", default=None)
    parser.add_argument("--vectors", action="store_true", help="vector recall only (3.), on three backends")
    parser.add_argument("--index", action="store_true", help="the exact pgvector search beside an HNSW index")
    parser.add_argument(
        "--pgvector-url", help="a PostgreSQL server with pgvector (default: the pgserver wheel's)"
    )
    args = parser.parse_args()
    if args.vectors:
        return vectors_main(args)
    if args.index:
        return index_main(args)

    folder = None
    base = args.url
    if base is None:
        import pgserver

        base, folder = pgserver.start()
    found, now, queries = begun(args, "recall", "writers")
    try:
        with tempfile.TemporaryDirectory(prefix="mneme-bench-") as work:
            for n, file in files(args, work):
                print(f"· recall, sqlite, {n:,} notes …", file=sys.stderr, flush=True)
                row = {"sqlite": recall_on(file, n, queries, now)}
                print(f"· recall, postgresql, {n:,} notes (the file's rows) …", file=sys.stderr, flush=True)
                row["postgresql"] = recall_on(new_schema(base), n, queries, now, copy_of=file)
                if not args.no_reference:
                    print(f"· recall, reference, {n:,} notes …", file=sys.stderr, flush=True)
                    row["reference"] = reference_recall(n, args.queries, work, now)
                found["recall"][n] = row
            for name, location in (
                ("sqlite", str(Path(work) / "writers.db")),
                ("postgresql", new_schema(base)),
            ):
                print(
                    f"· writers, {name}: {args.procs} x {args.tasks} for {args.seconds:g} s …",
                    file=sys.stderr,
                )
                found["writers"][name] = writers_on(location, args.procs, args.tasks, args.seconds)
    finally:
        drop_schemas(base)
        if folder is not None:
            pgserver.stop(folder)
    found["load_after"] = os.getloadavg()
    print(tables(found, args))
    if args.json:
        Path(args.json).write_text(json.dumps(found, indent=1))


def _fill(conn, matrix) -> tuple[int, int]:
    (sid,) = conn.execute(
        "insert into subjects(space, subject) values ('bench', 'p') returning id"
    ).fetchone()
    (eid,) = conn.execute(
        "insert into embedders(name, dimensions, created_at) values ('r', ?, 0) returning id", (DIMS,)
    ).fetchone()
    with conn.raw.cursor().copy("copy vectors (note_id, embedder_id, subject_id, vector) from stdin") as copy:
        for i, row in enumerate(matrix):
            copy.write_row((i + 1, eid, sid, as_text(row.tobytes())))
    return sid, eid


def _raw(conn, sql: str, params: tuple = ()) -> list:
    cursor = conn.raw.execute(sql, params)
    return cursor.fetchall() if cursor.description else []


def index_main(args: argparse.Namespace) -> None:
    """Would an approximate index pay? One person's N vectors on the pgvector server: the exact search
    recall runs (every centred similarity, `ServerVectors.similar`) beside an HNSW index's 10 nearest by
    plain cosine (its build time, query time, and how many of the exact search's 10 best it finds)."""
    import numpy as np
    import pgserver

    from mneme_core.store import open_store

    started = []
    pgv = args.pgvector_url
    if pgv is None:
        pgv, folder = pgserver.start(pgserver.BUNDLED)
        started.append(folder)
    rng = np.random.default_rng(1)
    print(
        "| vectors | exact scan median / p95 ms | HNSW build | HNSW 10 nearest median / p95 ms "
        "| found of the 10 best |"
    )
    print("|---|---|---|---|---|")
    try:
        for n in sizes(args):
            store = open_store(new_schema(pgv))
            matrix = rng.normal(size=(n, DIMS)).astype(np.float32)
            matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
            sid, eid = store.write(_fill, matrix)
            store.write(_raw, "analyze vectors")
            index = store.vector_index(DIMS)
            schema = index.kept.schema
            queries = rng.normal(size=(args.queries, DIMS)).astype(np.float32)
            queries /= np.linalg.norm(queries, axis=1, keepdims=True)
            exact, best = [], []
            for q in queries:
                t = time.perf_counter()
                ids, sims, _floor = store.read(index.similar, eid, sid, q, 0.1)
                exact.append(time.perf_counter() - t)
                best.append(set(ids[np.argsort(-sims)[:10]].tolist()))
            typed = f"{schema}.vector({DIMS})"
            t = time.perf_counter()
            store.write(
                _raw,
                f"create index vectors_hnsw on vectors using hnsw "
                f"((vector::{typed}) {schema}.vector_cosine_ops)",
            )
            built = time.perf_counter() - t
            sql = (
                f"select note_id from vectors where embedder_id = %s and subject_id = %s "
                f"order by vector::{typed} {index.kept.op('<=>')} %s::{typed} limit 10"
            )
            near, found = [], 0
            for q, want in zip(queries, best, strict=True):
                literal = "[" + ",".join(repr(float(x)) for x in q) + "]"
                t = time.perf_counter()
                got = store.read(_raw, sql, (eid, sid, literal))
                near.append(time.perf_counter() - t)
                found += len(want & {r[0] for r in got})
            store.close()
            e, h = ms_stats(exact), ms_stats(near)
            print(
                f"| {n:,} | {e[0]:.1f} / {e[1]:.1f} | {built:.1f} s | {h[0]:.2f} / {h[1]:.2f} "
                f"| {found / (10 * len(queries)):.2f} |",
                flush=True,
            )
    finally:
        drop_schemas(pgv)
        for folder in started:
            pgserver.stop(folder)


def vectors_main(args: argparse.Namespace) -> None:
    import pgserver

    started = []
    base, pgv = args.url, args.pgvector_url
    if base is None:
        base, folder = pgserver.start()
        started.append(folder)
    if pgv is None:
        pgv, folder = pgserver.start(pgserver.BUNDLED)
        started.append(folder)
    found, now, queries = begun(args, "vectors")
    try:
        with tempfile.TemporaryDirectory(prefix="mneme-bench-") as work:
            for n, file in files(args, work):
                print(f"· vectors, {n:,} notes: the file, embedded …", file=sys.stderr, flush=True)
                with __import__("mneme_core").Mneme(
                    file, space=SPACE, max_notes=200_000, clock=lambda: now
                ) as m:
                    m.import_data(export_of(n, now))
                t = time.perf_counter()
                made = embedded(file, n, now)
                row: dict = {"embedded": made, "embed_s": time.perf_counter() - t}
                row["sqlite"] = vector_recall_on(file, queries, now)
                for name, server in (("arrays", base), ("pgvector", pgv)):
                    print(f"· vectors, {n:,} notes: PostgreSQL {name} …", file=sys.stderr, flush=True)
                    target = new_schema(server)
                    t = time.perf_counter()
                    copied(file, target)
                    row[f"{name}_copy_s"] = time.perf_counter() - t
                    row[name] = vector_recall_on(target, queries, now)
                found["vectors"][n] = row
    finally:
        for server in {base, pgv}:
            drop_schemas(server)
        for folder in started:
            pgserver.stop(folder)
    found["load_after"] = os.getloadavg()
    out = [
        f"load average {found['load_before'][0]:.1f} before, {found['load_after'][0]:.1f} after "
        f"({os.cpu_count()} cores); {args.queries} queries, {DIMS} dimensions, one person",
        "",
        "| notes | SQLite median / p95 ms | PG arrays median / p95 ms | PG pgvector median / p95 ms "
        "| CPU ms a recall (SQLite / arrays / pgvector, this process) | first recall ms (S / a / v) |",
        "|---|---|---|---|---|---|",
    ]
    for n, row in found["vectors"].items():
        s, a, v = row["sqlite"], row["arrays"], row["pgvector"]
        out.append(
            f"| {n:,} | {s['median_ms']:.2f} / {s['p95_ms']:.2f} | {a['median_ms']:.2f} / {a['p95_ms']:.2f} "
            f"| {v['median_ms']:.2f} / {v['p95_ms']:.2f} | {s['cpu_ms']:.2f} / {a['cpu_ms']:.2f} / "
            f"{v['cpu_ms']:.2f} | {s['first_ms']:.0f} / {a['first_ms']:.0f} / {v['first_ms']:.0f} |"
        )
    print("\n".join(out))
    if args.json:
        Path(args.json).write_text(json.dumps(found, indent=1))


def tables(found: dict, args: argparse.Namespace) -> str:
    out = [
        f"load average {found['load_before'][0]:.1f} before, {found['load_after'][0]:.1f} after "
        f"({os.cpu_count()} cores)",
        "",
        "| notes | SQLite median / p95 ms | PostgreSQL median / p95 ms | reference median / p95 ms "
        "| PG / SQLite (median) | reference / PG (median) |",
        "|---|---|---|---|---|---|",
    ]
    for n, row in found["recall"].items():
        s, p, r = row["sqlite"], row["postgresql"], row.get("reference")
        ref = f"{r['median_ms']:.2f} / {r['p95_ms']:.2f}" if r else "—"
        out.append(
            f"| {n:,} | {s['median_ms']:.2f} / {s['p95_ms']:.2f} | {p['median_ms']:.2f} / {p['p95_ms']:.2f} "
            f"| {ref} | {p['median_ms'] / s['median_ms']:.2f}x "
            f"| {(r['median_ms'] / p['median_ms']) if r else float('nan'):.2f}x |"
        )
    out += [
        "",
        f"{args.procs} processes x {args.tasks} tasks for {args.seconds:g} s (a turn: aremember + arecall):",
        "",
        "| backend | turns | turns/s | p50 ms | p99 ms | lost writes | leaks |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, w in found["writers"].items():
        out.append(
            f"| {name} | {w['turns']:,} | {w['turns_per_s']:.0f} | {w['p50_ms']:.1f} | {w['p99_ms']:.1f} "
            f"| {w['lost']} | {w['leaks']} |"
        )
    return "\n".join(out)


if __name__ == "__main__":
    main()
