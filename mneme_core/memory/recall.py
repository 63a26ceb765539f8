"""Recall: which of a person's notes to put before the model for this query, and why.

Evidence. A note matches the query by the terms it shares with it, each weighted by how rare it is among the
person's live notes (`idf = ln(1 + (N - df + 0.5) / (df + 0.5))`, always positive: a word in most of the
notes still counts a little, so asking about what a person mostly talks about still finds it). A match with
less than a fifth of the best match's evidence is too weak to take a slot (with Chinese matched by
characters, a lone common character is not evidence).

Score. `evidence x (0.75 + 0.25 freshness) x (0.4 + 0.15 importance) x (1 + 0.3 |feeling|)`. Freshness
breaks near ties between comparable evidence; it must not overturn a clear difference in it: a person asking
about a thing from months ago means that thing, so a note that has faded completely keeps three quarters of
its score (`FADED`; the reference keeps a quarter, and on the retrieval benchmark an old turn that answered
the question lost to fresh small talk; half found 0.586 at 6 notes on the dev set, three quarters 0.603,
the same at 10). Word evidence is summed inside SQLite over the postings of the query's
terms. A very common term contributes the postings of its newest notes only (the whole recall reads at most
`POSTINGS` merged postings, plus those of the few newest notes not merged yet, see `index`), so the cost of
a query is bounded however long the history grows, and the rare terms, which carry the evidence, are always
read in full.

A query of several lines (a dialogue so far, `Ask.turns`) weighs its latest lines most (`query`). A question
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
  query's similarity to all the person's notes. Ranks rather than similarities: on the retrieval benchmark's
  dev set, adding a share of the similarity to the word evidence found less at 10 notes (0.715) than the
  similarity alone (0.741); fusing the ranks found 0.768;
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
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

from .. import text
from ..periods import Period
from ..store.postgres.dialect import Dialects
from ..store.schema import LIVE
from . import archive, hops, index, links, overview, query
from .lifecycle import Lifecycle, accessibility_at
from .note import COLUMNS, Note, note_of
from .notes import Within, newest, subject_id

if TYPE_CHECKING:
    from ..meaning.tiers import Placed
    from ..meaning.vectors import Shelf
    from ..transcript.recall import RecalledLine

POSTINGS = 1500
WEAK = 0.2
FADED = 0.75  # what a note that has faded completely keeps of its score
MAX_TERMS = 32  # the rarest terms of a long query; the others add little evidence
SKIPPED_SHOWN = 10
UNMATCHED_SHOWN = 5
DAY = 86400.0
# A note is similar to the query only where it stands out from the query's similarity to all of the
# person's notes: above their mean by this many standard deviations (some 6 in 1000 notes by chance alone).
QUERY_Z = 2.5
SIMILAR = 0.5  # what the most similar note possible counts, as a share of the best word match
# With a stated weight: 1 standard deviation (some 16 in 100 notes by chance), below the person's floor for
# most models, which then decides (0.5 to 1.5 measured the same on the benchmark); the fusion's ranks, not
# this floor, keep the far ones out of the slots.
TRUSTED_Z = 1.0
# Rank fusion, with a stated weight: a note's place among the word matches and among the similar notes each
# count `1 / (FUSION_K + place)` (the weight times that for the similar ones). A small K lets the first
# places stand out; 3 to 10 measured the same on the benchmark, within a point.
FUSION_K = 5
# What a note or line dated in the period a query names ("last week", "去年夏天") has of its score, beside
# the same evidence from another time (see `periods`).
PERIOD_BOOST = 2.0


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
        """The query's terms, less the words that named its period (unless nothing else is left)."""
        found = text.terms(self.query)
        if self.period is None:
            return found
        return text.terms(self.period.rest_of(self.query)) or found

    @cached_property
    def weights(self) -> dict[str, float]:
        """What each of the query's terms weighs (see `query.weighted`), worked out once."""
        return query.weighted(self.turns, self.terms())


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
        found = sorted(found, key=lambda t: (-idf(live, t[2]) * weights.get(t[1], 1.0), t[2]))[:MAX_TERMS]
    else:
        found = sorted(found, key=lambda t: t[2])[:MAX_TERMS]
    left, shared = POSTINGS, []
    for i, (term_id, term, df) in enumerate(found):
        share = left // (len(found) - i)
        take = min(df, share)
        left = max(0, left - take)
        shared.append((term_id, term, df, take))
    return shared


def _reading(ask: Ask) -> Reading:
    """What recall reads of the notes' term index for this question (see `word_ranked`)."""
    where, narrow = ask.narrowed("n.")
    k, days = max(4 * ask.limit, 24), ask.half_life_days
    return Reading(index.NOTES, "notes", k, ask.now, days, where, narrow, ask.period, ask.weights)


