"""A question that asks a kind ("What instrument...", "什么乐器") finds what was told by its name ("a cello",
"古筝"), which it shares no word with (`memory.kinds`); and one whose word has a derived form ("compete")
finds what was told by that form ("competition", `memory.forms`: the table's own tests are in test_forms); a
relative asked by one name ("mother") finds what was told by another ("mum", `memory.kin`)."""

from __future__ import annotations

from importlib import resources
from typing import Any

import pytest

from mneme_core import Mneme, text
from mneme_core.memory import common, forms, kin, kinds
from mneme_core.memory.recall import Ask

S = "discord:42"
DAY = 86400.0


def ask(query: str, turns: tuple[str, ...] = ()) -> Ask:
    return Ask(space="s", subject=S, query=query, now=0.0, half_life_days=30.0, turns=turns)


def test_the_table_is_of_this_engines_terms() -> None:
    first = resources.files("mneme_core.memory").joinpath(kinds.TABLE).read_text(encoding="utf-8")
    assert first.splitlines()[0] == f"# {text.TERMS_VERSION}"
    # The kinds are found through the stemmer, and their members are terms as recall makes them.
    for word, member in [("instruments", "cello"), ("birds", "heron"), ("breed", "beagle"), ("乐器", "古筝")]:
        kind = text.terms(word)[0]  # a Chinese word of two characters gives its pair first
        assert text.terms(member)[0] in kinds.members(kind), (word, member)


def test_a_question_brings_its_kinds_members_weighing_a_share_of_the_kind() -> None:
    found = ask("What instrument did she buy?")
    assert "cello" in found.terms() and "violin" in found.terms()
    assert found.weights["cello"] == pytest.approx(
        kinds.MEMBER * common.weight("cello") * found.weights.get("instrument", 1.0)
    )
    # A member the question names itself is the question's own term and weighs as one.
    named = ask("Which instrument, the cello?")
    assert named.terms().count("cello") == 1
    assert named.weights.get("cello", 1.0) == common.weight("cello") > kinds.MEMBER


def test_every_word_for_a_relative_brings_the_others_of_its_group_and_nothing_else() -> None:
    for group in kin.GROUPS:
        terms = {text.terms(word)[0] for word in group}
        for term in terms:
            assert set(kin.others(term)) == terms - {term}, (group, term)
    assert kin.others("friend") == () and kin.others("朋友") == ()
    found = ask("外婆身体怎么样？")
    assert "姥姥" in found.terms() and found.weights["姥姥"] == pytest.approx(kin.weight("姥姥"))


def test_a_dialogue_so_far_is_widened_at_its_lines_weight() -> None:
    turns = ("what a day at work", "which instrument are you learning again?")
    found = ask("\n".join(turns), turns)
    assert "cello" in found.terms()
    assert found.weights["cello"] == pytest.approx(
        kinds.weight("cello", "instrument") * found.weights["instrument"]
    )
    assert "cello" not in ask("How was your day?").terms()
    turns = ("my mother called", "she's fine", "good to hear", "busy week?", "very", "same here")
    found = ask("\n".join(turns), turns)
    assert "mum" in found.terms()
    assert found.weights["mum"] == pytest.approx(kin.weight("mum") * found.weights["mother"])
    assert found.weights["mum"] < 0.75 * kin.weight("mum")  # "mother" is in an old line


CELLO = "I finally bought a cello from a retired music teacher"
# Each shares a word with the question, none its answer.
OTHERS = [
    "Bought new running shoes for the half marathon",
    "She said the music at the wedding was too loud",
    "Did you buy the tickets for Saturday yet?",
    "I bought way too many plants at the market",
    "The teacher said Lily reads well above her age",
]


