"""Phase 3: contradictions among a person's lasting notes (facts and preferences), judged by the model.

"Leo drives a Skoda" and "Leo drives a Tesla" cannot both be true now; words alone cannot tell that from
"Leo drives a Skoda" and "Leo likes Skodas", so this phase needs the model and does not run without one
(its mark stays, and a later run with a model catches up).

What the model sees: for a person with at most `WHOLE` lasting notes, all of them in one call (when any is
new since the last run), so a contradiction that shares no word ("Leo is vegetarian" / "Leo's favourite
food is steak") is still in view. For more, each new lasting note with its `NEIGHBOURS` closest lasting
notes (by words and, with an embedder, meaning), packed into calls of at most `WHOLE` notes. It answers
with the pairs that contradict each other and which of the two is current (the newer one, unless the text
says otherwise); the fix replaces the other one by it, so the old fact stays in the history.
"""

from __future__ import annotations

from ..memory.note import Note
from .context import Outcome, Person, Run
from .findings import MODEL, REPLACE, Finding, Fix
from .judge import lines_of, note_id, unit

__all__ = ["find"]

WHOLE = 40
NEIGHBOURS = 7
NEAR = 0.05  # any shared rare word counts as a neighbour; the closest NEIGHBOURS are kept


def _groups(run: Run, person: Person, lasting: list[Note], fresh: list[Note]) -> list[list[Note]]:
    if len(lasting) <= WHOLE:
        return [lasting]
    ids = {n.id for n in lasting}
    notes = person.by_id()
    groups: list[list[Note]] = []
    current: set[int] = set()
    for note in fresh:
        near = dict(person.words.near(note.id, NEAR))
        if person.vectors is not None:
            for other, sim in person.vectors.near(note.id, 0.0).items():
                near[other] = max(sim, near.get(other, 0.0))
        closest = sorted((i for i in near if i in ids), key=lambda i: -near[i])[:NEIGHBOURS]
        group = {note.id, *closest}
        if current and len(current | group) > WHOLE:
            groups.append(sorted((notes[i] for i in current), key=lambda n: n.id))
            current = set()
        current |= group
    if current:
        groups.append(sorted((notes[i] for i in current), key=lambda n: n.id))
    return groups


async def find(run: Run) -> Outcome:
    outcome = Outcome()
    if not run.judge.present:
        outcome.ran = False
        outcome.mark = run.marks.get("contradictions", 0)
        return outcome
    unjudged: list[int] = []
    mark = run.marks.get("contradictions", 0)
    for person in run.people:
        lasting = [n for n in person.notes if n.lasting and n.id not in run.flagged]
        fresh = run.fresh("contradictions", person, lasting)
        if not fresh or len(lasting) < 2:
            continue
        for group in _groups(run, person, lasting, fresh):
            items = await run.judge.ask("check_contradictions", lines_of(group, run.zone))
            if items is None:
                unjudged += [n.id for n in group if n.id > mark]
                continue
            _read(run, person, {n.id: n for n in group}, items, outcome)
    outcome.mark = run.mark_below(unjudged)
    return outcome


def _read(run: Run, person: Person, notes: dict[int, Note], items: list[dict], outcome: Outcome) -> None:
    for item in items:
        ids = list(dict.fromkeys(note_id(x) for x in item.get("ids") or item.get("notes") or []))
        pair = [notes[i] for i in ids if i in notes and i not in run.flagged]
        if len(pair) != 2 or len(ids) != 2:
            continue
        current = note_id(item.get("current"))
        keep = next((n for n in pair if n.id == current), max(pair, key=lambda n: (n.created_at, n.id)))
        (old,) = [n for n in pair if n is not keep]
        fix = Fix(REPLACE, keep=keep.id, drop=(old.id,))
        problem = f"#{old.id} and #{keep.id} cannot both be true; #{keep.id} is current"
        confidence = unit(item.get("confidence"), 0.7)
        outcome.findings.append(
            Finding("contradictions", person.subject, (old.id, keep.id), problem, fix, confidence, MODEL)
        )
        run.flagged.add(old.id)
