"""The web API's latency: a companion that knows P people with N notes each, the routes the page calls,
timed through httpx's ASGI transport (the app's own work: routing, validation, the engine, JSON; no
socket). The reference mneme-llm has no web API, so there is no column for it.

    python benchmarks/web.py                       # 100 and 10,000 people, 20 notes each
    python benchmarks/web.py --people 1000 --notes 50 --rounds 50

Output: one markdown table per size, median and p95 milliseconds per route.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from notes import make_notes, make_queries

from mneme_core import Mneme
from mneme_core.memory import notes as note_store
from mneme_core.memory.note import NoteFields
from mneme_core.web import create_app


def fill(m: Mneme, people: int, per: int) -> str:
    """`people` people with `per` notes each, written in one transaction per person; returns one of them."""
    rules = note_store.Rules.of(m.settings)
    now = m.clock()
    for person in range(people):
        subject = f"discord:{person}"
        written = [NoteFields(**note) for note in make_notes("en", per, seed=person, now=now)]

        def write(conn, subject=subject, written=written):
            for fields in written:
                note_store.keep(conn, m.space, subject, fields, now, rules)

        m.store.write(write)
    return "discord:0"


async def timed(http: httpx.AsyncClient, path: str, params: dict, rounds: int) -> tuple[float, float]:
    took = []
    for _ in range(rounds):
        started = time.perf_counter()
        found = await http.get(path, params=params)
        took.append((time.perf_counter() - started) * 1000)
        assert found.status_code == 200, found.text
    took.sort()
    return statistics.median(took), took[int(0.95 * (len(took) - 1))]


async def measure(people: int, per: int, rounds: int) -> list[tuple[str, float, float]]:
    with tempfile.TemporaryDirectory() as folder:
        m = Mneme(Path(folder) / "web.db", space="bench", max_notes=200_000)
        subject = fill(m, people, per)
        m.relate(subject, "friend")
        query = make_queries("en", 1)[0]
        m.recall(subject, query)
        app = create_app(m)
        routes = [
            ("/api/people", {"limit": 50}),
            ("/api/people", {"q": "discord:99", "limit": 50}),
            ("/api/person", {"subject": subject}),
            ("/api/notes", {"subject": subject, "limit": 50}),
            ("/api/recall", {"subject": subject, "query": query}),
            ("/api/prompt", {"subject": subject, "query": query}),
            ("/api/mood", {"subject": subject}),
            ("/api/relationship", {"subject": subject}),
            ("/api/recalls", {"subject": subject}),
        ]
        found = []
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8766") as http:
            for path, params in routes:
                await http.get(path, params=params)  # warm
                median, p95 = await timed(http, path, params, rounds)
                label = path + ("?q=" if "q" in params else "")
                found.append((label, median, p95))
            started = time.perf_counter()
            assert (await http.get("/metrics")).status_code == 200
            found.append(("/metrics (once)", (time.perf_counter() - started) * 1000, float("nan")))
        m.close()
        return found


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--people", default="100,10000", help="Sizes, comma-separated.")
    parser.add_argument("--notes", type=int, default=20, help="Notes per person.")
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    for people in [int(p) for p in args.people.split(",")]:
        rows = asyncio.run(measure(people, args.notes, args.rounds))
        print(f"\n{people:,} people x {args.notes} notes ({args.rounds} calls a route)\n")
        print("| route | median ms | p95 ms |\n| --- | ---: | ---: |")
        for label, median, p95 in rows:
            print(f"| {label} | {median:.2f} | {p95:.2f} |")


if __name__ == "__main__":
    main()
