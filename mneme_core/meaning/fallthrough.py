"""The fall-through: which meaning tier places a query, in order, and what each one did.

Per query the tiers are asked in order: embeddings (built in, `EMBEDDINGS_ORDER`), then the tiers plugins
register through `register_tiers` (by their `order`), then words, which always answer. The first tier that
answers places the query and the rest are not asked, so a tier that costs something (the companion's own
model) is only paid for when the cheaper ones passed. `Recall.tier` names the tier that placed the query,
and `report()["meaning"]["placed"]` counts them.

A tier is what a plugin's `factory(mneme)` returns (None when it cannot work for this companion):
- `name`: what `Recall.tier` says when it placed a query; the name it is registered under;
- `order`: a number saying where it sits (embeddings are 100; the optional plugins use 200 and 300);
- `async place(query)`, `query` a `Query` (the cleaned text and whose notes it is about), returning
  `Placed` (a vector: the notes near it join recall's candidates, as the embeddings tier's do), `Reworded`
  (words to match besides the query's own: a translation) or None to pass the query on.
Optionally: `timeout` (seconds the fall-through waits for `place`; `TIMEOUT` when absent; None for a tier
that keeps its own, as the embeddings tier does), `report()` (a
dict of its own counts), `work()` (do now what it does in the background; for `Mneme.embed_pending`),
`stop()` (end its background work: `Mneme.close` calls it before the file closes).

A tier that raises, answers something else, or takes longer than its timeout is rested for `REST` seconds
(see `tiers`): its queries go straight to the next tier meanwhile, instead of waiting on it each time.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ..errors import describe
from .tiers import EMBEDDINGS, REST, WORDS, Meaning, Placed

log = logging.getLogger(__name__)

__all__ = ["EMBEDDINGS_ORDER", "TIMEOUT", "Placing", "Query", "Reworded", "Tier", "Tiers"]

EMBEDDINGS_ORDER = 100
TIMEOUT = 2.0


@dataclass(frozen=True)
class Query:
    """A query on its way to the tiers: its text (one clean line) and whose notes it is about."""

    text: str
    space: str
    subject: str
    turns: tuple[str, ...] = ()  # a dialogue so far: its lines, oldest first (`memory.query.turns`)


@dataclass(frozen=True)
class Reworded:
    """A tier's answer that is words, not a vector: matched as words besides the query's own."""

    words: str


class Tier(Protocol):
    name: str
    order: float

    async def place(self, query: Query) -> Placed | Reworded | None: ...


@dataclass(frozen=True)
class Placing:
    """How a query was placed: by which tier, its vector if a vector tier placed it, and extra words."""

    tier: str = WORDS
    placed: Placed | None = None
    words: str = ""

    def ask(self, ask: Any) -> Any:
        """Recall's question with the extra words added to the query (what recall matches as words)."""
        return replace(ask, query=f"{ask.query} {self.words}") if self.words else ask

    def told(self, found: tuple[Any, Any], query: str) -> tuple[Any, Any]:
        """A recall's (Recall, Trace) saying which tier placed the query, and the query as it was asked."""
        recall, trace = found
        return replace(recall, tier=self.tier, query=query), trace


WORDS_ONLY = Placing()


class EmbeddingsTier:
    """The built-in first tier: the companion's embedder (`tiers.Meaning`), which rests itself."""

    name = EMBEDDINGS
    order = EMBEDDINGS_ORDER

    def __init__(self, meaning: Meaning) -> None:
        self.meaning = meaning
        self.timeout = None  # it keeps its embedder's own timeout, and rests itself

    async def place(self, query: Query) -> Placed | None:
        return await self.meaning.place(query.text, query.turns, query.space, query.subject)

    def work(self) -> int:
        return self.meaning.embed_pending()


