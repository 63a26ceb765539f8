"""Consolidation: the note writer sees what is already known and says per fact ADD, UPDATE #id, CONTRADICTS
#id or SKIP #id, in the same single call; the engine checks every id and applies the batch in one
transaction under the quota (`capture.parse_actions`, `memory.consolidate`, `observe`).

The scripted model tells the judge from the note writer by the system prompt, answers the judge "worth
remembering", and answers the note writer with a function of the user message it was sent, so a test can
use the ids it was shown (or ids it was not). The clock of `conftest.py` stands at 2024-03-01 20:00 UTC+8.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from tier_fakes import Fake

from mneme_core import Mneme
from mneme_core import capture as writer
from mneme_core.memory import notes as notes_module
from mneme_core.memory.consolidate import ADD, CONTRADICTS, SKIP, UPDATE
from mneme_core.observe import KNOWN_CHARS
from mneme_core.prompts import PROMPTS

LEO = "discord:1001"
ANN = "discord:2002"
SAID = [("Leo", "I sold my Skoda and bought a Tesla last week!"), ("Mio", "Exciting!")]
WORTH = json.dumps({"worth_remembering": {"probability": 0.9}})


class Writer:
    """The host's model, scripted: the judge always finds the exchange worth keeping; the note writer's
    answer is `answer(user_message)` (a list is sent as JSON, a string as it is)."""

    def __init__(self, answer: Callable[[str], object]) -> None:
        self.answer = answer
        self.users: list[str] = []

    def __call__(self, system: str, user: str) -> str:
        if system == PROMPTS["judge"]:
            return WORTH
        assert system.startswith("You keep the memory of"), system[:60]
        self.users.append(user)
        found = self.answer(user)
        return found if isinstance(found, str) else json.dumps(found)


def shown(user: str) -> dict[str, int]:
    """The ids the writer was shown, by the note's text."""
    return {m[2]: int(m[1]) for m in re.finditer(r"^#(\d+) \([^)]*\) (.+)$", user, re.M)}


@pytest.fixture
def make(db_path: Path, clock):
    made: list[Mneme] = []

    def make(answer: Callable[[str], object], **options: object) -> tuple[Mneme, Writer]:
        model = Writer(answer)
        options.setdefault("zone", "UTC+8")
        m = Mneme(db_path, space="test", clock=clock, complete=model, companion_name="Mio", **options)
        made.append(m)
        return m, model

    yield make
    for m in made:
        m.close()


def live_texts(m: Mneme, subject: str = LEO) -> list[str]:
    return sorted(n.text for n in m.notes(subject))


# -- the answer, checked --------------------------------------------------------------------------------


def parse(reply: object, offered=(1, 2, 3), limit: int = 3):
    return writer.parse_actions(reply, offered=set(offered), now=1_709_294_400.0, limit=limit)


def test_a_plain_list_of_notes_is_read_as_adds():
    parsed = parse(json.dumps([{"text": "Leo likes tea", "kind": "preference"}, "Leo has a cat"]))

    assert [(a.op, a.target, a.fields.text) for a in parsed.actions] == [
        (ADD, None, "Leo likes tea"),
        (ADD, None, "Leo has a cat"),
    ]
    assert parsed.refused == []


def test_each_action_is_read_in_the_forms_models_write_it():
    reply = json.dumps(
        [
            {"action": "update", "id": 1, "text": "Leah is 13"},
            {"action": "CONTRADICTS #2", "text": "Leo drives a Tesla", "kind": "fact"},
            {"action": " skip ", "id": "#3"},
            {"action": "ADD", "id": 3, "text": "Leo plays chess"},  # an ADD's id means nothing
        ]
    )
    parsed = parse(reply)

    assert [(a.op, a.target) for a in parsed.actions] == [
        (UPDATE, 1),
        (CONTRADICTS, 2),
        (SKIP, 3),
        (ADD, None),
    ]
    update, contradiction = parsed.actions[:2]
    assert update.kept == frozenset({"kind", "importance", "happened_at"})  # the writer gave only text
    assert contradiction.fields.kind == "fact" and "kind" not in contradiction.kept


