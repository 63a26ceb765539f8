# terms() on the dev machine (Python 3.11, timeit, best of 7): a 59-character English sentence ~3 µs with its
# words in the word cache, ~15 µs with an empty cache; a 29-character Chinese sentence ~14 µs. clean() of the
# English sentence ~1.6 µs, fold() ~0.5 µs. (Numbers for orientation only; no test asserts a speed.)
import sys
import types
import unicodedata

import pytest

from mneme_core import text
from mneme_core.errors import InvalidValue

LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
JOINERS = {"\u200c", "\u200d"}


@pytest.fixture
def jieba_off():
    """Whatever a test does to jieba, the next test starts without it."""
    yield
    text.use_jieba(False)


# clean


@pytest.mark.parametrize("brk", list(LINE_BREAKS))
def test_clean_turns_each_line_break_into_a_space(brk):
    assert text.clean(f"one{brk}two") == "one two"
    assert text.clean(f"{brk}one{brk}{brk} {brk}two{brk}") == "one two"


def test_clean_collapses_every_kind_of_whitespace_and_strips():
    assert text.clean("  a \t\t b\u00a0\u3000c\u2003 ") == "a b c"
    assert text.clean("\r\n\r\n") == ""


def test_clean_removes_controls_and_format_characters():
    assert text.clean("a\x00b\x07c\x1b[31md\x7fe\x9f") == "abc[31mde"
    assert text.clean("\ufeffhi\u200b there\u202e!") == "hi there!"  # BOM, zero-width space, bidi override
    assert text.clean("ok\U000e0069\U000e0067\U000e006e") == "ok"  # tag characters (hidden ASCII)
    assert text.clean("soft\u00adhyphen") == "softhyphen"


def test_clean_keeps_joiners_that_spell_emoji_and_words():
    assert text.clean("👩\u200d💻") == "👩\u200d💻"
    assert text.clean("می\u200cخواهم") == "می\u200cخواهم"


def test_clean_replaces_lone_surrogates_and_joins_pairs():
    assert text.clean("a\ud800b") == "a\ufffdb"
    assert text.clean("\udc00") == "\ufffd"
    assert text.clean("\ud83d\ude00!") == "😀!"
    assert text.clean("x\udfffy\ud800").encode("utf-8") == "x\ufffdy\ufffd".encode()


def test_clean_leaves_no_line_break_or_control_anywhere_in_unicode():
    everything = "".join(map(chr, range(sys.maxunicode + 1)))
    cleaned = text.clean(everything)
    assert len(cleaned.splitlines()) == 1
    categories = {unicodedata.category(char) for char in cleaned}
    assert not categories & {"Cc", "Zl", "Zp", "Cs"}
    assert {char for char in cleaned if unicodedata.category(char) == "Cf"} == JOINERS
    assert not any(char.isspace() and char != " " for char in cleaned)


def test_clean_keeps_every_other_assigned_character():
    kept = "".join(
        char
        for char in map(chr, range(sys.maxunicode + 1))
        if unicodedata.category(char) not in ("Cc", "Cf", "Cs", "Cn") and not char.isspace()
    )
    assert text.clean(kept) == kept


# clip, one_line, is_blank


def test_clip_leaves_short_text_alone():
    assert text.clip("hello", 5) == "hello"
    assert text.clip("hello", 6) == "hello"


def test_clip_cuts_with_an_ellipsis_inside_the_limit():
    assert text.clip("hello world", 5) == "hell…"
    assert text.clip("hello world", 7) == "hello…"  # no space left before the ellipsis
    assert text.clip("hello world", 1) == "…"
    assert text.clip("hello world", 0) == ""
    for limit in range(12):
        assert len(text.clip("hello world", limit)) <= limit


def test_clip_refuses_a_negative_limit():
    with pytest.raises(InvalidValue, match="-1"):
        text.clip("hello", -1)


def test_one_line_cleans_and_clips_any_value():
    assert text.one_line("a\nb\u2028c") == "a b c"
    assert text.one_line(42) == "42"
    assert text.one_line(None) == "None"
    assert text.one_line("x" * 600) == "x" * 499 + "…"
    assert text.one_line("word " * 10, 12) == "word word w…"


def test_is_blank():
    assert text.is_blank(None)
    assert text.is_blank("")
    assert text.is_blank(" \n\t\u2028\u3000 ")
    assert text.is_blank("\x00\u200b\ufeff")
    assert not text.is_blank("a")
    assert not text.is_blank(0)


# fold