COMPETITION = "Rafi had his first real competition last Saturday and came third"
FIRSTS = [
    "Rafi made me crepes on Sunday morning for the first time",
    "First time Rafi took the bus to school alone",
    "He won his first gold medal in Newcastle",
    "Rafi starts at his new school on Monday",
]
MUM = "My mum turns 74 next week and still takes the train alone"
OLDS = [
    "How old is the oldest tree in the park?",
    "An old friend from school called today",
    "Lily is old enough to walk to school now",
    "The old piano finally went to a new home",
]
# Kinds written by hand (`build_kinds.ENGLISH`): a pet WordNet files as game, a pastime, an injury told by
# what was hurt.
RABBIT = "Lily turned nine and we got her a little grey rabbit called Clover"
NADIAS = [
    "Nadia started at the school nurse's office on Tuesday",
    "Nadia is up at six every morning for swim practice",
    "Nadia ran ten miles on Sunday",
    "Nadia caught the flu in March",
]
POTTERY = "Here's my first bowl from the pottery class, very lopsided"
TAKEN = [
    "Grace took the train to Chicago this year",
    "This year Grace's son turned ten",
    "Grace took ages to answer the editor",
    "Grace finally took the cello out of its case",
]
WRIST = "I came off my bike and broke my wrist, six weeks in a cast"
SUMMERS = [
    "Grace spent the summer painting the heron",
    "Grace had a cold all through June",
    "What did you do this summer?",
    "Grace's father had a good summer on the marsh",
]
TOURNAMENT = "Tamsin and I won a little pickleball tournament at the rec center on Saturday"
ROSAS = [
    "Rosa is on the late shift at the clinic all week",
    "Rosa's kitchen is finally done",
    "Rosa flew to Albuquerque to see her mom",
    "Rosa hates being late for anything",
]
# What a question's word brings (`kin.others`, `kinds.members`, `forms.forms`), the note told by it, notes
# that share the question's other words and none of its answer, the question, and the term that finds it.
WIDENED = {
    "another word for a relative": (kin, "others", MUM, OLDS, "How old is my mother?", "mum"),
    "a kind's member": (kinds, "members", CELLO, OTHERS, "Which instrument did I buy?", "cello"),
    "a pet by hand": (kinds, "members", RABBIT, NADIAS, "What pets does Nadia have?", "rabbit"),
    "a pastime by hand": (kinds, "members", POTTERY, TAKEN, "What activities has Grace taken up?", "pottery"),
    "an injury by hand": (
        kinds,
        "members",
        WRIST,
        SUMMERS,
        "What injury did Grace have in the summer?",
        "wrist",
    ),
    "a trait by hand": (kinds, "members", TOURNAMENT, ROSAS, "Is Rosa a competitive person?", "tournament"),
    "a word's form": (
        forms,
        "forms",
        COMPETITION,
        FIRSTS,
        "When did Rafi compete for the first time?",
        "competition",
    ),
}


@pytest.mark.parametrize("widen", [True, False])
@pytest.mark.parametrize("case", WIDENED)
def test_a_note_told_by_the_word_a_question_brings_answers_it(
    mneme: Mneme, clock: Any, monkeypatch: pytest.MonkeyPatch, widen: bool, case: str
) -> None:
    module, brings, answer, others, question, term = WIDENED[case]
    for said in [answer, *others]:
        mneme.remember(S, said, kind="episode")
        clock.now += DAY
    if not widen:
        monkeypatch.setattr(module, brings, lambda term: ())

    found = mneme.recall(S, question, limit=1, log=False)

    # Without what the question brings its other words are all the evidence, and fresher notes share them.
    assert (found.chosen[0].note.text == answer) is widen
    if widen:
        assert term in found.chosen[0].why


async def test_lines_too_and_in_chinese(mneme: Mneme, clock: Any) -> None:
    dm = f"dm:{S}"
    said = ["最近在学古筝，手指头都磨破了", "今天学校开家长会，老师说她最近学习很认真", "周末去学了游泳"]
    for text_ in said:
        line = await mneme.transcript.aadd_line(dm, subject=S, text=text_, name="晓岚")
        await mneme.transcript.aadd_reply(dm, text="哈哈", reply_to=line.id, name="Mio")
        clock.now += DAY

    found = await mneme.arecall(S, "她最近在学什么乐器？", lines=1, log=False)

    assert [r.line.text for r in found.lines] == [said[0]]
