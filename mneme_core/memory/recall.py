"""Recall: which of a person's notes to put before the model for this query, and why.

Evidence. A note matches the query by the terms it shares with it, each weighted by how rare it is among the
person's live notes (`idf = ln(1 + (N - df + 0.5) / (df + 0.5))`, always positive: a word in most of the
notes still counts a little, so asking about what a person mostly talks about still finds it). A match with
less than a fifth of the best match's evidence is too weak to take a slot (with Chinese matched by
characters, a lone common character is not evidence); for a dialogue so far, a tenth (its best match sums
what it shares with many lines, see `query`). A question that asks a kind ("which instrument") also asks
for its members ("cello", `kinds`), a specific thing its broader words (a crawfish boil: "shellfish",
`broader`), and an English word its derived forms ("compete": "competition", `forms`).

Score. `evidence x (0.75 + 0.25 freshness) x (0.4 + 0.15 importance) x (1 + 0.3 |feeling|)`. Freshness
breaks near ties between comparable evidence; it must not overturn a clear difference in it: a person asking
about a thing from months ago means that thing, so a note that has faded completely keeps three quarters of
its score (`FADED`; the reference keeps a quarter, and on the retrieval benchmark an old turn that answered
the question lost to fresh small talk; half found 0.586 at 6 notes on the dev set, three quarters 0.603,
the same at 10). A transcript line does not fade at all (`LINE_FADED`): when it was said tells when, not
how much it matters, and a question about the conversation may ask of any of its months (LoCoMo's are asked
after all of it); a note fades, since its lifecycle (a recall strengthens it) is what freshness measures.
Lines, words alone, recall@6 / @10, by what a line that has faded completely keeps:

| set | 0.75 (before) | 0.85 | 0.9 | 1 (chosen) |
|---|---|---|---|---|
| dev (399 q) | 0.752 / 0.802 | 0.751 / 0.803 | 0.750 / 0.802 | 0.749 / 0.804 |
| fresh (227 q) | 0.634 / 0.711 | 0.642 / 0.712 | 0.650 / 0.716 | 0.659 / 0.715 |
| long (121 q) | 0.609 / 0.706 | 0.612 / 0.700 | 0.628 / 0.703 | 0.622 / 0.707 |
| blind (90 q) | 0.434 / 0.500 | 0.434 / 0.515 | 0.436 / 0.515 | 0.447 / 0.522 |
| blind 2 (90 q) | 0.519 / 0.565 | 0.524 / 0.565 | 0.524 / 0.565 | 0.530 / 0.554 |

Word evidence is summed inside SQLite over the postings of the query's
terms. A very common term contributes the postings of its newest notes only (the whole recall reads at most
`POSTINGS` merged postings, plus those of the few newest notes not merged yet, see `index`), so the cost of
a query is bounded however long the history grows, and the rare terms, which carry the evidence, are always
read in full.

A query of several lines (a dialogue so far, `Ask.turns`) weighs its latest lines most (`query`), and a note
that states a caution (an allergy, an illness, what the person cannot do or fears) counts `caution.CAUTION`
times as much there, as importance does: a chat seldom names what its next reply must not get wrong
(`caution`). A question
(one line) whose evidence is spread gets a follow-up query from its strongest matches' own rare words, which
lends what it finds at most `hops.SHARE` of the best score (`hops`).

Meaning. When the meaning tier placed the query (`arecall`, `aprompt` with an embedder, see
`mneme_core.meaning`), the notes most similar to it join the candidates. How they are weighed against words
depends on whether the model's weight was measured and stated (`Embeddings(weight=...)`, see
`mneme_core.meaning.embeddings`):

- stated (`weight`): rank fusion. The strong word matches are ranked by their score, the notes above the
  floor by their similarity above it (times the same freshness, importance and feeling), and a note's
  score is `1 / (K + its place among the words) + weight / (K + its place among the similar)` (`FUSION_K`).
  So the query's most similar note counts `weight` times the best word match, whatever range this model's
  similarities live in, and a note similar enough is chosen with no word in common. The floor is the
  higher of the person's floor (see `calibrate`) and `TRUSTED_Z` standard deviations above the mean of the
  query's similarity to all the person's notes (for the transcript's lines, that alone: see `nearest`; a
  dialogue so far's similar notes are its `k` nearest above that mean, see `most_similar`).
  Ranks rather than similarities: on the retrieval benchmark's dev set, adding a share of the similarity to
  the word evidence found less at 10 notes (0.715) than the similarity alone (0.741); fusing the ranks
  found 0.768;
- not stated (the cautious rule): a note's evidence is its word evidence plus a lift when its similarity
  is above the floor, `scale x (similarity - floor) / (1 - floor)`, `scale` being `SIMILAR`, half the best
  word match's evidence (or, when words found little, of that of a word found in one note only), and the
  floor `QUERY_Z` standard deviations above that mean. So a note as similar as can be counts half the best
  word match and what most models reach counts little. A model that places a query badly, or does not know
  its language, adds (almost) nothing rather than noise: on the retrieval benchmark's dev set no unmeasured
  embedder at hand made recall worse than words alone (`benchmarks/retrieval.py`), and none helped much
  either.

With fewer than 30 notes the floor is the embedder's own (plain cosine, see `calibrate`). The same selection
follows; "why" says "similar 0.62", or "matched: cat, similar 0.55" for both.

Selection fills `limit` notes and `budget` characters (the first note may exceed the budget): pinned notes
(importance 5, newest first) take at most a third of the slots while anything matches, so they can never
crowd out every match; then the matches by score; then pinned notes again if room is left; then up to
`important` lasting notes of importance 4+; then up to `recent` of the newest fading notes. With no query,
or a question about the person in general ("what do you know about me"), there is nothing to match: the
whole limit goes to what matters about the person (see `overview`). `explain()` says what was chosen and
what was skipped, and why.

Filters (`Ask.kinds`, `since`, `until`: the kinds, and when the note happened) narrow every part of the
selection, matches, pinned notes and extras alike, inside the SQL that reads them.

The lifecycle (`Ask.lifecycle`, see `memory.lifecycle`, `memory.links`, `memory.archive`): a note's
freshness is its accessibility (its forgetting curve slowed by its stability); the strong word matches lend
a share of their evidence along their links, one or two hops, so a linked note comes up though it shares no
word with the query ("through #12 (linked)"); an archived note counts only as a strong match.

Recall only reads. What it would write (the log, and the "recalled" marks that keep used notes fresh) is
handed back to the caller, who queues it for a batched write off the hot path.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

from .. import emoji_words, text
from ..periods import Period
from ..store.postgres.dialect import Dialects
from ..store.schema import AWAKE, FADING, LIVE
from . import archive, broader, caution, common, forms, hops, index, kin, kinds, links, overview, query
from .lifecycle import Lifecycle, accessibility_at
from .note import COLUMNS, Note, note_of
from .notes import Within

if TYPE_CHECKING:
    from ..meaning.tiers import Placed
    from ..meaning.vectors import Shelf
    from ..transcript.recall import RecalledLine

POSTINGS = 1500
WEAK = 0.2
WEAK_DIALOGUE = 0.1  # the same for a dialogue so far (`Ask.weak`)
FADED = 0.75  # what a note that has faded completely keeps of its score
LINE_FADED = 1.0  # and a transcript line: all of it (lines do not fade, see the module docstring)
MAX_TERMS = 32  # the rarest terms of a long query; the others add little evidence
WORDS_BEYOND = 16  # and the words (not single characters) next after them: see `_capped`
SKIPPED_SHOWN = 10
UNMATCHED_SHOWN = 5
NEWEST_READ = 12  # the newest notes read for those "nothing in common" (`UNMATCHED_SHOWN` of them shown)
DAY = 86400.0
# A note is similar to the query only where it stands out from the query's similarity to all of the
# person's notes: above their mean by this many standard deviations (some 6 in 1000 notes by chance alone).
QUERY_Z = 2.5
SIMILAR = 0.5  # what the most similar note possible counts, as a share of the best word match
# With a stated weight: 1 standard deviation (some 16 in 100 notes by chance), for the transcript's lines
# alone, not the model's floor: the fusion's ranks, not a floor, keep the far ones out (see `nearest`).
TRUSTED_Z = 1.0
# The fewest of a person's notes (or lines) a query's similarities to them are measured over (their mean and
# spread); under it the model's floor stands alone.
MEASURED = 30
# Rank fusion, with a stated weight: a note's place among the word matches and among the similar notes each
# count `1 / (FUSION_K + place)` (the weight times that for the similar ones). A small K lets the first
# places stand out; 3 to 10 measured the same on the benchmark, within a point.
FUSION_K = 5
# What a note or line dated in the period a query names ("last week", "去年夏天") has of its score, beside
# the same evidence from another time (see `periods`).
PERIOD_BOOST = 2.0
# What the words that say when weigh, not what is asked: those naming the question's period ("last week",
# "at Easter", `Ask.naming`) and those of an event that names it (`Ask.muted`).
MUTED = 0.7


@dataclass(frozen=True)
class Recalled:
    """A chosen note, its score, and why it was chosen ("pinned", "matched: cat, 年糕", "important", ...)."""

    note: Note
    score: float
    why: str
    matched: tuple[str, ...] = ()


@dataclass(frozen=True)
class Recall:
    """What a recall chose, in order, and what it left out with the reason."""

    query: str
    chosen: list[Recalled]
    skipped: list[tuple[Note, str]] = field(default_factory=list)
    tier: str = ""
    overview: bool = False  # no topic was asked about: the notes are what matters (see `overview`)
    lines: list[RecalledLine] = field(default_factory=list)  # from the transcript (`transcript.recall`)

    @property
    def notes(self) -> list[Note]:
        return [r.note for r in self.chosen]

    def explain(self) -> str:
        """What was chosen (+) and skipped (-), and why, one line each."""
        how = ", ".join(part for part in (self.tier, "overview" if self.overview else "") if part)
        head = f"recall for {self.query!r}" + (f" ({how})" if how else "") + ":"
        lines = [head]
        for r in self.chosen:
            lines.append(f"  + #{r.note.id} {_told(r)}: {text.clip(r.note.text, 70)}")
        for note, reason in self.skipped:
            lines.append(f"  - #{note.id} {reason}: {text.clip(note.text, 70)}")
        for said in self.lines:
            line = said.line
            lines.append(
                f"  + line #{line.id} {said.why} (score {said.score:.2f}): {text.clip(line.text, 70)}"
            )
        if len(lines) == 1:
            lines.append("  nothing remembered about this person yet")
        return "\n".join(lines)


UNSCORED = {
    "pinned": "pinned (importance 5)",
    "important": "important (a lasting note of importance 4)",
    "lasting": "lasting (a fact or a preference)",
    "recent": "among the newest notes",
}
"""How `explain` words the notes chosen for what they are rather than for a score (theirs is 0)."""


def _told(chosen: Recalled) -> str:
    """Why a note was chosen, as `explain` says it: a score only where one chose it."""
    if chosen.why not in UNSCORED:
        return f"{chosen.why} (score {chosen.score:.2f})"
    if chosen.why == "recent" and chosen.note.kind == "plan":  # newly written, maybe for a later day
        return "a plan, among the newest notes"
    return UNSCORED[chosen.why]


@dataclass(frozen=True, kw_only=True)
class Ask:
    """One recall's question: whose notes, for what query, with which limits."""

    space: str
    subject: str
    query: str
    limit: int = 6
    budget: int = 800
    important: int = 2
    recent: int = 1
    now: float
    half_life_days: float
    within: Within = field(default_factory=Within)  # only these kinds, that happened in this time
    period: Period | None = None  # the time the query names ("last week", "去年夏天"), see `periods`
    lines: int = 0  # how many of the person's transcript lines to quote (see `transcript.recall`)
    line_budget: int = 0  # and within how many characters
    conversation: str | None = None  # the conversation being answered
    shown_lines: int = 0  # its newest lines, which the model sees already
    lifecycle: Lifecycle | None = (
        None  # links spread and the archive stays quiet (None: the lifecycle is off)
    )
    turns: tuple[str, ...] = ()  # a query of several lines (a dialogue so far): its lines, oldest first
    # What was skipped and why (`Recall.skipped`, `explain`, the recall log) is read too; a caller that
    # uses the chosen notes alone (the note writer's recall, `observe`) sets False, and the same notes are
    # chosen in the same order without reading the skipped ones whole (~0.1 ms of its ~0.5 ms).
    explained: bool = True
    # The words of an event the question names a time by ("before I moved to Leeds", `transcript.anchors`):
    # they say when, not what is asked, and weigh `MUTED`.
    muted: frozenset[str] = frozenset()

    @property
    def weak(self) -> float:
        """The share of the best match's evidence below which a match is too weak to take a slot: `WEAK`
        for a question, `WEAK_DIALOGUE` for a dialogue so far (`turns`), whose best match sums what it shares
        with many lines (see the module docstring)."""
        return WEAK_DIALOGUE if self.turns else WEAK

    def narrowed(self, table: str = "") -> tuple[str, dict[str, object]]:
        """The filters as SQL (`and ...`, on the columns of `table`, like "n."), and their parameters."""
        return self.within.sql(table)

    def narrowed_lines(self, table: str = "") -> tuple[str, dict[str, object]]:
        """The time filters as SQL on the lines' `at` (lines have no kind: with kinds asked, no line fits)."""
        if self.within.kinds is not None:
            return " and 1 = 0", {}
        return replace(self.within, key_prefix=None).sql(table, when="at")

    def in_period(self, ts: float) -> float:
        """What the period the query names makes of a score dated `ts` (`PERIOD_BOOST` inside, else 1)."""
        return PERIOD_BOOST if self.period is not None and self.period.holds(ts) else 1.0

    def terms(self) -> list[str]:
        """The query's terms (the words that named its period among them, weighing less: `naming`), and what
        a question's words bring beside themselves (`_members`: a relative's other names, a kind's members, a
        word's forms)."""
        return [*self.asked, *self._members]

    @cached_property
    def _members(self) -> dict[str, tuple[str, float]]:
        """What a question's words bring beside themselves, each to the word it comes from and its share of
        that word's weight: the other words for the relatives it names ("mum" -> "mother", `kin`), the
        members of the kinds it asks ("cello" -> "instrument", `kinds`), the broader words of the specific
        things it names ("crawfish" -> "shellfish", 五粮液 -> 酒, `broader`), then the derived forms of its
        English words ("competition" -> "compete", `forms`). A dialogue so far's words bring theirs too,
        each weighing its share of its line's weight (`query`): an old line's weigh as little as its words.

        | dialogue set, words @6 / @10 | plain, not widened | widened | `--drift 2`, not widened | widened |
        |---|---|---|---|---|
        | dev English (151 q) | 0.515 / 0.584 | 0.529 / 0.595 | 0.477 / 0.558 | 0.501 / 0.582 |
        | dev Chinese (190 q) | 0.720 / 0.764 | 0.734 / 0.767 | 0.704 / 0.760 | 0.721 / 0.764 |
        | fresh Chinese (35 q) | 0.686 / 0.757 | 0.671 / 0.757 | 0.671 / 0.757 | 0.657 / 0.757 |
        | blind English | 0.367 / 0.435 | 0.354 / 0.435 | 0.329 / 0.379 | 0.329 / 0.379 |
        | blind Chinese | 0.452 / 0.556 | 0.440 / 0.552 | 0.415 / 0.512 | 0.408 / 0.502 |
        | blind 2 English | 0.562 / 0.708 | 0.588 / 0.708 | 0.450 / 0.608 | 0.500 / 0.608 |
        | blind 2 Chinese | 0.500 / 0.582 | 0.504 / 0.586 | 0.436 / 0.536 | 0.444 / 0.540 |

        Kinds, forms and relatives each gained a little alone (English most: "any instruments?" finds "the
        cello"); on the blind sets Chinese is within a memory either way."""
        found = {other: (term, kin.weight(other)) for other, term in kin.widened(self.asked).items()}
        for member, kind in kinds.widened(self.asked).items():
            found.setdefault(member, (kind, kinds.weight(member, kind)))
        for word, thing in broader.widened(self.asked).items():
            found.setdefault(word, (thing, broader.weight(word, dialogue=bool(self.turns))))
        for form, term in forms.widened(self.asked).items():
            found.setdefault(form, (term, forms.weight(form)))
        return found

    @cached_property
    def naming(self) -> frozenset[str]:
        """The terms only the words that named the query's period give ("last", "christmas"), which weigh
        `MUTED`: the period's boost dates what is asked, yet a line may name the time as the question does
        ("the cookbook you gave me for Christmas", "for the past few days I've had no hot water").

        Measured with words alone (recall@6 / @10; blind 3 is the third blind round, written for the times
        questions name; the words were left out of the query before):

        | set | left out | 0.3 | 0.5 | 0.7 (`MUTED`) | 1.0 |
        |---|---|---|---|---|---|
        | dev (399 q) | 0.762 / 0.819 | 0.759 / 0.824 | 0.760 / 0.823 | 0.759 / 0.819 | 0.759 / 0.817 |
        | fresh (227 q) | 0.666 / 0.715 | 0.669 / 0.718 | 0.667 / 0.717 | 0.667 / 0.717 | 0.663 / 0.715 |
        | long (121 q) | 0.622 / 0.705 | 0.624 / 0.708 | 0.624 / 0.708 | 0.626 / 0.708 | 0.626 / 0.711 |
        | blind (90 q) | 0.451 / 0.537 | 0.451 / 0.543 | 0.447 / 0.539 | 0.458 / 0.550 | 0.458 / 0.550 |
        | blind 2 (90 q) | 0.530 / 0.554 | 0.530 / 0.559 | 0.535 / 0.559 | 0.535 / 0.559 | 0.535 / 0.559 |
        | blind 3 (60 q) | 0.700 / 0.783 | 0.850 / 0.883 | 0.850 / 0.867 | 0.850 / 0.867 | 0.850 / 0.867 |
        """
        if self.period is None:
            return frozenset()
        rest = set(text.terms(self.period.rest_of(self.query)))
        return frozenset(term for term in self.asked if term not in rest) if rest else frozenset()

    @cached_property
    def asked(self) -> tuple[str, ...]:
        """All the query's terms (`text.terms`), worked out once: recall, the lines' recall and the
        meaning tiers each ask whether the query is about the person in general (`overview.general`)."""
        return tuple(text.terms(self.query))

    @cached_property
    def weights(self) -> dict[str, float]:
        """What each of the query's terms weighs (see `query.weighted`), worked out once."""
        weights = query.weighted(self.turns, list(self.asked), self.query)
        for member, (term, share) in self._members.items():
            weights[member] = share * weights.get(term, 1.0)
        # A chat's own word for what a thing of it is (虾 of 虾饺) weighs at least what the thing makes it.
        if self.turns:
            for word, thing in broader.said(self.asked).items():
                made = broader.weight(word, dialogue=True) * weights.get(thing, 1.0)
                weights[word] = max(weights.get(word, 1.0), made)
        # Disjoint: an event's words are muted only when the question named no period (`anchors`), and the
        # period an event dates names no phrase.
        for term in self.muted | self.naming:
            weights[term] = weights.get(term, 1.0) * MUTED
        return weights


