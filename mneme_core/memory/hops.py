"""Many hops: a follow-up query from the strongest matches' own rare words.

A question whose evidence is spread ("what pets does she have?", "谁在海边晒伤过？") shares its words with
one piece of the evidence and not with the rest: the turn "took Max to the vet" matches "pets" nowhere, but
the first match ("my pets keep me busy, Max chews everything") names Max. So the `SEEDS` strongest matches'
terms that the question does not have, those found in at least two items and in at most a `COMMON` share of
them (a word only the seed has leads nowhere, a word most items have leads everywhere), rarest first and at
most `TERMS` of them, are asked again as a second query over the same index (notes or lines). What it finds
is lent up to `SHARE` of the first pass's best score, in proportion to its own score, on top of what the
first pass gave it: the follow-up's best is worth less than a third of the best match, so it takes the
slots weak matches would have had, and lifts the matches that share the seeds' words.

A dialogue so far (a query of several lines, see `query`) gets no follow-up: it has words enough of its own,
and on the dialogue sets following them lost one memory in twenty in English.

Measured on the retrieval benchmark's dev sets, words alone, as the transcript (recall@6 / @10; dev-en-5,
dev-zh-3 and dev-mix-2 were written after these constants were chosen on the others):

| set | without | with |
|---|---|---|
| multi-hop (82 q) | 0.512 / 0.603 | 0.538 / 0.645 |
| temporal (90 q) | 0.806 / 0.856 | 0.817 / 0.850 |
| single-hop (194 q) | 0.706 / 0.742 | 0.711 / 0.755 |
| open-domain (33 q) | 0.389 / 0.449 | 0.434 / 0.465 |
| en / zh / mix | 0.633 / 0.684, 0.747 / 0.803, 0.590 / 0.642 | 0.646 / 0.700, 0.762 / 0.807, 0.613 / 0.681 |
| overall (399 q) | 0.662 / 0.715 | 0.677 / 0.730 |
| dev-en-5 (23 q, new) | 0.767 / 0.833 | 0.822 / 0.863 |
| dev-zh-3 (20 q, new) | 0.667 / 0.704 | 0.679 / 0.704 |
| dev-mix-2 (17 q, new) | 0.661 / 0.749 | 0.690 / 0.802 |

Eight of ten conversations gained, dev-zh-2 was the same and dev-en-1 lost 0.008 at 10.
As one note a turn (`--memory notes`, the first 393 questions) overall went from 0.634 / 0.667 to
0.644 / 0.687. Tried: 2 seeds and 6 words lending half (overall 0.655 / 0.701, temporal lost 0.02 at 10),
1 seed (multi-hop up, English down), 16 words (the same as 10), leaving single Han characters out of the
followed words (a little cheaper, zh and mix a little worse).

Cost: one read of the seeds' texts and one more `recall.word_ranked` over at most `TERMS` words, each in at
most `RARE` items, so a few hundred postings. It is asked only when the first pass did not fill all the
places it reads with strong matches (`saturated`): a person of 100,000 notes asking about a word in
thousands of them pays nothing for it. Measured with the follow-up on and off in turn, in one process: on
the dev sets' transcripts (a few hundred lines a person) median 1.39 -> 1.98 ms, p95 5.65 -> 6.96 ms; on
`benchmarks/recall.py`'s 100,000 notes, English 4.13 -> 4.38 ms (p95 8.0 -> 10.9), Chinese 5.31 -> 5.52 ms
(p95 9.8 -> 13.1): the questions whose words are rare pay for the follow-up, the others do not.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from .. import text
from . import recall

__all__ = ["COMMON", "RARE", "SEEDS", "SHARE", "TERMS", "follow", "picking", "saturated", "texts", "wanted"]

SEEDS = 3  # the strongest matches whose words are followed
TERMS = 10  # at most this many of their words
COMMON = 0.1  # a word in more than this share of the person's items leads everywhere, and is not followed
RARE = 64  # nor one in more items than this, however many the person has: it would name no few of them
SHARE = 0.3  # what the follow-up's best match counts, as a share of the first pass's best score


def saturated(strong: int, k: int) -> bool:
    """Whether the first pass's strong matches fill all `k` places it reads: then the question's own words
    have more than enough to choose from, and no follow-up is asked (this is what keeps a person of 100,000
    notes from paying for one; on the dev sets it changed nothing)."""
    return strong >= k


def wanted(ask: recall.Ask) -> bool:
    """Whether this query gets a follow-up: a question, not a dialogue so far (`Ask.turns`), which has
    words enough of its own (on the dialogue sets, following them lost a memory in twenty in English)."""
    return SEEDS > 0 and not ask.turns


def texts(conn: sqlite3.Connection, table: str, ids: list[int]) -> list[str]:
    """The texts of these notes or lines (`table`), the seeds of a follow-up."""
    rows = conn.execute(
        f"select text from {table} where id in (select value from json_each(?))", (recall.ids_json(ids),)
    )
    return [row[0] for row in rows]


def picking(live: int) -> Callable[[list[tuple[int, str, int]]], list[tuple[int, str, int]]]:
    """Which of the seeds' words to follow, given (term id, term, df) of each: those in 2 or more of the
    person's `live` items and at most `COMMON` of them (a few, for a person of few items, and never half)
    and `RARE`, rarest first, at most `TERMS`."""
    most = min(max(2, int(COMMON * live)), live // 2, RARE)

    def pick(found: list[tuple[int, str, int]]) -> list[tuple[int, str, int]]:
        return sorted((t for t in found if 2 <= t[2] <= most), key=lambda t: (t[2], t[1]))[:TERMS]

    return pick


def follow(
    conn: sqlite3.Connection,
    reading: recall.Reading,
    sid: int,
    live: int,
    seeds: list[str],
    asked: list[str],
) -> dict[int, float]:
    """Item id -> what the follow-up query of the seeds' words lends it, as a share of the first pass's best
    score (at most `SHARE`, see the module docstring)."""
    have = set(asked)
    wanted = list(dict.fromkeys(term for seed in seeds for term in text.terms(seed) if term not in have))
    if not wanted:
        return {}
    followed = reading.following(picking(live))
    ranked, _shares = recall.word_ranked(conn, followed, sid, live, wanted)
    top = max((score for _id, _evidence, _hits, score in ranked), default=0.0)
    if top <= 0:
        return {}
    return {item: SHARE * score / top for item, _evidence, _hits, score in ranked}
