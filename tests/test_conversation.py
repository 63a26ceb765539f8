"""The conversation through the turn service: what the model is given (the recent lines as chat messages, a
DM per person, a group per room), kept across a restart, and exchanges that are never lost to a model that
is down or a stop. Real `Mneme` files, a fake adapter, scripted models."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from bot_fakes import Chatting, FakeAdapter, Scripted, message

from mneme_core import Mneme
from mneme_core.bot import BotSettings, Runner
from mneme_core.bot.turns import RETRY_DELAYS
from mneme_core.plugins import Manager, make_manager


class Judge:
    """The judge and note writer: a mood question answered, and one note per exchange; `down` makes it
    raise (a model that is down)."""

    def __init__(self) -> None:
        self.down = False
        self.asked: list[str] = []

    async def __call__(self, system: str, user: str) -> str:
        if self.down:
            raise ConnectionError("the judge is down")
        self.asked.append(user)
        if "QUESTIONS:" in user:
            return json.dumps({"mood_change": {"level": "1"}, "worth_remembering": {"probability": 0.9}})
        said = next(line for line in user.splitlines() if line.startswith("User"))
        return json.dumps([{"text": said.split(": ", 1)[1], "kind": "fact", "importance": 3}])


@pytest.fixture
def manager() -> Manager:
    return make_manager(load_entry_points=False, environ={})


@pytest.fixture
def judge() -> Judge:
    return Judge()


def opened(db_path: Path, clock: Any, judge: Judge) -> Mneme:
    return Mneme(db_path, space="talk", clock=clock, zone="UTC", complete=judge)


def runner_of(mneme: Any, model: Any, manager: Manager, **settings: Any) -> Runner:
    return Runner(mneme, model, settings=BotSettings(**settings), plugins=manager)


def said(messages: list[dict[str, str]]) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in messages if m["role"] != "system"]


async def test_a_ten_turn_dm_gives_the_model_what_was_said_three_turns_ago(
    db_path: Path, clock: Any, judge: Judge, manager: Manager
) -> None:
    mneme = opened(db_path, clock, judge)
    model = Chatting()
    runner = runner_of(mneme, model, manager, persona="You are Mio.")
    adapter = FakeAdapter()
    lines = [f"line {n}" for n in range(1, 11)]
    lines[6] = "my sister Leah just got engaged to Marcus"
    lines[9] = "what did I just tell you about my sister?"
    try:
        for line in lines:
            assert (await runner.handle(adapter, message(line))).status == "replied"
            clock.advance(minutes=1)
        last = model.conversations[-1]
        assert last[0]["role"] == "system" and last[0]["content"].startswith("You are Mio.")
        turns = said(last)
        assert turns[-1] == ("user", "what did I just tell you about my sister?")
        assert ("user", "my sister Leah just got engaged to Marcus") in turns
        assert ("assistant", "re: my sister Leah just got engaged to Marcus") in turns
        assert [role for role, _ in turns] == ["user", "assistant"] * 9 + ["user"]  # nine earlier turns
        assert await runner.drain(5)
    finally:
        await runner.aclose()
        await mneme.aclose()


async def test_the_conversation_is_bounded_by_count_and_characters(
    db_path: Path, clock: Any, judge: Judge, manager: Manager
) -> None:
    mneme = opened(db_path, clock, judge)
    mneme.config.set("conversation.lines", 4)
    model = Chatting()
    runner = Runner(mneme, model, plugins=manager)  # the budget from the companion's config
    adapter = FakeAdapter()
    try:
        for n in range(6):
            await runner.handle(adapter, message(f"number {n}"))
        assert said(model.conversations[-1]) == [
            ("user", "number 3"),
            ("assistant", "re: number 3"),
            ("user", "number 4"),
            ("assistant", "re: number 4"),
            ("user", "number 5"),
        ]
        short = runner_of(mneme, model, manager, context_chars=15)  # "re: number 5" is 12
        await short.handle(adapter, message("and now?"))
        assert said(model.conversations[-1]) == [("assistant", "re: number 5"), ("user", "and now?")]
        await short.aclose()
    finally:
        await runner.aclose()
        await mneme.aclose()


async def test_a_group_is_one_conversation_marked_by_speaker(
    db_path: Path, clock: Any, judge: Judge, manager: Manager
) -> None:
    mneme = opened(db_path, clock, judge)
    mneme.feel("fake:7", delta=-10, emotions={"worried": 40}, reason="Ann sounded tired")
    model = Chatting()
    runner = runner_of(mneme, model, manager)
    adapter = FakeAdapter()
    room = {"chat_id": "-100", "is_direct": False}

    def said_in_room(who: str, text: str, addressed: bool) -> Any:
        return message(f"User{who} in Friends: {text}", user=who, addressed=addressed, **room)

    try:
        await runner.handle(adapter, said_in_room("42", "I adopted a cat called Mochi", True))
        await runner.handle(adapter, said_in_room("7", "anyone up for lunch?", False))  # not to the bot
        await runner.handle(adapter, said_in_room("7", "Mio, what is Leo's cat called?", True))
        turns = said(model.conversations[-1])
        assert turns == [
            ("user", "User42 in Friends: I adopted a cat called Mochi"),
            ("assistant", "re: User42 in Friends: I adopted a cat called Mochi"),
            (
                "user",
                "User7 in Friends: anyone up for lunch?\nUser7 in Friends: Mio, what is Leo's cat called?",
            ),
        ]
        assert await runner.drain(5)
        # The line said without addressing the bot was kept as context and nothing more: not judged,
        # and the mood's news for Ann was told to the message that was answered, not to that one.
        assert sum("QUESTIONS:" in asked for asked in judge.asked) == 2  # the two answered, not the third
        assert "Ann sounded tired" in model.conversations[-1][0]["content"]
        assert runner.report()["ignored"] == 1 and runner.report()["observed"] == 2
    finally:
        await runner.aclose()
        await mneme.aclose()


async def test_a_rooms_context_is_bounded(db_path: Path, clock: Any, judge: Judge, manager: Manager) -> None:
    mneme = opened(db_path, clock, judge)
    runner = runner_of(mneme, Chatting(), manager, room_lines=3)
    try:
        for n in range(10):
            await runner.handle(
                FakeAdapter(), message(f"chatter {n}", chat_id="-5", is_direct=False, addressed=False)
            )
        assert await runner.drain(5)
        kept = mneme.transcript.recent("group:fake:-5", lines=100)
        assert [line.text for line in kept] == ["chatter 7", "chatter 8", "chatter 9"]
    finally:
        await runner.aclose()
        await mneme.aclose()


async def test_a_restart_between_turns_keeps_the_thread(
    db_path: Path, clock: Any, judge: Judge, manager: Manager
) -> None:
    mneme = opened(db_path, clock, judge)
    runner = runner_of(mneme, Chatting(), manager)
    await runner.handle(FakeAdapter(), message("my favourite colour is teal"))
    await runner.aclose()
    await mneme.aclose()

    again = opened(db_path, clock, judge)
    model = Chatting()
    later = runner_of(again, model, make_manager(load_entry_points=False, environ={}))
    try:
        await later.handle(FakeAdapter(), message("what is my favourite colour?"))
        assert said(model.conversations[-1]) == [
            ("user", "my favourite colour is teal"),
            ("assistant", "re: my favourite colour is teal"),
            ("user", "what is my favourite colour?"),
        ]
    finally:
        await later.aclose()
        await again.aclose()


async def test_an_exchange_observed_while_the_model_was_down_is_observed_once_it_is_back(
    db_path: Path, clock: Any, judge: Judge, manager: Manager
) -> None:
    mneme = opened(db_path, clock, judge)
    runner = runner_of(mneme, Scripted(), manager)
    judge.down = True
    try:
        outcome = await runner.handle(FakeAdapter(), message("I play the cello"))
        assert outcome.status == "replied"  # the reply never waited on memory
        assert await runner.drain(5)
        assert mneme.notes("fake:42") == [] and runner.report()["observe_retried"] == 1
        assert mneme.transcript.due() == []  # not yet: it waits for its retry
        judge.down = False
        clock.advance(RETRY_DELAYS[0])
        assert mneme.transcript.due() == ["fake:42"]
        assert await runner.turns.sweep() == 1
        assert await runner.drain(5)
        assert [n.text for n in mneme.notes("fake:42")] == ["I play the cello"]
        assert mneme.transcript.due() == [] and runner.report()["observed"] == 1
    finally:
        await runner.aclose()
        await mneme.aclose()


async def test_an_exchange_is_given_up_after_its_tries(
    db_path: Path, clock: Any, judge: Judge, manager: Manager, caplog
) -> None:
    mneme = opened(db_path, clock, judge)
    runner = runner_of(mneme, Scripted(), manager, observe_tries=2)
    judge.down = True
    try:
        await runner.handle(FakeAdapter(), message("I play the cello"))
        assert await runner.drain(5)
        clock.advance(RETRY_DELAYS[0])
        await runner.turns.sweep()
        assert await runner.drain(5)
        report = runner.report()
        assert report["observe_failed"] == 2 and report["observe_given_up"] == 1
        assert "failed 2 times; given up" in caplog.text
        clock.advance(days=1)
        assert mneme.transcript.due() == []
    finally:
        await runner.aclose()
        await mneme.aclose()


async def test_a_stop_keeps_unfinished_observes_for_the_next_start(
    db_path: Path, clock: Any, judge: Judge, manager: Manager
) -> None:
    gate = asyncio.Event()

    async def slow_judge(system: str, user: str) -> str:
        await gate.wait()
        return await judge(system, user)

    mneme = Mneme(db_path, space="talk", clock=clock, zone="UTC", complete=slow_judge)
    runner = runner_of(mneme, Scripted(), manager)
    await runner.handle(FakeAdapter(), message("I live in Lisbon"))
    await runner.aclose(timeout=0.2)  # returns although the observe hangs
    assert runner.report()["cancelled_at_shutdown"] == 1
    await mneme.aclose()

    again = opened(db_path, clock, judge)
    assert again.transcript.due() == ["fake:42"]
    later = runner_of(again, Scripted(), make_manager(load_entry_points=False, environ={}))
    try:
        later.turns.start()  # the first sweep picks up what the last run left
        for _ in range(50):
            await asyncio.sleep(0.02)
            if again.notes("fake:42"):
                break
        assert await later.drain(5)
        assert [n.text for n in again.notes("fake:42")] == ["I live in Lisbon"]
    finally:
        await later.aclose()
        await again.aclose()


class Hanging:
    """An engine whose memory hangs for one person: `aprompt` and `aobserve` never return for "slow"."""

    def __init__(self) -> None:
        self.observed: list[str] = []

    async def aprompt(self, subject: str, **options: Any) -> str:
        if subject.endswith(":slow"):
            await asyncio.sleep(3600)
        return f"(notes about {subject})"

    async def aobserve(self, subject: str, exchange: Any, **options: Any) -> None:
        if subject.endswith(":slow"):
            await asyncio.sleep(3600)
        self.observed.append(subject)


async def test_a_hung_memory_costs_the_block_not_the_reply_nor_anyone_elses_turn(manager: Manager) -> None:
    engine = Hanging()
    model = Chatting()
    runner = runner_of(engine, model, manager, prompt_timeout=0.3, observe_timeout=0.3)
    adapter = FakeAdapter()
    slow = asyncio.ensure_future(runner.handle(adapter, message("hello?", user="slow")))
    quick = await asyncio.wait_for(runner.handle(adapter, message("hi!", user="quick")), 2)
    assert quick.status == "replied" and not slow.done()  # the other person did not wait
    assert "(notes about fake:quick)" in model.conversations[-1][0]["content"]
    outcome = await asyncio.wait_for(slow, 5)
    assert outcome.status == "replied" and outcome.reply == "re: hello?"
    assert "notes about" not in model.conversations[-1][0]["content"]  # answered without its block
    assert await runner.drain(5)
    report = runner.report()
    assert report["prompt_timeout"] == 1 and report["observe_timeout"] == 1
    assert engine.observed == ["fake:quick"]
    await asyncio.wait_for(runner.aclose(1), 5)
