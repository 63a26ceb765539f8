"""Text for prompts and for recall: one-line cleaning, clipping, folding, script detection and index terms.

Everything that reaches a prompt (a note, a name, a card) goes through `clean`: control and format characters
go, every kind of line break becomes a space, and the result is one line. A note can therefore never open a
new line in a prompt and pretend to be an instruction.

A *term* is what the recall index matches on. A note is evidence for a query by the terms they share, each
weighted by how rare it is, so the evidence is in the rare words: `terms()` turns a sentence into its content
words and drops what every sentence shares.

Glossary and policy:

- Spaced scripts (Latin, Cyrillic, Greek, Arabic, Hebrew, Devanagari, ...): a *word* is a run of letters,
  digits, combining marks and `_`, with `'` and `-` allowed inside it. Words shorter than two characters and
  English function words (`STOP_LATIN`) are dropped; "Mochi's" is "mochi". A hyphenated word gives its
  joined form and its parts: "ice-cream" is "icecream", "ice" and "cream", so it meets "ice cream" and
  "icecream". Hebrew and Arabic vowel marks, tatweel, ZWJ and ZWNJ are removed first, so vocalised and
  plain spellings meet.
- Unspaced scripts (Han, kana, Hangul, Thai, Lao, Myanmar, Khmer) have no spaces to find words by, and a
  word list would be large, language-specific and always missing the names that matter most. So a run is
  indexed by every overlapping pair of characters plus every single Han character or Hangul syllable,
  leaving out function pairs (`STOP_CJK`, and any two Chinese function characters in a row), function
  characters (`STOP_CJK_CHARS`) and the characters of a degree word where they stand in it (`DEGREE_CJK`:
  特别好吃 gives no 特 and no 别): a query shares pairs with any note that contains the same word, whatever
  the word. Single kana and Thai/Lao/Myanmar/Khmer letters are never terms on their own, because they spell
  sounds, not meanings (this also drops the Japanese particles). With `use_jieba()` the words jieba finds
  in Han runs are added as well.
- An emoji that names a thing (🥭, 🐱, ✈️; `emoji_words`) gives the terms of its name in English and in
  Chinese, after the text's own: "寄一箱过去吧🥭🥭" meets "对芒果过敏" and "allergic to mangoes". Faces,
  hands, hearts and symbols give none: they say how someone feels, not what about.
- The *normaliser* makes English inflections meet: "cats"/"cat", "classes"/"class", "ladies"/"lady",
  "hiking"/"hikes"/"hiked"/"hike", "running"/"runs"/"run". It is a dozen suffix rules on ASCII words of
  four letters or more, deliberately simpler than a real stemmer: notes and queries go through the same
  rules, so being consistent matters and being linguistically right does not. It sometimes makes odd
  stems ("movie" is "movy", "dance" is "danc"), which only show in recall's "matched: ..." explanations.
  What it must not do is make one word of two: "qu" counts as one consonant, so "quite" keeps its -e and
  never meets "quit"/"quitting"; a doubled consonant is undone only after one vowel ("running" is "run",
  "earrings" is not "ear"); and "evening" is not "even" -ing.
  Irregular verbs meet their past forms through a table ("ran" is "run", "bought" is "buy", "went" is
  "go"): questions ask "when did she run a race?" of notes that say "I ran a race". On the retrieval
  benchmark's English dev set this found 0.581 at 6 notes instead of 0.567.

`version()` names the rules; the index is rebuilt whenever it changes, so any change to what `terms()`
returns for some text must change `TERMS_VERSION`.

Speed: `terms()` runs on every note written and every query, and takes microseconds for a sentence. Regexes
are compiled at import (a few milliseconds, mostly finding the combining marks), English words are cached,
the terms of the `CACHE` texts met last are kept, and the only Python loops are over words and over the
characters of unspaced runs.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from functools import cache, lru_cache
from itertools import chain
from operator import add
from types import ModuleType

from . import emoji_words
from .errors import InvalidValue

__all__ = [
    "DEGREE_CJK",
    "SENTENCES",
    "STOP_CJK",
    "STOP_CJK_CHARS",
    "STOP_LATIN",
    "TERMS_VERSION",
    "clean",
    "clip",
    "fold",
    "is_blank",
    "one_line",
    "script",
    "terms",
    "unspaced",
    "use_jieba",
    "version",
]

log = logging.getLogger(__name__)

TERMS_VERSION = "mneme-terms-6"
# The terms of the texts met most lately (up to `CACHED` characters: a note's, a query's) are kept: a
# person's strongest matches are asked about again and again (the follow-up query reads their words).
CACHE = 2048
CACHED = 500
ELLIPSIS = "…"
# A text's sentences, each with what ends it (and the spaces after): `findall` gives pieces whose
# concatenation is the text, the last one empty. A Latin stop ends a sentence only before a space ("3.5 km"
# is one), a closing quote or bracket after it goes with it; a Chinese stop needs no space. A reply cut for a
# platform (`bot.split`) and a long line quoted in part (`transcript.excerpt`) cut at the same places.
SENTENCES = re.compile(r".*?(?:[.!?…]+[\"'”’)\]]*\s+|[。！？]+[”’」』）]*\s*|\Z)", re.DOTALL)

# English function words, chat fillers and common contractions (after casefolding, with a plain apostrophe).
# One-letter words ("a", "i") need no entry, being too short, nor forms the normaliser turns into an entry
# ("ours" is "our", "having" is "have").
STOP_LATIN = frozenset(
    """
    an the and or but if so as at by for from in into of off on out over to up with about than then there here
    because me my myself you your we us our they them their he him his she her it its this that these those
    is am are was were be been being do does did doing have has had will would can could should shall might
    must what which who whom how when where why all some any just very really also too not no yes yeah yep
    nope ok okay oh um uh hmm lol haha hi hey i'm i've i'll i'd you're you've we're they're he'll she'll
    don't doesn't didn't can't isn't wasn't won't after before while during until between through against
    """.split()  # noqa: SIM905 (a word list reads better as words)
)

# Pairs that are function words (pronouns, conjunctions, fillers) in Chinese, plus a few Japanese and
# Korean endings. Time words such as 今天 stay: like "today" in English, they carry meaning.
STOP_CJK = frozenset(
    """
    我们 你们 他们 她们 它们 咱们 我的 你的 他的 她的 它的 什么 为什 怎么 怎样 这个 那个 一个 这些 那些
    这样 那样 这么 那么 这里 那里 哪里 哪个 没有 就是 可以 因为 所以 但是 然后 还是 已经 自己 觉得 不是
    还有 如果 虽然 而且 或者 只是 的话 一些 一下 一点 有点 有些 其实 不过 可能 应该 真的 非常 比较 时候
    特别 尤其
    哈哈 呵呵 嘿嘿 嘻嘻 嗯嗯 です ます でし まし した これ それ この その あの けど ので さん 그리 리고 하지
    지만 그래 래서 습니 니다 해요 어요 아요 ᄏᄏ ᄒᄒ
    """.split()  # noqa: SIM905 (a word list reads better as words)
)

# Chinese degree words ("especially", "very", "rather", "really"; all in `STOP_CJK`): like "very" and "really"
# in English they say how much, not what, and their characters are not terms where they stand in them either
# (特 and 别 of 特别), so a chatty 特别好吃 does not match every note that says 特别喜欢. On the retrieval
# benchmark's dialogue sets (words @6, the four Chinese sets' mean) 0.635 -> 0.643, with --drift 2 0.620 ->
# 0.643; the LoCoMo-layout zh and mix sets the same. Leaving out the characters of every function pair
# (觉 of 觉得, 点 of 一点, 能 of 可能) found a little more in the dialogues but lost zh 0.807 -> 0.796 @10.
DEGREE_CJK = frozenset({"特别", "尤其", "非常", "比较", "真的"})

# Chinese function characters (particles, pronouns, question words, prepositions, degree words) and Korean
# particles. 什 stands only in 什么 ("what"), 谁 is "who": a question names what it asks about by other words.
STOP_CJK_CHARS = frozenset(
    """
    的 了 是 我 你 他 她 它 们 在 有 和 也 就 都 很 吗 呢 吧 啊 呀 哦 嗯 这 那 个 一 不
    没 着 过 得 地 之 与 及 而 或 被 把 给 让 对 从 向 但 又 还 才 只 再 么 哪 些 其 此
    以 于 为 所 如 若 啦 嘛 哈 您 咱 俺 每 各 该 则 什 谁
    은 는 이 가 을 를 에 의 도 와 과 로 으 서 요
    """.split()  # noqa: SIM905 (a word list reads better as words)
)

# Pairs left out of the index: the list above, and any pair of two Chinese function characters (的了, 我在,
# 也很), which is a function pair too. (Korean particles are left out of that rule: 도로 is "road".)
_HAN_STOP_CHARS = {char for char in STOP_CJK_CHARS if not "\uac00" <= char <= "\ud7a3"}
_STOP_PAIRS = STOP_CJK | {a + b for a in _HAN_STOP_CHARS for b in _HAN_STOP_CHARS}

# Unspaced scripts, as inclusive code point ranges.
_HAN = ((0x3005, 0x3007), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x3134F))
_HANGUL_SYLLABLES = ((0xAC00, 0xD7A3),)
_KANA = ((0x3041, 0x3096), (0x3099, 0x309F), (0x30A1, 0x30FA), (0x30FC, 0x30FF), (0x31F0, 0x31FF))
_JAMO = ((0x1100, 0x11FF), (0x3131, 0x318E), (0xA960, 0xA97F), (0xD7B0, 0xD7FF))
_SOUTHEAST_ASIAN = (  # Thai, Lao, Myanmar, Khmer letters and marks (not their digits or punctuation)
    (0x0E01, 0x0E3A),
    (0x0E40, 0x0E4E),
    (0x0E81, 0x0ECE),
    (0x0EDC, 0x0EDF),
    (0x1000, 0x103F),
    (0x1050, 0x108F),
    (0x109A, 0x109F),
    (0x1780, 0x17D3),
    (0x17D7, 0x17D7),
    (0x17DC, 0x17DD),
    (0xAA60, 0xAA7F),
)
_UNSPACED_RANGES = (*_HAN, *_HANGUL_SYLLABLES, *_KANA, *_JAMO, *_SOUTHEAST_ASIAN)


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    """The body of a regex character class holding these inclusive ranges."""
    return "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in ranges)


def _chars(ranges: tuple[tuple[int, int], ...]) -> frozenset[str]:
    return frozenset(chr(c) for a, b in ranges for c in range(a, b + 1))


_UNSPACED = _class(_UNSPACED_RANGES)
# A text is cut into unspaced runs and the stretches between them, and words are found in those stretches.
# (One regex with both would need the big unspaced class three or more times, and each copy costs about a
# millisecond to compile.)
_RUNS = re.compile(f"([{_UNSPACED}]+)")
_UNSPACED_START = re.compile(f"[{_UNSPACED}]")
# Characters of an unspaced run that never stand alone as a term (only Han and Hangul syllables do).
_NO_SINGLE = STOP_CJK_CHARS | _chars(_KANA) | _chars(_JAMO) | _chars(_SOUTHEAST_ASIAN) | {"々"}


def _combining_marks() -> str:
    """Combining marks (Mn, Mc) of the Basic Multilingual Plane outside the unspaced scripts, as a class.

    Python's `\\w` has letters and digits but no marks, and Indic words need them ("हिन्दी" is letters and
    vowel signs). Marks in the BMP all lie in the spans scanned here; variation selectors are left out
    because `terms()` deletes them. Marks of the rare supplementary-plane scripts are not included (a
    non-BMP range makes the class several times slower), so such words split at their marks.
    """
    spans = chain(range(0x0300, 0x3400), range(0xA000, 0xAC00), range(0xFB00, 0xFE00), range(0xFE20, 0x10000))
    found: list[tuple[int, int]] = []
    for char in re.findall(r"\W", "".join(map(chr, spans))):  # marks are never \w, most letters are
        if unicodedata.category(char) not in ("Mn", "Mc") or _RUNS.match(char):
            continue
        code = ord(char)
        if found and found[-1][1] == code - 1:
            found[-1] = (found[-1][0], code)
        else:
            found.append((code, code))
    return _class(tuple(found))


_HYPHENS = "\\-\u2010"  # for character classes, so the hyphen is escaped
_WORD_CHARS = rf"\w[\w{_combining_marks()}]*+"
_WORDS = re.compile(rf"{_WORD_CHARS}(?:['{_HYPHENS}]{_WORD_CHARS})*+")
_ASCII_WORDS = re.compile(r"[a-z0-9_]+(?:['\-][a-z0-9_]+)*+")
_HYPHEN_SPLIT = re.compile(f"[{_HYPHENS}]")


@cache
def _han() -> re.Pattern[str]:
    """Matches a Han character (compiled on first use: only jieba needs it)."""
    return re.compile(f"[{_class(_HAN)}]")


# Deleted before splitting: joiners, soft hyphen, tatweel, variation selectors, Hebrew points and
# cantillation, Arabic harakat. None of them changes which word is meant.
_SILENT = re.compile(
    "[\u00ad\u200c\u200d\u0640\ufe00-\ufe0f"
    "\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7"
    "\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed\u08d3-\u08e1\u08e3-\u08ff]"
)

# Control (Cc) characters that are not whitespace, and format (Cf) characters except ZWJ and ZWNJ, which
# spell emoji sequences and Persian or Indic words. Whitespace controls (\t \n \v \f \r \x1c-\x1f \x85) are
# left to str.split(), which also knows U+2028 and U+2029. tests/test_text.py checks this list against
# unicodedata.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f]"
)
_SURROGATE = re.compile("[\ud800-\udfff]")

_jieba: ModuleType | None = None


def clean(text: str) -> str:
    """One line: controls and format characters removed, whitespace (line breaks too) one space, stripped.

    Lone surrogates become U+FFFD; a high and low surrogate in a row become the character they encode.
    """
    if text.isprintable():  # no control, format or surrogate character (most texts): 1 µs, not 6
        return " ".join(text.split())
    if _SURROGATE.search(text):
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return " ".join(_INVISIBLE.sub("", text).split())


def clip(text: str, limit: int) -> str:
    """At most `limit` characters; a cut text ends with "…" (counted in the limit, no space before it)."""
    if limit < 0:
        raise InvalidValue(f"clip limit must be 0 or more, got {limit!r}")
    if len(text) <= limit:
        return text
    if limit == 0:
        return ""
    return text[: limit - 1].rstrip() + ELLIPSIS


def one_line(value: object, limit: int = 500) -> str:
    """Any value as one clean line of at most `limit` characters."""
    return clip(clean(str(value)), limit)


def is_blank(value: object) -> bool:
    """True for None and for a string that shows nothing: no letter, digit, punctuation or symbol is left
    after `clean()` (a joiner alone, or combining marks with nothing to mark, shows nothing)."""
    if value is None:
        return True
    return isinstance(value, str) and not any(
        unicodedata.category(char)[0] in "LNPS" for char in clean(value)
    )


def fold(text: str) -> str:
    """The form two texts share when they differ only in case, compatibility forms or spacing."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("i\u0307", "i")
    return " ".join(folded.split())


