"""One run of the health check, as every phase sees it: the people, their notes, how far each phase looked.

A run reads each person's live notes once (one snapshot per person) with their vectors when an embedder
is set, and hands them to the phases in order. A phase looks at the notes written after its mark (every note
in a full run) that no earlier phase of this run already proposed to drop, and says how far it got: its new
mark is the highest note id when it judged everything, else just below the first note it could not judge
(the budget ran out, the model failed), so the next run starts there and nothing is skipped.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import tzinfo
from math import log, sqrt
from typing import Any

from .. import text
from ..meaning.vectors import centred
from ..memory.note import Note
from .findings import Finding
from .judge import Judge

__all__ = ["Outcome", "Person", "Run", "Vectors", "Words"]

COMMON = 1000  # a term in more of a person's notes than this says nothing about which two are alike


class Words:
    """A person's notes as sets of terms, each weighted by how rare it is among them (idf), so two notes
    are alike by the rare words they share: a weighted cosine, 1.0 for the same terms."""

    def __init__(self, notes: list[Note]) -> None:
        self.terms = {n.id: frozenset(text.terms(n.text)) for n in notes}
        df = Counter(term for terms in self.terms.values() for term in terms)
        self.idf = {term: log(1 + len(notes) / count) for term, count in df.items()}
        self.postings: dict[str, list[int]] = defaultdict(list)
        for note_id, terms in self.terms.items():
            for term in terms:
                if df[term] <= COMMON:
                    self.postings[term].append(note_id)
        self.norm = {i: sqrt(sum(self.idf[t] ** 2 for t in terms)) for i, terms in self.terms.items()}

    def similarity(self, a: int, b: int) -> float:
        shared = self.terms[a] & self.terms[b]
        if not shared or not self.norm[a] or not self.norm[b]:
            return 0.0
        return sum(self.idf[t] ** 2 for t in shared) / (self.norm[a] * self.norm[b])

    def near(self, note_id: int, floor: float) -> dict[int, float]:
        """The notes at least `floor` alike to this one (itself left out)."""
        candidates = {other for term in self.terms.get(note_id, ()) for other in self.postings.get(term, ())}
        candidates.discard(note_id)
        found = {other: self.similarity(note_id, other) for other in candidates}
        return {other: sim for other, sim in found.items() if sim >= floor}


class Vectors:
    """A person's vectors of the embedder, centred on the person's mean as recall does (`centred`), so two
    notes are alike by what sets them apart from the rest of what is known about the person, and the floor
    measured there: what chance alone reaches (below `CENTER_MIN` vectors, plain cosine and the embedder's
    floor). Two notes are near-duplicates at `share` of the way from the floor to 1: on the benchmark's
    planted set (`benchmarks/check.py`), multilingual-e5-small puts reworded duplicates at a centred 0.59
    (median) and unrelated pairs at -0.04 (median; 1 in 1000 above 0.55), its floor near 0.19."""

    def __init__(self, ids: Any, matrix: Any, floor: float) -> None:
        self.at = {int(note_id): i for i, note_id in enumerate(ids)}
        self.ids = ids
        self.matrix, measured = centred(ids, matrix)
        self.floor = floor if measured is None else measured

    def above(self, share: float) -> float:
        """The similarity `share` of the way from the floor to 1."""
        return self.floor + share * (1.0 - self.floor)

    def similarity(self, a: int, b: int) -> float:
        if a not in self.at or b not in self.at:
            return 0.0
        return float(self.matrix[self.at[a]] @ self.matrix[self.at[b]])

    def near(self, note_id: int, floor: float) -> dict[int, float]:
        if note_id not in self.at:
            return {}
        sims = self.matrix @ self.matrix[self.at[note_id]]
        return {
            int(self.ids[i]): float(sims[i])
            for i in (sims >= floor).nonzero()[0]
            if int(self.ids[i]) != note_id
        }


@dataclass
class Person:
    """Someone whose notes are checked: their live notes (oldest first) and, with an embedder, vectors."""

    subject: str
    sid: int
    notes: list[Note]
    vectors: Vectors | None = None
    _words: Words | None = None

    @property
    def words(self) -> Words:
        if self._words is None:
            self._words = Words(self.notes)
        return self._words

    def by_id(self) -> dict[int, Note]:
        return {n.id: n for n in self.notes}


@dataclass
class Outcome:
    """What one phase found, how far it got (`mark`), what the model turned down, and whether it ran."""

    findings: list[Finding] = field(default_factory=list)
    mark: int | None = None
    rejected: int = 0
    ran: bool = True


@dataclass
class Run:
    """One run of the check (see the module docstring)."""

    people: list[Person]
    marks: dict[str, int]
    top: int
    judge: Judge
    zone: tzinfo | None = None
    flagged: set[int] = field(default_factory=set)

    def fresh(self, phase: str, person: Person, notes: list[Note] | None = None) -> list[Note]:
        """The person's notes this phase is to look at: written after its mark, not dropped already."""
        mark = self.marks.get(phase, 0)
        return [
            n for n in (person.notes if notes is None else notes) if n.id > mark and n.id not in self.flagged
        ]

    def mark_below(self, unjudged: list[int]) -> int:
        """The mark to keep when the notes `unjudged` are left for the next run."""
        return min(unjudged) - 1 if unjudged else self.top
