"""A question's speakers: who said a thing is for the words to weigh; its vector leans on what was said.

A person's transcript lines are embedded as "name: text" (`vectors.line_texts_of`), so a question that names
one of the speakers ("What did Ruth buy for swimming?") lands near everything that speaker said, whatever it
was about. When the question names the right speaker that costs little; when it names the wrong one (LoCoMo
asks a fifth of its questions so: a fact of one speaker asked of the other, its "adversarial" category) the
similar lines are the wrong speaker's, and meaning adds almost nothing to words there (held out, recall@10:
words 0.652, with e5 0.674, where single-hop questions went 0.657 -> 0.738).

So the direction of each speaker's name the question names is taken partly out of its vector: `SHARE` of the
query's component along the name's own vector (the name placed as a query, once a companion). The words still
match the name (a line is indexed with its speaker's), so a question still prefers its speaker's lines by
words; its meaning now looks for what it asks. A person's speakers are the names on their newest `READ`
indexed lines and on the companion's replies to them (`of_person`): the person's own display names and the
companion's. A name matches as a word (a spaced script, its case as written) or as text (an unspaced one, at
least two characters).

Measured with e5 on the retrieval benchmark's LoCoMo-layout sets (evidence @6 / @10, words with meaning; the
eleven sets of `benchmarks/data` in that layout, 1,987 questions). "Adversarial" are six of those sets'
single-hop questions that name one speaker, asked of the other, as LoCoMo made its own (284 questions:
blind 18-22 and dev). The weighted column weighs the categories as LoCoMo's 1,986 questions do (841
single-hop, 282 multi-hop, 321 temporal, 96 open-domain, 446 adversarial); the last four are @10:

| `SHARE` | adversarial | every question | LoCoMo-weighted | single-hop | multi-hop | temporal | open |
|---|---|---|---|---|---|---|---|
| 0 (before) | 0.757 / 0.829 | 0.672 / 0.746 | 0.739 / 0.808 | 0.885 | 0.580 | 0.867 | 0.508 |
| 0.3 | 0.775 / 0.864 | 0.678 / 0.746 | 0.749 / 0.816 | 0.884 | 0.586 | 0.868 | 0.499 |
| 0.5 | 0.799 / 0.864 | 0.674 / 0.746 | 0.752 / 0.817 | 0.889 | 0.581 | 0.870 | 0.494 |
| 0.7 | 0.801 / 0.859 | 0.672 / 0.743 | 0.753 / 0.814 | 0.888 | 0.576 | 0.862 | 0.498 |
| 1 | 0.819 / 0.859 | 0.661 / 0.735 | 0.748 / 0.809 | 0.882 | 0.572 | 0.855 | 0.481 |
| names cut out of the text | 0.812 / 0.870 | 0.671 / 0.741 | 0.755 / 0.816 | 0.889 | 0.588 | 0.851 | 0.487 |
| both vectors, averaged | 0.803 / 0.871 | 0.674 / 0.749 | 0.752 / 0.821 | 0.891 | 0.583 | 0.868 | 0.507 |

The adversarial questions gain 0.035 @10 (on four of the six sets, the other two level); the questions as
they were asked move by a question or two a set either way. Blind 23, written after this and measured once,
went the other way on its 48 adversarial questions (0.854 -> 0.812 @10, two lost, 0.750 @6 both) and gained
on its 200 others @10 (0.679 -> 0.685; @6 0.613 -> 0.600): a near tie among ten lines decides a question
either way, so each set's count is noisy, and over the seven the lean gains eight adversarial questions.
Cutting the names out of the text loses the temporal questions what the name told ("When did Odile move
house?" -> "When did move house?"). The two vectors averaged did best but embed every question twice (7 ms
more with e5). A speaker's name costs one embedding the first time a companion meets it, and a person's
speakers one read a minute (`tiers.SPEAKERS_FRESH`). Words alone, and notes without a transcript (the
dialogue sets), are unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from .. import text
from .embeddings import numpy

__all__ = ["CACHE", "READ", "SHARE", "named", "of_person", "unnamed"]

SHARE = 0.5  # of the query's component along a named speaker's name that is taken out
READ = 64  # the person's newest lines whose speakers (and the companion's replies to them) are read
CACHE = 1024  # names whose vectors a companion keeps, and people whose speakers (`tiers.SPEAKERS_FRESH`)

# The names on a person's newest indexed lines and on the companion's replies to them (see
# `vectors.INDEXED_LINES`): `lines_subject` reads the newest first, `lines_reply` each one's replies (the
# unary plus keeps SQLite from reading every person's replies by `lines_subject` instead: 66 -> 40 us).
_SPEAKERS = f"""
with mine as (
    select l.id, l.name from lines l join subjects s on s.id = l.subject_id
    where s.space = ? and s.subject = ? and l.addressed = 1 order by l.id desc limit {READ}
)
select name from mine where name is not null
union
select r.name from lines r where r.reply_to in (select id from mine) and +r.subject_id is null
    and r.name is not null
"""


def of_person(conn: Any, space: str, subject: str) -> list[str]:
    """The speakers of a person's newest lines: their own names and the companion's, as written."""
    return sorted({row[0] for row in conn.execute(_SPEAKERS, (space, subject)) if row[0].strip()})


def named(query: str, names: Iterable[str]) -> list[str]:
    """The names the query names, each as it is written there: a name of a spaced script as a word (or the
    first word of a name of several), one of an unspaced script as text of at least two characters."""
    found: dict[str, None] = {}
    for name in names:
        for form in dict.fromkeys([name.strip(), name.strip().split(" ")[0]]):
            if not form:
                continue
            if text.unspaced(form[0]):
                if len(form) > 1 and form in query:
                    found[form] = None
            elif re.search(rf"(?<!\w){re.escape(form)}(?!\w)", query):
                found[form] = None
    return list(found)


def unnamed(vector: Any, names: Sequence[Any], share: float = SHARE) -> Any:
    """The query's vector (or each row of several) with `share` of its component along each name's vector
    (of unit length, as an embedder's are) taken out, of unit length again."""
    np = numpy()
    out = np.array(vector, dtype=np.float64)
    rows = out if out.ndim == 2 else out[None, :]
    for name in names:
        unit = np.asarray(name, dtype=np.float64)
        rows -= share * np.outer(rows @ unit, unit)
    rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
    return out.astype(np.asarray(vector).dtype)