def read_tables() -> None:
    """Read now the tables a question's words are widened and weighed with (`Ask._members`: relatives,
    kinds, forms, common words; and the emoji names `text.terms` gives). Each is read once a process, at its
    first use: left to the first recall, some 15 ms of parsing whose 13,000 new lists can set off a full
    collection of the process's heap (38 ms of a first recall's 58, measured in a process that had just
    built a file of 300,000 notes: `benchmarks/recall.py --people`). `Mneme` calls this when it opens, so no
    person's first reply pays for them."""
    for table in (kin.others, kinds.members, broader.things, forms.forms, common.weight):
        table("")  # asking a table for nothing reads it
    emoji_words.names()


@dataclass(frozen=True)
class Trace:
    """What a recall would write, handed to the recall log: the subject's id and the matched notes."""

    subject_id: int
    matched: tuple[int, ...]
    conversation: str | None = None  # reinforcement is once per conversation (`memory.lifecycle`)


def idf(live: int, df: int) -> float:
    return math.log(1.0 + (live - df + 0.5) / (df + 0.5))


def _shares(
    found: list[tuple[int, str, int]], live: int = 0, weights: Mapping[str, float] | None = None
) -> list[tuple[int, str, int, int]]:
    """How many postings of each of the rarest terms to read, rarest first, within the budget (with
    `weights`, the terms of the most weight: idf times the term's weight in the query)."""
    if weights:
        found = _capped(sorted(found, key=lambda t: (-idf(live, t[2]) * weights.get(t[1], 1.0), t[2])))
    else:
        found = _capped(sorted(found, key=lambda t: t[2]))
    left, shared = POSTINGS, []
    for i, (term_id, term, df) in enumerate(found):
        share = left // (len(found) - i)
        take = min(df, share)
        left = max(0, left - take)
        shared.append((term_id, term, df, take))
    return shared