def terms(text: str) -> list[str]:
    """The index terms of a text: distinct, in order of first appearance (see the module docstring)."""
    if len(text) <= CACHED:
        return list(_cached_terms(text))
    return _terms(text)


def unspaced(term: str) -> bool:
    """Whether a term of `terms()` comes from an unspaced script's run (a pair or a single character of
    Chinese, Japanese, Korean, Thai, ...), rather than from a spaced script's word."""
    return _UNSPACED_START.match(term) is not None


@lru_cache(maxsize=CACHE)
def _cached_terms(text: str) -> tuple[str, ...]:
    return tuple(_terms(text))


def _terms(text: str) -> list[str]:
    found: list[str] = []
    if text.isascii():  # NFKC changes nothing and casefold() is lower() here
        for piece in _ASCII_WORDS.findall(text.lower()):
            found.extend(_word_terms(piece))
        return list(dict.fromkeys(found))
    folded = unicodedata.normalize("NFKC", text).casefold()
    folded = _SILENT.sub("", folded.replace("\u2019", "'").replace("\u02bc", "'"))
    for index, part in enumerate(_RUNS.split(folded)):
        if index % 2:  # split() puts the captured unspaced runs at odd places
            found += _run_terms(part)
        elif len(part) > 1:  # a one-character stretch has no word of two characters
            for piece in _WORDS.findall(part):
                found.extend(_word_terms(piece))
    for char in emoji_words.found(folded):  # 🥭: "mango", 芒果 (`emoji_words`)
        found.extend(_cached_terms(emoji_words.names()[char]))
    return list(dict.fromkeys(found))


