"""Phase 2: duplicates, the same thing said twice about a person, folded into one note.

In three steps, each within one person's live notes, each pairing a note new since the last run with any
other:

1. The same text once case, compatibility forms, spacing and punctuation are folded away: certain (1.0;
   0.97 when punctuation differs; 0.05 less when the two carry different keys, which is how the same text
   gets in twice through `remember`: under one key, or none, it is one note). The write rules already
   keep the same text from being written twice under one key; this finds what came in by other paths
   (imports, two keys, two processes).
2. Near-duplicates by words: the rare words two notes share, weighted by rarity (`context.Words`), at least
   `WORDS_NEAR` alike; and, with an embedder, by meaning: vectors `MEANING_NEAR` of the way from the
   person's floor to 1 (`context.Vectors`). On the planted set the words' 0.5 finds 14 of 14 reworded
   duplicates that share most words and flags 3 contradictions ("is 29" / "is 31") as duplicates too,
   which the model turns down and the contradiction phase then finds. Notes
   linked this way form clusters (connected notes; a cluster past `MAX_CLUSTER` is cut into one group per
   new note and its own near notes). Alone these are guesses (0.5 to 0.85 by how alike the pair is).
3. With a model, every cluster is put to it (8 to a call): it says which of the notes say the same thing and
   which one to keep; a cluster it finds nothing in is dropped (rejected), and its own confidence replaces
   the guess. Clusters left when the budget is spent stand as the words found them.

The fix keeps one note (the one the model chose, else the one with a key, then the most important, then the
oldest) and replaces the others by it: they stay in its history.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict

from .. import text
from ..memory.note import Note
from .context import Outcome, Person, Run
from .findings import MEANING, MODEL, REPLACE, WORDS, Finding, Fix
from .judge import CALL_CHARS, line_of, note_id, unit

__all__ = ["MEANING_NEAR", "WORDS_NEAR", "find"]

WORDS_NEAR = 0.5
MEANING_NEAR = 0.45  # of the way from the person's floor to 1 (`context.Vectors.above`)
MAX_CLUSTER = 10
GROUPS_PER_CALL = 8


def same_form(note_text: str) -> str:
    """A text with case, compatibility forms, spacing and punctuation folded away."""
    folded = text.fold(note_text)
    return " ".join("".join(c for c in folded if unicodedata.category(c)[0] != "P").split())


def best(notes: list[Note]) -> Note:
    """The one to keep: with a key, then the most important, then lasting, then the oldest."""
    return min(notes, key=lambda n: (n.key is None, -n.importance, not n.lasting, n.id))


def _replace(phase_subject: str, keep: Note, drop: list[Note], problem: str, confidence: float, by: str):
    ids = (keep.id, *(n.id for n in drop))
    fix = Fix(REPLACE, keep=keep.id, drop=tuple(n.id for n in drop))
    return Finding("duplicates", phase_subject, ids, problem, fix, confidence, by)


def _says(drop: list[Note], keep: Note, may: str = "") -> str:
    """ "#3 says what #2 says", "#3, #4 may say what #2 says": our words, never a note's."""
    verb = "say" if may or len(drop) > 1 else "says"
    return f"{', '.join(f'#{n.id}' for n in drop)} {may}{verb} what #{keep.id} says"


def _same_text(run: Run, person: Person, fresh: set[int]) -> list[Finding]:
    groups: dict[str, list[Note]] = defaultdict(list)
    for note in person.notes:
        if note.id not in run.flagged:
            groups[same_form(note.text)].append(note)
    found = []
    for group in groups.values():
        if len(group) < 2 or not fresh & {n.id for n in group}:
            continue
        keep = best(group)
        drop = [n for n in group if n is not keep]
        exact = len({text.fold(n.text) for n in group}) == 1
        confidence = 1.0 if exact else 0.97
        if len({n.key for n in group if n.key}) > 1:
            confidence -= 0.05
        found.append(_replace(person.subject, keep, drop, _says(drop, keep), confidence, WORDS))
        run.flagged.update(n.id for n in drop)
    return found


def _guess(similar: float, floor: float) -> float:
    return 0.5 + 0.35 * min(1.0, max(0.0, (similar - floor) / (1 - floor)))


