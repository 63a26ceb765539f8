"""A time a question names by an event: "before she moved", "since the wedding", "搬家之前", "自从换了工作".

"Where did Priya live before she moved?" names a time as surely as "last May" does (`periods`), but its
date is not in the words: it is when the move happened, which the person's own notes and lines tell. So
`anchored` finds such a phrase (the connective and the event after it, or before it in Chinese), and
`placed` looks the event up among the person's notes, then their lines, by its words. The items that tell
of it are those holding one of its rare words (in at most `RARE` of the items, at least `RARE_MIN`) with at
least `TELLS` of the evidence of the one that tells most; their dates (a note's `happened_at`, a line's
`at`) give the event's. An event is often told more than once, planned and then done ("I'm going to
propose", "we got engaged!"), so the question's period is the widest the tellings allow: up to the latest
of them ("before", "until", "之前", "以前"), or from the earliest on ("after", "since", "之后", "以后",
"自从"), `AROUND` hours either side (what is said in the same conversation as the event is about its
time), and recall boosts what is dated in it as for a named period (`recall.PERIOD_BOOST`).

The event's words say when, not what is asked, so they weigh less (`recall.MUTED`, 0.7, `Anchor.muted`):
in Chinese an event of five characters is eight terms ("我搬到上海之前在哪里上班？"), and at full weight the
line telling of the move outweighed the answers five to one, under recall's weak cut. But an event's own
line is sometimes the answer ("Is Kwame likely to keep racing after the marathon?"): dropping the event's
words altogether, as a named period's words are, lost four such questions on the retrieval benchmark, and
half lost that one (long.json @10 with e5 0.736 -> 0.728); at 0.7 every benchmark question is as with the
words whole, and the Chinese case (a test) is found. The connective stays as it was ("since" was one
question's chance match).

On the retrieval benchmark (words @6 / @10) dev went 0.707 / 0.754 -> 0.708 / 0.754 ("Where did Priya live
before she moved to Manchester?" 0.5 / 1.0 -> 1.0 / 1.0), long and fresh unchanged. The first version,
dated by the one telling with the most evidence, with no hours around it and the connective dropped, lost
three ("before proposing": the plan was told two lines before the answer).

When the event is not told (no rare word of it matches anything) the question is left as it was: a guess
at its date would boost the wrong half of a life. A phrase is an event only when it reads as one: after
"before"/"after" an English event starts with a pronoun and goes on ("she moved"), with a determiner and a
word that is not a time ("the wedding", "her operation", not "the summer"), with a name ("Priya got the
job", not "May" or "Christmas"), or with a verb's -ing ("retiring"); "named after", "looks after", "before
or after" and "after that" name none. A dialogue so far is left alone: its connectives are chatter.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, replace

from .. import text
from ..memory import index
from ..memory.recall import Ask, Reading, ids_json, word_ranked
from ..periods import Period

__all__ = ["RARE", "RARE_MIN", "Anchor", "anchored", "placed"]

RARE = 0.05  # an event's rare word is in at most this share of the person's notes (or lines) ...
RARE_MIN = 3  # ... or in at most this many of them, whichever is more
TELLS = 0.5  # an item tells of the event with at least this share of the evidence of the one that tells most
READ = 24  # the best word matches of the event read, among which its tellings are found
# A line is dated when it was said, not when what it tells happened: what is said in the same conversation
# ("I'm planning to propose." ... "I want to ask her dad first.") counts on either side of it.
AROUND = 3 * 3600.0
EARLIEST = -1e12  # "before" reaches back to any date a note can have


@dataclass(frozen=True)
class Anchor:
    """An event a question names a time by: `before` it or after it, its words, and the `phrase` of both
    in the question (where it starts: the first event named counts)."""

    before: bool
    event: str
    phrase: tuple[int, int]

    def period(self, at: float, now: float) -> Period:
        """The period the question names, the event told at `at` (see `AROUND`): up to it, or from it on."""
        if self.before:
            return Period(EARLIEST, at + AROUND, slack=False)
        return Period(at - AROUND, max(now, at) + AROUND, slack=False)

    def muted(self, question: str) -> frozenset[str]:
        """The event's words that the rest of the question does not say too: they weigh less
        (`recall.MUTED`)."""
        a, b = self.phrase
        return frozenset(text.terms(self.event)) - set(text.terms(question[:a] + " " + question[b:]))


_EN = re.compile(
    r"\b(?P<word>before|after|since|until|till|prior to)\s+(?P<event>[^,.;:?!\n]+)", re.IGNORECASE
)
# Where the event's clause ends: a conjunction, or the question's own verb ("after her operation did ...").
_EN_CUT = re.compile(
    r"\s+(?:and|or|but|so|because|when|while|then|than|if|whereas|did|does|do)\b.*", re.IGNORECASE
)
_EN_BEFORE = {"before", "until", "till", "prior to"}
# A word before the connective that makes it no time: "named after", "looks after", "gone after".
_NOT_TIME = {
    "name", "names", "named", "naming", "look", "looks", "looked", "looking", "go", "goes", "gone", "went",
    "going", "come", "comes", "came", "coming", "chase", "chases", "chased", "chasing", "take", "takes",
    "took", "taken", "taking", "ask", "asks", "asked", "asking", "than", "as", "or", "and",
}  # fmt: skip
_PRONOUNS = {"she", "he", "they", "i", "we", "you"}
_DETERMINERS = {"the", "her", "his", "their", "my", "your", "our", "its", "a", "an"}
# Words that make the phrase a time of day or of the year, not an event ("after the summer", "before May").
_TIMES = {
    "summer", "winter", "spring", "autumn", "fall", "weekend", "weekends", "holiday", "holidays", "day",
    "days", "week", "weeks", "month", "months", "year", "years", "morning", "evening", "night", "afternoon",
    "lunch", "dinner", "breakfast", "supper", "christmas", "easter", "midnight", "noon", "today", "tonight",
    "tomorrow", "yesterday", "work", "school", "class", "bed", "then", "now", "that", "this", "nothing",
    "something", "anything", "everything", "january", "february", "march", "april", "may", "june", "july",
    "august", "september", "october", "november", "december", "monday", "tuesday", "wednesday",
    "thursday", "friday", "saturday", "sunday",
}  # fmt: skip
# What every connective above holds: most questions have none, and looking for these tells in about 2 µs.
_HINTS = (
    "before", "after", "since", "until", "till", "prior", "之前", "以前", "之后", "以后", "自从", "自打",
)  # fmt: skip
_POSSESSIVE = re.compile(r"'s?$")
_WORDS = re.compile(r"\s*(?:\S+\s+){0,7}\S+")  # an event's first 8 words
_ZH = re.compile(r"(?P<event>[\u4e00-\u9fff0-9A-Za-z]{2,12}?)(?P<word>之前|以前|之后|以后)")
_ZH_SINCE = re.compile(r"(?P<word>自从|自打)(?P<event>[\u4e00-\u9fff0-9A-Za-z]{2,12})")


def anchored(question: str) -> Anchor | None:
    """The first event `question` names a time by (see the module docstring), or None."""
    folded = question.casefold()
    if not any(hint in folded for hint in _HINTS):
        return None
    found = [a for a in (_english(question), _chinese(question)) if a is not None]
    return min(found, key=lambda a: a.phrase[0]) if found else None


def _english(question: str) -> Anchor | None:
    for match in _EN.finditer(question):
        before_it = question[: match.start()].split()
        if before_it and before_it[-1].casefold().strip("'\"") in _NOT_TIME:
            continue
        event = _EN_CUT.sub("", match["event"]).rstrip()
        words = event.split()[:8]
        if _event(words):
            said = _WORDS.match(event)  # the words kept, in the question
            end = match.start("event") + (said.end() if said else len(event))
            before = match["word"].casefold() in _EN_BEFORE
            return Anchor(before, " ".join(words), (match.start("word"), end))
    return None


def _event(words: list[str]) -> bool:
    """Whether the words after a connective read as an event (see the module docstring)."""
    if not words:
        return False
    first = words[0].casefold()
    if any(_POSSESSIVE.sub("", w.casefold()) in _TIMES for w in words[:3]):
        return False
    if first in _PRONOUNS or first in _DETERMINERS:
        return len(words) >= 2
    if first.endswith("ing") and len(first) > 4:
        return True
    return words[0][0].isupper()


def _chinese(question: str) -> Anchor | None:
    for pattern, before in ((_ZH, None), (_ZH_SINCE, False)):
        match = pattern.search(question)
        if match is not None:
            side = match["word"] in ("之前", "以前") if before is None else before
            return Anchor(side, match["event"], (match.start(), match.end()))
    return None


def placed(conn: sqlite3.Connection, ask: Ask, who: tuple[int, int, int] | None) -> Ask:
    """The question with the period its event names, when the person's notes or lines tell when the
    event happened; as it was otherwise (a named period already, a dialogue so far, no event, untold)."""
    if ask.period is not None or who is None or len(ask.turns) > 1 or not ask.query:
        return ask
    anchor = anchored(ask.query)
    if anchor is None:
        return ask
    terms = text.terms(anchor.event)
    if not terms:
        return ask
    sid, notes, lines = who
    at = _told(conn, ask, sid, notes, terms, index.NOTES, "notes", "happened_at", anchor.before)
    if at is None:
        at = _told(conn, ask, sid, lines, terms, index.LINES, "lines", "at", anchor.before)
    if at is None:
        return ask
    return replace(ask, period=anchor.period(at, ask.now), muted=anchor.muted(ask.query))


def _told(
    conn: sqlite3.Connection,
    ask: Ask,
    sid: int,
    live: int,
    terms: list[str],
    postings: index.Postings,
    table: str,
    column: str,
    before: bool,
) -> float | None:
    """When the event happened, as the person's items in one term index that tell of it date it (`column`):
    the latest of them `before` it, else the earliest; None when none tells of it (see the module
    docstring)."""
    if not live:
        return None
    reading = Reading(postings, table, READ, ask.now, ask.half_life_days)
    ranked, shares = word_ranked(conn, reading, sid, live, terms)
    rare = max(RARE_MIN, RARE * live)
    bits = sum(1 << i for i, (_id, _term, df, _take) in enumerate(shares) if df <= rare)
    told = [row for row in ranked if row[2] & bits]
    if not told:
        return None
    best = max(row[1] for row in told)
    ids = [row[0] for row in told if row[1] >= TELLS * best]
    edge = "max" if before else "min"
    row = conn.execute(
        f"select {edge}({column}) from {table} where id in (select value from json_each(?))", (ids_json(ids),)
    ).fetchone()
    return None if row is None or row[0] is None else float(row[0])
