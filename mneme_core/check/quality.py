"""Phases 4 and 5: broken or meaningless notes, and notes of the wrong kind or importance.

Broken, by the words: no letter at all (0.95), a placeholder ("none", "null", "n/a", "...": 0.95), garbled
characters (U+FFFD, mojibake such as "Ã©": 0.8), a fragment of JSON or markup (0.8), a character or word
repeated over and over (0.7), one word and nothing else (0.6). The fix hides the note.

Wrong kind or importance, by the words: a like or dislike ("loves", "hates", "favourite", "喜欢") kept as
something else is a preference (0.6); a lasting note about what is coming ("next week", "is going to",
"明天") is a plan (0.55); health and safety ("allergic", "diabetes", "过敏") below importance 4 is 4 (0.6).
The fix is a new version of the note with the right kind or importance.

With a model, every note new since the last run (and not dropped by an earlier phase) is put to it, 30 to a
call: it names the broken ones (and may give a repaired text, then the fix is a new version with it) and,
in the next phase, the ones of the wrong kind or importance. A note the words flagged and the model judged
fine is dropped (rejected); notes left when the budget is spent stand as the words found them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Any

from .. import text
from ..memory.note import KINDS, TEXT_LIMIT, Note
from .context import Outcome, Run
from .findings import FORGET, MODEL, REVISE, WORDS, Finding, Fix
from .judge import batches, lines_of, note_id, unit

__all__ = ["broken", "find_broken", "find_kinds", "kind_hint"]

BATCH = 30
PLACEHOLDERS = frozenset(
    {
        "none",
        "null",
        "n/a",
        "na",
        "nil",
        "undefined",
        "nan",
        "todo",
        "tbd",
        "test",
        "unknown",
        "无",
        "没有",
        "空",
    }
)
_MOJIBAKE = re.compile("\ufffd|Ã[\u0080-\u00bf©¨§¤¶]|â€|Â[\u00a0-\u00bf]")
_MARKUP = re.compile(r'^\s*[\[{<].*[\]}>]\s*$|"\w+"\s*:\s*["\[{\d]|</?\w+[^>]*>|```')
_REPEATED = re.compile(r"(.)\1{5,}|\b(\w+)(?:\W+\2\b){3,}", re.IGNORECASE)
_HAN = re.compile(r"[\u3400-\u9fff\uac00-\ud7a3\u3040-\u30ff]{2,}")

_LIKES = re.compile(
    r"\b(likes?|loves?|hates?|dislikes?|prefers?|enjoys?|adores?|favou?rite|can'?t stand|is a fan of)\b"
    r"|喜欢|爱吃|讨厌|不喜欢|最爱|偏爱",
    re.IGNORECASE,
)
_AHEAD = re.compile(
    r"\b(tomorrow|next (week|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"is going to|are going to|plans? to|will (start|move|fly|travel|visit|have|take))\b"
    r"|明天|下周|下个月|明年|打算|准备",
    re.IGNORECASE,
)
_HEALTH = re.compile(
    r"\b(allerg\w*|anaphyla\w*|diabet\w*|asthma\w*|epilep\w*|seizures?|pregnan\w*|heart condition|"
    r"insulin|epipen|suicid\w*|self-harm)\b|过敏|糖尿病|哮喘|癫痫|怀孕|心脏病",
    re.IGNORECASE,
)


def broken(note_text: str) -> tuple[float, str] | None:
    """Whether a text is broken by the words: (confidence, why), or None."""
    shown = text.clean(note_text)
    if not any(unicodedata.category(c)[0] == "L" for c in shown):
        return 0.95, "has no words"
    if text.fold(shown).strip(" .…!?。") in PLACEHOLDERS or not shown.strip(" .…"):
        return 0.95, "is a placeholder, not a note"
    if _MOJIBAKE.search(shown):
        return 0.8, "has garbled characters"
    if _MARKUP.search(shown):
        return 0.8, "is a fragment of JSON or markup"
    if _REPEATED.search(shown):
        return 0.7, "repeats itself"
    if len(text.terms(shown)) < 2 and not _HAN.search(shown):
        return 0.6, "is too short to say anything"
    return None


def kind_hint(note: Note) -> tuple[str | None, int | None, float, str] | None:
    """The kind or importance the words suggest for a note: (kind, importance, confidence, why), or None."""
    if note.kind != "preference" and note.kind != "plan" and _LIKES.search(note.text):
        return "preference", None, 0.6, "says what the person likes or dislikes"
    if note.lasting and _AHEAD.search(note.text):
        return "plan", None, 0.55, "is about something coming up"
    if note.importance < 4 and _HEALTH.search(note.text):
        return None, 4, 0.6, "is about health or safety"
    return None


def _forget(subject: str, note: Note, why: str, confidence: float, by: str) -> Finding:
    return Finding(
        "broken", subject, (note.id,), f"#{note.id} {why}", Fix(FORGET, drop=(note.id,)), confidence, by
    )


Judged = Callable[[str, Note, dict[str, Any]], "Finding | None"]


async def _each_note(
    run: Run, phase: str, prompt: str, words: Callable[[str, Note], Finding | None], model: Judged
) -> Outcome:
    """A phase that looks at each new note alone: the words' findings, then the model's in batches."""
    outcome = Outcome()
    found: dict[int, Finding] = {}
    subjects: dict[int, str] = {}
    looked: list[Note] = []
    for person in run.people:
        for note in run.fresh(phase, person):
            subjects[note.id] = person.subject
            looked.append(note)
            if (finding := words(person.subject, note)) is not None:
                found[note.id] = finding
    unjudged: list[int] = []
    for batch in batches(looked, BATCH) if run.judge.present else []:
        items = await run.judge.ask(prompt, lines_of(batch, run.zone))
        if items is None:
            unjudged += [n.id for n in batch]
            continue
        offered = {n.id: n for n in batch}
        said: dict[int, Finding] = {}
        for item in items:
            at = note_id(item.get("id"))
            if at in offered and at not in said and (finding := model(subjects[at], offered[at], item)):
                said[at] = finding
        for note in batch:  # the model's word replaces the words': a note it passed over is fine
            if note.id in said:
                found[note.id] = said[note.id]
            elif found.pop(note.id, None) is not None:
                outcome.rejected += 1
    outcome.findings = list(found.values())
    outcome.mark = run.mark_below(unjudged)
    return outcome


def _broken_by_words(subject: str, note: Note) -> Finding | None:
    hit = broken(note.text)
    return None if hit is None else _forget(subject, note, hit[1], hit[0], WORDS)


def _broken_by_model(subject: str, note: Note, item: dict[str, Any]) -> Finding:
    confidence = unit(item.get("confidence"), 0.7)
    why = "meaningless" if item.get("problem") == "meaningless" else "broken"  # our words, never the note's
    repaired = item.get("text")
    if item.get("fix") == "rewrite" and isinstance(repaired, str) and not text.is_blank(repaired):
        fix = Fix(REVISE, keep=note.id, text=text.one_line(repaired, TEXT_LIMIT))
        return Finding(
            "broken", subject, (note.id,), f"#{note.id} is {why}; repaired", fix, confidence, MODEL
        )
    return _forget(subject, note, f"is {why}", confidence, MODEL)


async def find_broken(run: Run) -> Outcome:
    outcome = await _each_note(run, "broken", "check_broken", _broken_by_words, _broken_by_model)
    run.flagged.update(f.notes[0] for f in outcome.findings if f.fix.action == FORGET)
    return outcome


def _kinds_by_words(subject: str, note: Note) -> Finding | None:
    hint = kind_hint(note)
    return None if hint is None else _reclassify(subject, note, *hint, WORDS)


def _kinds_by_model(subject: str, note: Note, item: dict[str, Any]) -> Finding | None:
    kind = item.get("kind") if item.get("kind") in KINDS and item.get("kind") != note.kind else None
    importance = note_id(item.get("importance"))
    if importance is None or not 1 <= importance <= 5 or importance == note.importance:
        importance = None
    if kind is None and importance is None:
        return None
    confidence = unit(item.get("confidence"), 0.7)
    return _reclassify(subject, note, kind, importance, confidence, "is misfiled", MODEL)


async def find_kinds(run: Run) -> Outcome:
    return await _each_note(run, "kinds", "check_kinds", _kinds_by_words, _kinds_by_model)


def _reclassify(
    subject: str, note: Note, kind: str | None, importance: int | None, confidence: float, why: str, by: str
) -> Finding:
    changes = []
    if kind is not None:
        changes.append(f"a {kind}, not a {note.kind}")
    if importance is not None:
        changes.append(f"importance {importance}, not {note.importance}")
    fix = Fix(REVISE, keep=note.id, kind=kind, importance=importance)
    return Finding(
        "kinds", subject, (note.id,), f"#{note.id} {why}: {'; '.join(changes)}", fix, confidence, by
    )
