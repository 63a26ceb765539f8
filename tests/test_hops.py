"""Many hops: the strongest matches' own rare words feed a bounded follow-up query, so evidence that shares
no word with the question but shares a name with its best match is found too, below the strong matches."""

from __future__ import annotations

from typing import Any

import pytest
from test_recall_lines import said

from mneme_core import Mneme
from mneme_core.memory import hops

LEO = "telegram:1"
VET = "took Max to the vet for his vaccine"
PETS = "my pets keep me busy, Max chews everything"
FILLER = [
    "the weather is awful today",
    "I started a pottery class",
    "my sister lives in Leeds",
    "work was long and boring",
    "I bought new running shoes",
    "the train was late again",
]
QUESTION = "what pets do I have?"


@pytest.fixture
def no_hops(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hops, "SEEDS", 0)


def remember_all(m: Mneme) -> None:
    m.remember(LEO, VET)  # the oldest, so "among the newest notes" never brings it
    for note in [*FILLER, PETS]:
        m.remember(LEO, note)


def test_a_note_sharing_a_name_with_the_best_match_is_found_through_it(mneme: Mneme) -> None:
    remember_all(mneme)

    found = mneme.recall(LEO, QUESTION, recent=0, log=False)

    chosen = {r.note.text: r for r in found.chosen}
    assert found.chosen[0].note.text == PETS
    assert chosen[VET].why == "through a match"
    assert 0 < chosen[VET].score <= hops.SHARE * found.chosen[0].score + 1e-9
    assert "through a match" in found.explain()
    mneme.recall(LEO, QUESTION, recent=0)
    mneme.recalls(LEO)  # writes the log, and with it the "recalled" marks
    marked = {note.text for note in mneme.notes(LEO) if note.recalled_at is not None}
    assert marked == {PETS}  # only what matched is marked as recalled


def test_without_the_follow_up_the_note_is_not_found(mneme: Mneme, no_hops: None) -> None:
    remember_all(mneme)

    found = mneme.recall(LEO, QUESTION, recent=0, log=False)

    assert [r.note.text for r in found.chosen] == [PETS]


def test_a_dialogue_so_far_gets_no_follow_up(mneme: Mneme) -> None:
    remember_all(mneme)

    found = mneme.recall(LEO, "hi there\nhow are you?\n" + QUESTION, recent=0, log=False)

    assert [r.note.text for r in found.chosen] == [PETS]


def test_a_word_in_most_notes_leads_nowhere(mneme: Mneme) -> None:
    mneme.remember(LEO, VET)
    for note in FILLER:
        mneme.remember(LEO, f"{note}, Max")  # Max in most notes: nothing to follow
    mneme.remember(LEO, PETS)

    found = mneme.recall(LEO, QUESTION, recent=0, log=False)

    assert [r.note.text for r in found.chosen] == [PETS]


async def test_a_transcript_line_is_found_through_the_best_matching_line(mneme: Mneme, clock: Any) -> None:
    talk = [(VET, "Poor thing!"), *[(f, "I see.") for f in FILLER], (PETS, "Ha, a busy house.")]
    ids = await said(mneme, clock, talk)

    found = mneme.recall(LEO, QUESTION, log=False)

    by_id = {r.line.id: r for r in found.lines}
    assert found.lines[0].line.id == ids[-2]
    assert by_id[ids[0]].why == "through a match"  # far from the match: not its context


async def test_without_the_follow_up_the_line_is_not_found(mneme: Mneme, clock: Any, no_hops: None) -> None:
    talk = [(VET, "Poor thing!"), *[(f, "I see.") for f in FILLER], (PETS, "Ha, a busy house.")]
    ids = await said(mneme, clock, talk)

    found = mneme.recall(LEO, QUESTION, log=False)

    assert ids[0] not in {r.line.id for r in found.lines}


def test_a_question_whose_own_words_fill_every_place_gets_no_follow_up(
    mneme: Mneme, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[list[str]] = []
    follow = hops.follow

    def recording(conn, reading, sid, live, seeds, words):
        asked.append(seeds)
        return follow(conn, reading, sid, live, seeds, words)

    monkeypatch.setattr(hops, "follow", recording)
    mneme.remember(LEO, VET)
    for i in range(30):  # more strong matches than the first pass reads (24 for 6 notes)
        mneme.remember(LEO, f"my pets number {i} keep me busy")

    crowded = mneme.recall(LEO, QUESTION, recent=0, log=False)
    assert asked == [] and all(r.why.startswith("matched") for r in crowded.chosen)
    assert mneme.recall(LEO, "the vet", recent=0, log=False).chosen  # one strong match
    assert len(asked) == 1