def _run_terms(run: str) -> list[str]:
    """Pairs, then single characters, then (with jieba on) words of one unspaced run."""
    pairs = list(map(add, run, run[1:]))
    found = [pair for pair in pairs if pair not in _STOP_PAIRS]
    found += _singles(run, pairs)
    if _jieba is not None and _han().search(run):
        found += [word for word in _jieba.lcut(run) if len(word) >= 2 and word not in _STOP_PAIRS]
    return found


def _singles(run: str, pairs: list[str]) -> list[str]:
    """The characters of a run that are terms alone: not function characters, nor a character where it
    stands in a degree word (`DEGREE_CJK`): 特别好吃 gives no 特 and no 别, as 非常冷 gives no 常 ("often"),
    so "especially" and "very" do not match every note that has them."""
    if not any(pair in DEGREE_CJK for pair in pairs):
        return [char for char in run if char not in _NO_SINGLE]
    inside = {i + j for i, pair in enumerate(pairs) if pair in DEGREE_CJK for j in (0, 1)}
    return [char for i, char in enumerate(run) if char not in _NO_SINGLE and i not in inside]


@lru_cache(maxsize=1 << 16)
def _word_terms(piece: str) -> tuple[str, ...]:
    """The terms of one casefolded word piece; a hyphenated piece gives its joined form and its parts."""
    if "-" in piece or "\u2010" in piece:
        parts = _HYPHEN_SPLIT.split(piece)
        found = (_word("".join(parts)), *map(_word, parts))
    else:
        found = (_word(piece),)
    return tuple(term for term in found if term)


