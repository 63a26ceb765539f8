"""A query of several lines (a dialogue so far) weighs its latest lines most: an old aside's rare words no
longer outbid the question just asked; a one-line query is weighed as before."""

from __future__ import annotations

from typing import Any

import pytest

from mneme_core import Mneme, text
from mneme_core.memory import common, query, recall

S = "telegram:7"
# Not a caution (an allergy would count more in any dialogue, see `memory.caution`): these tests weigh lines.
SHELLFISH = "I love shellfish, prawns on the grill most of all"
BROTHER = "My brother Ben flies planes for a budget airline"
NOTES = [SHELLFISH, BROTHER, "I teach maths in Bristol", "I play the cello in an orchestra"]
# Two rare words of the shellfish note in the oldest line, one of the brother's in the last, five lines on.
DIALOGUE = (
    "we ate prawns and shellfish in Brixham\nthe weather was lovely\nit rained on the way home\n"
    "the train was late\nthe bus too\nanyway\nwhat does your brother do now?"
)


def first(m: Mneme, asked: str) -> str:
    return m.recall(S, asked, log=False).chosen[0].note.text


def test_the_latest_lines_weigh_whole_then_each_line_before_them_less_down_to_the_floor() -> None:
    # Words rare in any English text, so only the lines weigh them (`common`).
    lines = ("cello glaze", "orchestra kiln", "maths lesson", "oboe dinghy", "sunny ferry", "ok")
    found = text.terms(" ".join(lines))

    weights = query.weighted(lines, found)

    assert set(weights) == set(found)
    assert query.RECENT == 4  # the latest four lines: "ok" back to "maths lesson"
    # Within them a line weighs `TIE` less than the one after it: alike, but a tie goes to the later line.
    assert weights["sunny"] > weights[text.terms("oboe")[0]] > weights[text.terms("maths")[0]] > query.DECAY
    assert weights[text.terms("maths")[0]] == 1.0 - 3 * query.TIE >= 0.99
    assert weights["orchestra"] == query.DECAY
    assert weights["cello"] == query.DECAY**2
    assert [query.line_weight(back) for back in range(7)] == [1.0 - back * query.TIE for back in range(4)] + [
        query.DECAY,
        query.DECAY**2,
        max(query.FLOOR, query.DECAY**3),
    ]
    # A term in an old line and in the last one weighs as the last line does.
    assert query.weighted(("cello practice", "more cello"), ["cello", "practice", "more"])["cello"] == 1.0
    # Far enough back, every line weighs the floor.
    many = tuple(f"word{i}" for i in range(12))
    assert query.weighted(many, [f"word{i}" for i in range(12)])["word0"] == query.FLOOR


def test_a_query_of_one_line_has_no_line_weights() -> None:
    assert query.turns("what does your brother do now?") == ()
    assert query.turns("one line\n\n   \n") == ()
    # Its terms weigh only how common they are in their language (`common`): a rare one is not listed.
    assert query.weighted((), ["brother", "cello"]) == {"brother": common.weight("brother")}
    assert common.weight("brother") < 1.0
    assert query.turns("first\r\nsecond\u2028third") == ("first", "second", "third")


def test_in_a_dialogue_the_question_just_asked_outweighs_an_old_aside(mneme: Mneme) -> None:
    for note in NOTES:
        mneme.remember(S, note, kind="fact")

    # As one line, two rare words beat one: the shellfish note comes first.
    assert first(mneme, DIALOGUE.replace("\n", " ")) == SHELLFISH
    # As a dialogue, the last line's question is what the next reply answers.
    assert first(mneme, DIALOGUE) == BROTHER
    found = mneme.recall(S, DIALOGUE, log=False)
    assert SHELLFISH in [r.note.text for r in found.chosen]  # the aside still counts, for less


def test_a_topic_opened_a_few_lines_back_still_counts_whole(mneme: Mneme) -> None:
    # The dialogue opens on the snowboarding and ends in chatter that shares a word with another note: the
    # opening is within the latest lines, so its two words outweigh the chatter's one.
    wrist = mneme.remember(S, "I broke my wrist snowboarding two winters ago", kind="fact")
    mneme.remember(S, "My sister and I cook together on Sundays", kind="fact")
    for note in NOTES:
        mneme.remember(S, note, kind="fact")
    talk = "so ready for snowboarding season, my wrist healed\nhaha are you sure?\nlet's all go together"

    assert mneme.recall(S, talk, log=False).chosen[0].note.id == wrist.id