def test_fold_ignores_case_width_and_spacing():
    assert text.fold("İstanbul") == "istanbul"
    assert text.fold("Straße") == text.fold("STRASSE") == "strasse"
    assert text.fold("ＨＥＬＬＯ\n  World ") == "hello world"
    assert text.fold("ﬁsh") == "fish"
    assert text.fold("cat") != text.fold("cats")


# terms: unspaced scripts


def test_chinese_by_pairs_and_characters_without_function_words():
    found = text.terms("考试没考好，觉得自己很笨")
    assert found == [
        "考试",
        "试没",
        "没考",
        "考好",
        "考",
        "试",
        "好",
        "得自",
        "己很",
        "很笨",
        "觉",
        "自",
        "己",
        "笨",
    ]
    for stop in ("觉得", "自己", "没", "很", "得"):
        assert stop not in found


def test_chinese_stop_pairs_and_characters_are_left_out():
    # 我们 觉得 这个 are listed pairs; 得这 and 个很 are two function characters in a row
    assert text.terms("我们觉得这个很好") == ["们觉", "很好", "觉", "好"]
    assert text.terms("的了是") == []
    assert text.terms("你在哪") == []


def test_a_degree_words_characters_are_not_terms_where_they_make_it():
    # 特别 ("especially") and 非常 ("very") are degree words: neither they nor their characters are terms
    # there, so "特别好吃" does not match every note that says 特别; elsewhere the characters still count.
    assert text.terms("特别好吃") == ["别好", "好吃", "好", "吃"]
    assert text.terms("非常冷") == ["常冷", "冷"]
    assert "常" in text.terms("我常去") and "别" in text.terms("别人")


def test_a_degree_word_no_longer_brings_up_every_note_that_has_it(mneme):
    subject = "telegram:8"
    cat = mneme.remember(subject, "我特别喜欢我家的橘猫", kind="fact")
    noodles = mneme.remember(subject, "我最爱吃牛肉面", kind="fact")
    for other in ("我在杭州当老师", "我每周去游泳", "我有一个弟弟"):
        mneme.remember(subject, other, kind="fact")

    chosen = mneme.recall(subject, "那碗牛肉面特别好吃", log=False).chosen

    assert chosen[0].note.id == noodles.id
    assert cat.id not in [r.note.id for r in chosen]  # it shared only 特别


def test_two_korean_particle_syllables_still_make_a_pair():
    assert text.terms("도로") == ["도로"]  # "road", though 도 and 로 are particles on their own


def test_mixed_chinese_and_latin_split_into_runs_and_words():
    assert text.terms("我的猫Mochi很可爱") == ["的猫", "猫", "mochi", "很可", "可爱", "可", "爱"]


def test_a_single_character_run():
    assert text.terms("猫") == ["猫"]
    assert text.terms("的") == []
    assert text.terms("ね") == []


def test_japanese_particles_and_single_kana_are_not_terms():
    assert text.terms("猫が好きです") == ["猫が", "が好", "好き", "きで", "猫", "好"]
    found = text.terms("私の猫はかわいい")
    assert "猫" in found and "私" in found and "かわ" in found
    assert not {"の", "は", "か", "わ", "い"} & set(found)


def test_korean_by_pairs_and_syllables_without_particles():
    assert text.terms("고양이를 좋아해") == [
        "고양",
        "양이",
        "이를",
        "고",
        "양",
        "좋아",
        "아해",
        "좋",
        "아",
        "해",
    ]
    assert text.terms("ㅋㅋㅋ") == []


def test_thai_by_pairs_only():
    assert text.terms("แมว") == ["แม", "มว"]


def test_a_query_shares_pairs_with_a_note_containing_the_word():
    note = set(text.terms("上周末我和小美去了迪士尼乐园"))
    query = text.terms("迪士尼")
    assert query == ["迪士", "士尼", "迪", "士", "尼"]
    assert set(query) <= note


# terms: spaced scripts


def test_english_function_words_are_dropped():
    assert text.terms("I'm hiking with my dog") == ["hike", "dog"]
    assert text.terms("the and is was yeah ok my your you me it this that to of in on for with i'm") == []


def test_content_words_are_kept():
    assert text.terms("love today cat like home work") == ["love", "today", "cat", "like", "home", "work"]


@pytest.mark.parametrize(
    ("forms", "term"),
    [
        (["hiking", "hikes", "hiked", "hike"], "hike"),
        (["running", "runs", "run"], "run"),
        (["cats", "cat"], "cat"),
        (["classes", "class"], "class"),
        (["ladies", "lady"], "lady"),
        (["boxes", "box"], "box"),
        (["needed", "needs", "need"], "need"),
        (["studies", "studied", "studying", "study"], "study"),
        (["stopped", "stopping", "stops", "stop"], "stop"),
        (["loved", "loving", "loves", "love"], "love"),
        (["feelings", "feeling", "feel"], "feel"),
        (["speeding", "speed"], "speed"),
    ],
)
def test_inflections_meet(forms, term):
    assert [text.terms(form) for form in forms] == [[term]] * len(forms)


