"""The kind a question asks about: "What instrument does Grace play?" is answered by "the cello".

People ask about a thing by its kind ("which instrument", "what kind of dog", "哪种乐器", "什么水果") and
tell of it by its name ("I finally bought a cello", "我家柯基又拆家了"), so the question and its answer
share no word, and words alone cannot find it however rare the name is. A question's word that names a kind
(`kinds.tsv`: 107 kinds, built by `benchmarks/data/build_kinds.py` from WordNet 3.0 for English, by hand for
Chinese and for the English kinds WordNet lacks) brings its members into the query ("cello", "piano",
"guitar", ...; "提琴", "钢琴", "古筝", ...), each weighing `MEMBER` of what the kind's word weighs, so a line
that names one is evidence of a kind that the question asked about, and the person's own lines say which
members count (a member nobody ever said is in no posting and costs one lookup).

Measured with words alone (recall@6 / @10; fresh, long and blind were written before any engine ran on them,
blind on 2026-12-03 with questions that paraphrase their evidence, "From whom did Grace acquire her new
instrument?" for "I finally bought [a cello] from a retired music teacher"):

| set | before | `MEMBER` 0.3 | 0.5 | 0.7 (chosen) | 1.0 |
|---|---|---|---|---|---|
| dev (399 q) | 0.734 / 0.777 | 0.743 / 0.787 | 0.745 / 0.792 | 0.748 / 0.796 | 0.752 / 0.798 |
| fresh (227 q) | 0.624 / 0.698 | 0.627 / 0.706 | 0.631 / 0.711 | 0.634 / 0.711 | 0.634 / 0.710 |
| long (121 q) | 0.612 / 0.705 | 0.603 / 0.713 | 0.603 / 0.713 | 0.599 / 0.705 | 0.608 / 0.700 |
| blind (90 q) | 0.382 / 0.467 | 0.403 / 0.498 | 0.403 / 0.494 | 0.440 / 0.506 | 0.444 / 0.509 |

(The other columns with at most 400 members a kind; the table keeps 300.) The gain is the single-hop and
multi-hop questions that name a kind ("What breed is Biscuit?", "What pets does Nadia's household have?",
"周然家买的是什么车？", "Which city did Emily fly from?"): of the 837 questions, 26 gained and 3 lost, the
losses a job's or a career's members (WordNet's workers are many and plain: "Does money drive Marisol's
career choices?"). With e5 beside words (rank fusion), blind went 0.438 / 0.562 -> 0.449 / 0.581. A kind
question reads a few hundred more terms' postings: on a long conversation's lines a recall took 2-4 ms
against 1-2 for the same question without its kind's word (medians on a busy machine).

WordNet has no tree for what people do in their spare time, and files a pet cat and a rabbit elsewhere, so
some English kinds are written by hand (`build_kinds.ENGLISH`: hobbies and activities, art and crafts,
games, exercise, events, what one bakes, a competitive streak, music, adventure; a pet cat, a broken wrist
for an injury) and 爱好 in Chinese. Evidence @10 with words on the LoCoMo-layout sets: blind 0.550 ->
0.582, blind 2 0.559 -> 0.570, dev 0.819 -> 0.823, fresh 0.723 -> 0.730, long 0.716 -> 0.713 (a question
about bread "from hobby to business"); blind 18 and blind 19, written after the first of these rows,
found them nearly idle (blind 19 0.625 -> 0.627). Rows that cost more than they gave were left out: "受伤"
(a question about one injury brought the others), "relationship" (a brother's), "outdoors" (a chat's "big
outdoor thing" for a wedding). In the dialogue sets, "music" said in passing cost blind 9's English half a
question @6.

A dialogue so far is widened too, each line's kinds weighing their share of that line's weight (an old
line's little): a chat names kinds in passing ("what a day at work"), but on the dialogue sets widening
gained more than it lost (the table at `recall.Ask._members`). Members are single terms (an English stem;
a Chinese character or pair), so "golden retriever" is "retriever" and 小提琴 is 提琴.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from . import common

__all__ = ["MEMBER", "members", "weight", "widened"]

MEMBER = 0.7  # what a member weighs, as a share of its kind's word
TABLE = "kinds.tsv"


def members(term: str) -> tuple[str, ...]:
    """The members' terms of the kind this term names ("instrument" -> "cello", "drum", ...), else ()."""
    return _table().get(term, ())


def weight(member: str, kind: str) -> float:
    """What a member weighs for its kind's word weighing 1: `MEMBER`, times how common it is in its language
    (`common.weight`), worked out once a kind (an animal's 300 members are a question's, not a table's)."""
    return _weights(kind)[member]


@cache
def _weights(kind: str) -> dict[str, float]:
    return {member: MEMBER * common.weight(member) for member in members(kind)}


def widened(terms: Iterable[str]) -> dict[str, str]:
    """The members the query's kinds bring, each to its kind (the first kind that names it), less the
    query's own terms."""
    return common.widened(terms, members)


@cache
def _table() -> dict[str, tuple[str, ...]]:
    """The table, read once: kind term -> its members' terms."""
    return {kind: tuple(said.split()) for kind, said in common.rows(TABLE, "build_kinds.py")}
