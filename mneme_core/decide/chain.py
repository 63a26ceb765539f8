"""A chain of decision tiers that fall through: each question is answered by the first tier that can.

Tiers are tried in order, each with the questions still open. A tier *answers* a question by returning an
`Answer` for it, and *passes it on* when it does not: it abstains (no answer, or an answer the chain cannot
use: a wrong name, type or label, which is how a refusal looks), it raises `Unavailable` (no key, no model:
nothing is wrong, it just cannot work here), or it fails (raises anything else: a timeout, a network error,
a bug). A failing tier is *rested*: skipped for `rest` seconds (60 by default, on the chain's clock), so a
provider that is down costs one failure a minute, not one per message. A question no tier answers is simply
missing from the result; the caller decides what that means (no mood change; write notes anyway).

`report()` says, per tier, how many questions it answered and abstained on, how many calls failed or found it
unavailable, how many it skipped while resting, its last error, and whatever the tier's own `report()`
adds (a cost, say).

A tier is any object with a `name` and `async adecide(input, questions) -> {question name: Answer}`. A tier
may also give the same as a plan, `decision_plan(input, questions)` (see `steps`: the `Prompt` tier's
message and parsing between `Await` steps for the model), and the chain has one too: an observe takes it in
(`yield from`) and runs it on a store's thread, so the loop runs only the awaits (a tier without a
plan is one `Await` of its `adecide`). The counts are kept under a lock, as two threads may decide at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import threading
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ..errors import InvalidType, InvalidValue, MnemeError, describe
from ..steps import Await, Plan, awaited
from .questions import Answer, Choice, Predicate, Question, Score

__all__ = ["REST_SECONDS", "Chain", "Tier", "Unavailable", "run"]

log = logging.getLogger(__name__)

REST_SECONDS = 60.0
ERROR_LIMIT = 300

T = TypeVar("T")


class Unavailable(MnemeError, RuntimeError):
    """A tier cannot work here at all (no API key, no model given): the question passes on, nothing failed."""


class Tier(Protocol):
    """What a chain asks: answer what you can, leave the rest out of the result."""

    name: str

    async def adecide(self, input: str, questions: Sequence[Question]) -> Mapping[str, Answer]:
        """Answers keyed by question name; a question left out is an abstention."""
        ...


@dataclass
class _Stats:
    answered: int = 0
    abstained: int = 0
    failed: int = 0
    unavailable: int = 0
    skipped: int = 0
    last_error: str = ""
    rested_until: float | None = None


def _tier_name(tier: object) -> str:
    name = getattr(tier, "name", None)
    return name if isinstance(name, str) and name.strip() else type(tier).__name__.lower()


def _questions(questions: object) -> list[Question]:
    if isinstance(questions, Predicate | Choice | Score):
        return [questions]
    if not isinstance(questions, Iterable) or isinstance(questions, str | bytes | Mapping):
        raise InvalidType(
            f"questions are a list of Predicate, Choice or Score, not {type(questions).__name__}"
        )
    asked = list(questions)
    for question in asked:
        if not isinstance(question, Predicate | Choice | Score):
            raise InvalidType(f"a question is a Predicate, Choice or Score, not {describe(question)}")
    names = [q.name for q in asked]
    if len(set(names)) != len(names):
        raise InvalidValue(f"two questions share a name: {', '.join(names)}")
    return asked


def _usable(question: Question, answer: object, tier: str) -> Answer | None:
    """The answer with a probability for every label of the question, or None when it does not fit."""
    if not isinstance(answer, Answer) or answer.name != question.name or answer.type != question.type:
        return None
    labels = question.labels
    if not set(answer.probabilities) <= set(labels):
        return None
    probabilities = {label: answer.probabilities.get(label, 0.0) for label in labels}
    if type(answer) is not Answer:  # a tier's own kind of answer keeps its kind
        return dataclasses.replace(answer, probabilities=probabilities, by=answer.by or tier)
    # what `replace` does, without its look at the fields (three answers an observe)
    by = answer.by or tier
    return Answer(answer.name, answer.type, probabilities, answer.confidence, by, answer.reason)


class Chain:
    """Tiers tried in order; see the module docstring. `Chain(Luna(), Prompt(complete))`."""

    def __init__(
        self,
        *tiers: Tier,
        name: str = "chain",
        rest: float = REST_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not isinstance(name, str) or not name.strip():
            raise InvalidValue(f"a chain's name is a non-empty string, not {describe(name)}")
        if isinstance(rest, bool) or not isinstance(rest, int | float) or not math.isfinite(rest) or rest < 0:
            raise InvalidValue(f"rest is a number of seconds, 0 or more, not {describe(rest)}")
        if not callable(clock):
            raise InvalidType(f"clock must be a function returning seconds, not {type(clock).__name__}")
        names = []
        for tier in tiers:
            if not callable(getattr(tier, "adecide", None)):
                raise InvalidType(
                    f"a tier has an async adecide(input, questions) method; {describe(tier)} has not"
                )
            names.append(_tier_name(tier))
        for tier_name in names:
            if names.count(tier_name) > 1:
                raise InvalidValue(f"two tiers are named {tier_name!r}; give one another name (name=...)")
        self.name = name
        self.tiers: tuple[Tier, ...] = tiers
        self.rest = float(rest)
        self._clock = clock
        self._names = tuple(names)
        self._stats = {tier_name: _Stats() for tier_name in names}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Chain({', '.join(self._names)}, name={self.name!r})"

    async def adecide(self, input: str, questions: Iterable[Question] | Question) -> dict[str, Answer]:
        """Answers keyed by question name, in the order asked; questions no tier answered are missing."""
        return await awaited(self.decision_plan(input, questions))

    def decision_plan(self, input: str, questions: Iterable[Question] | Question) -> Plan[dict[str, Answer]]:
        """`adecide` as a plan (see the module docstring)."""
        if not isinstance(input, str):
            raise InvalidType(f"the input to decide on is a string, not {type(input).__name__}")
        asked = _questions(questions)
        pending = {question.name: question for question in asked}
        found: dict[str, Answer] = {}
        for tier, name in zip(self.tiers, self._names, strict=True):
            if not pending:
                break
            got = yield from self._asking(tier, name, input, list(pending.values()))
            if got is None:
                continue
            usable = {q: _usable(question, got.get(q), name) for q, question in pending.items()}
            with self._lock:
                stats = self._stats[name]
                for question_name, answer in usable.items():
                    if answer is None:
                        stats.abstained += 1
                        continue
                    found[question_name] = answer
                    del pending[question_name]
                    stats.answered += 1
        return {q.name: found[q.name] for q in asked if q.name in found}

    def decide(self, input: str, questions: Iterable[Question] | Question) -> dict[str, Answer]:
        """`adecide` for code without an event loop (and from inside one, on a worker thread)."""
        return run(lambda: self.adecide(input, questions))

    def _asking(
        self, tier: Tier, name: str, input: str, questions: list[Question]
    ) -> Plan[Mapping[str, Answer] | None]:
        """The tier's answers, or None when it is resting, unavailable or failing."""
        stats = self._stats[name]
        with self._lock:
            if stats.rested_until is not None:
                if self._clock() < stats.rested_until:
                    stats.skipped += 1
                    return None
                stats.rested_until = None
        planned = getattr(tier, "decision_plan", None)
        try:
            if callable(planned):
                got = yield from planned(input, questions)
            else:
                got = yield Await(lambda: tier.adecide(input, questions))
        except Unavailable as err:
            with self._lock:
                stats.unavailable += 1
            log.debug("decision tier %s is unavailable: %s", name, err)
            return None
        except Exception as err:  # a tier is a provider boundary: its failure passes the questions on
            self._failed(name, err)
            return None
        if not isinstance(got, Mapping):
            self._failed(name, InvalidType(f"adecide returned {type(got).__name__}, not a mapping"))
            return None
        return got

    def _failed(self, name: str, err: BaseException) -> None:
        stats = self._stats[name]
        with self._lock:
            stats.failed += 1
            stats.last_error = f"{type(err).__name__}: {err}"[:ERROR_LIMIT]
            stats.rested_until = self._clock() + self.rest
        log.warning("decision tier %s failed (%s); resting it for %g s", name, stats.last_error, self.rest)

    def absorb(self, other: Chain) -> None:
        """Count in this chain's report what `other` did: a chain made for one call (a per-call model in
        place of the companion's own) reports under the tier names it shares with this one. Resting stays
        each chain's own, so a per-call model that fails does not silence the companion's."""
        with self._lock:
            for name, stats in other._stats.items():
                mine = self._stats.get(name)
                if mine is None or mine is stats:
                    continue
                for counted in ("answered", "abstained", "failed", "unavailable", "skipped"):
                    setattr(mine, counted, getattr(mine, counted) + getattr(stats, counted))
                mine.last_error = stats.last_error or mine.last_error

    def failures(self) -> dict[str, tuple[int, str]]:
        """Per tier: how many times it failed, and its last error ("" for none); `report` without the rest."""
        return {name: (stats.failed, stats.last_error or "") for name, stats in self._stats.items()}

    def resting(self, name: str) -> bool:
        """Whether the tier of that name is being rested now."""
        until = self._stats[name].rested_until
        return until is not None and self._clock() < until

    def report(self) -> dict[str, dict[str, Any]]:
        """Per tier, in order: answered, abstained, failed, unavailable, skipped, last_error, resting, and
        what the tier's own `report()` adds (such as a cost)."""
        report = {}
        for tier, name in zip(self.tiers, self._names, strict=True):
            stats = self._stats[name]
            entry: dict[str, Any] = {
                "answered": stats.answered,
                "abstained": stats.abstained,
                "failed": stats.failed,
                "unavailable": stats.unavailable,
                "skipped": stats.skipped,
                "last_error": stats.last_error,
                "resting": self.resting(name),
            }
            own = getattr(tier, "report", None)
            if callable(own):
                try:
                    extra = own()
                except Exception as err:  # a tier's report is plugin code: never let it break ours
                    log.warning("decision tier %s could not report: %s", name, err)
                    extra = None
                if isinstance(extra, Mapping):
                    entry.update({k: v for k, v in extra.items() if k not in entry})
            report[name] = entry
        return report


def run(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to its end from plain code: on a new event loop of this thread when none runs here,
    else on a worker thread with one of its own (so a plain twin never fails with "asyncio.run() cannot be
    called from a running event loop"; it does block the caller's loop while it waits).

    Not `asyncio.run`: on the main thread that puts a Ctrl-C handler in place for the run and the old one
    back after it, and putting it back formats the handler, the finished task and its result among it: a
    recall an embedder placed returned a vector of 384 floats, printed twice, 3.4 ms of a sync call that
    takes 0.1 ms without (`meaning.tiers.Placed` no longer shows its vector either). Ctrl-C raises
    `KeyboardInterrupt` here as anywhere, and the loop is closed either way."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _on_new_loop(make)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="mneme-run") as pool:
        return pool.submit(_on_new_loop, make).result()


def _on_new_loop(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """What `asyncio.run` does, less its Ctrl-C handler: the coroutine on a new loop of this thread, then
    what it left behind (tasks cancelled, async generators and the default executor shut down), and the loop
    closed."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(make())
    finally:
        try:
            left = asyncio.all_tasks(loop)
            for task in left:
                task.cancel()
            if left:
                loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()