def test_of_two_matches_alike_the_one_of_the_later_line_comes_first(mneme: Mneme, clock: Any) -> None:
    # One rare word each, as alike as two matches can be (rare in any English text too, see `common`): the
    # rabbits' in the line being answered, the brother's three lines back. Before, the latest four lines
    # weighed exactly alike and the newer note won the tie, whichever line it matched; the later line wins
    # it now, also over a note a few hours newer.
    rabbits = mneme.remember(S, "I have two rabbits called Pepper and Biscuit", kind="fact")
    clock.now += 3 * 3600
    mneme.remember(S, "I have a twin brother in Winnipeg", kind="fact")
    for note in NOTES[2:]:
        mneme.remember(S, note, kind="fact")
    talk = (
        "I flew in from Winnipeg and the carpet was a mess\nOh no, what happened?\n"
        "Was it a leak?\nNo, it was Pepper, the little troublemaker"
    )

    found = mneme.recall(S, talk, log=False).chosen

    assert found[0].note.id == rabbits.id
    assert found[0].score > found[1].score > 0.99 * found[0].score  # the brother's is a close second


async def test_the_transcript_lines_weigh_the_dialogue_the_same_way(mneme: Mneme, clock: Any) -> None:
    dm = f"dm:{S}"
    for said in NOTES:
        line = await mneme.transcript.aadd_line(dm, subject=S, text=said, name="Lucy")
        await mneme.transcript.aadd_reply(dm, text="I see.", reply_to=line.id, name="Mio")
        clock.now += 3600

    found = await mneme.arecall(S, DIALOGUE, lines=2, line_budget=400, log=False)
    flat = await mneme.arecall(S, DIALOGUE.replace("\n", " "), lines=2, line_budget=400, log=False)

    assert found.lines[0].line.text == BROTHER
    assert flat.lines[0].line.text == SHELLFISH


def test_the_words_that_frame_a_one_line_question_weigh_little() -> None:
    asked = "How long has Leo been vegetarian?"
    assert query.framed(asked, text.terms(asked)) == {"long": query.FRAME}
    # ... times how common it is, as every term (`common`): "vegetarian" and "leo" are rare, so weigh whole.
    assert query.weighted((), text.terms(asked), asked) == {"long": query.FRAME * common.weight("long")}
    asked = "橘子的手术费花了多少钱？"
    assert set(query.framed(asked, text.terms(asked))) == {"多少", "多", "少"}
    # A frame word said again outside the frame names something: it weighs only how common it is.
    asked = "How long was the long walk?"
    assert query.framed(asked, text.terms(asked)) == {}
    assert query.weighted((), text.terms(asked), asked)["long"] == common.weight("long") > query.FRAME


def test_a_frame_word_no_longer_outbids_what_the_question_is_about(mneme: Mneme, clock: Any) -> None:
    mneme.remember(S, "Leo gave up meat and has been vegetarian since 2015")
    clock.now += 86400.0
    mneme.remember(S, "Leo took a long walk by the river")  # newer: it won the tie of two rare words

    assert first(mneme, "How long has Leo been vegetarian?") == (
        "Leo gave up meat and has been vegetarian since 2015"
    )


GUITAR = "Plays guitar in the backyard most evenings, old Beatles songs mostly, with a beer and the radio on"
SMOKES = "Smokes about a pack a day, tried to quit last year"
TOLD_ON = (
    "Aduo told on you\nwhat did she say?\n"
    "that you sat in the backyard playing guitar all evening, old Beatles songs again, a beer, the radio on, "
    "mugs everywhere\nlol she tells you everything\nshe worries. still a pack a day?\n"
    "its just stress, after this month I stop, for real"
)


@pytest.mark.parametrize("cut", [recall.WEAK_DIALOGUE, recall.WEAK])
def test_in_a_dialogue_a_match_far_below_the_best_still_takes_a_slot(
    mneme: Mneme, monkeypatch: pytest.MonkeyPatch, cut: float
) -> None:
    # The guitar note retells a whole line (eight words), the one the reply needs shares "pack" and "day"
    # with the question: under a fifth of the best's evidence, which sums what it shares with many lines.
    for note in [GUITAR, SMOKES, *NOTES]:
        mneme.remember(S, note, kind="fact")
    monkeypatch.setattr(recall, "WEAK_DIALOGUE", cut)

    chosen = [r.note.text for r in mneme.recall(S, TOLD_ON, log=False).chosen]

    assert chosen[0] == GUITAR
    assert (SMOKES in chosen) is (cut < recall.WEAK)
    # A question keeps the fifth: one line's best match is what it asks about.
    assert recall.Ask(space="s", subject=S, query="what?", now=0.0, half_life_days=30.0).weak == recall.WEAK
