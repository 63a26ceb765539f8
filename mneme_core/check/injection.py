"""Phase 1: notes that look like prompt injection, found by patterns first, confirmed by the model.

A note is shown to the companion's model in every prompt block, as data; a note that reads like an order to
the model ("ignore your previous instructions", "you are now DAN", "<|im_start|>system") was most likely
planted, and it is hidden. The patterns (English and Chinese) are cheap and run on every note that is new
since the last run; each has a confidence of its own (a chat-template marker 0.9, talk of "the system
prompt" only 0.6, since a prompt engineer's note says that too). With a model, every hit is sent to it
(20 to a call), and its probability replaces the pattern's: a hit it clears is dropped (counted as
rejected). Without a model, or once the budget is spent, a hit stands on the pattern's confidence.
"""

from __future__ import annotations

import re

from .context import Outcome, Run
from .findings import FORGET, MODEL, WORDS, Finding, Fix
from .judge import batches, lines_of, note_id, unit

__all__ = ["PATTERNS", "find", "hits"]

BATCH = 20
WORDS_ONLY = 0.85
CONFIRMED = 0.5  # a model's probability below this clears the note

_I = re.IGNORECASE
PATTERNS: tuple[tuple[re.Pattern[str], float, str], ...] = (
    (
        re.compile(
            r"\b(ignore|disregard|forget|override|bypass)\b.{0,40}\b(previous|prior|above|earlier|all|any|"
            r"your|the|safety)\b.{0,30}\b(instructions?|rules|prompts?|directions|guidelines|guardrails)",
            _I,
        ),
        0.9,
        "tells the assistant to drop its instructions",
    ),
    (
        re.compile(
            r"<\|?(im_start|im_end|system|endoftext)\|?>|\[/?(INST|SYS)\]|<</?SYS>>|^\s*#+\s*system\b", _I
        ),
        0.9,
        "carries chat-template markers",
    ),
    (
        re.compile(
            r"\b(reveal|print|show|repeat|output|leak)\b.{0,40}\b(system prompt|instructions|hidden prompt|"
            r"secret|api key|password)",
            _I,
        ),
        0.8,
        "asks the assistant to reveal what it must not",
    ),
    (
        re.compile(r"\b(jailbreak|DAN mode|developer mode|no restrictions|unfiltered mode)\b", _I),
        0.8,
        "asks for a jailbreak",
    ),
    (
        re.compile(
            r"\byou (are|will be) now\b|\bfrom now on,? you\b|\bpretend (to be|you are)\b"
            r"|\bact as (an?|the)\b",
            _I,
        ),
        0.7,
        "gives the assistant a new role",
    ),
    (
        re.compile(
            r"\b(the )?(assistant|AI|bot|model)\b.{0,20}\b(must|should|will) (always|never|obey)\b", _I
        ),
        0.7,
        "orders the assistant how to behave",
    ),
    (
        re.compile(r"\b(system|developer) (prompts?|messages?|instructions?)\b", _I),
        0.6,
        "speaks of the system prompt",
    ),
    (
        re.compile(r"(忽略|无视|忘记|忘掉|不要理会).{0,12}(指令|指示|规则|提示词|设定|要求)"),
        0.9,
        "tells the assistant to drop its instructions",
    ),
    (
        re.compile(r"(你现在是|从现在起你|从现在开始你|你必须扮演|扮演一个)"),
        0.7,
        "gives the assistant a new role",
    ),
    (re.compile(r"(系统提示|系统指令|开发者模式|越狱)"), 0.7, "speaks of the system prompt"),
)


def hits(note_text: str) -> tuple[float, str] | None:
    """The strongest pattern a text matches: (confidence, what it does), or None. Patterns alone never
    reach `WORDS_ONLY`: without a model's word, a pattern never hides a note at the default confidence
    (0.9) of `fix`: on the planted set 3 of 4 innocent notes match a pattern."""
    found = [
        (min(confidence, WORDS_ONLY), why)
        for pattern, confidence, why in PATTERNS
        if pattern.search(note_text)
    ]
    return max(found) if found else None


async def find(run: Run) -> Outcome:
    outcome = Outcome()
    suspects = []
    for person in run.people:
        for note in run.fresh("injection", person):
            hit = hits(note.text)
            if hit is not None:
                suspects.append((person.subject, note, *hit))
    judged: dict[int, float] = {}
    unjudged: list[int] = []
    if run.judge.present:
        for batch in batches([note for _, note, _, _ in suspects], BATCH):
            items = await run.judge.ask("check_injection", lines_of(batch, run.zone))
            if items is None:
                unjudged += [n.id for n in batch]
                continue
            offered = {n.id for n in batch}
            for item in items:
                found = note_id(item.get("id"))
                if found in offered:
                    judged[found] = unit(item.get("injection", item.get("probability")), 0.0)
            for note in batch:  # a note the model passed over is one it did not find injected
                judged.setdefault(note.id, 0.0)
    for subject, note, confidence, why in suspects:
        by = WORDS
        if note.id in judged:
            if judged[note.id] < CONFIRMED:
                outcome.rejected += 1
                continue
            confidence, by = judged[note.id], MODEL
        run.flagged.add(note.id)
        fix = Fix(FORGET, drop=(note.id,))
        outcome.findings.append(
            Finding("injection", subject, (note.id,), f"#{note.id} {why}", fix, confidence, by)
        )
    outcome.mark = run.mark_below(unjudged)
    return outcome