def counted(
    conn: sqlite3.Connection, p: index.Postings, sid: int, terms: list[str]
) -> tuple[list[tuple[int, str, int]], list[tuple[int, int, float | None, float]], dict[int, int]]:
    """(term id, term, df) of those of `terms` a person's items have, the postings of the newest items (not
    merged yet), and the recent postings' count by term id."""
    known = conn.execute(
        f"select id, term, df from {p.terms} where subject_id = ? "
        "and term in (select value from json_each(?))",
        (sid, json.dumps(terms, ensure_ascii=False)),
    ).fetchall()
    if not known:
        return [], [], {}
    # One pass over the newest items, not merged yet (see `index`): they count into `df` and are
    # candidates, scored here; the merged postings are scored inside SQLite.
    fresh_rows = index.fresh_postings(conn, [row[0] for row in known], p)
    fresh_df = Counter(row[1] for row in fresh_rows)
    recent = index.recent_counts(conn, [row[0] for row in known], p)
    found = [(i, term, n) for i, term, df in known if (n := df + recent.get(i, 0) + fresh_df[i]) > 0]
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
    parts = []
    for i, (term_id, term, df, take) in enumerate(shares):
        newer = min(take, recent.get(term_id, 0))  # the newest postings are the recent ones (see `index`)
        params[f"t{i}"], params[f"w{i}"] = term_id, idf(live, df) * weights.get(term, 1.0)
        params[f"r{i}"], params[f"c{i}"] = newer, take - newer
        parts.extend(
            f"select {p.item} as item, :w{i} as w, {1 << i} as bit, fresh_at, weight from (select {p.item}, "
            f"fresh_at, weight from {table} where term_id = :t{i} order by {p.item} desc limit :{limit}{i})"
            for table, limit in ((p.recent, "r"), (p.settled, "c"))
        )
    fresh = "coalesce(pow(0.5, max(0.0, :now - h.fresh_at) / 86400.0 / :hl), 1.0)"
    boost = ""
    if reading.period is not None:  # the period's reach: see `periods.Period.holds`
        params["ps"], params["pe"] = reading.period.start, reading.period.reach()
        boost = f" * (case when h.fresh_at >= :ps and h.fresh_at < :pe then {PERIOD_BOOST} else 1.0 end)"
    where, narrow = reading.where, reading.narrow
    # With filters, each posting meets its item (at most `POSTINGS` lookups by id), so the best `k` are
    # the best that fit.
    join = f"join {reading.table} n on n.id = h.item where 1 {where} " if where else ""
    sql = (
        "select h.item, sum(h.w) as evidence, sum(h.bit) as hits, "
        f"sum(h.w) * ({FADED} + {1 - FADED} * {fresh}) * h.weight{boost} as score "
        f"from ({' union all '.join(parts)}) h {join}"
        "group by h.item order by score desc, h.item desc limit :k"
    )
    # An item's postings all carry its fresh_at and weight: SQLite takes them from any row of the group,
    # PostgreSQL wants them named as an aggregate.
    if not isinstance(conn, sqlite3.Connection):  # the file's path pays nothing for it (5 us a recall)
        sql = Dialects(
            sql, sql.replace("h.fresh_at", "max(h.fresh_at)").replace("* h.weight", "* max(h.weight)")
        )
    ranked = conn.execute(sql, params | narrow).fetchall()
    unmerged = _scored_fresh(fresh_rows, shares, live, reading)
    if where and unmerged:
        fit = _fitting(conn, reading.table, [row[0] for row in unmerged], where, narrow)
        unmerged = [row for row in unmerged if row[0] in fit]
    ranked = sorted(ranked + unmerged, key=lambda r: (-r[3], -r[0]))[: reading.k]
    return ranked, shares


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
    note: Note
    score: float
    matched: tuple[str, ...]
    evidence: float
    similar: float | None  # the raw similarity, when meaning placed the query and it is above the floor
    factor: float = 1.0  # what freshness, importance and feeling make of the evidence: score / evidence
    via: int | None = None  # the strong match whose link lent it evidence (`memory.links`)

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
) -> list[_Match]:
    """The notes that have something in common with the query, best first; too weak ones at the end,
    with a score of -1 (see the module docstring)."""
    ranked, shares = word_ranked(conn, _reading(ask), sid, live, query_terms)
    k = max(4 * ask.limit, 24)
    words = {note_id: (evidence, hits) for note_id, evidence, hits, _score in ranked}
    for note_id, lent in _followed(conn, ask, sid, live, ranked, query_terms).items():
        evidence, hits = words.get(note_id, (0.0, 0))
        words[note_id] = (evidence + lent, hits)
    similar: dict[int, float] = {}
    floor = 0.0
    stated = placed is not None and placed.weight is not None
    if placed is not None:
        similar, floor = nearest(conn, placed, sid, k, words, TRUSTED_Z if stated else QUERY_Z)
    lent = _lent(conn, ask, words)
    ids = list(dict.fromkeys([r[0] for r in ranked] + list(words) + list(similar) + list(lent)))
    if not ids:
        return []
    where, narrow = ask.narrowed()
    rows = {
        row[0]: note_of(ask.subject, row)
        for row in conn.execute(
            f"select {COLUMNS} from notes where id in (select value from json_each(:ids)) and {LIVE}{where}",
            {"ids": json.dumps(ids), **narrow},
        )
    }
    terms_of = [term for _id, term, _df, _take in shares]
    # The cautious rule puts meaning on the scale of words, whatever the query's length: a share of the best
    # word match (or, when words found little, of a word found in one note only), see the module docstring.
    best_words = max([evidence for evidence, _hits in words.values()] + [0.0])
    scale = SIMILAR * max(best_words, idf(live, 1))
    matches = []
    for note_id in ids:
        note = rows.get(note_id)
        if note is None:
            continue
        evidence, hits = words.get(note_id, (0.0, 0))
        sim = similar.get(note_id)
        lift = 0.0 if sim is None or stated else scale * min(1.0, (sim - floor) / max(1.0 - floor, 1e-6))
        hit_terms = sorted((i for i in range(len(shares)) if hits >> i & 1), key=lambda i: shares[i][2])
        fresh_at, weight = index.rank_of(
            note.kind, note.importance, note.feeling, note.happened_at, note.recalled_at
        )
        fresh = (
            1.0
            if fresh_at is None
            else accessibility_at(fresh_at, note.stability, ask.now, ask.half_life_days)
        )
        factor = (FADED + (1 - FADED) * fresh) * weight * ask.in_period(note.happened_at)
        extra, via = lent.get(note_id, (0.0, None))
        total = evidence + lift + extra
        if ask.lifecycle is not None and archive.quiet(note.archived_at, total, best_words):
            continue
        matches.append(
            _Match(note, total * factor, tuple(terms_of[i] for i in hit_terms), total, sim, factor, via)
        )
    best = max(m.evidence for m in matches) if matches else 0.0
    if stated:
        return _fused(matches, best, floor, placed.weight)
    matches.sort(key=lambda m: (-m.score, -m.note.id))
    strong = [m for m in matches if m.evidence >= WEAK * best]
    weak = [replace(m, score=-1.0) for m in matches if m.evidence < WEAK * best]
    return strong + weak


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