def _capped(ranked: list[tuple[int, str, int]]) -> list[tuple[int, str, int]]:
    """The first `MAX_TERMS` of the query's terms (best first), then up to `WORDS_BEYOND` more of its words.

    In a long Chinese query (a chatty dialogue so far: 50-60 terms the person's notes have) most of the
    rarest terms are single characters that a note or two happen to share (本, 别, 害, 号, 眼); they filled
    the cap, and the words of the match the reply needs, a little commoner (三十, 十年 of "开了三十年车"
    against "开车三十年没有出过一次事故"), were cut. A single character shared by chance is little evidence;
    a word shared is a phrase shared. So the words next in line are read too. On the retrieval benchmark's
    dialogue sets (words @6 / @10) the six Chinese sets went 0.685 / 0.746 -> 0.699 / 0.757, with
    `--drift 2` 0.669 / 0.738 -> 0.679 / 0.739; English and the LoCoMo-layout dev set unchanged (their
    queries rarely reach the cap). See `query` for the table by set."""
    kept = ranked[:MAX_TERMS]
    return kept + [t for t in ranked[MAX_TERMS:] if len(t[1]) > 1 and text.unspaced(t[1])][:WORDS_BEYOND]


def _reading(ask: Ask) -> Reading:
    """What recall reads of the notes' term index for this question (see `word_ranked`)."""
    where, narrow = ask.narrowed("n.")
    k, days = max(4 * ask.limit, 24), ask.half_life_days
    return Reading(index.NOTES, "notes", k, ask.now, days, where, narrow, ask.period, ask.weights)


