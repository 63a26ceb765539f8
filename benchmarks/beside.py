"""One long conversation recalled with e5 while many people talk (issue 19's stretch; `busy.py --beside e5`).

The person is the LoCoMo-layout dev set's longest conversation (`data/dev.json`), kept as transcript lines
the way `retrieval.py` keeps it, every line embedded by multilingual-e5-small (`retrieval.embedder_of`). Its
questions are asked one after another through `arecall` with the embedder, on the same event loop as the
busy run, first alone (for scale) and then while the run goes on, each embedded afresh (the query cache
emptied before it); each recall's wall time is kept.

The conversation's file is built once into the cache folder `retrieval.py` uses for its embedders, then
copied for each run, so a run measures recalls, not the bulk load.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from pathlib import Path
from typing import Any

from benchmarks import retrieval

DEV = Path(__file__).resolve().parent / "data" / "dev.json"
PAUSE = 0.02  # seconds between two questions: a steady probe, not a second load


def longest_sample() -> dict[str, Any]:
    samples = [s for s in json.loads(DEV.read_text()) if not retrieval.is_dialogues(s)]
    return max(samples, key=lambda s: len(retrieval.said_turns(s)))


class Beside:
    """The e5 conversation: `prepare` once before the run, then `recalls` as a task beside it."""

    def __init__(self, scratch: str, embedder: str = "e5") -> None:
        self.sample = longest_sample()
        self.subject = f"sample:{self.sample.get('sample_id', 0)}"
        self.questions = [q for q, _category, _evidence in retrieval.questions_of(self.sample)]
        self.embed = retrieval.embedder_of(embedder)
        self.name = embedder
        self.path = str(Path(scratch) / "beside.db")
        self.clock = retrieval.Clock()
        self.m: Any = None
        self.tiers: list[str] = []  # which tier placed each question (words alone when e5 gave up)

    def prepare(self) -> None:
        cached = retrieval.EMBEDDER_CACHE / f"beside-{self.name}-{self.sample.get('sample_id', 0)}.db"
        if not cached.exists():
            cached.parent.mkdir(parents=True, exist_ok=True)
            building = str(cached) + ".building"
            m = retrieval.open_ours(building, self.clock, self.embed)
            try:
                retrieval.fill_lines(m, self.subject, self.sample, self.clock)
                m.embed_pending()
            finally:
                m.close()
            Path(building).rename(cached)
        shutil.copy(cached, self.path)
        self.embed.passages(["the model loaded before the first question, as in a bot that is up"])
        last = max(when for _dia, _speaker, _said, when in retrieval.said_turns(self.sample))
        self.clock.now = last + retrieval.DAY

    async def open(self) -> None:
        self.m = retrieval.open_ours(self.path, self.clock, self.embed)
        await self.ask(self.questions[:3], [])  # the model loaded, the vectors read: warm, as a bot is

    async def ask(self, questions: list[str], times: list[float], stop: asyncio.Event | None = None) -> None:
        limit, budget = retrieval.LIMITS[0]
        asked = {"limit": limit, "budget": budget, "lines": limit, "line_budget": budget, "log": False}
        for question in questions:
            if stop is not None and stop.is_set():
                return
            # Every question embedded afresh, as a new message is: the query cache (`meaning.tiers`)
            # would otherwise answer the second pass of the same questions without the model.
            self.m.meaning._queries.clear()
            began = time.perf_counter()
            found = await self.m.arecall(self.subject, question, **asked)
            self.tiers.append(found.tier)
            times.append((time.perf_counter() - began) * 1000)
            await asyncio.sleep(PAUSE)

    async def recalls(self, times: list[float], stop: asyncio.Event) -> None:
        """The questions over and over until `stop`."""
        while not stop.is_set():
            await self.ask(self.questions, times, stop)

    async def close(self) -> None:
        if self.m is not None:
            await self.m.aclose()
