"""Bugs that mneme-llm 0.1.0's own test suite found when it was run against Mneme, each reproduced here.

The reference's suite (237 tests) ran through a thin shim; these are the places where Mneme did worse than
the reference's documented behaviour: an imported key that went missing, an export row that broke the whole
import, a key's history in the wrong order, per-call judges missing from `report()`, a carriage return lost
on the way through TOML, notes written from the companion's own outreach, and notes with nothing visible.
"""

from __future__ import annotations

import json
import tomllib

import pytest

from mneme_core import Mneme
from mneme_core.config import toml
from mneme_core.errors import InvalidValue
from mneme_core.prompts import PROMPTS

LEO = "discord:1001"
EXCHANGE = [("Leo", "I adopted a cat called Mochi today!"), ("Mio", "Mochi! Tell me everything.")]
VERDICT = json.dumps(
    {
        "mood_change": {"level": "2", "confidence": 0.9},
        "feeling": {"choice": "happy", "confidence": 0.8},
        "worth_remembering": {"probability": 0.9},
    }
)
NOTES = json.dumps([{"text": "Leo adopted a cat called Mochi", "kind": "fact", "importance": 3}])


class Model:
    """The host's chat model, scripted: the judge gets a sure verdict, the note writer one note."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, system: str, user: str) -> str:
        if system == PROMPTS["judge"]:
            self.asked.append("judge " + user)
            return VERDICT
        self.asked.append("writer")
        return NOTES


def export(*rows: dict) -> dict:
    return {"mneme_bots": 1, "space": "elsewhere", "notes": list(rows)}


# -- importing a keyed note whose text is already kept without a key -------------------------------------


def test_an_imported_key_goes_to_the_same_text_kept_without_one(mneme: Mneme, clock):
    mneme.remember(LEO, "Leo lives in Berlin", kind="fact")
    clock.advance(hours=1)
    row = {"id": 7, "subject": LEO, "text": "Leo lives in Berlin", "kind": "fact", "key": "user.city"}
    row["created_at"] = clock.now

    mneme.import_data(export(row))
    assert [(n.text, n.key) for n in mneme.notes(LEO)] == [("Leo lives in Berlin", "user.city")]

    clock.advance(hours=1)
    mneme.remember(LEO, "Leo lives in Porto", kind="fact", key="user.city")
    assert [n.text for n in mneme.notes(LEO)] == ["Leo lives in Porto"]  # not two contradicting cities
    assert [(n.text, n.live) for n in mneme.history(LEO, "user.city")] == [
        ("Leo lives in Berlin", False),
        ("Leo lives in Porto", True),
    ]


def test_our_own_export_of_a_keyed_note_keys_the_same_text_elsewhere(mneme: Mneme, tmp_path, clock):
    with Mneme(tmp_path / "b.db", space="b", clock=clock) as other:
        other.remember(LEO, "Leo lives in Berlin", kind="fact", key="user.city")
        data = other.export_data()
    mneme.remember(LEO, "Leo lives in Berlin", kind="fact")

    mneme.import_data(data)
    mneme.import_data(data)  # and again: still one note, still keyed

    assert [(n.text, n.key) for n in mneme.notes(LEO)] == [("Leo lives in Berlin", "user.city")]


def test_an_imported_key_older_than_the_keys_live_note_goes_into_its_history(mneme: Mneme, clock):
    imported_at = clock.now
    clock.advance(hours=1)
    mneme.remember(LEO, "Leo lives in Berlin", kind="fact")
    mneme.remember(LEO, "Leo lives in Porto", kind="fact", key="user.city")
    row = {"id": 1, "subject": LEO, "text": "Leo lives in Berlin", "kind": "fact", "key": "user.city"}
    row["created_at"] = imported_at

    mneme.import_data(export(row))

    assert [n.text for n in mneme.history(LEO, "user.city")] == ["Leo lives in Berlin", "Leo lives in Porto"]
    assert mneme.history(LEO, "user.city")[-1].live
    assert {(n.text, n.key) for n in mneme.notes(LEO)} == {
        ("Leo lives in Berlin", None),
        ("Leo lives in Porto", "user.city"),
    }


# -- an export row whose id is not one --------------------------------------------------------------------


@pytest.mark.parametrize("bad", [[1], {"n": 1}, 1.5, True])
def test_a_row_whose_id_is_not_an_id_is_imported_unlinked_and_the_rest_still_comes(mneme: Mneme, bad):
    data = {
        "mneme_llm": 1,
        "memories": [
            {"id": bad, "subject": LEO, "text": "Leo plays the cello", "superseded_by": [2]},
            {"id": 2, "subject": LEO, "text": "Leo has a sister", "kind": "fact"},
            {"id": 3, "subject": LEO, "text": "Leo lives in Berlin", "key": "user.city", "superseded_by": 4},
            {"id": 4, "subject": LEO, "text": "Leo lives in Porto", "key": "user.city"},
        ],
    }

    added = mneme.import_data(data)

    assert added == 4
    assert {n.text for n in mneme.notes(LEO)} == {"Leo has a sister", "Leo lives in Porto"}
    history = mneme.history(LEO, "user.city")
    assert history[0].superseded_by == history[1].id  # the good rows keep their links


# -- a key's history ends with its live note ---------------------------------------------------------------


def test_a_keys_history_ends_with_the_live_note_even_when_an_older_note_took_the_key(mneme: Mneme, clock):
    mneme.remember(LEO, "Leo lives in Berlin", kind="fact")  # no key yet
    clock.advance(days=1)
    mneme.remember(LEO, "Leo lives in Porto", kind="fact", key="user.city")
    clock.advance(days=1)
    mneme.remember(LEO, "Leo lives in Berlin", kind="fact", key="user.city")  # the old note takes the key

    history = mneme.history(LEO, "user.city")

    assert [(n.text, n.live) for n in history] == [
        ("Leo lives in Porto", False),
        ("Leo lives in Berlin", True),
    ]
    assert history[0].superseded_by == history[1].id


def test_a_forgotten_key_keeps_its_versions_in_the_order_they_replaced_each_other(mneme: Mneme, clock):
    for city in ("Berlin", "Porto", "Lisbon"):
        mneme.remember(LEO, f"Leo lives in {city}", kind="fact", key="user.city")
        clock.advance(hours=1)
    mneme.forget(LEO, key="user.city")

    assert [n.text for n in mneme.history(LEO, "user.city")] == [
        "Leo lives in Berlin",
        "Leo lives in Porto",
        "Leo lives in Lisbon",
    ]


# -- decisions made with a per-call model ------------------------------------------------------------------


def test_decisions_of_a_per_call_model_are_in_the_report(db_path, clock):
    model = Model()
    with Mneme(db_path, space="t", clock=clock) as m:  # no model of its own
        m.observe(LEO, EXCHANGE, user_name="Leo", complete=model)
        m.observe(LEO, EXCHANGE, user_name="Leo", complete=model)
        judged = m.report()["decisions"]["prompt"]

    assert judged["answered"] == 6  # three questions, twice
    assert judged["failed"] == 0


def test_a_failing_per_call_model_is_reported_but_does_not_rest_the_companions_own(db_path, clock):
    def broken(system: str, user: str) -> str:
        raise RuntimeError("the per-call model is down")

    own = Model()
    with Mneme(db_path, space="t", clock=clock, complete=own) as m:
        m.observe(LEO, EXCHANGE, user_name="Leo", complete=broken)
        seen = m.observe(LEO, EXCHANGE, user_name="Leo")
        judged = m.report()["decisions"]["prompt"]

    assert judged["failed"] == 1 and "the per-call model is down" in judged["last_error"]
    assert seen.mood is not None and judged["answered"] == 3


# -- a carriage return in a prompt, through TOML ------------------------------------------------------------


def test_a_carriage_return_in_a_prompt_survives_the_toml_round_trip():
    tricky = {
        "prompts.gloss": "\n\nlines\r\nand a trailing newline\n",
        "prompts.reflect": "one\rtwo\r\n{notes}",
        "prompts.judge": 'a "q"\nb\\c """x""" \t tab end"',
    }

    back = toml.load(tomllib.loads(toml.dumps(tricky)))

    assert back == tricky


def test_a_carriage_return_set_in_a_prompt_comes_back_from_config_show(mneme: Mneme, tmp_path):
    prompt = "Translate into {lang}.\r\nReply with the translation alone."
    mneme.config.set("prompts.translate", prompt)
    path = tmp_path / "shown.toml"
    path.write_text(mneme.config.to_toml("prompts"), encoding="utf-8")

    assert toml.load(path)["prompts.translate"] == prompt


# -- notes come only from what the person said -------------------------------------------------------------


@pytest.mark.parametrize("source", ["speak-up", "duty"])
def test_the_companions_own_outreach_moves_the_mood_but_writes_no_note(db_path, clock, source):
    model = Model()
    with Mneme(db_path, space="t", clock=clock, complete=model, companion_name="Mio") as m:
        seen = m.observe(LEO, EXCHANGE, user_name="Leo", source=source)

        assert seen.mood is not None
        assert seen.notes == [] and m.notes(LEO) == []
    assert model.asked and all(asked.startswith("judge") for asked in model.asked)  # the writer never asked
    assert "worth_remembering" not in model.asked[0]  # nor the judge whether it was worth keeping


def test_what_the_person_said_still_writes_notes(db_path, clock):
    with Mneme(db_path, space="t", clock=clock, complete=Model()) as m:
        seen = m.observe(LEO, EXCHANGE, user_name="Leo", source="user")

        assert [n.text for n in seen.notes] == ["Leo adopted a cat called Mochi"]


# -- a note must show something ------------------------------------------------------------------------------


@pytest.mark.parametrize("invisible", ["\u200d", "\u200c\u200d", "\u0301", " \u0301\u0308 ", "\u200d\u20dd"])
def test_a_note_with_nothing_visible_is_refused_before_anything_is_written(mneme: Mneme, invisible):
    with pytest.raises(InvalidValue, match="text"):
        mneme.remember(LEO, invisible)

    assert mneme.notes(LEO) == []


@pytest.mark.parametrize("visible", ["e\u0301", "👨\u200d👩\u200d👧", "!", "١٢", "ok\u200d"])
def test_a_note_that_shows_something_is_kept(mneme: Mneme, visible):
    assert mneme.remember(LEO, visible) is not None


def test_an_import_skips_notes_with_nothing_visible(mneme: Mneme):
    data = export(
        {"id": 1, "subject": LEO, "text": "\u200d"},
        {"id": 2, "subject": LEO, "text": "\u0301"},
        {"id": 3, "subject": LEO, "text": "Leo plays the cello"},
    )

    assert mneme.import_data(data) == 1
    assert [n.text for n in mneme.notes(LEO)] == ["Leo plays the cello"]