def _word(word: str) -> str:
    """One word's term, or "" when it is too short or a function word."""
    word = word.strip("'_-\u2010")
    if word.endswith("'s"):
        word = word[:-2].rstrip("'_-\u2010")
    if len(word) < 2 or word in STOP_LATIN:
        return ""
    word = _IRREGULAR.get(word, word)  # then normalised like any word: "chose" and "choosing" meet
    if len(word) > 3 and word.isascii() and word.isalpha():
        word = _normalise(word)
        if word in STOP_LATIN:  # "having" is "have"
            return ""
    return word


# English irregular verbs, each base form and its past forms (and "goes", "going", which the suffix rules
# cannot make "go"): the past maps to the base, so "When did she run a race?" meets "I ran a race" (regular
# forms meet through the suffix rules below). Forms that are mostly other words are left out: left, rose,
# ground, wound, lay, bore, stuck.
_IRREGULAR_FORMS = """
arise arose arisen, awake awoke awoken, become became, begin began begun, bite bitten, blow blew blown,
break broke broken, bring brought, build built, buy bought, catch caught, choose chose chosen, come came,
dig dug, draw drew drawn, drink drank drunk, drive drove driven, eat ate eaten, fall fell fallen, feed fed,
feel felt, fight fought, find found, flee fled, fly flew flown, forget forgot forgotten,
forgive forgave forgiven, freeze froze frozen, get got gotten, give gave given, go went gone goes going,
grow grew grown, hang hung, hear heard, hide hid hidden, hold held, keep kept, know knew known, lead led,
lend lent, lose lost, make made, mean meant, meet met, pay paid, ride rode ridden, ring rang rung, run ran,
say said, see saw seen, seek sought, sell sold, send sent, shake shook shaken, shine shone, shoot shot,
sing sang sung, sink sank sunk, sit sat, sleep slept, speak spoke spoken, spend spent, stand stood,
steal stole stolen, swim swam swum, take took taken, teach taught, tear tore torn, tell told,
think thought, throw threw thrown, understand understood, wake woke woken, wear wore worn, win won,
write wrote written
"""
_IRREGULAR = {
    past: base for entry in _IRREGULAR_FORMS.split(",") for base, *pasts in [entry.split()] for past in pasts
}