def _clusters(run: Run, person: Person, fresh: list[Note]) -> list[tuple[list[Note], float, str]]:
    """Groups of near notes, each with how alike its closest pair is and what found it."""
    pairs: dict[tuple[int, int], tuple[float, str]] = {}
    for note in fresh:
        near = {
            other: (_guess(sim, WORDS_NEAR), WORDS)
            for other, sim in person.words.near(note.id, WORDS_NEAR).items()
        }
        if person.vectors is not None:
            floor = person.vectors.above(MEANING_NEAR)
            for other, sim in person.vectors.near(note.id, floor).items():
                guess = _guess(sim, floor)
                if guess > near.get(other, (0.0, ""))[0]:
                    near[other] = (guess, MEANING)
        for other, found in near.items():
            if other not in run.flagged:
                pairs[(min(note.id, other), max(note.id, other))] = found
    parent: dict[int, int] = {}

    def root(i: int) -> int:
        while parent.setdefault(i, i) != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in pairs:
        parent[root(a)] = root(b)
    members: dict[int, list[int]] = defaultdict(list)
    for i in list(parent):
        members[root(i)].append(i)
    notes = person.by_id()
    groups: list[list[int]] = []
    fresh_ids = {n.id for n in fresh}
    for ids in members.values():
        if len(ids) <= MAX_CLUSTER:
            groups.append(sorted(ids))
            continue
        for start in sorted(set(ids) & fresh_ids):  # too big: each new note with its own near notes
            near = [b if a == start else a for a, b in pairs if start in (a, b)]
            groups.append(sorted({start, *near[: MAX_CLUSTER - 1]}))
    found = []
    for ids in groups:
        inside = [pairs[p] for p in pairs if p[0] in ids and p[1] in ids]
        confidence, by = max(inside)
        found.append(([notes[i] for i in ids], confidence, by))
    return found


async def _judged(
    run: Run, subject: str, clusters: list[tuple[list[Note], float, str]], outcome: Outcome
) -> list[int]:
    """Put the clusters to the model; its findings go to `outcome`; returns the new notes left unjudged."""
    unjudged: list[int] = []
    calls: list[list[tuple[list[Note], float, str]]] = [[]]
    chars = 0
    for cluster in clusters:
        size = sum(len(line_of(n)) + 1 for n in cluster[0])
        if calls[-1] and (len(calls[-1]) >= GROUPS_PER_CALL or chars + size > CALL_CHARS):
            calls.append([])
            chars = 0
        calls[-1].append(cluster)
        chars += size
    mark = run.marks.get("duplicates", 0)
    for call in (c for c in calls if c):
        user = "\n\n".join(
            f"Group {i}:\n" + "\n".join(line_of(n, run.zone) for n in notes)
            for i, (notes, _, _) in enumerate(call, 1)
        )
        items = await run.judge.ask("check_duplicates", user)
        if items is None:
            for notes, confidence, by in call:
                unjudged += [n.id for n in notes if n.id > mark]
                keep = best(notes)
                drop = [n for n in notes if n is not keep]
                outcome.findings.append(
                    _replace(subject, keep, drop, _says(drop, keep, "may "), confidence, by)
                )
            continue
        answered: set[int] = set()
        for item in items:
            group = note_id(item.get("group"))
            if group is None or not 1 <= group <= len(call):
                continue
            notes = {n.id: n for n in call[group - 1][0]}
            same = [notes[i] for i in dict.fromkeys(note_id(x) for x in item.get("same") or []) if i in notes]
            if len(same) < 2 or any(n.id in run.flagged for n in same):
                continue
            chosen = note_id(item.get("keep"))
            keep = notes[chosen] if chosen in {n.id for n in same} else best(same)
            drop = [n for n in same if n is not keep]
            problem = _says(drop, keep)
            confidence = unit(item.get("confidence"), 0.8)
            outcome.findings.append(_replace(subject, keep, drop, problem, confidence, MODEL))
            run.flagged.update(n.id for n in drop)
            answered.add(group)
        outcome.rejected += len(call) - len(answered)
    return unjudged


async def find(run: Run) -> Outcome:
    outcome = Outcome()
    unjudged: list[int] = []
    for person in run.people:
        fresh = run.fresh("duplicates", person)
        if not fresh:
            continue
        outcome.findings += _same_text(run, person, {n.id for n in fresh})
        fresh = [n for n in fresh if n.id not in run.flagged]
        clusters = _clusters(run, person, fresh)
        if run.judge.present:
            unjudged += await _judged(run, person.subject, clusters, outcome)
            continue
        for notes, confidence, by in clusters:
            keep = best(notes)
            drop = [n for n in notes if n is not keep]
            outcome.findings.append(
                _replace(person.subject, keep, drop, _says(drop, keep, "may "), confidence, by)
            )
    outcome.mark = run.mark_below(unjudged)
    return outcome
