"""One run of the health check: the phases in order under a budget, the marks moved, the fixes applied.

A run holds the space's `check` lease (`store.leases`) while it works, so two runs on one file (the bot's
scheduled one and `mneme check` in a shell) never overlap: the second is refused with `CheckBusy`. Reading
is one snapshot per person on the reader's thread; the word-level work (terms of every note of a person)
runs on a worker thread, so a bot's event loop keeps answering while a big memory is checked; each fix is
a short write transaction of its own.

An incremental run (the default) looks at what each phase has not judged yet; a full run at everything. A
run about one person never moves the space's marks (the others were not looked at), and neither does a run
that only looks (no `fix`): `mneme check` and then `mneme check --fix` fix what the first one showed.
`fix=True` applies the findings at or above `confidence`, in phase order (a later finding whose notes an
earlier fix changed is stale and left alone); a finding whose fix someone undid before is not reported again.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import tzinfo
from typing import Any

from ..errors import MnemeError
from ..meaning.calibrate import DEFAULT
from ..store import Store, leases
from . import contradictions, duplicates, injection, quality, records
from .context import Outcome, Run
from .findings import PHASES, Finding
from .judge import Judge

__all__ = ["FINDERS", "LEASE", "CheckBusy", "CheckOptions", "CheckResult", "PhaseReport", "check"]

LEASE = "check"
NEEDS_MODEL = frozenset({"contradictions"})  # words alone cannot tell what is untrue
NOTHING = 1 << 62  # a mark past every note: no phase that can run is left to look at anything
LEASE_MARGIN = 300.0

FINDERS: dict[str, Callable[[Run], Any]] = {
    "injection": injection.find,
    "duplicates": duplicates.find,
    "contradictions": contradictions.find,
    "broken": quality.find_broken,
    "kinds": quality.find_kinds,
}


class CheckBusy(MnemeError, RuntimeError):
    """Another health check of this space is running (in this process or another one on the file)."""


@dataclass(frozen=True, kw_only=True)
class CheckOptions:
    """What a run does: whose notes, which phases, with how many model calls, fixing what."""

    subject: str | None = None
    phases: tuple[str, ...] = PHASES
    budget: int = 50
    full: bool = False
    fix: bool = False
    confidence: float = 0.9
    timeout: float = 60.0


@dataclass(frozen=True)
class PhaseReport:
    """What one phase did: whether it ran (contradictions need a model), how many findings, how many the
    model turned down, its calls, and the mark it left (the highest note id it has judged)."""

    phase: str
    ran: bool
    found: int
    rejected: int
    calls: int
    mark: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "ran": self.ran,
            "found": self.found,
            "rejected": self.rejected,
            "calls": self.calls,
            "mark": self.mark,
        }


@dataclass(frozen=True)
class CheckResult:
    """A run's findings and counts; `as_dict()` is its JSON form (for `mneme check --json`, a web page)."""

    space: str
    full: bool
    model: bool
    people: int
    notes: int
    budget: int
    calls: int
    phases: dict[str, PhaseReport]
    findings: list[Finding] = field(default_factory=list)
    fixed: list[int] = field(default_factory=list)
    stale: int = 0
    dismissed: int = 0

    def counts(self) -> dict[str, int]:
        """The run in numbers, for a report: findings, fixes applied, model calls."""
        return {"found": len(self.findings), "fixed": len(self.fixed), "model_calls": self.calls}

    def as_dict(self) -> dict[str, Any]:
        return {
            "space": self.space,
            "full": self.full,
            "model": self.model,
            "people": self.people,
            "notes": self.notes,
            "budget": self.budget,
            "calls": self.calls,
            "phases": {name: report.as_dict() for name, report in self.phases.items()},
            "findings": [finding.as_dict() for finding in self.findings],
            "fixed": list(self.fixed),
            "stale": self.stale,
            "dismissed": self.dismissed,
        }


@dataclass(frozen=True)
class _Reading:
    """How a run reads the notes: the embedder's id in the file (None: no vectors), its floor, the zone."""

    embedder: int | None
    floor: float
    zone: tzinfo | None


async def check(
    store: Store,
    space: str,
    options: CheckOptions,
    *,
    complete: Any,
    prompts: Mapping[str, str],
    embedder: int | None,
    zone: tzinfo | None,
    clock: Callable[[], float],
    floor: float | None = None,
) -> CheckResult:
    """One run (see the module docstring); raises `CheckBusy` when another one holds the space's lease."""
    holder = uuid.uuid4().hex
    lease = options.budget * options.timeout + LEASE_MARGIN
    if await store.awrite(leases.claim, space, LEASE, holder, clock(), lease, None, True) is None:
        raise CheckBusy(f"another health check of space {space!r} is running; try again when it is done")
    error = None
    try:
        found = _Reading(embedder, DEFAULT if floor is None else floor, zone)
        return await _run(store, space, options, complete, prompts, found, clock)
    except BaseException as err:
        error = f"{type(err).__name__}: {err}"
        raise
    finally:
        await store.awrite(leases.finish, space, LEASE, holder, clock(), None, error)


async def _run(
    store: Store,
    space: str,
    options: CheckOptions,
    complete: Any,
    prompts: Mapping[str, str],
    reading: _Reading,
    clock: Callable[[], float],
) -> CheckResult:
    stored = await store.aread(records.marks, space)
    marks = {phase: 0 for phase in PHASES} if options.full else stored
    running = [p for p in options.phases if complete is not None or p not in NEEDS_MODEL]
    after = min((marks[phase] for phase in running), default=NOTHING)
    rows, top = await store.aread(records.changed_people, space, options.subject, after)
    people = [
        await store.aread(records.person, sid, subject, reading.embedder, reading.floor)
        for sid, subject in rows
    ]
    await asyncio.to_thread(lambda: [person.words for person in people])  # the CPU work, off the loop
    judge = Judge(complete, options.budget, prompts=prompts, timeout=options.timeout)
    run = Run(people, marks, top, judge, reading.zone)
    undone = await store.aread(records.dismissed, space)
    findings: list[Finding] = []
    reports: dict[str, PhaseReport] = {}
    moved: dict[str, int] = {}
    dismissed = 0
    for phase in (p for p in PHASES if p in options.phases):
        calls = judge.calls
        outcome: Outcome = await FINDERS[phase](run)
        kept = [f for f in outcome.findings if f.signature not in undone]
        dismissed += len(outcome.findings) - len(kept)
        findings += kept
        mark = outcome.mark if outcome.mark is not None else marks[phase]
        reports[phase] = PhaseReport(
            phase, outcome.ran, len(kept), outcome.rejected, judge.calls - calls, mark
        )
        if outcome.ran:
            moved[phase] = mark
    if options.subject is None and options.fix and moved:
        await store.awrite(records.set_marks, space, moved, clock())
    fixed: list[int] = []
    stale = 0
    if options.fix:
        for at, finding in enumerate(findings):
            if finding.confidence < options.confidence:
                continue
            record = await store.awrite(records.apply, space, finding, clock())
            if record is None:
                stale += 1
                continue
            fixed.append(record)
            findings[at] = replace(finding, fixed=record)
    return CheckResult(
        space=space,
        full=options.full,
        model=judge.present,
        people=len(people),
        notes=sum(len(p.notes) for p in people),
        budget=options.budget,
        calls=judge.calls,
        phases=reports,
        findings=findings,
        fixed=fixed,
        stale=stale,
        dismissed=dismissed,
    )