@pytest.mark.parametrize(
    ("forms", "term"),
    [
        (["ran", "running", "runs", "run"], "run"),
        (["bought", "buying", "buys", "buy"], "buy"),
        (["went", "gone", "goes", "going", "go"], "go"),
        (["taught", "teaching", "teach"], "teach"),
        (["wrote", "written", "writing", "write"], "write"),
        (["swam", "swum", "swimming", "swim"], "swim"),
        (["chose", "chosen", "choosing", "chooses", "choose"], "choos"),
        (["became", "becoming", "become"], "becom"),
    ],
)
def test_irregular_past_forms_meet_their_verb(forms, term):
    assert [text.terms(form) for form in forms] == [[term]] * len(forms)


@pytest.mark.parametrize(
    ("past", "verb"),
    [("left", "leave"), ("rose", "rise"), ("ground", "grind"), ("wound", "wind"), ("stuck", "stick")],
)
def test_past_forms_that_are_mostly_other_words_are_not_taken_for_the_verb(past, verb):
    assert text.terms(past) != text.terms(verb)


@pytest.mark.parametrize(
    ("one", "other"),
    [("news", "new"), ("care", "car"), ("hate", "hat"), ("plane", "plan"), ("hoping", "hopping")],
)
def test_near_words_stay_apart(one, other):
    assert text.terms(one) != text.terms(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("quite", "quitting"),  # "qu" spells one consonant: "quit" is a short stem, so "quite" keeps its -e
        ("quite", "quit"),
        ("evening", "even"),  # a noun in -ing whose stem is another word
        ("earrings", "ear"),  # a consonant doubles only after one short vowel: "earr" is not "ear" doubled
    ],
)
def test_a_word_is_not_taken_for_an_inflection_of_another(one, other):
    assert text.terms(one) != text.terms(other)


@pytest.mark.parametrize(
    "forms",
    [
        ["quit", "quits", "quitting"],
        ["quote", "quotes", "quoted", "quoting"],
        ["equip", "equips", "equipped", "equipping"],
        ["evening", "evenings"],
        ["earring", "earrings"],
        ["begin", "beginning"],
        ["submit", "submitted"],
        ["prefer", "preferred"],
    ],
)
def test_inflections_meet_after_qu_and_doubled_consonants(forms):
    assert len({tuple(text.terms(form)) for form in forms}) == 1


@pytest.mark.parametrize("word", ["news", "bus", "glass", "lens", "series", "gas", "thing", "bring", "need"])
def test_words_that_look_inflected_stay_whole(word):
    assert text.terms(word) == [word]


def test_short_words_and_one_letter_words():
    assert text.terms("x y z go up") == ["go"]  # one letter too short, "up" a stop word
    assert text.terms("in 2024 I was 5") == ["2024"]


def test_hyphenated_words_give_the_joined_form_and_the_parts():
    assert text.terms("ice-cream") == ["icecream", "ice", "cream"]
    assert text.terms("e-mail") == ["email", "mail"]
    assert text.terms("covid-19") == ["covid19", "covid", "19"]
    assert text.terms("mother-in-law") == ["motherinlaw", "mother", "law"]
    assert {"ice", "cream"} <= set(text.terms("ice cream"))


def test_apostrophes():
    assert text.terms("Mochi's toy") == ["mochi", "toy"]
    assert text.terms("Mochi’s toy") == ["mochi", "toy"]
    assert text.terms("rock'n'roll") == ["rock'n'roll"]
    assert text.terms("don't it's that's") == []
    assert text.terms("'hello'") == ["hello"]


def test_underscores_inside_words_stay_and_at_the_ends_go():
    assert text.terms("snake_case __init__") == ["snake_case", "init"]


def test_compatibility_forms_and_case_are_folded():
    assert text.terms("ＭＯＣＨＩ ﬁsh") == ["mochi", "fish"]
    assert text.terms("Straße") == text.terms("STRASSE")


def test_other_alphabets_stay_whole_words():
    assert text.terms("Кошки любят молоко") == ["кошки", "любят", "молоко"]
    assert text.terms("हिन्दी") == ["हिन्दी"]  # vowel signs and virama are marks inside the word
    assert text.terms("Café naïve") == ["café", "naïve"]


def test_no_combining_mark_of_the_basic_plane_splits_a_word():
    for code in range(0x10000):
        mark = chr(code)
        if unicodedata.category(mark) in ("Mn", "Mc") and not text._RUNS.match(mark):
            assert len(text.terms(f"xa{mark}ya")) == 1, hex(code)