def _fused(matches: list[_Match], best: float, floor: float, weight: float) -> list[_Match]:
    """Rank fusion, for a model whose weight was stated: the strong word matches in the order of their
    score, the notes above the floor in the order of their similarity (times the same freshness,
    importance and feeling), and a note's score the sum of what its two places count (`FUSION_K`). The
    notes in neither list come last, with a score of -1."""
    by_words = sorted(
        (m for m in matches if m.evidence > 0 and m.evidence >= WEAK * best),
        key=lambda m: (-m.score, -m.note.id),
    )
    by_meaning = sorted(
        (m for m in matches if m.similar is not None),
        key=lambda m: (-(m.similar - floor) * m.factor, -m.note.id),
    )
    points: dict[int, float] = {}
    for place, m in enumerate(by_words):
        points[m.note.id] = 1.0 / (FUSION_K + place)
    for place, m in enumerate(by_meaning):
        points[m.note.id] = points.get(m.note.id, 0.0) + weight / (FUSION_K + place)
    placed = [replace(m, score=points[m.note.id]) for m in matches if m.note.id in points]
    placed.sort(key=lambda m: (-m.score, -m.note.id))
    return placed + [replace(m, score=-1.0) for m in matches if m.note.id not in points]


def nearest(
    conn: sqlite3.Connection,
    placed: Placed,
    sid: int,
    k: int,
    words: dict[int, tuple[float, int]] | dict[int, object],
    z: float,
    shelf: Shelf | None = None,
) -> tuple[dict[int, float], float]:
    """Similarity above the floor of the `k` most similar notes (or lines, on their `shelf`) and of the
    word matches, by id; and the floor."""
    ids, sims, floor = placed.similar(conn, sid) if shelf is None else placed.similar(conn, sid, shelf)
    if not len(ids):
        return {}, floor
    if len(ids) >= 30:
        floor = max(floor, float(sims.mean() + z * sims.std()))
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
        fresh = (
            1.0 if fresh_at is None else 0.5 ** (max(0.0, ask.now - fresh_at) / 86400.0 / ask.half_life_days)
        )
        boost = ask.boost(fresh_at)
        scored.append((note_id, evidence, hits, evidence * (FADED + (1 - FADED) * fresh) * weight * boost))
    return scored