# Words the -s rule must not touch (they are not plurals).
_WHOLE = frozenset({"news", "lens", "series", "species"})
# Nouns in -ing whose stem is another word ("evening" is not "even"); their plurals meet them.
_WHOLE_ING = frozenset({"evening"})
# A stem of one vowel between consonants, like "hik" or "hop": "hiking" was "hike", "hopping" was "hop".
# "qu" spells a consonant ("quit", "quot"), so "quite" keeps its -e and never meets "quitting".
_SHORT_CVC = re.compile(r"(?:qu|[^aeiouy])*[aeiouy][^aeiouwxys]")
# A doubled final consonant after one vowel after a consonant ("runn", "stopp", "quitt", "beginn"): English
# doubles only there, so "earring" ("earr", two vowels) is not "ear" doubled.
_DOUBLED = re.compile(r"(?:qu|[^aeiouy])[aeiouy]([^aeiouylsfz])\1$")
_VOWEL = re.compile("[aeiouy]")


def _normalise(word: str) -> str:
    """English suffix rules for an ASCII word of four letters or more; see the module docstring."""
    if word in _WHOLE:
        return word
    if word.endswith(("ies", "ied")) and len(word) > 4:  # ladies, studied
        return word[:-3] + "y"
    if word[-1] == "s" and word[-2] not in "siu":  # cats, hikes; not glass, bus, this
        word = word[:-1]
    if word in _WHOLE_ING:
        return word
    for suffix in ("ing", "ed"):
        if not word.endswith(suffix) or word.endswith("eed"):  # speed, agreed
            continue
        stem = word[: -len(suffix)]
        if len(stem) < 3 or not _VOWEL.search(stem):  # thing, need, string
            break
        if len(stem) > 3 and _DOUBLED.search(stem):  # running, stopped; not earring
            return stem[:-1]
        return stem + "e" if _SHORT_CVC.fullmatch(stem) else stem  # hiking, loved
    if len(word) > 4 and word.endswith("ie"):  # movie meets movies
        return word[:-2] + "y"
    if len(word) > 3 and word[-1] == "e" and word[-2] != "e" and not _SHORT_CVC.fullmatch(word[:-1]):
        return word[:-1]  # classe(s), dance; not hike, care, coffee
    return word


