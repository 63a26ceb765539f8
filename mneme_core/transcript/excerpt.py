"""A long line quoted as its part around what matched, in the room the budget has left for it.

A recall quotes up to `Ask.lines` lines within `Ask.line_budget` characters, best first; a line that does not
fit what is left used to be skipped for a shorter one. People in a chat app write short lines, people
writing to a companion at length do not: the public LoCoMo conversations' turns are ~130 characters on
average, four times the dev set's, and there the budget binds before the count. So a line too long for the
room left (at least `transcript.recall.QUOTED` characters) is quoted as an excerpt that fills it: the run of
whole sentences that holds the most of what matched in the fewest sentences, then the sentences after it and
before it while they fit, "…" where it was cut. When the sentence that matched most is longer than the
room, it is cut around its first matched word; a line found by meaning alone (no shared word) is quoted
from its start. Lines that fit are quoted whole, as before.

Sentences rather than a window of characters: the answer to "who is Leah engaged to?" is usually the
sentence that names Leah, whole, and a cut mid-sentence loses the words a model needs to read it.

Measured on `benchmarks/data/long.json` (two conversations with LoCoMo-length turns, mean 139 characters,
written for this and committed before any engine ran on them), words alone, evidence found @6 / @10 and,
since ids found say nothing of what an excerpt leaves out, the answer's words the block quotes of the
evidence lines (of those the evidence holds):

| | evidence @6 / @10 | answer words quoted |
|---|---|---|
| whole lines only (before) | 0.542 / 0.643 | 0.544 |
| excerpts in the room left, at least 60 | 0.588 / 0.654 | 0.547 |
| excerpts in the room left, at least 40 (chosen) | 0.592 / 0.666 | 0.552 |
| the same, a best sentence too long cut rather than passed over | 0.592 / 0.666 | 0.557 |
| every line over 160 an excerpt of 160 | 0.573 / 0.662 | 0.549 |

On the dev and fresh sets (short lines) nothing changes. A simulation that was not chosen: every line over
the limit an excerpt, on the fresh set's short one-sentence lines with the budgets cut to a quarter, found
more ids (0.508 / 0.621 -> 0.596 / 0.677) but quoted fewer answer words (0.554 -> 0.518): cutting a single
sentence loses more than it makes room for, so lines that fit stay whole.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from .. import text

__all__ = ["excerpt", "sentences_of"]

_WORD = re.compile(r"\w+", re.UNICODE)
LEAD = 0.25  # how much of a cut sentence's excerpt comes before its first matched word


def excerpt(line: str, matched: Collection[str], limit: int) -> str:
    """`line` whole when it fits in `limit` characters; otherwise the sentences around `matched` (index terms,
    `text.terms`) that fit, with "…" where it was cut (counted in `limit`)."""
    if len(line) <= limit:
        return line
    wanted = set(matched)
    sentences = sentences_of(line)
    hits = [len(wanted.intersection(text.terms(s))) for s in sentences]
    best, best_hits = (0, 1), -1
    for first in range(len(sentences)):
        held = 0
        for last in range(first, len(sentences)):
            if not _fits(sentences, first, last + 1, limit):
                break
            held += hits[last]
            if held > best_hits or (held == best_hits and last + 1 - first < best[1] - best[0]):
                best, best_hits = (first, last + 1), held  # the most matched in the fewest sentences
    if best_hits < max(hits):  # the best sentence does not fit (nor any run as good): it, cut around its
        first = max(range(len(sentences)), key=lambda i: (hits[i], -i))  # first matched word
        return _cut(sentences[first].strip(), wanted, limit, first > 0)
    first, end = best
    while end < len(sentences) and _fits(sentences, first, end + 1, limit):  # then what follows, then before
        end += 1
    while first > 0 and _fits(sentences, first - 1, end, limit):
        first -= 1
    quoted = "".join(sentences[first:end]).strip()
    return (text.ELLIPSIS if first > 0 else "") + quoted + (text.ELLIPSIS if end < len(sentences) else "")


def sentences_of(line: str) -> list[str]:
    """The line's sentences, in order, their spaces kept (`text.SENTENCES`: where `bot.split` cuts)."""
    return [s for s in text.SENTENCES.findall(line) if s]  # the pattern's last match is empty


def _fits(sentences: list[str], first: int, end: int, limit: int) -> bool:
    cut = (first > 0) + (end < len(sentences))  # the "…" the run needs
    return sum(len(s) for s in sentences[first:end]) + cut <= limit


def _cut(sentence: str, wanted: set[str], limit: int, after_start: bool) -> str:
    """At most `limit` characters of one long sentence, starting a little before its first matched word."""
    at = 0
    for word in _WORD.finditer(sentence):
        if wanted.intersection(text.terms(word.group())):
            at = word.start()
            break
    start = max(0, at - int(limit * LEAD))
    if start > 0:  # begin at a word
        space = sentence.find(" ", start, at)
        start = space + 1 if space >= 0 else start
    lead = text.ELLIPSIS if start > 0 or after_start else ""
    return lead + text.clip(sentence[start:], limit - len(lead))
