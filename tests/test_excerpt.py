"""A long transcript line is quoted as its sentences around what matched, within the room it is given, with
"…" where it was cut; a short one whole."""

from __future__ import annotations

from mneme_core import text
from mneme_core.transcript.excerpt import excerpt

LONG = (
    "Oh wow, what a week it has been at work, honestly I barely slept. "
    "Anyway the big news: my sister Leah finally got engaged to Marcus on Saturday at the lake! "
    "Mum cried for an hour. We're all going to the party in June, you should come too if you're free."
)


def matched(query: str, line: str = LONG) -> list[str]:
    """The query's terms the line holds, as recall reports them."""
    held = set(text.terms(line))
    return [t for t in text.terms(query) if t in held]


def test_a_line_that_fits_is_quoted_whole() -> None:
    assert excerpt(LONG, matched("Leah"), len(LONG)) == LONG
    assert excerpt("short", [], 5) == "short"


def test_the_sentence_that_matched_is_quoted_whole_then_what_follows() -> None:
    quoted = excerpt(LONG, matched("who is Leah engaged to?"), 120)

    assert len(quoted) <= 120
    assert quoted.startswith("…Anyway the big news: my sister Leah finally got engaged to Marcus")
    assert "Mum cried for an hour." in quoted  # the sentence after, while it fits
    assert quoted.endswith("…") and "party" not in quoted


def test_the_most_matched_sentences_win_wherever_they_are() -> None:
    quoted = excerpt(LONG, matched("the party in June"), 100)

    assert quoted.endswith("if you're free.")  # the line's end: no "…" after it
    assert quoted.startswith("…") and "party in June" in quoted
    assert "Leah" not in quoted


def test_a_line_matched_by_meaning_alone_is_quoted_from_its_start() -> None:
    quoted = excerpt(LONG, [], 80)

    assert quoted == "Oh wow, what a week it has been at work, honestly I barely slept.…"


def test_one_sentence_longer_than_the_room_is_cut_around_its_first_matched_word() -> None:
    line = "word " * 100 + "Leah got engaged to Marcus " + "filler " * 60

    quoted = excerpt(line, ["leah", "marcus"], 100)

    assert len(quoted) <= 100
    assert "Leah got engaged to Marcus" in quoted
    assert quoted.startswith("…word") and quoted.endswith("…")


def test_chinese_is_cut_at_its_own_sentence_marks() -> None:
    day = "今天真的好累啊，上班一整天都在开会。不过有个好消息，我姐姐终于订婚了，对象是她大学同学阿明！"
    line = day * 2 + "我们全家六月要去参加订婚宴。"

    quoted = excerpt(line, matched("姐姐订婚的对象是谁", line), 40)

    assert len(quoted) <= 40
    assert "我姐姐终于订婚了，对象是她大学同学阿明！" in quoted
    assert "开会" not in quoted


def test_a_stop_inside_a_number_ends_no_sentence_and_a_match_too_long_is_cut_not_passed_over() -> None:
    line = "The weather was grim all week. I swam 3.5 km in the lake on Sunday with Dev. Then cake."
    asked = matched("how far did I swim?", line)

    assert excerpt(line, asked, 50) == "…I swam 3.5 km in the lake on Sunday with Dev.…"
    assert (
        excerpt(line, asked, 24) == "…I swam 3.5 km in the l…"
    )  # not "…Then cake.", which fits but matched nothing
