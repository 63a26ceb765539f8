"""A chat that names a specific thing (a crawfish boil, 五粮液, a zipline) finds the memory that names the
rule it falls under ("allergic to shellfish", 酒, "heights"), which it shares no word with
(`memory.broader`)."""

from __future__ import annotations

from importlib import resources
from typing import Any

import pytest

from mneme_core import Mneme, text
from mneme_core.memory import broader, common, query
from mneme_core.memory.recall import Ask

S = "discord:42"
DAY = 86400.0


def ask(query: str, turns: tuple[str, ...] = ()) -> Ask:
    return Ask(space="s", subject=S, query=query, now=0.0, half_life_days=30.0, turns=turns)


def test_every_row_names_broader_words_and_things_that_have_terms() -> None:
    rows = resources.files("mneme_core.memory").joinpath(broader.TABLE).read_text(encoding="utf-8")
    rows = [row for row in rows.splitlines() if row and not row.startswith("#")]
    assert len(rows) > 50
    for row in rows:
        words, things = row.split("\t")  # exactly two fields
        assert all(text.terms(word) for word in words.split()), row
        for thing in things.split():
            terms = broader._thing_terms(thing.replace("_", " "))
            assert terms, (row, thing)  # a thing that is all stop words would never be found
            # Its first term leads it to its broader words.
            assert any(rest == terms[1:] for rest, _ in broader.things(terms[0])), (row, thing)


@pytest.mark.parametrize(
    ("said", "brought"),
    [
        ("we're doing a crawfish boil on saturday", {"shellfish", "seafood"}),
        ("wanna go ziplining this weekend?", {"height"}),
        ("他珍藏了两瓶五粮液，就等你来了开", {"酒", "喝酒", "白酒"}),
        ("给你寄了一箱生蚝", {"海鲜", "贝类", "贝壳"}),
        # A broader word is its first term: 青霉素 is 青霉.
        ("店里顺手拿盒阿莫西林吃两天", {"青霉", "抗生", "消炎"}),
        # A slang name for the thing the memory names.
        ("厨房刚跑过去一只小强", {"蟑螂"}),
        ("grabbed you some rubber gloves for the dishes", {"latex"}),
        ("forgot my inhaler at home again", {"asthma"}),
        ("广场上一大群鸽子，吓死我了", {"鸟"}),
    ],
)
def test_a_specific_thing_brings_its_broader_words(said: str, brought: set[str]) -> None:
    assert brought <= set(broader.widened(text.terms(said)))


def test_a_thing_of_several_terms_needs_them_all_and_the_querys_own_terms_are_not_brought() -> None:
    assert "dairy" in broader.widened(text.terms("ice cream after dinner?"))
    assert "dairy" not in broader.widened(text.terms("ice on the roads tonight"))
    assert "酒" in broader.widened(text.terms("开一瓶五粮液"))
    assert "酒" not in broader.widened(text.terms("五粮"))  # one of 五粮液's two pairs alone
    # A query that says the broader word itself keeps it as its own term.
    assert "shellfish" not in broader.widened(text.terms("crawfish? I'm allergic to shellfish"))
    assert broader.widened(text.terms("how was your day")) == {}


@pytest.mark.parametrize(
    ("said", "not_brought"),
    [
        ("for your sake, take the day off", "alcohol"),  # sake, the drink, is left out of the table
        ("the hot air balloon ride over the vineyards", "latex"),  # so is a balloon
        ("就喝了一点点，老乡来了嘛", "奶茶"),  # and 一点点, a milk-tea shop's name
    ],
)
def test_a_word_chat_mostly_means_otherwise_is_no_thing(said: str, not_brought: str) -> None:
    assert not_brought not in broader.widened(text.terms(said))


