"""Splitting a reply to a platform's length limit: at the best boundary, never inside a code block that fits,
never an empty part, nothing lost."""

from __future__ import annotations

import random
import re

import pytest

from mneme_core.adapters import split_reply
from mneme_core.errors import InvalidType, InvalidValue


def words_of(text: str) -> list[str]:
    """The text's words, ignoring the fences a split adds around the parts of a long code block."""
    return [word for word in text.split() if not word.startswith("```")]


def check(parts: list[str], original: str, limit: int) -> None:
    assert parts, "a reply with text in it gives at least one part"
    for part in parts:
        assert 0 < len(part) <= limit
        assert part.strip()
    assert words_of(" ".join(parts)) == words_of(original)


def test_a_short_reply_is_one_part() -> None:
    assert split_reply("Hello there.", 2000) == ["Hello there."]


def test_blank_replies_give_no_parts() -> None:
    assert split_reply("", 100) == []
    assert split_reply(" \n\n \t", 100) == []


def test_paragraphs_are_kept_whole_when_they_fit() -> None:
    first = "First paragraph, which is fairly short."
    second = "Second paragraph, also short enough."
    third = "Third one closes."
    reply = f"{first}\n\n{second}\n\n{third}"
    parts = split_reply(reply, 45)
    assert parts == [first, second, third]


def test_paragraphs_are_packed_together_up_to_the_limit() -> None:
    reply = "\n\n".join(f"Paragraph {n}." for n in range(10))
    parts = split_reply(reply, 40)
    assert all(len(part) <= 40 for part in parts)
    assert parts[0] == "Paragraph 0.\n\nParagraph 1.\n\nParagraph 2."
    check(parts, reply, 40)


def test_a_long_paragraph_is_cut_between_lines_then_sentences() -> None:
    lines = "\n".join(f"Line number {n} of a paragraph." for n in range(6))
    parts = split_reply(lines, 70)
    assert all(part.startswith("Line number") for part in parts)
    check(parts, lines, 70)
    sentences = " ".join(f"Sentence {n} is here." for n in range(12))
    parts = split_reply(sentences, 50)
    assert all(part.startswith("Sentence") and part.endswith(".") for part in parts)
    check(parts, sentences, 50)


def test_chinese_sentences_are_cut_after_their_full_stops() -> None:
    reply = "今天天气很好。" * 20
    parts = split_reply(reply, 30)
    assert all(part.endswith("。") for part in parts)
    assert "".join(parts) == reply


def test_a_long_word_is_cut_only_when_nothing_else_fits() -> None:
    reply = "short " + "x" * 95 + " end"
    parts = split_reply(reply, 40)
    assert parts[0] == "short"
    assert all(len(part) <= 40 for part in parts)
    assert "".join(parts).replace(" ", "") == "short" + "x" * 95 + "end"
    assert parts[-1].endswith("end")


def test_a_code_block_that_fits_is_never_cut() -> None:
    code = "```python\n" + "\n".join(f"print({n})" for n in range(8)) + "\n```"
    reply = "Here is the code, as asked, with a few words before it.\n\n" + code + "\n\nAnd a line after."
    parts = split_reply(reply, len(code) + 5)
    assert code in parts
    check(parts, reply, len(code) + 5)


def test_a_code_block_right_after_a_line_stays_whole() -> None:
    code = "```\nline one\nline two\n```"
    reply = "x" * 30 + "\n" + code + "\ntail"
    parts = split_reply(reply, 32)
    assert any(code in part for part in parts)


def test_a_code_block_over_the_limit_is_cut_between_lines_and_fenced_again() -> None:
    body = "\n".join(f"value_{n} = {n} * 2" for n in range(40))
    reply = f"Before.\n\n```python\n{body}\n```\n\nAfter."
    parts = split_reply(reply, 120)
    code_parts = [part for part in parts if "```" in part]
    assert len(code_parts) > 1
    for part in code_parts:
        assert len(part) <= 120
        assert re.fullmatch(
            r"(?:Before\.\n\n)?```python\n(?:value_\d+ = \d+ \* 2\n)+```(?:\n\nAfter\.)?", part
        )
    inner = [line for part in code_parts for line in part.splitlines() if line.startswith("value_")]
    assert inner == body.splitlines()
    assert parts[0].startswith("Before.") and parts[-1].endswith("After.")


def test_a_code_line_longer_than_the_limit_is_cut_inside_its_fences() -> None:
    reply = "```\n" + "y" * 300 + "\n```"
    parts = split_reply(reply, 100)
    assert all(len(part) <= 100 and part.startswith("```\n") and part.endswith("```") for part in parts)
    assert "".join(part[4:-4] for part in parts).replace("\n", "") == "y" * 300


def test_an_unclosed_fence_runs_to_the_end_and_its_parts_are_closed() -> None:
    reply = "Look:\n```\n" + "\n".join(f"row {n}" for n in range(30))
    parts = split_reply(reply, 60)
    assert all(len(part) <= 60 for part in parts)
    assert all(part.count("```") == 2 for part in parts if "row" in part)


def test_no_part_is_empty_or_over_the_limit_for_random_text() -> None:
    rng = random.Random(7)
    pieces = ["word", "longerword", ".", "!", "\n", "\n\n", " ", "```\ncode line\n```\n", "句子。", "x" * 70]
    for _ in range(200):
        reply = "".join(rng.choice(pieces) + rng.choice(["", " "]) for _ in range(rng.randrange(1, 80)))
        limit = rng.randrange(16, 120)
        parts = split_reply(reply, limit)
        assert all(0 < len(part) <= limit and part.strip() for part in parts)
        if reply.strip():
            assert parts


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(InvalidType):
        split_reply(None, 100)  # type: ignore[arg-type]
    with pytest.raises(InvalidValue, match="16 or more"):
        split_reply("text", 5)
    with pytest.raises(InvalidValue):
        split_reply("text", True)  # type: ignore[arg-type]
