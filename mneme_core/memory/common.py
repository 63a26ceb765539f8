"""How common a word is in any text of its language: a word everyone says names less than a rare one.

A term's evidence is its `idf` among the person's notes or lines, and in a conversation of a few hundred
lines that cannot tell "year" from "kiln": each is in a dozen lines. Yet "What happened with Hattie's kilns
over the year?" is about the kilns, and a line with "year" and "new" ("Happy new year!") outbid every line
about them; "What new activities did Nadia take up at the start of the year?" found "year", "new" and
"start", and none of the activities. How common a word is in the language at large says what the person's
few lines cannot: "year", "new", "start", "place", "work", "come" are among the commonest English words
(Zipf frequency 5.5-6.3, a few uses in every thousand words), "kiln", "Oaxaca", "Fennel", "Maureen" are
not (2.8-3.5). So a query term weighs `weight(term)`: whole up to its script's floor (`FLOORS`), less the
commoner it is, down to `COMMON` at the band's top, times what `query.weighted` gives it. The table
(`common_words.tsv`, built by `benchmarks/data/build_common.py` from wordfreq, CC BY-SA 4.0) holds the terms
above the floors: 2,138 English stems and 1,324 Chinese words of one or two characters.

Measured with words alone (recall@6 / @10; fresh, long and the fresh dialogues were written for issue 26
before any engine ran on them; a dialogue's query is the dialogue so far, `--drift 2` after drifting
across the two dialogues before it):

| set | before | English only | English and Chinese (chosen) |
|---|---|---|---|
| long (121 q, English, LoCoMo-length turns) | 0.592 / 0.666 | 0.612 / 0.705 | 0.612 / 0.705 |
| fresh English (116 q) | 0.619 / 0.666 | 0.621 / 0.663 | 0.621 / 0.663 |
| fresh Chinese (111 q) | 0.571 / 0.690 | | 0.578 / 0.690 |
| dev English (235 q) | 0.668 / 0.721 | 0.689 / 0.736 | 0.689 / 0.736 |
| dev Chinese (119 q) | 0.786 / 0.826 | | 0.786 / 0.826 |
| dev mixed (45 q) | 0.609 / 0.665 | 0.592 / 0.660 | 0.592 / 0.660 |
| dialogues English (151 q) | 0.472 / 0.533 | 0.502 / 0.559 | 0.502 / 0.559 |
| dialogues English, drift 2 | 0.465 / 0.517 | 0.483 / 0.556 | 0.483 / 0.556 |
| dialogues Chinese (190 q) | 0.699 / 0.757 | | 0.710 / 0.769 |
| dialogues Chinese, drift 2 | 0.679 / 0.739 | | 0.707 / 0.760 |
| fresh dialogues Chinese (35 q) | 0.657 / 0.714 | | 0.714 / 0.743 |

Multi-hop questions gain most (long 0.403 -> 0.500 @10, dev 0.656 -> 0.683): their evidence is spread over
the year, and "over the year", "develop", "change" matched a line of every session. Other English bands
(4.0-6.0, 4.5-6.5) and floors (0.6) gave the same gains within 0.01. Chinese words are counted over news
and the web, where 中国, 国家, 发展 are commonest; with the English band (4.5-6.0) the Chinese dialogues
gained as much but the Chinese conversations lost (dev 0.786 -> 0.761 @6), so Chinese has the band half a
point higher. A one-line question's single Chinese characters weigh whole: it has few, and each was
chosen (菜 of "外婆给她做了什么菜？", 吃 of "能随便吃猫粮吗？"); weighing them too cost the fresh Chinese
conversations 0.021 @10 (0.580 / 0.669), while in a dialogue's chatter they are mostly 想, 去, 好. Pairs
alone, in dialogues too, kept the conversations and gained half as much on the dialogues (0.702 / 0.762,
the fresh dialogues unchanged). With e5 beside words (rank fusion) the sets are within noise of before
(long 0.666 / 0.736 -> 0.660 / 0.736): what the common words hid, meaning mostly found already.
Following the strongest matches' words (`hops`) by their weight here rather than by rarity alone was no
better (long 0.705 -> 0.702 @10, fresh 0.676 -> 0.672).

A term of another language, a name, a number or a word too rare for the table weighs whole, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from importlib import resources

from .. import text

__all__ = ["COMMON", "FLOORS", "TOPS", "rows", "weight", "widened"]

COMMON = 0.5  # what the commonest words weigh
# The band over which a term goes from whole to `COMMON`, in Zipf frequency, by whether it is of an unspaced
# script (a Chinese character or pair) or a word.
FLOORS = {False: 4.5, True: 5.0}
TOPS = {False: 6.0, True: 6.5}
TABLE = "common_words.tsv"


def weight(term: str) -> float:
    """What a query term weighs for how common it is in its language: 1 for a rare one, down to `COMMON`."""
    zipf = _table().get(term)
    if zipf is None:
        return 1.0
    cjk = text.unspaced(term)
    floor, top = FLOORS[cjk], TOPS[cjk]
    if zipf <= floor:
        return 1.0
    return 1.0 - min(1.0, (zipf - floor) / (top - floor)) * (1.0 - COMMON)


@cache
def _table() -> dict[str, float]:
    """The table, read once: term -> Zipf frequency."""
    return {term: float(zipf) for term, zipf in rows(TABLE, "build_common.py")}


def rows(table: str, builder: str) -> list[list[str]]:
    """A table of terms beside this module, its rows split at tabs. Its first line names the terms' version,
    which must be this engine's (`text.TERMS_VERSION`): a table of another stemmer's terms would miss them,
    so it refuses to load, naming the script (`benchmarks/data/<builder>`) that builds it again."""
    lines = resources.files(__package__).joinpath(table).read_text(encoding="utf-8").splitlines()
    if lines[0] != f"# {text.TERMS_VERSION}":
        raise RuntimeError(
            f"{table} holds terms of {lines[0][2:]!r}, this engine makes {text.TERMS_VERSION!r}: "
            f"run benchmarks/data/{builder}"
        )
    return [line.split("\t") for line in lines if line and not line.startswith("#")]


def widened(terms: Iterable[str], brought: Callable[[str], tuple[str, ...]]) -> dict[str, str]:
    """The terms the query's terms bring (`brought`: a kind's members, a word's forms), each to the first
    of them that brings it, less the query's own terms."""
    asked = list(terms)
    found: dict[str, str] = {}
    for term in asked:
        for other in brought(term):
            found.setdefault(other, term)
    for term in asked:
        found.pop(term, None)
    return found