@pytest.mark.parametrize(
    ("item", "why"),
    [
        ({"action": "UPDATE", "id": 99, "text": "Leah is 13"}, "never offered"),
        ({"action": "UPDATE", "text": "Leah is 13"}, "no id"),
        ({"action": "CONTRADICTS", "id": True, "text": "Leo drives a Tesla"}, "no id"),
        ({"action": "SKIP", "id": "twelve"}, "no id"),
        ({"action": "DELETE", "id": 1}, "unknown action"),
        ({"action": "UPDATE", "id": 1}, "no text"),
        ({"action": "CONTRADICTS", "id": 1, "text": "  "}, "no text"),
    ],
)
def test_an_id_never_offered_or_an_action_that_is_not_one_is_refused(item, why):
    parsed = parse(json.dumps([item, {"text": "Leo plays chess"}]))

    assert [a.op for a in parsed.actions] == [ADD]  # the good part of the answer still counts
    assert len(parsed.refused) == 1 and why in parsed.refused[0]


def test_duplicates_of_each_other_count_once():
    reply = json.dumps(
        [
            {"action": "UPDATE", "id": 1, "text": "Leah is 13"},
            {"action": "CONTRADICTS", "id": 1, "text": "Leah is 14"},
            {"action": "SKIP", "id": 1},
            {"action": "ADD", "text": "leah  is 13"},  # the UPDATE's text again, folded
            {"action": "SKIP", "id": 2},
            {"action": "SKIP", "id": 2},
        ]
    )
    parsed = parse(reply)

    assert [(a.op, a.target) for a in parsed.actions] == [(UPDATE, 1), (SKIP, 2)]
    assert len(parsed.refused) == 4


def test_skips_do_not_count_against_the_limit_and_writes_past_it_are_refused():
    reply = json.dumps(
        [{"action": "SKIP", "id": i} for i in (1, 2, 3)]
        + [{"text": f"Leo likes colour {i}"} for i in range(4)]
    )
    parsed = parse(reply, limit=3)

    assert [a.op for a in parsed.actions] == [SKIP] * 3 + [ADD] * 3
    assert parsed.refused == ["ADD past the limit of 3 notes"]


@pytest.mark.parametrize(
    "reply",
    ["Sorry, I can't.", "{]", '{"foo": 1}', "[1, 2]", "null", '[{"action": 5}]', '{"action": "SKIP"}', 42],
)
def test_garbage_gives_no_action_and_never_raises(reply):
    assert parse(reply).actions == []


# -- through observe ------------------------------------------------------------------------------------


def test_the_writer_is_shown_the_closest_notes_with_their_ids_in_the_same_call(make):
    m, model = make(lambda user: [])
    car = m.remember(LEO, "Leo drives a Skoda", kind="fact", key="user.car")
    m.remember(LEO, "Leo has a sister called Leah", kind="fact")

    m.observe(LEO, SAID, user_name="Leo")

    (user,) = model.users
    assert f"#{car.id} (fact, user.car) Leo drives a Skoda" in user
    assert user.index("Already remembered about Leo, with their ids") < user.index("The exchange:")


def test_a_contradiction_replaces_the_old_fact_which_stays_in_the_history(make):
    def answer(user: str) -> list:
        return [
            {"action": "CONTRADICTS", "id": shown(user)["Leo drives a Skoda"], "text": "Leo drives a Tesla"}
        ]

    m, _ = make(answer)
    skoda = m.remember(LEO, "Leo drives a Skoda", kind="fact", key="user.car", importance=3)

    seen = m.observe(LEO, SAID, user_name="Leo")

    assert live_texts(m) == ["Leo drives a Tesla"]
    (tesla,) = seen.notes
    assert (tesla.kind, tesla.key) == ("episode", "user.car")  # its own kind; the old one's key
    assert [(a.op, a.target, a.outcome) for a in seen.actions] == [(CONTRADICTS, skoda.id, "contradicted")]
    assert [n.text for n in m.history(LEO, "user.car")] == ["Leo drives a Skoda", "Leo drives a Tesla"]
    assert m.report()["observe"]["notes contradicted"] == 1


