"""A question's word meets the words derived from it: "compete" finds "competition" (`memory.forms`)."""

from __future__ import annotations

from importlib import resources

import pytest

from mneme_core import text
from mneme_core.memory import common, forms, kinds
from mneme_core.memory.recall import Ask

S = "discord:42"
DAY = 86400.0


def ask(query: str, turns: tuple[str, ...] = ()) -> Ask:
    return Ask(space="s", subject=S, query=query, now=0.0, half_life_days=30.0, turns=turns)


def term(word: str) -> str:
    (found,) = text.terms(word)
    return found


def test_the_table_is_of_this_engines_terms() -> None:
    first = resources.files("mneme_core.memory").joinpath(forms.TABLE).read_text(encoding="utf-8")
    assert first.splitlines()[0] == f"# {text.TERMS_VERSION}"
    # Both ways, through the stemmer: a form is a term as recall makes it.
    pairs = [("compete", "competition"), ("competition", "compete"), ("teacher", "teach")]
    pairs += [("married", "marriage"), ("gardening", "gardener"), ("retiring", "retirement")]
    for word, form in pairs:
        assert term(form) in forms.forms(term(word)), (word, form)
    # A word is never its own form ("hiking" and "hike" are one term already).
    assert not [word for word in map(term, ["hike", "compete", "teach"]) if word in forms.forms(word)]


def test_a_question_brings_its_words_forms_weighing_a_share_of_the_word() -> None:
    found = ask("When did Rafi compete for the first time?")
    competition = term("competition")
    assert competition in found.terms() and term("competitor") in found.terms()
    assert found.weights[competition] == pytest.approx(
        forms.FORM * common.weight(competition) * found.weights.get(term("compete"), 1.0)
    )
    # A form the question says itself is its own term, once, weighing whole.
    both = ask("Did Rafi compete in the competition?")
    assert both.terms().count(competition) == 1
    assert both.weights.get(competition, 1.0) == common.weight(competition) > forms.FORM
    # A kind's member is a member first: "instrument" brings "drum" as its kind's, "drummer" as its form.
    played = ask("Which instrument does the drummer play?")
    assert term("drum") in kinds.members(term("instrument")) and term("drum") in forms.forms(term("drummer"))
    assert played._members[term("drum")][0] == term("instrument")
    assert ask("What does the drummer play?")._members[term("drum")][0] == term("drummer")


def test_a_dialogue_so_far_brings_forms_at_its_lines_weight() -> None:
    turns = (
        "when does he compete next?",
        "he's been fencing for a year now",
        "it's going well",
        "he loves it",
    )
    found = ask("\n".join(turns), turns)
    competition, compete = term("competition"), term("compete")
    assert competition in found.terms()
    # The oldest line weighs less than the latest ones, and its word's form a share of that.
    assert found.weights[compete] < 1.0
    assert found.weights[competition] == pytest.approx(
        forms.FORM * common.weight(competition) * found.weights[compete]
    )