class Tiers:
    """One companion's fall-through: its tiers in order, and what each placed, passed on or failed."""

    def __init__(self, tiers: list[Any], meaning: Meaning | None = None) -> None:
        self.tiers = sorted(tiers, key=lambda t: (t.order, t.name))
        self.meaning = meaning
        self.counts: Counter[str] = Counter()
        self.trouble: dict[str, Counter[str]] = {t.name: Counter() for t in self.tiers}
        self._rested_until: dict[str, float] = {}

    @classmethod
    def build(cls, mneme: Any) -> Tiers:
        """The embeddings tier (if the companion has an embedder) and each registered tier's, checked."""
        tiers: list[Any] = [EmbeddingsTier(mneme.meaning)] if mneme.meaning is not None else []
        registry = mneme.plugins.tiers
        left_out = getattr(mneme, "left_out_tiers", frozenset())  # `meaning_micro=False` and the like
        for name, factory in registry.items():
            if name in left_out:
                continue
            plugin = registry.owner(name)
            try:
                tier = factory(mneme)
                if tier is not None:
                    _check(tier, name)
                    tiers.append(tier)
            except Exception as err:  # a plugin boundary: the companion opens without this tier
                log.error("plugin %s: the tier %s is left out: %s: %s", plugin, name, type(err).__name__, err)
        return cls(tiers, mneme.meaning)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tiers]

    def rested(self, name: str) -> bool:
        return time.monotonic() < self._rested_until.get(name, 0.0)

    async def place(self, query: Query) -> Placing:
        """The first tier's answer, in order; words when every tier passed (counted either way)."""
        for tier in self.tiers if query.text.strip() else ():
            placing = await self._ask(tier, query)
            if placing is not None:
                self.counts[tier.name] += 1
                return placing
        self.counts[WORDS] += 1
        return WORDS_ONLY

    async def _ask(self, tier: Any, query: Query) -> Placing | None:
        trouble = self.trouble[tier.name]
        if self.rested(tier.name):
            trouble["rested"] += 1
            return None
        timeout = getattr(tier, "timeout", TIMEOUT)
        try:
            placing = tier.place(query)
            found = await (placing if timeout is None else asyncio.wait_for(placing, timeout))
        except TimeoutError:
            log.warning("the %s tier took too long; resting it for %g s", tier.name, REST)
            return self._rest(tier.name, "slow")
        except Exception as err:  # a plugin boundary: the query falls through to the next tier
            log.warning(
                "the %s tier failed; resting it for %g s: %s: %s", tier.name, REST, type(err).__name__, err
            )
            return self._rest(tier.name, "failed")
        if found is None:
            trouble["passed"] += 1
            return None
        if isinstance(found, Placed):
            return Placing(tier.name, placed=found)
        if isinstance(found, Reworded) and isinstance(found.words, str) and found.words.strip():
            return Placing(tier.name, words=found.words)
        log.warning("the %s tier answered %s, not a Placed, a Reworded or None", tier.name, describe(found))
        return self._rest(tier.name, "wrong")

    def _rest(self, name: str, what: str) -> None:
        self.trouble[name][what] += 1
        self._rested_until[name] = time.monotonic() + REST

    def work(self) -> int:
        """Each tier's background work, now, in order; returns how many notes got vectors."""
        done = 0
        for tier in self.tiers:
            work = getattr(tier, "work", None)
            if callable(work):
                count = work()
                done += count if tier.name == EMBEDDINGS and isinstance(count, int) else 0
        return done

    def stop(self) -> None:
        """Each plugin tier's background work ends (its `stop()`, when it has one), before the file closes."""
        for tier in self.tiers:
            stop = getattr(tier, "stop", None)
            if callable(stop):
                stop()

    def report(self) -> dict[str, Any] | None:
        """What each tier placed, and each plugin tier's troubles and own counts; None for words only."""
        if not self.tiers:
            return None
        found = self.meaning.report() if self.meaning is not None else {}
        found["placed"] = {name: self.counts[name] for name in [*self.names, WORDS]}
        found["tiers"] = {
            t.name: {**dict(sorted(self.trouble[t.name].items())), **_own_report(t)}
            for t in self.tiers
            if t.name != EMBEDDINGS
        }
        return found


def _own_report(tier: Any) -> dict[str, Any]:
    report = getattr(tier, "report", None)
    if not callable(report):
        return {}
    try:
        return dict(report())
    except Exception as err:  # a plugin boundary: the report goes on without this tier's own counts
        log.warning("the %s tier's report failed: %s: %s", tier.name, type(err).__name__, err)
        return {}


def _check(tier: Any, name: str) -> None:
    """A tier as the fall-through needs it: its registered name, a finite order, a `place` to call."""
    own = getattr(tier, "name", None)
    if own != name:
        raise ValueError(f"a tier's name is the one it is registered under, {name!r}, not {describe(own)}")
    order = getattr(tier, "order", None)
    if isinstance(order, bool) or not isinstance(order, int | float) or not math.isfinite(order):
        raise ValueError(f"a tier's order is a number like 200, not {describe(order)}")
    if not callable(getattr(tier, "place", None)):
        raise TypeError(f"a tier has an async place(query), not {describe(getattr(tier, 'place', None))}")