def test_a_broader_word_weighs_its_scripts_share_of_the_word_that_named_the_thing() -> None:
    found = ask("we're doing a crawfish boil on saturday")
    assert "shellfish" in found.terms()
    assert found.weights["shellfish"] == pytest.approx(
        broader.BROADER[False] * common.weight("shellfish") * found.weights.get("crawfish", 1.0)
    )
    turns = ("在吗", "他珍藏了两瓶五粮液，就等你来了开")
    found = ask("\n".join(turns), turns)
    thing = broader.widened(found.asked)["白酒"]
    assert found.weights["白酒"] == pytest.approx(
        broader.IN_DIALOGUE[True] * common.weight("白酒") * found.weights[thing]
    )
    # A one-line Chinese question weighs it at `BROADER`: its thing's word weighs whole already.
    found = ask("他珍藏的五粮液还在吗？")
    assert found.weights["白酒"] == pytest.approx(
        broader.BROADER[True] * common.weight("白酒") * found.weights.get(thing, 1.0)
    )
    assert broader.BROADER[True] != broader.BROADER[False]  # the two scripts are weighed apart
    assert broader.IN_DIALOGUE[True] > broader.BROADER[True]  # and a dialogue's Chinese more


SHELLFISH = "I'm allergic to shellfish, my throat closed up at a wedding once"
# Each shares a word with the chat, none the rule it falls under.
SATURDAY = [
    "Saturday is the only day I get to sleep in",
    "We're doing the school run together this week",
    "The boys start swim lessons on Saturday",
    "My neighbour's boil-water notice lasted three days",
    "I'm doing a night course in bookkeeping",
]
LIQUOR = "我一点酒都不能喝，喝一小杯脸就红到脖子根。"
FRIEND = [
    "赵磊是我高中同学，现在在成都开川菜馆。",
    "我去年借给赵磊两万块钱开饭馆，他说今年年底还我。",
    "寒假我打算带孩子去成都住两个星期。",
    "每次去他家吃饭他都要留我住一晚。",
]
CHATS = {
    "English": (
        SHELLFISH,
        SATURDAY,
        ("you free saturday?", "yeah why", "we're doing a crawfish boil at mine, bring the boys!"),
        "shellfish",
    ),
    "Chinese": (
        LIQUOR,
        FRIEND,
        ("赵磊听说你寒假要来成都，高兴得很", "哎呀每次都吃他的", "他说珍藏了两瓶五粮液，就等你来了开"),
        "酒",
    ),
}


@pytest.mark.parametrize("widen", [True, False])
@pytest.mark.parametrize("case", CHATS)
def test_the_memory_a_chats_specific_thing_falls_under_is_found(
    mneme: Mneme, clock: Any, monkeypatch: pytest.MonkeyPatch, widen: bool, case: str
) -> None:
    rule, others, turns, term = CHATS[case]
    for said in [rule, *others]:
        mneme.remember(S, said, kind="fact")
        clock.now += DAY
    if not widen:
        monkeypatch.setattr(broader, "things", lambda term: ())

    found = mneme.recall(S, "\n".join(turns), log=False)

    # Without the broader word the rule shares nothing with the chat; the other notes share its other words.
    chosen = {x.note.text: x.why for x in found.chosen}
    assert (rule in chosen) is widen
    assert len(chosen) >= 3
    if widen:
        assert term in chosen[rule]


def test_a_chats_own_word_for_what_its_thing_is_weighs_what_the_thing_makes_it() -> None:
    # 虾 is the chat's own term (a character of 虾饺) and a broader word of 虾饺; 海鲜 it does not say.
    assert broader.said(text.terms("给你蒸一笼虾饺")) == {"虾": "虾饺"}
    assert broader.said(text.terms("给你寄了一箱生蚝")) == {}
    turns = ("国庆你们来了啥都别管", "我学了包虾饺，你一到我就蒸一大笼")
    found = ask("\n".join(turns), turns)
    plain = query.weighted(turns, list(found.asked))["虾"]
    raised = broader.weight("虾", dialogue=True) * found.weights["虾饺"]
    assert raised > plain
    assert found.weights["虾"] == pytest.approx(raised)
    # A one-line question's own words weigh as they are: it names what it asks about.
    question = ask("你还吃虾饺吗？")
    assert question.weights.get("虾", 1.0) == pytest.approx(
        query.weighted((), list(question.asked), question.query).get("虾", 1.0)
    )