def use_jieba(enabled: bool = True) -> bool:
    """Turn jieba's Chinese word splitting on or off; returns whether it is on (never on without jieba)."""
    global _jieba
    _jieba = None
    _cached_terms.cache_clear()
    if not enabled:
        return False
    try:
        import jieba  # optional extra "mneme-bots[jieba]"
    except ImportError:
        log.info("jieba is not installed; Chinese is indexed by characters and pairs only")
        return False
    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    _jieba = jieba
    _cached_terms.cache_clear()
    return True


def version() -> str:
    """A name for the current `terms()` rules; the index is rebuilt when it changes."""
    if _jieba is None:
        return TERMS_VERSION
    return f"{TERMS_VERSION}+jieba-{getattr(_jieba, '__version__', 'unknown')}"


_SCRIPT_LETTERS = (
    (
        "latin",
        "A-Za-z\u00aa\u00ba\u00c0-\u02af\u1d00-\u1dbf\u1e00-\u1eff\u2c60-\u2c7f\ua720-\ua7ff\uab30-\uab6f",
    ),
    ("cjk", _class(_HAN)),
    ("kana", "\u3041-\u309f\u30a0-\u30ff\u31f0-\u31ff"),
    ("hangul", _class((*_HANGUL_SYLLABLES, *_JAMO))),
    ("cyrillic", "\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f"),
    ("greek", "\u0370-\u03ff\u1f00-\u1fff"),
    ("arabic", "\u0600-\u06ff\u0750-\u077f\u0870-\u08ff\ufb50-\ufdff\ufe70-\ufeff"),
    ("hebrew", "\u0590-\u05ff\ufb1d-\ufb4f"),
    ("thai", "\u0e00-\u0e7f"),
    ("devanagari", "\u0900-\u097f\ua8e0-\ua8ff"),
)


@cache
def _scripts() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each script's letters as a pattern, in tie-break order (compiled on first use)."""
    return tuple((name, re.compile(f"[{body}]")) for name, body in _SCRIPT_LETTERS)


_LETTER = re.compile(r"[^\W\d_]")


def script(text: str) -> str:
    """The script most of a text's letters are in ("latin", "cjk", "kana", ..., "other"), "" for none.

    Han letters count as kana when the text has kana other than の (which Chinese writing borrows), since
    Japanese is written in both and Chinese never uses kana. Ties go to the script listed first in
    `_SCRIPT_LETTERS`.
    """
    letters = "".join(_LETTER.findall(unicodedata.normalize("NFKC", text)))
    if not letters:
        return ""
    counts = {name: len(pattern.findall(letters)) for name, pattern in _scripts()}
    counts["other"] = len(letters) - sum(counts.values())
    if counts["kana"] > letters.count("の"):
        counts["kana"] += counts["cjk"]
        counts["cjk"] = 0
    return max(counts, key=counts.__getitem__)
