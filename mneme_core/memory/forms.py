"""A question's word meets the words derived from it: "When did Rafi compete?" is answered by "his first
real competition", "Who teaches Rafael the cello?" by "my cello teacher".

The normaliser (`text`) makes inflections meet ("competes", "competed"), not derivations: "compete" and
"competition", "teach" and "teacher", "marriage" and "married", "garden" and "gardener", "retire" and
"retirement" are different terms, and a question paraphrases its evidence with them often (LoCoMo's
annotators do). So a question's English word brings its derived forms (`forms.tsv`: WordNet 3.0's
derivationally related forms of the 4,609 words common enough to chat with, built by
`benchmarks/data/build_forms.py`), each weighing `FORM` of the word (times how common the form is,
`common.weight`). Like a kind's members (`kinds`), a dialogue so far's words bring theirs at their line's
weight.

Measured with words alone (recall@6 / @10; blind 2, the second blind round's conversation, was written on
2026-12-03 before any engine ran on it):

| set | before | `FORM` 0.5 | 0.7 (chosen) | 1.0 |
|---|---|---|---|---|
| dev (399 q) | 0.748 / 0.796 | 0.753 / 0.798 | 0.752 / 0.802 | 0.752 / 0.799 |
| fresh (227 q) | 0.634 / 0.711 | 0.634 / 0.711 | 0.634 / 0.711 | 0.634 / 0.711 |
| long (121 q) | 0.599 / 0.705 | 0.608 / 0.706 | 0.609 / 0.706 | 0.609 / 0.706 |
| blind (90 q) | 0.440 / 0.506 | 0.440 / 0.500 | 0.434 / 0.500 | 0.440 / 0.500 |
| blind 2 (90 q) | 0.496 / 0.543 | 0.507 / 0.554 | 0.519 / 0.565 | 0.507 / 0.543 |

At 0.7, of the 927 questions, 9 gained and 3 lost. The gains are derivations ("compete" / "competition",
"teaches" / "teacher", "retiring" / "retirement", "manager", "gardening", "move", "driving"); the losses
are a question whose form is also another topic's word ("teaching art" met "artist" in lines about someone
else), "heart trouble" and one at @6 of "bake". WordNet's synonyms (the other words of a word's commonest
sense) were tried the same way and left out: within a question or two of noise on every set (blind 2
0.496 / 0.543 at both 0.3 and 0.5).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from . import common

__all__ = ["FORM", "TABLE", "forms", "weight", "widened"]

FORM = 0.7  # what a derived form weighs, as a share of the question's word it comes from
TABLE = "forms.tsv"


def forms(term: str) -> tuple[str, ...]:
    """The terms of the forms derived from this term's word ("compet" -> "competition", ...), else ()."""
    return _table().get(term, ())


@cache
def weight(form: str) -> float:
    """What a form weighs for its word weighing 1: `FORM`, times how common it is (`common.weight`)."""
    return FORM * common.weight(form)


def widened(terms: Iterable[str]) -> dict[str, str]:
    """The forms the query's words bring, each to its word (the first that brings it), less the query's own
    terms."""
    return common.widened(terms, forms)


@cache
def _table() -> dict[str, tuple[str, ...]]:
    """The table, read once: a word's term -> its forms' terms."""
    return {term: tuple(said.split()) for term, said in common.rows(TABLE, "build_forms.py")}