def counted(
    conn: sqlite3.Connection, p: index.Postings, sid: int, terms: list[str]
) -> tuple[list[tuple[int, str, int]], list[tuple[int, int, float | None, float]], dict[int, int]]:
    """(term id, term, df) of those of `terms` a person's items have, the postings of the newest items (not
    merged yet), and the recent postings' count by term id: one statement (see `index.counting`)."""
    known: list[tuple[int, str, int]] = []
    fresh_rows: list[tuple[int, int, float | None, float]] = []
    recent: dict[int, int] = {}
    fresh_df: dict[int, int] = {}
    for part, a, term, n, fresh_at, weight in conn.execute(
        index.counting(p), index.params(p, sid, json.dumps(terms, ensure_ascii=False))
    ):
        if part == 0:
            known.append((a, term, n))
        elif part == 1:  # the newest items, not merged yet: they count into `df` and are candidates,
            fresh_rows.append((a, n, fresh_at, weight))  # scored here; the merged ones inside SQLite
            fresh_df[n] = fresh_df.get(n, 0) + 1
        else:
            recent[a] = n
    found = [(i, term, n) for i, term, df in known if (n := df + recent.get(i, 0) + fresh_df.get(i, 0)) > 0]
    return found, fresh_rows, recent


@dataclass(frozen=True)
class Reading:
    """What `word_ranked` reads: a term index (`index.Postings`), the table its postings point at, how many
    of the best to keep, the clock and half-life for freshness, and filters on that table (as `n.`)."""

    postings: index.Postings
    table: str
    k: int
    now: float
    half_life_days: float
    where: str = ""
    narrow: dict[str, object] = field(default_factory=dict)
    period: Period | None = None  # what is dated in it is boosted (`PERIOD_BOOST`) among the candidates
    weights: Mapping[str, float] | None = None  # what each query term weighs (`query.weighted`), else 1
    # Which of the terms the person's items have to read, given (term id, term, df) of each (`hops`); all
    # of them (within `MAX_TERMS`) when None.
    pick: Callable[[list[tuple[int, str, int]]], list[tuple[int, str, int]]] | None = None

    def following(self, pick: Callable[[list[tuple[int, str, int]]], list[tuple[int, str, int]]]) -> Reading:
        """The same reading for a follow-up query (`hops`): these of its terms, each weighing 1."""
        return Reading(
            self.postings,
            self.table,
            self.k,
            self.now,
            self.half_life_days,
            self.where,
            self.narrow,
            self.period,
            None,
            pick,
        )

    @property
    def faded(self) -> float:
        """What an item that has faded completely keeps of its score: `FADED` of a note, `LINE_FADED` of a
        line."""
        return LINE_FADED if self.table == "lines" else FADED

    def boost(self, fresh_at: float | None) -> float:
        return (
            PERIOD_BOOST
            if self.period is not None and fresh_at is not None and self.period.holds(fresh_at)
            else 1.0
        )


def word_ranked(
    conn: sqlite3.Connection, reading: Reading, sid: int, live: int, query_terms: list[str]
) -> tuple[list[tuple[int, float, int, float]], list[tuple[int, str, int, int]]]:
    """(item id, evidence, hits, score) of the best word matches in one term index (notes or lines), and
    the terms read (see `_shares`)."""
    if not query_terms:
        return [], []
    p = reading.postings
    found, fresh_rows, recent = counted(conn, p, sid, query_terms)
    if reading.pick is not None:
        found = reading.pick(found)
    if not found:
        return [], []
    shares = _shares(found, live, reading.weights)
    weights = reading.weights or {}
    params: dict[str, object] = {"now": reading.now, "hl": reading.half_life_days, "k": reading.k}
    for (term_id, term, df, take), (t, w, r, c) in zip(shares, _KEYS, strict=False):
        newer = min(take, recent.get(term_id, 0))  # the newest postings are the recent ones (see `index`)
        params[t], params[w] = term_id, idf(live, df) * weights.get(term, 1.0)
        params[r], params[c] = newer, take - newer
    if reading.period is not None:  # the period's reach: see `periods.Period.holds`
        params["ps"], params["pe"] = reading.period.start, reading.period.reach()
    where, narrow = reading.where, reading.narrow
    # An item's postings all carry its fresh_at and weight: SQLite takes them from any row of the group,
    # PostgreSQL wants them named as an aggregate (the file's path pays nothing for it).
    period = reading.period is not None
    sql = _ranking(p, reading.table, len(shares), period, where, _on_file(conn), reading.faded)
    ranked = conn.execute(sql, params | narrow).fetchall()
    unmerged = _scored_fresh(fresh_rows, shares, live, reading)
    if where and unmerged:
        fit = _fitting(conn, reading.table, [row[0] for row in unmerged], where, narrow)
        unmerged = [row for row in unmerged if row[0] in fit]
    ranked = sorted(ranked + unmerged, key=lambda r: (-r[3], -r[0]))[: reading.k]
    return ranked, shares


# Each term's parameters.
_KEYS = [(f"t{i}", f"w{i}", f"r{i}", f"c{i}") for i in range(MAX_TERMS + WORDS_BEYOND)]


