"""What an emoji that names a thing says in words: 🥭 is "mango" and 芒果, 🐱 is "cat" and 猫.

Chat says things with emoji ("我给你寄一箱过去吧🥭🥭", "五只，三只橘的两只狸花🐱🐱", "flying out
friday ✈️"), and a note that matters to the reply names the thing in words ("对芒果过敏", "allergic to
cats"). So `text.terms` gives an emoji's name in English and in Chinese as terms of the text it is in,
whichever language that text is: a person's notes may be in either. The table (`emoji_words.tsv`, 867 emoji
of one code point, built by `benchmarks/data/build_emoji.py` from Unicode CLDR's short names) holds only
emoji that name a thing: animals, plants, food, places, transport, activities, objects, sports, jobs, body
parts; not faces, hands, hearts or symbols, which say how someone feels rather than what about.

Measured with words alone (recall@6 / @10) on the second round of blind dialogue sets
(`blind2_dialogues.json`, written on 2026-12-03 before any engine ran on them: chat with emoji, 59 of 160
dialogues hold one that names a thing, as "顺丰冷链给你寄五斤过去🦐🦐" for "对海鲜过敏"):

| set | before | with the emoji's names | the reference |
|---|---|---|---|
| blind 2, Chinese (120 dialogues) | 0.488 / 0.557 | 0.504 / 0.574 | 0.458 / 0.553 |
| blind 2, English (40) | 0.537 / 0.683 | 0.562 / 0.708 | 0.412 / 0.496 |
| blind 2, Chinese, `--drift 2` | 0.415 / 0.532 | 0.424 / 0.540 | 0.219 / 0.294 |
| blind 2, English, `--drift 2` | 0.475 / 0.583 | 0.475 / 0.608 | 0.175 / 0.212 |

Every other benchmark set (the dev sets, fresh, long, blind, the other dialogue sets) is unchanged to the
question: they hold almost no emoji. A text without one pays a search of its characters for the code points
emoji are in (non-ASCII text only, `found`).
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

__all__ = ["TABLE", "found", "names"]

TABLE = "emoji_words.tsv"


@cache
def names() -> dict[str, str]:
    """Each emoji of the table -> its English and Chinese names, one text (read once, on first use)."""
    lines = resources.files(__package__).joinpath(TABLE).read_text(encoding="utf-8").splitlines()
    rows = (line.split("\t") for line in lines if line and not line.startswith("#"))
    return {char: " ".join(name for name in said if name) for char, *said in rows}


def found(text: str) -> list[str]:
    """The table's emoji in a text, each once, in the order met."""
    if _near().search(text) is None:
        return []
    named = names()
    return [char for char in dict.fromkeys(text) if char in named]


@cache
def _near() -> re.Pattern[str]:
    """Matches a character in the stretches of code points the table's emoji are in, one in the Basic
    Multilingual Plane and one above it: a class of two ranges is searched in a microsecond or two, where a
    class of the 867 emoji themselves took some 100 us for a sentence of Chinese."""
    chars = sorted(names())
    planes = ([c for c in chars if c <= "\uffff"], [c for c in chars if c > "\uffff"])
    return re.compile("[" + "".join(f"{re.escape(p[0])}-{re.escape(p[-1])}" for p in planes if p) + "]")
