"""What the health check finds and proposes, as values that travel (JSON-ready through `as_dict`).

A `Finding` names the notes, the problem in one line (our words, never a note's text), who found it (the
word-level checks, the embedder's vectors, or the model), how sure that is (0 to 1), and a `Fix`:

- `replace`: the notes in `drop` are replaced by `keep` (a duplicate, the losing side of a contradiction);
  they leave recall and stay in the history until purge;
- `forget`: the notes in `drop` are hidden (an injection, a broken note); they stay in the history too;
- `revise`: `keep` gets a new version with `text`, `kind` or `importance` (a repaired text, the right kind);
  the old version stays in the history.

Every one of them can be undone from the history (`records.undo`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["BY", "FIXES", "MEANING", "MODEL", "PHASES", "WORDS", "Finding", "Fix"]

PHASES = ("injection", "duplicates", "contradictions", "broken", "kinds")
"""In the order they run: under a budget of model calls, the earlier ones take it first."""
WORDS, MEANING, MODEL = "words", "meaning", "model"
BY = (WORDS, MEANING, MODEL)
REPLACE, FORGET, REVISE = "replace", "forget", "revise"
FIXES = (REPLACE, FORGET, REVISE)


@dataclass(frozen=True)
class Fix:
    """The change a finding proposes (see the module docstring)."""

    action: str
    keep: int | None = None
    drop: tuple[int, ...] = ()
    text: str | None = None
    kind: str | None = None
    importance: int | None = None

    def notes(self) -> tuple[int, ...]:
        return ((self.keep,) if self.keep is not None else ()) + self.drop

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"action": self.action, "keep": self.keep, "drop": list(self.drop)}
        for name in ("text", "kind", "importance"):
            if getattr(self, name) is not None:
                found[name] = getattr(self, name)
        return found


@dataclass(frozen=True)
class Finding:
    """One problem among a person's notes, and the fix proposed for it."""

    phase: str
    subject: str
    notes: tuple[int, ...]
    problem: str
    fix: Fix
    confidence: float
    by: str
    fixed: int | None = None
    """The id of the fix record once applied (`Mneme.fixes()`), else None."""

    @property
    def signature(self) -> str:
        """The same problem among the same notes, whichever run finds it (an undone fix is not redone)."""
        return f"{self.phase}:{','.join(map(str, sorted(set(self.notes))))}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "subject": self.subject,
            "notes": list(self.notes),
            "problem": self.problem,
            "fix": self.fix.as_dict(),
            "confidence": round(self.confidence, 3),
            "by": self.by,
            "fixed": self.fixed,
        }