def _on_file(conn: object) -> bool:
    return isinstance(conn, sqlite3.Connection)


@lru_cache(maxsize=1024)
def _ranking(
    p: index.Postings, table: str, terms: int, period: bool, where: str, on_file: bool, faded: float
) -> str:
    """The statement that ranks the items of one term index by the evidence of `terms` terms (`word_ranked`:
    each term's newest postings, recent first, then settled), written once per shape."""
    parts = []
    for i in range(terms):
        parts.extend(
            f"select {p.item} as item, :w{i} as w, {1 << i} as bit, {p.columns} from (select {p.item}, "
            f"{p.columns} from {level} where term_id = :t{i} order by {p.item} desc limit :{limit}{i})"
            for level, limit in ((p.recent, "r"), (p.settled, "c"))
        )
    fresh = "coalesce(pow(0.5, max(0.0, :now - h.fresh_at) / 86400.0 / :hl), 1.0)"
    boost = (  # the period's reach: see `periods.Period.holds`
        f" * (case when h.fresh_at >= :ps and h.fresh_at < :pe then {PERIOD_BOOST} else 1.0 end)"
        if period
        else ""
    )
    # With filters, each posting meets its item (at most `POSTINGS` lookups by id), so the best `k` are
    # the best that fit.
    join = f"join {table} n on n.id = h.item where 1 {where} " if where else ""
    sql = (
        "select h.item, sum(h.w) as evidence, sum(h.bit) as hits, "
        f"sum(h.w) * ({faded} + {1 - faded} * {fresh}) * {p.weighed('h.')}{boost} as score "
        f"from ({' union all '.join(parts)}) h {join}"
        "group by h.item order by score desc, h.item desc limit :k"
    )
    if on_file:
        return sql
    postgres = sql
    for column in p.carried:
        postgres = postgres.replace(f"h.{column}", f"max(h.{column})")
    return Dialects(sql, postgres)


def _fitting(
    conn: sqlite3.Connection, table: str, ids: list[int], where: str, narrow: dict[str, object]
) -> set[int]:
    """Which of these notes (or lines) pass the filters (`Ask.narrowed`)."""
    rows = conn.execute(
        f"select n.id from {table} n where n.id in (select value from json_each(:ids)) {where}",
        {"ids": json.dumps(ids), **narrow},
    )
    return {row[0] for row in rows}


@dataclass(frozen=True)
class _Match:
    row: tuple[Any, ...]  # what scoring reads of the note (`_SCORING`); read whole only if it is shown
    score: float
    matched: tuple[str, ...]
    evidence: float
    similar: float | None  # the raw similarity, when meaning placed the query and it is above the floor
    factor: float = 1.0  # what freshness, importance and feeling make of the evidence: score / evidence
    via: int | None = None  # the strong match whose link lent it evidence (`memory.links`)

    @property
    def id(self) -> int:
        return self.row[0]

    def scored(self, score: float) -> _Match:
        """The same match with another score (`dataclasses.replace` costs some 5 us a match)."""
        return _Match(self.row, score, self.matched, self.evidence, self.similar, self.factor, self.via)

    @property
    def why(self) -> str:
        parts = ["matched: " + ", ".join(self.matched[:4])] if self.matched else []
        if self.similar is not None:
            parts.append(f"similar {self.similar:.2f}")
        if self.via is not None:
            parts.append(f"through #{self.via} (linked)")
        return ", ".join(parts) or "through a match"  # lent by the follow-up query alone (`hops`)


def _matches(
    conn: sqlite3.Connection, ask: Ask, sid: int, live: int, query_terms: list[str], placed: Placed | None
) -> tuple[list[_Match], _Listed]:
    """The notes that have something in common with the query, best first; too weak ones at the end,
    with a score of -1 (see the module docstring); and the rest of what the selection reads (`_listed`)."""
    ranked, shares = word_ranked(conn, _reading(ask), sid, live, query_terms)
    k = max(4 * ask.limit, 24)
    words = {note_id: (evidence, hits) for note_id, evidence, hits, _score in ranked}
    for note_id, lent in _followed(conn, ask, sid, live, ranked, query_terms).items():
        evidence, hits = words.get(note_id, (0.0, 0))
        words[note_id] = (evidence + lent, hits)
    similar: dict[int, float] = {}
    floor = 0.0
    stated = placed is not None and placed.weight is not None
    if placed is not None and stated and ask.turns:  # a dialogue so far: its k nearest, whatever the floor
        similar, floor = most_similar(placed.similar(conn, sid), k)
    elif placed is not None:
        similar, floor = nearest(conn, placed, sid, k, words, TRUSTED_Z if stated else QUERY_Z)
    lent = _lent(conn, ask, words)
    ids = list(dict.fromkeys([r[0] for r in ranked] + list(words) + list(similar) + list(lent)))
    listed = _listed(conn, ask, sid, ids)
    if not ids:
        return [], listed
    rows = listed.matched
    cautions = caution.among(conn, ids_json(list(rows))) if ask.turns and rows else frozenset()
    terms_of = [term for _id, term, _df, _take in shares]
    rarest = sorted(range(len(shares)), key=lambda i: shares[i][2])  # a match's terms are named rarest first
    # The cautious rule puts meaning on the scale of words, whatever the query's length: a share of the best
    # word match (or, when words found little, of a word found in one note only), see the module docstring.
    best_words = max([evidence for evidence, _hits in words.values()] + [0.0])
    scale = SIMILAR * max(best_words, idf(live, 1))
    matches = []
    for note_id in ids:
        row = rows.get(note_id)
        if row is None:
            continue
        evidence, hits = words.get(note_id, (0.0, 0))
        sim = similar.get(note_id)
        lift = 0.0 if sim is None or stated else scale * min(1.0, (sim - floor) / max(1.0 - floor, 1e-6))
        happened_at = row[_HAPPENED_AT]
        fresh_at, weight = index.rank_of(
            row[_KIND], row[_IMPORTANCE], row[_FEELING], happened_at, row[_RECALLED_AT]
        )
        fresh = (
            1.0
            if fresh_at is None
            else accessibility_at(fresh_at, row[_STABILITY], ask.now, ask.half_life_days)
        )
        factor = (FADED + (1 - FADED) * fresh) * weight * ask.in_period(happened_at)
        if note_id in cautions:
            factor *= caution.CAUTION
        extra, via = lent.get(note_id, (0.0, None))
        total = evidence + lift + extra
        if ask.lifecycle is not None and archive.quiet(row[_ARCHIVED_AT], total, best_words):
            continue
        matches.append(
            _Match(
                row,
                total * factor,
                tuple(terms_of[i] for i in rarest if hits >> i & 1),
                total,
                sim,
                factor,
                via,
            )
        )
    best = max(m.evidence for m in matches) if matches else 0.0
    cut = ask.weak * best
    if stated:
        return _fused(matches, cut, floor, placed.weight), listed
    matches.sort(key=lambda m: (-m.score, -m.id))
    strong = [m for m in matches if m.evidence >= cut]
    weak = [m.scored(-1.0) for m in matches if m.evidence < cut]
    return strong + weak, listed


