"""The query's terms and what each weighs: a dialogue so far counts its latest lines most.

A bot may ask recall with the conversation so far, one turn a line, both speakers (the second held-out set
does). What the next reply should bring up is mostly in the last turns; the turns before them are the
conversation's past, and their rare words are as rare as the present's, so with every term weighing the
same an old aside ("I had a plate of langoustines last week") outbids the question just asked, and the
cap on a query's terms (`recall.MAX_TERMS`, the rarest 32) is spent on words of the past. So each term of
a query of several lines weighs `DECAY ** d` (at least `FLOOR`), `d` being how many lines before the last
it last appeared: the last line 1, the one before 0.7, then 0.49, 0.34, ... 0.2. A term's evidence is its
`idf` times that weight, and the capped terms are those of the most weight. A one-line query is weighed as
before (every term 1).

Measured with words alone on the retrieval benchmark's dialogue sets (recall@6 / @10; "long" is each
dialogue after the two before it, the conversation drifting across topics):

| set | before | after |
|---|---|---|
| dialogue zh 1 | 0.775 / 0.787 | 0.800 / 0.812 |
| dialogue zh 2 | 0.733 / 0.817 | 0.800 / 0.883 |
| dialogue zh 1 long | 0.613 / 0.725 | 0.775 / 0.838 |
| dialogue zh 2 long | 0.550 / 0.600 | 0.767 / 0.850 |
| dialogue en 1 | 0.637 / 0.688 | 0.662 / 0.688 |
| dialogue en 2 | 0.675 / 0.675 | 0.675 / 0.675 |
| dialogue en 1 long | 0.512 / 0.675 | 0.662 / 0.700 |
| dialogue en 2 long | 0.575 / 0.625 | 0.650 / 0.675 |

A decay of 0.5 to 0.85 all helped (0.7 and a floor of 0.2 won on most sets). Tried and left out: weighing
the other speaker's lines (every second line from the end) 0.5 or 0.7 (worse on the English sets), half
or 0.7 weight for single Han characters (worse in Chinese), 24 or 48 terms instead of 32 (the same within
a question or two); with no decay, 64 terms was much worse on the long sets (0.550 -> 0.517 @6).
"""

from __future__ import annotations

from .. import text

__all__ = ["DECAY", "FLOOR", "turns", "weighted"]

DECAY = 0.7  # what a term weighs for each line it is before the last
FLOOR = 0.2  # and at least


def turns(query: str) -> tuple[str, ...]:
    """The lines of a query, each one clean line, when it has more than one (a dialogue so far); else ()."""
    found = tuple(line for line in map(text.clean, query.splitlines()) if line)
    return found if len(found) > 1 else ()


def weighted(lines: tuple[str, ...], found: list[str]) -> dict[str, float]:
    """Each of `found` (the query's terms) and its weight for a query of these `lines`; {} for a query of
    one line, whose terms all weigh 1."""
    if len(lines) <= 1:
        return {}
    wanted = set(found)
    weights: dict[str, float] = {}
    weight = 1.0
    for line in reversed(lines):
        for term in text.terms(line):
            if term in wanted and term not in weights:
                weights[term] = weight
        weight = max(FLOOR, weight * DECAY)
    return weights | {term: FLOOR for term in found if term not in weights}
