"""What the memory is asked with in a turn (`Turns.asked`): the dialogue so far, not the message alone.
Real `Mneme` files, a fake adapter, a scripted model that records what it was given."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bot_fakes import Chatting, FakeAdapter, message

from mneme_core import Mneme
from mneme_core.bot import BotSettings, Runner
from mneme_core.bot.turns import ASKED_LINES
from mneme_core.plugins import Manager, make_manager

S = "fake:42"
ALLERGY = "allergic to mangoes, her lips swell up"
NOTES = [ALLERGY, "works as a nurse in Glasgow", "has a brother who is a sous-chef in Melbourne"]


async def keep_nothing(system: str, user: str) -> str:
    """The judge: nothing moved, nothing worth keeping."""
    if "QUESTIONS:" in user:
        return json.dumps({"mood_change": {"level": "0"}, "worth_remembering": {"probability": 0.0}})
    return "[]"


@pytest.fixture
def manager() -> Manager:
    return make_manager(load_entry_points=False, environ={})


class Asking:
    """A companion whose `aprompt` queries are recorded."""

    def __init__(self, db_path: Path, clock: Any, manager: Manager) -> None:
        self.mneme = Mneme(db_path, space="talk", clock=clock, zone="UTC", complete=keep_nothing)
        for note in NOTES:
            self.mneme.remember(S, note, kind="fact")
        self.queries: list[str] = []
        real = self.mneme.aprompt

        async def aprompt(subject: str, query: str = "", **options: Any) -> str:
            self.queries.append(query)
            return await real(subject, query, **options)

        self.mneme.aprompt = aprompt  # type: ignore[method-assign]
        self.model = Chatting()
        self.runner = Runner(self.mneme, self.model, settings=BotSettings(), plugins=manager)
        self.adapter = FakeAdapter()

    async def say(self, text: str) -> str:
        """The system prompt the model was given for this message."""
        assert (await self.runner.handle(self.adapter, message(text))).status == "replied"
        return self.model.conversations[-1][0]["content"]

    async def close(self) -> None:
        await self.runner.aclose()
        self.mneme.close()


async def test_a_message_is_asked_after_the_lines_before_it(
    db_path: Path, clock: Any, manager: Manager
) -> None:
    """ "want some?" alone shares nothing with the allergy; after "I got a box of mangoes" it does."""
    companion = Asking(db_path, clock, manager)
    try:
        first = await companion.say("I got a whole box of mangoes at the market")
        clock.advance(minutes=1)
        second = await companion.say("want some?")
    finally:
        await companion.close()
    assert companion.queries[0] == "I got a whole box of mangoes at the market"
    box = "I got a whole box of mangoes at the market"
    assert companion.queries[1] == f"{box}\nre: {box}\nwant some?"
    assert ALLERGY in first and ALLERGY in second


async def test_the_message_alone_would_not_have_found_it(db_path: Path, clock: Any) -> None:
    m = Mneme(db_path, space="talk", clock=clock, zone="UTC")
    try:
        for note in NOTES:
            m.remember(S, note, kind="fact")
        alone = await m.aprompt(S, "want some?")
    finally:
        m.close()
    assert ALLERGY not in alone


async def test_only_the_latest_lines_said_lately_are_asked(
    db_path: Path, clock: Any, manager: Manager
) -> None:
    companion = Asking(db_path, clock, manager)
    try:
        for n in range(4):
            await companion.say(f"old line {n}")
            clock.advance(minutes=1)
        clock.advance(hours=1)  # a pause: what was said before it is another talk
        await companion.say("fresh line 1")
        clock.advance(minutes=1)
        await companion.say("fresh line 2")
        for n in range(3, 6):
            clock.advance(minutes=1)
            await companion.say(f"fresh line {n}")
    finally:
        await companion.close()
    assert companion.queries[5] == "fresh line 1\nre: fresh line 1\nfresh line 2"
    last = companion.queries[-1].split("\n")
    assert len(last) == ASKED_LINES + 1 and last[-1] == "fresh line 5"
    later = [line for q in companion.queries[4:] for line in q.split("\n")]
    assert not any(line.startswith(("old", "re: old")) for line in later)


async def test_a_question_about_the_person_in_general_is_asked_alone(
    db_path: Path, clock: Any, manager: Manager
) -> None:
    companion = Asking(db_path, clock, manager)
    try:
        await companion.say("I got a whole box of mangoes at the market")
        clock.advance(minutes=1)
        block = await companion.say("what do you remember about me?")
    finally:
        await companion.close()
    assert companion.queries[-1] == "what do you remember about me?"
    assert all(note in block for note in NOTES)  # the overview
