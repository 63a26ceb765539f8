"""The health check's verbs on the `Mneme` facade: `acheck`/`check`, `fixes`, `aundo_fix`/`undo_fix`.

`CheckVerbs` is the part of the facade for the health check (`mneme_core.check`), kept apart so `mneme.py`
stays small, as `companion.CompanionVerbs` is. Arguments are checked before anything is read or written;
a wrong one raises naming the value and what is allowed. The counts of the runs this process made go into
`report()["check"]`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .check import PHASES, CheckOptions, CheckResult, records
from .check.run import check as run_check
from .config.checks import boolean
from .decide import run
from .errors import InvalidType, InvalidValue, describe
from .memory.note import count_of, subject_of

if TYPE_CHECKING:
    from .mneme import Complete

__all__ = ["CheckVerbs", "confidence_of"]


def _phases(value: object) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise InvalidType(f"phases are a list of phases like ['duplicates'], not {describe(value)}")
    phases = tuple(value)
    wrong = [p for p in phases if p not in PHASES]
    if wrong or not phases:
        raise InvalidValue(f"phases are some of {', '.join(PHASES)}, not {describe(list(phases))}")
    return phases


def confidence_of(name: str, value: object) -> float:
    """A confidence a fix must reach: a number from 0 to 1."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InvalidValue(f"{name} is a number from 0 to 1, not {describe(value)}")
    return float(value)


def _options(
    subject: object,
    phases: object,
    budget: object,
    full: object,
    fix: object,
    confidence: object,
    timeout: object,
) -> CheckOptions:
    for name, flag in (("full", full), ("fix", fix)):
        boolean(name, flag)
    number = isinstance(timeout, int | float) and not isinstance(timeout, bool)
    if not number or not math.isfinite(timeout) or timeout <= 0:  # type: ignore[arg-type]
        raise InvalidValue(f"timeout is a number of seconds above 0, not {describe(timeout)}")
    return CheckOptions(
        subject=None if subject is None else subject_of(subject),
        phases=_phases(phases),
        budget=count_of("budget", budget),
        full=full,  # type: ignore[arg-type]
        fix=fix,  # type: ignore[arg-type]
        confidence=confidence_of("confidence", confidence),
        timeout=float(timeout),  # type: ignore[arg-type]
    )


class CheckVerbs:
    """The health check, for `Mneme` (which provides the attributes used here)."""

    store: Any
    space: str
    settings: Any
    prompts: Any
    meaning: Any
    clock: Any
    complete: Any
    check_counts: Counter[str]

    async def acheck(
        self,
        subject: str | None = None,
        *,
        fix: bool = False,
        confidence: float = 0.9,
        budget: int = 50,
        full: bool = False,
        phases: Iterable[str] = PHASES,
        complete: Complete | None = None,
        timeout: float = 60.0,
    ) -> CheckResult:
        """Check the notes (everyone's, or one person's) for prompt injection, duplicates, contradictions,
        broken notes and wrong kinds, in that order, with at most `budget` calls of the model (`complete`,
        else the companion's; none: the word-level checks only). Only what each phase has not judged yet,
        unless `full`. With `fix`, apply the findings at or above `confidence`, each recorded and undone
        by `undo_fix`. Raises `CheckBusy` while another run holds the space."""
        options = _options(subject, phases, budget, full, fix, confidence, timeout)
        if complete is not None and not callable(complete):
            raise InvalidType(f"complete must be a function (system, user) -> text, not {describe(complete)}")
        found = self.meaning.embedder_in_file() if self.meaning is not None else None
        result = await run_check(
            self.store,
            self.space,
            options,
            complete=complete or self.complete,
            prompts=self.prompts,
            embedder=found[0] if found else None,
            zone=self.settings.zone,
            clock=self.clock,
            floor=self.meaning.floor if self.meaning is not None else None,
        )
        self.check_counts["runs"] += 1
        self.check_counts.update(result.counts())
        return result

    def check(self, subject: str | None = None, **options: Any) -> CheckResult:
        return run(lambda: self.acheck(subject, **options))

    def fixes(self, subject: str | None = None, *, limit: int = 50) -> list[dict[str, Any]]:
        """The fixes the health check applied (to one person's notes, if given), newest first: what each
        changed (which note was replaced by which, or forgotten), by which check, whether it was undone."""
        who = None if subject is None else subject_of(subject)
        return self.store.read(records.fixes, self.space, who, count_of("limit", limit, low=1))

    async def aundo_fix(self, fix_id: int) -> dict[str, Any]:
        """Put back the notes a fix changed, from the history; refused when they were purged or changed
        since. A run does not redo an undone fix."""
        done = await self.store.awrite(
            records.undo, self.space, count_of("fix id", fix_id, low=1), self.clock()
        )
        self._embed_again(done["restored"])
        return done

    def undo_fix(self, fix_id: int) -> dict[str, Any]:
        done = self.store.write(records.undo, self.space, count_of("fix id", fix_id, low=1), self.clock())
        self._embed_again(done["restored"])
        return done

    def _embed_again(self, ids: list[int]) -> None:
        if self.meaning is not None and ids:
            self.meaning.again(ids)