def _followed(
    conn: sqlite3.Connection,
    ask: Ask,
    sid: int,
    live: int,
    ranked: list[tuple[int, float, int, float]],
    asked: list[str],
) -> dict[int, float]:
    """Note id -> the evidence the follow-up query of the strongest matches' words lends it (see `hops`)."""
    if not ranked or not hops.wanted(ask):
        return {}
    best = max(evidence for _id, evidence, _hits, _score in ranked)
    reading = _reading(ask)
    if hops.saturated(sum(1 for row in ranked if row[1] >= WEAK * best), reading.k):
        return {}
    said = hops.texts(conn, "notes", [row[0] for row in ranked[: hops.SEEDS]])
    lent = hops.follow(conn, reading, sid, live, said, asked)
    return {note_id: share * best for note_id, share in lent.items()}


def _fused(matches: list[_Match], cut: float, floor: float, weight: float) -> list[_Match]:
    """Rank fusion, for a model whose weight was stated: the strong word matches (evidence at least `cut`)
    in the order of their score, the notes above the floor in the order of their similarity (times the
    same freshness, importance and feeling), and a note's score the sum of what its two places count
    (`FUSION_K`). The notes in neither list come last, with a score of -1."""
    by_words = sorted(
        (m for m in matches if m.evidence > 0 and m.evidence >= cut),
        key=lambda m: (-m.score, -m.id),
    )
    by_meaning = sorted(
        (m for m in matches if m.similar is not None),
        key=lambda m: (-(m.similar - floor) * m.factor, -m.id),
    )
    points: dict[int, float] = {}
    for place, m in enumerate(by_words):
        points[m.id] = 1.0 / (FUSION_K + place)
    for place, m in enumerate(by_meaning):
        points[m.id] = points.get(m.id, 0.0) + weight / (FUSION_K + place)
    placed = [m.scored(points[m.id]) for m in matches if m.id in points]
    placed.sort(key=lambda m: (-m.score, -m.id))
    return placed + [m.scored(-1.0) for m in matches if m.id not in points]


def nearest(
    conn: sqlite3.Connection,
    placed: Placed,
    sid: int,
    k: int,
    words: dict[int, tuple[float, int]] | dict[int, object],
    z: float,
    shelf: Shelf | None = None,
    *,
    own: bool = False,
) -> tuple[dict[int, float], float]:
    """Similarity above the floor of the `k` most similar notes (or lines, on their `shelf`) and of the
    word matches, by id; and the floor.

    The floor is the query's own, `z` standard deviations above its mean similarity to all of the person's
    notes (once there are 30 to measure), and at least the model's floor, unless `own`: then the query's
    own floor alone decides (the transcript's lines, for a model whose weight was stated). The model's
    floor is measured between the person's items (`meaning.vectors`), and with multilingual-e5-small a
    question lands lower on that scale than a line does beside its kin: on blind 18 the person's floor
    (0.18) sat 1.5 to 2.3 standard deviations above a question's mean, and kept many of the `k` most similar
    lines out of the fusion. With the query's own floor alone, evidence found @6 / @10 (the retrieval
    benchmark, e5, LoCoMo layout):

    | set | the model's floor | the query's own |
    |---|---|---|
    | blind 18 | 0.622 / 0.701 | 0.638 / 0.707 |
    | blind 19 | 0.619 / 0.693 | 0.622 / 0.695 |
    | blind 20 | 0.562 / 0.670 | 0.568 / 0.662 |
    | long | 0.685 / 0.776 | 0.697 / 0.773 |
    | fresh | 0.690 / 0.758 | 0.703 / 0.755 |
    | blind | 0.531 / 0.627 | 0.565 / 0.672 |
    | blind 2 | 0.546 / 0.609 | 0.556 / 0.631 |
    | blind 3 (time) | 0.900 / 0.917 | 0.933 / 0.933 |
    | dev (399 q) | 0.790 / 0.851 | 0.798 / 0.859 |

    0 to 1 standard deviations, or none at all (the `k` most similar, whatever they are), measured within
    a point of each other there.

    A question's notes keep the model's floor (a dialogue so far's are its nearest, `most_similar`). On the
    dialogue sets (one-sentence notes, the dialogue so far as the query) the query's own floor gave many
    word matches a place among the similar too, and in the fusion
    they crowded out a note that only one of the two lists ranked high (a milk gift's note on being
    lactose intolerant, found by meaning alone): the Chinese @6 of 17 rounds of 80 questions moved from
    -0.056 to +0.050, +0.011 on average, and the round written after the change was the worst
    (blind 21: 0.706 -> 0.650)."""
    measured = placed.similar(conn, sid) if shelf is None else placed.similar(conn, sid, shelf)
    return closest(measured, k, words, z, own=own)


def most_similar(measured: tuple[Any, Any, float], k: int) -> tuple[dict[int, float], float]:
    """The `k` most similar notes whatever the model's floor, above the query's mean similarity to the
    person's notes, by id; and that mean (what their similarity counts from in the fusion): the similar
    notes of a dialogue so far, with a model whose weight was stated.

    A chat's latest lines mix the topic with its chatter, so a note the next reply should bring up lands
    under the floor a question's notes are held to: on the dialogue sets, of the marked memories e5 missed
    in Chinese (rounds 13-15, 88 of 278), 75 were not among the similar notes at all. `nearest` lowered to
    the query's own floor let them in, but the word matches above that floor came in too, and in the
    fusion they crowded out the notes that meaning alone ranked high (see `nearest`). Here the similar notes
    are the `k` nearest and nothing else: a word match counts as similar only if it is one of them. With
    e5, recall@6 of the marked memories (each round 80 Chinese dialogues, 40 English):

    | rounds | Chinese, the floor -> the k nearest | English |
    |---|---|---|
    | 10-17 (640 / 320 q) | 0.723 -> 0.740 | 0.650 -> 0.647 |
    | blind, 2 and 4-9 (640 / 360 q) | 0.627 -> 0.646 | 0.546 -> 0.559 |
    | 21 (80 q, written after the floor's change) | 0.706 -> 0.650 | |
    | 31 (80 q, written before this change, measured once) | 0.625 -> 0.675 | |
    | 32 (80 q, written after it, measured once) | 0.631 -> 0.700 | |

    Twelve of the sixteen Chinese rounds of 10-17 and the older ones gained, one was level and three lost
    (blind 4 -0.029, blind 7 -0.043, blind 16 -0.013); so did blind 21, which the query's own floor had
    taken down the same way. Blind 31, written before this change and measured once, gained 0.050 @6 and
    0.044 @10 (e5 had found less than words alone there, 0.625 against 0.637). The 8 or 16 nearest (rather
    than `k`, 24 at six notes) gained less in Chinese (0.725, 0.731 on 10-17) and lost English (0.641,
    0.634). They are held to the query's mean similarity (once there are `MEASURED` notes; the model's floor
    before), so a person of few notes is not all similar to a chat. Words alone are untouched, and so is a
    question: one line says what it asks."""
    return closest(measured, k, {}, 0.0, own=True)  # the query's own floor at its mean, no word matches


