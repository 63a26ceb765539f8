"""Which writing system a text is in, and whether it is in another one than the memory language's.

A letter's script is the first word of its Unicode name ("LATIN SMALL LETTER A", "CJK UNIFIED
IDEOGRAPH-732B", "HANGUL SYLLABLE GA"); digits, punctuation and spaces are not letters and do not count. A
memory language is given by name ("English", "Chinese", "中文") or code ("en", "zh"); one not in `SCRIPTS` is
taken to be written in Latin letters, as most languages a companion keeps its memory in are.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from mneme_core.errors import InvalidType, describe

SHARE = 0.2  # of a text's letters in another script than the memory language's: it needs translating

_HAN = frozenset({"CJK"})
SCRIPTS: dict[str, frozenset[str]] = {
    "chinese": _HAN,
    "mandarin": _HAN,
    "cantonese": _HAN,
    "中文": _HAN,
    "汉语": _HAN,
    "漢語": _HAN,
    "zh": _HAN,
    "japanese": _HAN | {"HIRAGANA", "KATAKANA"},
    "日本語": _HAN | {"HIRAGANA", "KATAKANA"},
    "ja": _HAN | {"HIRAGANA", "KATAKANA"},
    "korean": frozenset({"HANGUL"}),
    "한국어": frozenset({"HANGUL"}),
    "ko": frozenset({"HANGUL"}),
    "russian": frozenset({"CYRILLIC"}),
    "ukrainian": frozenset({"CYRILLIC"}),
    "ru": frozenset({"CYRILLIC"}),
    "uk": frozenset({"CYRILLIC"}),
    "greek": frozenset({"GREEK"}),
    "el": frozenset({"GREEK"}),
    "arabic": frozenset({"ARABIC"}),
    "ar": frozenset({"ARABIC"}),
    "hebrew": frozenset({"HEBREW"}),
    "he": frozenset({"HEBREW"}),
    "thai": frozenset({"THAI"}),
    "th": frozenset({"THAI"}),
    "hindi": frozenset({"DEVANAGARI"}),
    "hi": frozenset({"DEVANAGARI"}),
}
LATIN = frozenset({"LATIN"})
_ASCII_LETTER = re.compile("[A-Za-z]")


def scripts_of(language: str) -> frozenset[str]:
    """The scripts a memory language is written in (Latin letters when the language is not known here)."""
    if not isinstance(language, str):
        raise InvalidType(f"a memory language is a name like 'English', not {describe(language)}")
    name = language.strip().casefold()
    if name in SCRIPTS:
        return SCRIPTS[name]
    for word in name.replace("-", " ").replace("_", " ").split():
        if word in SCRIPTS:
            return SCRIPTS[word]
    return LATIN


@lru_cache(maxsize=1 << 14)
def script(char: str) -> str | None:
    """The script of a letter, or None for what is not a letter."""
    if not char.isalpha():
        return None
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] if name else None


def foreign_share(text: str, scripts: frozenset[str]) -> float:
    """The share of the text's letters that are in none of `scripts` (0 for a text without letters)."""
    if text.isascii():  # all its letters Latin: most queries, told without a lookup a character
        return float("LATIN" not in scripts) if _ASCII_LETTER.search(text) else 0.0
    letters = foreign = 0
    for char in text:
        found = script(char)
        if found is not None:
            letters += 1
            foreign += found not in scripts
    return foreign / letters if letters else 0.0


def needs_translating(text: str, scripts: frozenset[str], share: float = SHARE) -> bool:
    return foreign_share(text, scripts) >= share