def _listed(conn: sqlite3.Connection, ask: Ask, sid: int, sql: str, limit: int) -> list[Note]:
    """A person's live notes `where ... {sql}` (within the filters), ordered and limited by `sql`'s end."""
    where, narrow = ask.narrowed()
    rows = conn.execute(
        f"select {COLUMNS} from notes where subject_id = :sid and {LIVE}{where} and {sql}",
        {"sid": sid, "limit": limit, **narrow},
    )
    return [note_of(ask.subject, row) for row in rows]


class _Filler:
    """Fills the selection under the limit and the budget, remembering what it skipped and why."""

    def __init__(self, ask: Ask) -> None:
        self.ask = ask
        self.chosen: list[Recalled] = []
        self.skipped: list[tuple[Note, str]] = []
        self.taken: set[int] = set()
        self.used = 0

    def offer(
        self, note: Note, score: float, why: str, matched: tuple[str, ...] = (), *, quiet=False
    ) -> bool:
        if note.id in self.taken:
            return False
        reason = None
        if len(self.chosen) >= self.ask.limit:
            reason = f"over the limit of {self.ask.limit} notes"
        elif self.chosen and self.used + len(note.text) > self.ask.budget:
            reason = f"over the {self.ask.budget}-character budget"
        if reason:
            if not quiet:
                self.skip(note, reason)
            return False
        self.chosen.append(Recalled(note, score, why, matched))
        self.taken.add(note.id)
        self.used += len(note.text)
        return True

    def room(self) -> int:
        return self.ask.limit - len(self.chosen)

    def skip(self, note: Note, reason: str) -> None:
        if note.id not in self.taken and len(self.skipped) < SKIPPED_SHOWN:
            self.skipped.append((note, reason))
            self.taken.add(note.id)


def rank(conn: sqlite3.Connection, ask: Ask, placed: Placed | None = None) -> tuple[Recall, Trace | None]:
    """Choose the notes for one query (a transaction function: reads only); `placed` is the query as the
    meaning tier placed it, if it did (see `mneme_core.meaning`)."""
    tier = "embeddings" if placed is not None else "words"
    sid = subject_id(conn, ask.space, ask.subject)
    if sid is None or ask.limit <= 0:
        return Recall(ask.query, [], [], tier), None
    query_terms = ask.terms()
    filler = _Filler(ask)
    if overview.general(text.terms(ask.query)) or (not query_terms and placed is None):
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
        return Recall(ask.query, filler.chosen, filler.skipped, tier, overview=True), Trace(sid, ())
    (live,) = conn.execute("select live from subjects where id = ?", (sid,)).fetchone()
    matches = _matches(conn, ask, sid, live, query_terms, placed)
    strong = [m for m in matches if m.score >= 0]
    # 5 is the top importance
    pinned = _listed(conn, ask, sid, "importance = 5 order by id desc limit :limit", 4 * ask.limit)
    # While anything matches, pinned notes take at most a third of the slots and of the budget first.
    first = pinned[: ask.limit // 3] if strong else pinned
    for note in first:
        if not strong or filler.used + len(note.text) <= ask.budget // 3:
            filler.offer(note, 0.0, "pinned")
    for m in strong:
        filler.offer(m.note, m.score, m.why, m.matched)
    for note in pinned:
        filler.offer(note, 0.0, "pinned")
    if ask.important > 0:
        important = _listed(
            conn,
            ask,
            sid,
            "importance >= 4 and kind in ('fact', 'preference') "
            "order by importance desc, id desc limit :limit",
            ask.important + ask.limit,
        )
        added = 0
        for note in important:
            if added < ask.important and filler.offer(note, 0.0, "important", quiet=True):
                added += 1
    if ask.recent > 0:
        recent = _newest(conn, ask, sid, ask.recent + ask.limit, fading=True)
        added = 0
        for note in recent:
            if added < ask.recent and filler.offer(note, 0.0, "recent", quiet=True):
                added += 1
    for m in matches:
        if m.note.id not in filler.taken:
            filler.skip(m.note, "too little in common with the query")
    matched_ids = {m.note.id for m in matches}
    shown = 0
    for note in _newest(conn, ask, sid, 12):
        if shown < UNMATCHED_SHOWN and note.id not in matched_ids and note.id not in filler.taken:
            filler.skip(note, "nothing in common with the query")
            shown += 1
    recall = Recall(ask.query, filler.chosen, filler.skipped, tier)
    # What a match or a link chose is used; what the follow-up query alone lent ("through a match") is not.
    used = tuple(r.note.id for r in filler.chosen if r.why.startswith(("matched", "similar", "through #")))
    return recall, Trace(sid, used, ask.conversation)


def _newest(conn: sqlite3.Connection, ask: Ask, sid: int, limit: int, *, fading: bool = False) -> list[Note]:
    where, narrow = ask.narrowed()
    return newest(conn, ask.subject, sid, limit, fading=fading, where=where, params=narrow)


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