def closest(
    measured: tuple[Any, Any, float],
    k: int,
    words: dict[int, tuple[float, int]] | dict[int, object],
    z: float,
    *,
    own: bool = False,
) -> tuple[dict[int, float], float]:
    """`nearest` of similarities measured already ((ids, similarities, floor), as `Placed.similar` gives
    them), for a caller that reads more of them (`transcript.recall`)."""
    ids, sims, floor = measured
    if not len(ids):
        return {}, floor
    if len(ids) >= MEASURED:
        mine = float(sims.mean() + z * sims.std())
        floor = mine if own else max(floor, mine)
    found: dict[int, float] = {}
    top = sims.argpartition(len(ids) - k)[len(ids) - k :] if len(ids) > k else range(len(ids))
    for i in top:
        if sims[i] > floor:
            found[int(ids[i])] = float(sims[i])
    if words:
        wanted = sorted(words)
        at = ids.searchsorted(wanted)
        for note_id, i in zip(wanted, at, strict=True):
            if i < len(ids) and ids[i] == note_id and sims[i] > floor:
                found[note_id] = float(sims[i])
    return found, floor


def _scored_fresh(
    fresh_rows: list[tuple[int, int, float | None, float]],
    shares: list[tuple[int, str, int, int]],
    live: int,
    ask: Reading,
) -> list[tuple[int, float, int, float]]:
    """(item id, evidence, hits, score) of the unmerged items, by the same formula as the SQL above."""
    weights = ask.weights or {}
    slot = {
        term_id: (i, idf(live, df) * weights.get(term, 1.0))
        for i, (term_id, term, df, _take) in enumerate(shares)
    }
    notes: dict[int, list] = {}
    for note_id, term_id, fresh_at, weight in fresh_rows:
        if term_id not in slot:
            continue
        i, w = slot[term_id]
        entry = notes.setdefault(note_id, [0.0, 0, fresh_at, weight])
        entry[0] += w
        entry[1] |= 1 << i
    scored = []
    for note_id, (evidence, hits, fresh_at, weight) in notes.items():
        fresh = kept(ask.faded, ask.now, fresh_at, ask.half_life_days)
        scored.append((note_id, evidence, hits, evidence * fresh * weight * ask.boost(fresh_at)))
    return scored


def kept(faded: float, now: float, fresh_at: float | None, half_life_days: float) -> float:
    """What freshness leaves of a score: 1 when new (or undated), `faded` once faded completely, as in
    `_ranking`'s statement; a line's (`LINE_FADED`) is always 1."""
    if fresh_at is None or faded >= 1.0:
        return 1.0
    return faded + (1 - faded) * 0.5 ** (max(0.0, now - fresh_at) / DAY / half_life_days)


# What scoring needs of a matched note, and its length for the budget; a `Note` is read whole only for the
# notes a recall shows, chosen or skipped (`_Filler.done`): reading every candidate whole cost twice as much.
# (A note's text is clean, with no NUL in it, so SQL's `length` is Python's `len`.)
_SCORING = "id, kind, importance, feeling, happened_at, recalled_at, stability, archived_at, length(text)"
_KIND, _IMPORTANCE, _FEELING, _HAPPENED_AT, _RECALLED_AT, _STABILITY, _ARCHIVED_AT, _LENGTH = range(1, 9)
# A listed note: its id, importance and length (the other places typed as `_SCORING`'s, for PostgreSQL).
_LISTED = "id, '', importance, 0.0, 0.0, 0.0, 0.0, 0.0, length(text)"


@dataclass(frozen=True)
class _Listed:
    """What a recall reads of the person's notes besides the term index (rows of `_SCORING`, or of
    `_LISTED` for the lists): the matches by id, the pinned notes (importance 5, newest first), the
    important lasting ones (importance 4+, the most important first), the newest fading ones and the newest
    ones that are not matches (all awake)."""

    matched: dict[int, tuple[Any, ...]]
    pinned: list[tuple[Any, ...]]
    important: list[tuple[Any, ...]]
    recent: list[tuple[Any, ...]]
    newest: list[tuple[Any, ...]]


@lru_cache(maxsize=256)
def _listing(where: str) -> str:
    """The one statement `_listed` reads, for these filters (`Ask.narrowed`): each part its own `select`,
    along the index it always used, tagged with its place in `_Listed` (each part's order is restored by
    `_listed`: a sort of the whole in SQL cost more than the parts' reads)."""
    mine = f"subject_id = :sid and {LIVE}{where}"
    awake = f"subject_id = :sid and {LIVE} and {AWAKE}"
    parts = [
        f"select {_SCORING}, 0 from notes where id in (select value from json_each(:ids)) and {LIVE}{where}",
        f"select * from (select {_LISTED}, 1 from notes where {mine} and importance = 5 "
        "order by id desc limit :pinned)",
        f"select * from (select {_LISTED}, 2 from notes where {mine} and importance >= 4 "
        "and kind in ('fact', 'preference') order by importance desc, id desc limit :important)",
        f"select * from (select {_LISTED}, 3 from notes where {awake} and {FADING}{where} "
        "order by id desc limit :recent)",
        # The newest notes that are not among the matches (those never show as "nothing in common").
        f"select * from (select {_LISTED}, 4 from notes where {awake}{where} "
        "order by id desc limit :newest) where not (id in (select value from json_each(:ids)))",
    ]
    return " union all ".join(parts)


def _newest_first(row: tuple[Any, ...]) -> int:
    return -row[0]


def _most_important_first(row: tuple[Any, ...]) -> tuple[int, int]:
    return -row[_IMPORTANCE], -row[0]


def _listed(conn: sqlite3.Connection, ask: Ask, sid: int, ids: list[int]) -> _Listed:
    """The matches (`ids`: those live and within the filters) and the selection's lists (`_Listed`), in one
    statement."""
    where, narrow = ask.narrowed()
    limits = {
        "sid": sid,
        "ids": ids_json(ids),
        "pinned": 4 * ask.limit,
        "important": ask.important + ask.limit if ask.important > 0 else 0,
        "recent": ask.recent + ask.limit if ask.recent > 0 else 0,
        "newest": NEWEST_READ if ask.explained else 0,
    }
    parts: list[list[tuple[Any, ...]]] = [[], [], [], [], []]
    for row in conn.execute(_listing(where), {**limits, **narrow}):
        parts[row[-1]].append(row)
    matched, pinned, important, recent, newest = parts
    for rows in (pinned, recent, newest):
        rows.sort(key=_newest_first)
    important.sort(key=_most_important_first)
    return _Listed({row[0]: row for row in matched}, pinned, important, recent, newest)