def test_a_contradiction_of_a_keyless_note_replaces_it_too(make):
    def answer(user: str) -> list:
        target = shown(user)["Leo drives a Skoda"]
        return [{"action": "CONTRADICTS", "id": target, "text": "Leo drives a Tesla", "kind": "fact"}]

    m, _ = make(answer)
    skoda = m.remember(LEO, "Leo drives a Skoda", kind="fact")

    (tesla,) = m.observe(LEO, SAID, user_name="Leo").notes

    (old,) = [n for n in m.notes(LEO, history=True) if not n.live]
    assert (old.id, old.superseded_by) == (skoda.id, tesla.id)
    assert m.recall(LEO, "Skoda", important=0, recent=0).chosen == []  # the old words find nothing now


def test_an_update_keeps_what_the_writer_did_not_give(make):
    m, _ = make(lambda user: [{"action": "UPDATE", "id": shown(user)["Leah is 12"], "text": "Leah is 13"}])
    m.remember(LEO, "Leah is 12", kind="fact", key="sister.age", importance=3)

    seen = m.observe(LEO, [("Leo", "Leah turned 13 today, and I drive a Tesla now")], user_name="Leo")

    (new,) = seen.notes
    assert (new.text, new.kind, new.key, new.importance) == ("Leah is 13", "fact", "sister.age", 3)
    assert [n.text for n in m.history(LEO, "sister.age")] == ["Leah is 12", "Leah is 13"]
    assert m.report()["observe"]["notes updated"] == 1


def test_a_skip_writes_nothing(make):
    m, _ = make(lambda user: [{"action": "SKIP", "id": shown(user)["Leo drives a Skoda"]}])
    skoda = m.remember(LEO, "Leo drives a Skoda", kind="fact")

    seen = m.observe(LEO, SAID, user_name="Leo")

    assert seen.notes == [] and [n.id for n in m.notes(LEO, history=True)] == [skoda.id]
    assert m.report()["observe"]["notes known"] == 1


def test_an_id_never_shown_is_refused_even_when_it_is_another_persons_note(make):
    m, _ = make(lambda user: [{"action": "UPDATE", "id": ann.id, "text": "Ann hates cats"}])
    ann = m.remember(ANN, "Ann loves cats", kind="preference")
    m.remember(LEO, "Leo drives a Skoda", kind="fact")

    seen = m.observe(LEO, SAID, user_name="Leo")

    assert seen.notes == [] and live_texts(m, ANN) == ["Ann loves cats"]
    assert live_texts(m) == ["Leo drives a Skoda"]
    assert m.report()["observe"]["writer refused"] == 1


def test_an_id_of_the_persons_own_note_that_was_not_offered_is_refused(make, monkeypatch):
    monkeypatch.setattr(writer, "OFFERED_LIMIT", 1)
    m, model = make(lambda user: [])
    ids = [m.remember(LEO, f"Leo drives car number {i}", kind="fact").id for i in range(3)]

    def answer(user: str) -> list:
        unseen = next(i for i in ids if i not in shown(user).values())
        return [{"action": "UPDATE", "id": unseen, "text": "Leo drives no car"}]

    model.answer = answer
    seen = m.observe(LEO, [("Leo", "about my car")], user_name="Leo")

    assert len(shown(model.users[0])) == 1
    assert seen.notes == [] and "Leo drives no car" not in live_texts(m)