def test_vowel_marks_and_joiners_do_not_change_a_term():
    assert text.terms("שָׁלוֹם") == text.terms("שלום") == ["שלום"]
    assert text.terms("مَرْحَبًا") == text.terms("مرحبا") == ["مرحبا"]
    assert text.terms("می\u200cخواهم") == text.terms("میخواهم")


def test_mixed_scripts_keep_order_of_appearance():
    assert text.terms("Meeting 田中さん tomorrow") == ["meet", "田中", "中さ", "田", "中", "tomorrow"]


def test_terms_are_distinct_in_order_of_first_appearance():
    assert text.terms("Cats? cat! CAT.") == ["cat"]
    assert text.terms("dog cat dog 猫 猫") == ["dog", "cat", "猫"]


def test_text_without_words_has_no_terms():
    assert text.terms("") == []
    assert text.terms("!!! ... 😂 ，。") == []  # a face names nothing; 🐱 would (`emoji_words`)


def test_ascii_and_unicode_paths_agree():
    assert text.terms("hiking e-mail Mochi's") == ["hike", "email", "mail", "mochi"]
    assert text.terms("hiking e‐mail Mochi’s café")[:4] == ["hike", "email", "mail", "mochi"]


def test_stop_lists_have_the_documented_sizes():
    assert 80 <= len(text.STOP_LATIN) <= 130
    assert 60 <= len(text.STOP_CJK) <= 100
    assert 70 <= len(text.STOP_CJK_CHARS) <= 100
    assert all(len(pair) == 2 for pair in text.STOP_CJK)
    assert all(len(char) == 1 for char in text.STOP_CJK_CHARS)
    assert not {"今天", "love", "cat", "today"} & (text.STOP_CJK | text.STOP_LATIN)


# jieba and version


def test_use_jieba_without_jieba_is_off_and_keeps_the_version(monkeypatch, jieba_off):
    monkeypatch.setitem(sys.modules, "jieba", None)  # import jieba now raises ImportError
    before = text.version()
    assert text.use_jieba() is False
    assert text.version() == before == text.TERMS_VERSION == "mneme-terms-6"
    assert text.terms("考试没考好") == ["考试", "试没", "没考", "考好", "考", "试", "好"]


def test_use_jieba_adds_its_words_and_changes_the_version(monkeypatch, jieba_off):
    fake = types.ModuleType("jieba")
    fake.__version__ = "9.9"
    fake.setLogLevel = lambda level: None
    fake.initialize = lambda: None
    fake.lcut = lambda run: ["考试", "没", "考好", "没考好", "我们"]
    monkeypatch.setitem(sys.modules, "jieba", fake)

    assert text.use_jieba() is True
    assert text.version() == "mneme-terms-6+jieba-9.9"
    found = text.terms("考试没考好")
    assert found[-1] == "没考好"  # jieba's words come after pairs and characters
    assert "没" not in found and "我们" not in found
    assert text.terms("ねこ") == ["ねこ"]  # jieba is only asked about runs with Han characters

    assert text.use_jieba(False) is False
    assert text.version() == "mneme-terms-6"
    assert "没考好" not in text.terms("考试没考好")


# script


@pytest.mark.parametrize(
    ("sample", "expected"),
    [
        ("Hello world", "latin"),
        ("我喜欢猫", "cjk"),
        ("私は猫が好きです", "kana"),
        ("東京大学医学部に入学", "kana"),  # Han with kana is Japanese
        ("我の猫很可爱", "cjk"),  # Chinese borrowing の
        ("안녕하세요", "hangul"),
        ("Привет, Hi", "cyrillic"),
        ("Γειά σου", "greek"),
        ("مرحبا", "arabic"),
        ("שלום", "hebrew"),
        ("สวัสดี", "thai"),
        ("नमस्ते", "devanagari"),
        ("ሰላም", "other"),
        ("ＡＢＣ", "latin"),
        ("123 !!! 🐱", ""),
        ("", ""),
    ],
)
def test_script(sample, expected):
    assert text.script(sample) == expected


def test_unspaced_tells_the_terms_of_unspaced_runs_from_words() -> None:
    for said in ("开车三十年", "ねこがすき", "고양이", "แมวน่ารัก"):
        assert all(text.unspaced(term) for term in text.terms(said)), said
    for said in ("driving thirty years", "кошка любит молоко", "café crème", "2024"):
        assert not any(text.unspaced(term) for term in text.terms(said)), said
    assert text.unspaced("三十") and not text.unspaced("x三十")