def ids_json(ids: Sequence[int]) -> str:
    """A list of ids as the JSON `json_each` reads (`json.dumps` takes three times as long)."""
    return "[" + ",".join(map(str, ids)) + "]"


class _Filler:
    """Fills the selection under the limit and the budget, remembering what it skipped and why. A note is
    offered as a `Note`, or as a row (`_SCORING` or `_LISTED`: its id and length) read whole only if it is
    chosen or skipped (`done`)."""

    def __init__(self, ask: Ask) -> None:
        self.ask = ask
        self.chosen: list[tuple[Note | int, float, str, tuple[str, ...]]] = []
        self.skipped: list[tuple[Note | int, str]] = []
        self.taken: set[int] = set()
        self.used = 0

    def offer(
        self,
        note: Note | tuple[Any, ...],
        score: float,
        why: str,
        matched: tuple[str, ...] = (),
        *,
        quiet=False,
    ) -> bool:
        if isinstance(note, Note):
            note_id, length, shown = note.id, len(note.text), note
        else:
            note_id = shown = note[0]
            length = note[_LENGTH]
        if note_id in self.taken:
            return False
        reason = None
        if len(self.chosen) >= self.ask.limit:
            reason = f"over the limit of {self.ask.limit} notes"
        elif self.chosen and self.used + length > self.ask.budget:
            reason = f"over the {self.ask.budget}-character budget"
        if reason:
            if not quiet:
                self.skip(note, reason)
            return False
        self.chosen.append((shown, score, why, matched))
        self.taken.add(note_id)
        self.used += length
        return True

    def room(self) -> int:
        return self.ask.limit - len(self.chosen)

    def skip(self, note: Note | tuple[Any, ...], reason: str) -> None:
        note_id = note.id if isinstance(note, Note) else note[0]
        if note_id not in self.taken and len(self.skipped) < SKIPPED_SHOWN:
            self.skipped.append((note if isinstance(note, Note) else note_id, reason))
            self.taken.add(note_id)

    def done(self, conn: sqlite3.Connection) -> tuple[list[Recalled], list[tuple[Note, str]]]:
        """What was chosen and skipped, the notes offered as rows read whole (one statement)."""
        wanted = [c[0] for c in self.chosen if not isinstance(c[0], Note)]
        wanted += [s[0] for s in self.skipped if not isinstance(s[0], Note)]
        read: dict[int, Note] = {}
        if wanted:
            subject = self.ask.subject
            rows = conn.execute(
                f"select {COLUMNS} from notes where id in (select value from json_each(?))",
                (ids_json(wanted),),
            )
            read = {row[0]: note_of(subject, row) for row in rows}

        def note(shown: Note | int) -> Note:
            return shown if isinstance(shown, Note) else read[shown]

        chosen = [Recalled(note(n), score, why, matched) for n, score, why, matched in self.chosen]
        return chosen, [(note(n), reason) for n, reason in self.skipped]


def person(conn: sqlite3.Connection, space: str, subject: str) -> tuple[int, int, int] | None:
    """A person's id, live notes and indexed lines (None for one never met): one read for the notes'
    recall and the lines'."""
    return conn.execute(
        "select id, live, lines from subjects where space = ? and subject = ?", (space, subject)
    ).fetchone()


def rank(conn: sqlite3.Connection, ask: Ask, placed: Placed | None = None) -> tuple[Recall, Trace | None]:
    """Choose the notes for one query (a transaction function: reads only); `placed` is the query as the
    meaning tier placed it, if it did (see `mneme_core.meaning`)."""
    return ranked(conn, ask, person(conn, ask.space, ask.subject), placed)


def ranked(
    conn: sqlite3.Connection, ask: Ask, who: tuple[int, int, int] | None, placed: Placed | None = None
) -> tuple[Recall, Trace | None]:
    """`rank`, for the person `who` (`person`) read already."""
    tier = "embeddings" if placed is not None else "words"
    if who is None or ask.limit <= 0:
        return Recall(ask.query, [], [], tier), None
    sid, live = who[0], who[1]
    query_terms = ask.terms()
    filler = _Filler(ask)
    if overview.general(ask.asked) or (not query_terms and placed is None):
        where, narrow = ask.narrowed()
        overview.fill(
            conn,
            filler,
            subject=ask.subject,
            sid=sid,
            limit=ask.limit,
            recent=ask.recent,
            now=ask.now,
            half_life_days=ask.half_life_days,
            where=where,
            params=narrow,
        )
        chosen, skipped = filler.done(conn)
        return Recall(ask.query, chosen, skipped, tier, overview=True), Trace(sid, ())
    matches, listed = _matches(conn, ask, sid, live, query_terms, placed)
    strong = [m for m in matches if m.score >= 0]
    pinned = listed.pinned
    # While anything matches, pinned notes take at most a third of the slots and of the budget first.
    first = pinned[: ask.limit // 3] if strong else pinned
    for row in first:
        if not strong or filler.used + row[_LENGTH] <= ask.budget // 3:
            filler.offer(row, 0.0, "pinned")
    for m in strong:
        filler.offer(m.row, m.score, m.why, m.matched)
    for row in pinned:
        filler.offer(row, 0.0, "pinned")
    extras = ((listed.important, ask.important, "important"), (listed.recent, ask.recent, "recent"))
    for rows, extra, why in extras:
        added = 0
        for row in rows:
            if added < extra and filler.offer(row, 0.0, why, quiet=True):
                added += 1
    if ask.explained:  # what is skipped once the choice is made, for `explain` alone
        _unchosen(filler, matches, listed.newest)
    chosen, skipped = filler.done(conn)
    recall = Recall(ask.query, chosen, skipped, tier)
    # What a match or a link chose is used; what the follow-up query alone lent ("through a match") is not.
    used = tuple(r.note.id for r in chosen if r.why.startswith(("matched", "similar", "through #")))
    return recall, Trace(sid, used, ask.conversation)


def _unchosen(filler: _Filler, matches: list[_Match], newest: list[tuple[Any, ...]]) -> None:
    """The matches not chosen, then the newest notes that are no match, as skipped (`explain`)."""
    for m in matches:
        if m.id not in filler.taken:
            filler.skip(m.row, "too little in common with the query")
    matched_ids = {m.id for m in matches}
    shown = 0
    for row in newest:
        if shown < UNMATCHED_SHOWN and row[0] not in matched_ids and row[0] not in filler.taken:
            filler.skip(row, "nothing in common with the query")
            shown += 1


def _lent(
    conn: sqlite3.Connection, ask: Ask, words: dict[int, tuple[float, int]]
) -> dict[int, tuple[float, int]]:
    """What the strong word matches lend along their links (`memory.links.spread`): id -> (evidence, via)."""
    life = ask.lifecycle
    if life is None or not words:
        return {}
    best = max(evidence for evidence, _hits in words.values())
    strong = {note_id: evidence for note_id, (evidence, _hits) in words.items() if evidence >= WEAK * best}
    return links.spread(
        conn, strong, share=life.spread, hops=life.hops, now=ask.now, half_life_days=life.link_half_life_days
    )