def test_a_batch_is_applied_all_or_none(make, monkeypatch):
    def answer(user: str) -> list:
        return [
            {"action": "ADD", "text": "Leo plays chess", "kind": "fact"},
            {"action": "UPDATE", "id": shown(user)["Leo drives a Skoda"], "text": "Leo drives a Tesla"},
        ]

    m, _ = make(answer)
    m.remember(LEO, "Leo drives a Skoda", kind="fact")

    def revise_fails(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(notes_module, "revise", revise_fails)
    with pytest.raises(RuntimeError):
        m.observe(LEO, SAID, user_name="Leo")
    monkeypatch.undo()

    assert live_texts(m) == ["Leo drives a Skoda"]  # the ADD before it was rolled back with it


def test_an_update_is_under_the_daily_quota(make):
    def answer(user: str) -> list:
        return [{"action": "UPDATE", "id": shown(user)["Leo drives a Skoda"], "text": "Leo drives a Tesla"}]

    m, _ = make(answer, daily_quota=0)
    m.remember(LEO, "Leo drives a Skoda", kind="fact")

    seen = m.observe(LEO, SAID, user_name="Leo")

    assert seen.notes == [] and live_texts(m) == ["Leo drives a Skoda"]
    assert [a.outcome for a in seen.actions] == ["over quota"]


def test_a_target_forgotten_while_the_writer_thought_is_left_alone(make):
    def answer(user: str) -> list:
        target = shown(user)["Leo drives a Skoda"]
        m.forget(LEO, id=target)  # the person said "forget that" meanwhile
        return [{"action": "UPDATE", "id": target, "text": "Leo drives a Tesla"}]

    m, _ = make(answer)
    m.remember(LEO, "Leo drives a Skoda", kind="fact")

    seen = m.observe(LEO, SAID, user_name="Leo")

    assert seen.notes == [] and live_texts(m) == []
    assert [a.outcome for a in seen.actions] == ["no such note"]


def test_an_old_style_answer_still_adds_and_the_same_text_is_still_one_note(make):
    m, _ = make(lambda user: [{"text": "Leo drives a Skoda", "kind": "fact"}, {"text": "Leo plays chess"}])
    m.remember(LEO, "Leo drives a Skoda", kind="fact")

    seen = m.observe(LEO, SAID, user_name="Leo")

    assert [n.text for n in seen.notes] == ["Leo plays chess"]
    assert live_texts(m) == ["Leo drives a Skoda", "Leo plays chess"]


def test_with_an_embedder_the_writer_is_shown_a_note_that_shares_no_word(db_path, clock):
    model = Writer(lambda user: [])
    with Mneme(db_path, space="test", clock=clock, complete=model, embed=Fake(), companion_name="Mio") as m:
        cat = m.remember(LEO, "养了一只叫年糕的猫", kind="fact")
        for filler in ("went to the train station", "had dinner with a cousin", "watched a movie"):
            m.remember(LEO, f"Leo {filler}")
        m.embed_pending()

        m.observe(LEO, [("Leo", "my kitten is sick")], user_name="Leo")

    (user,) = model.users
    assert f"#{cat.id} (fact) 养了一只叫年糕的猫" in user


def test_the_writer_is_shown_what_a_full_recall_of_the_exchange_chooses_though_it_reads_no_skipped_note(make):
    """The writer's recall reads none of the notes it skips (`Ask.explained`): what it is shown, in order,
    is what the same recall with its skipped notes read chooses: over the limit and the budget, and with
    few matches, where the pinned, important and newest notes fill the rest."""
    m, model = make(lambda user: [])
    for i in range(16):  # more matches than the writer is shown; the newest long enough to pass its budget
        m.remember(
            LEO, f"Leo test-drove the Tesla number {i}" + " and talked about it for hours" * 12 * (i >= 8)
        )
    m.remember(LEO, "Leo keeps the Tesla key in the blue box", importance=5)  # pinned
    m.remember(LEO, "Leo's sister is called Leah", kind="fact", importance=4)
    m.remember(LEO, "Leo is allergic to peanuts", kind="fact", importance=4)  # important
    m.remember(LEO, "Leo went to the train station")  # the newest
    exchanges = {
        "Tesla": (SAID, {"over the limit", "over the 3000-character budget"}),
        "Leah": ([("Leo", "Leah starts school tomorrow"), ("Mio", "Wish her luck!")], {"too little"}),
    }
    for exchange, skips in exchanges.values():
        model.users.clear()
        m.observe(LEO, exchange, user_name="Leo")

        said = "\n".join(f"{who}: {line}" for who, line in exchange)
        full = m.recall(LEO, said, limit=writer.OFFERED_LIMIT, budget=KNOWN_CHARS, log=False, lines=0)
        assert skips <= {reason.split(" of ")[0].split(" in common")[0] for _n, reason in full.skipped}
        (user,) = model.users
        assert re.findall(r"^#(\d+) ", user, re.M) == [str(n.id) for n in writer.offered(full.notes)]
    assert {"pinned", "important", "recent"} <= {r.why for r in full.chosen}
