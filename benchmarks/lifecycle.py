"""What the lifecycle costs: recall with it on and off, and one tending run, at N notes for one person.

For each size, two files get the same notes (episodes over two years, one word of a small vocabulary shared
by many, so queries have strong matches) and the same logged recalls (one conversation a day for `DAYS`
days, so reinforcement and co-recall links form in the file with the lifecycle on; the other keeps none).
Then the same queries are timed on both, interleaved (on, off, on, off, ...), `log=False`, and the medians
and their ratio printed; then one `tend()` on the lifecycle's file (archiving what faded over two years).

    python -m benchmarks.lifecycle                  # 1000 and 10000 notes
    python -m benchmarks.lifecycle --sizes 2000 --queries 400
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from mneme_core import Mneme

DAY = 86400.0
WORDS = [
    "garden",
    "kitchen",
    "river",
    "bicycle",
    "violin",
    "market",
    "harbour",
    "library",
    "mountain",
    "winter",
    "coffee",
    "letter",
    "station",
    "theatre",
    "bakery",
    "forest",
    "island",
    "museum",
    "concert",
    "train",
]
DAYS = 60


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def fill(m: Mneme, clock: Clock, count: int, rng: random.Random) -> None:
    start = clock.now - 730 * DAY
    for i in range(count):
        a, b = rng.sample(WORDS, 2)
        when = start + 730 * DAY * i / count
        m.remember("p", f"went to the {a} near the {b}, day {i} token{i}", kind="episode", happened_at=when)


def converse(m: Mneme, clock: Clock, rng: random.Random) -> None:
    """A conversation a day for `DAYS` days, each with a few logged recalls."""
    start = clock.now
    for day in range(DAYS):
        clock.now = start - (DAYS - day) * DAY
        for _ in range(3):
            m.recall("p", " ".join(rng.sample(WORDS, 2)), conversation="dm:p")
        m.recall_log.flush()
    clock.now = start


def timed(m: Mneme, query: str) -> float:
    t = time.perf_counter()
    m.recall("p", query, log=False)
    return (time.perf_counter() - t) * 1000


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1000,10000")
    p.add_argument("--queries", type=int, default=300)
    args = p.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="mneme-lifecycle-"))
    print(f"\n## lifecycle cost: recall on/off (median of {args.queries} interleaved), one tend run")
    print(f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}\n")
    print("| notes | links | recall on, ms | recall off, ms | on / off | tend, ms | archived |")
    print("|---|---|---|---|---|---|---|")
    for size in [int(s) for s in args.sizes.split(",")]:
        opened = []
        for life in (True, False):
            clock = Clock(1_767_225_600.0)
            m = Mneme(
                folder / f"{size}-{life}.db",
                space="b",
                clock=clock,
                max_notes=1_000_000,
                config={"lifecycle.enabled": life},
            )
            rng = random.Random(size)
            fill(m, clock, size, rng)
            converse(m, clock, rng)
            opened.append(m)
        on, off = opened
        (links,) = on.store.read(lambda conn: conn.execute("select count(*) from links").fetchone())
        rng = random.Random(7)
        queries = [" ".join(rng.sample(WORDS, 2)) for _ in range(args.queries)]
        times_on, times_off = [], []
        for query in queries:
            times_on.append(timed(on, query))
            times_off.append(timed(off, query))
        t = time.perf_counter()
        done = on.tend()
        tend_ms = (time.perf_counter() - t) * 1000
        a, b = statistics.median(times_on), statistics.median(times_off)
        print(f"| {size} | {links} | {a:.2f} | {b:.2f} | {a / b:.2f} | {tend_ms:.0f} | {done.archived} |")
        for m in opened:
            m.close()


if __name__ == "__main__":
    main()
