"""The NoneBot2 plugin's commands through NoneBot's command system, driven by nonebug with the real OneBot
events: what it remembers (privately: a private message from a group, or a pointer when the platform
refuses one), forgetting one note (only one's own), forgetting everything after a confirmation that only
the person who asked can give, the mood, the Chinese aliases; commands are never conversation."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import nonebot_harness as nb
import pytest
from nonebot.adapters.onebot.v11 import Message, MessageSegment
from nonebot.adapters.onebot.v11.exception import ActionFailed
from nonebot.adapters.onebot.v12 import Message as Message12
from nonebot.adapters.onebot.v12 import MessageSegment as Segment12
from nonebot_harness import answering_fixture, engine_fixture, model_fixture  # noqa: F401 (fixtures)

from mneme_core import Mneme

PLUGIN = nb.started()
COMMANDS = PLUGIN.module.commands


def remember(engine: Any, subject: str, *said: str) -> list[int]:
    return [engine.remember(subject, text, kind="fact").id for text in said]


def listing(*lines: str) -> str:
    return "\n".join([f"What I remember about you ({len(lines)}):", *lines])


# -- what it remembers ----------------------------------------------------------------------------------


async def test_memory_in_a_private_chat_lists_the_persons_notes_and_is_no_conversation(
    answering, engine
) -> None:
    cat, hills = remember(engine, nb.LEO, "Adopted a cat called Mochi.", "Loves hiking in the hills.")
    remember(engine, nb.ANN, "Plays chess every Sunday.")
    async with nb.matching(nb.plugin_matchers()) as ctx:
        bot = nb.v11_bot(ctx)
        event = await nb.arrive(bot, nb.v11("/memory", mid=1))
        ctx.receive_event(bot, event)
        said = listing(f"#{hills} Loves hiking in the hills.", f"#{cat} Adopted a cat called Mochi.")
        ctx.should_call_send(event, said, {"message_id": 1})
        ctx.should_finished(COMMANDS.remembered)
        chinese = await nb.arrive(bot, nb.v11("/记忆", mid=2))
        ctx.receive_event(bot, chinese)
        ctx.should_call_send(chinese, said, {"message_id": 2})
    assert await answering.runner.drain(10)
    assert engine.transcript.lines_of(nb.LEO) == []  # a command is not a line of the conversation
    assert answering.runner.report().get("received", 0) == 0  # nor the runner's to answer


async def test_memory_in_a_group_goes_privately_and_the_group_hears_only_that(answering, engine) -> None:
    (cat,) = remember(engine, nb.LEO, "Adopted a cat called Mochi.")
    said = listing(f"#{cat} Adopted a cat called Mochi.")
    async with nb.matching(nb.plugin_matchers()) as ctx:
        bot = nb.v11_bot(ctx)
        event = await nb.arrive(bot, nb.v11("/memory", group=777, mid=1))
        ctx.receive_event(bot, event)
        private = {"user_id": 10001, "group_id": 777, "message": Message(MessageSegment.text(said))}
        ctx.should_call_api("send_private_msg", private, {"message_id": 5})
        ctx.should_call_send(event, "I sent you a private message.", {"message_id": 6})

        refused = await nb.arrive(bot, nb.v11("/memory", group=777, mid=2))  # QQ refuses a stranger's
        ctx.receive_event(bot, refused)
        ctx.should_call_api("send_private_msg", private, exception=ActionFailed(retcode=100))
        pointer = "That is between us: write /memory to me in a private chat."
        ctx.should_call_send(refused, pointer, {"message_id": 7})


async def test_memory_in_a_wechat_group_goes_by_a_v12_private_message(answering, engine) -> None:
    (tea,) = remember(engine, "onebot:wechat:wxid_abc", "Drinks green tea.")
    said = listing(f"#{tea} Drinks green tea.")
    async with nb.matching(nb.plugin_matchers()) as ctx:
        bot = nb.v12_bot(ctx)
        event = await nb.arrive(bot, nb.v12("/memory", group="g1", mid="m1"))
        ctx.receive_event(bot, event)
        private = {
            "detail_type": "private",
            "user_id": "wxid_abc",
            "message": Message12(Segment12.text(said)),
        }
        ctx.should_call_api("send_message", private, {"message_id": "w5"})
        ctx.should_call_send(event, "I sent you a private message.", {"message_id": "w6"})


async def test_mood_is_told_privately(answering, engine) -> None:
    engine.feel(nb.LEO, delta=-20)
    async with nb.matching(nb.plugin_matchers()) as ctx:
        bot = nb.v11_bot(ctx)
        event = await nb.arrive(bot, nb.v11("/心情", mid=1))
        ctx.receive_event(bot, event)
        ctx.should_call_send(event, engine.describe_mood(nb.LEO), {"message_id": 1})
        ctx.should_finished(COMMANDS.mood)


# -- forgetting -----------------------------------------------------------------------------------------


async def test_forget_hides_one_of_ones_own_notes_and_nobody_elses(answering, engine) -> None:
    cat, hills = remember(engine, nb.LEO, "Adopted a cat called Mochi.", "Loves hiking in the hills.")
    async with nb.matching(nb.plugin_matchers()) as ctx:
        bot = nb.v11_bot(ctx)
        theirs = await nb.arrive(bot, nb.v11(f"/forget {cat}", user=10002, group=777, mid=1, name="Ann"))
        ctx.receive_event(bot, theirs)
        ctx.should_call_send(theirs, f"I have no note #{cat} about you.", {"message_id": 1})
        mine = await nb.arrive(bot, nb.v11(f"/忘记 #{cat}", mid=2))
        ctx.receive_event(bot, mine)
        ctx.should_call_send(mine, "Forgotten.", {"message_id": 2})
        bare = await nb.arrive(bot, nb.v11("/forget", mid=3))
        ctx.receive_event(bot, bare)
        usage = (
            "/forget <number> forgets one thing I remember (the numbers are in /memory); "
            "/forgetme forgets everything about you."
        )
        ctx.should_call_send(bare, usage, {"message_id": 3})
    assert nb.texts(engine.notes(nb.LEO)) == ["Loves hiking in the hills."]
    assert [n.id for n in engine.notes(nb.LEO)] == [hills]


async def test_forget_me_asks_first_and_only_the_one_who_asked_can_answer(answering, engine) -> None:
    remember(engine, nb.LEO, "Adopted a cat called Mochi.", "Loves hiking in the hills.")
    remember(engine, nb.ANN, "Plays chess every Sunday.")
    ask = (
        "Forget everything I remember about you, and how I feel about you? This can't be undone. "
        "Reply yes to forget it all; anything else keeps it."
    )
    async with nb.matching(nb.plugin_matchers()) as ctx:
        bot = nb.v11_bot(ctx)
        first = await nb.arrive(bot, nb.v11("/forgetme", group=777, mid=1))
        ctx.receive_event(bot, first)
        ctx.should_call_send(first, ask, {"message_id": 1})
        ctx.should_paused(COMMANDS.forget_me)
        no = await nb.arrive(bot, nb.v11("no", group=777, mid=2))
        ctx.receive_event(bot, no)
        ctx.should_call_send(no, "All right, I keep what I remember.", {"message_id": 2})
    assert len(engine.notes(nb.LEO)) == 2

    async with nb.matching(nb.plugin_matchers()) as ctx:
        bot = nb.v11_bot(ctx)
        again = await nb.arrive(bot, nb.v11("/forget all", group=777, mid=3))
        ctx.receive_event(bot, again)
        ctx.should_call_send(again, ask, {"message_id": 3})
        someone_else = await nb.arrive(bot, nb.v11("yes", user=10002, group=777, mid=4, name="Ann"))
        ctx.receive_event(bot, someone_else)  # Ann's "yes" is not the answer: a group line to others
        yes = await nb.arrive(bot, nb.v11("Yes!", group=777, mid=5))
        ctx.receive_event(bot, yes)
        ctx.should_call_send(yes, "Done: I forgot everything about you (2 notes).", {"message_id": 5})
    assert engine.notes(nb.LEO) == [] and nb.LEO not in engine.subjects()
    assert nb.texts(engine.notes(nb.ANN)) == ["Plays chess every Sunday."]


async def test_forget_me_in_chinese(answering, engine) -> None:
    remember(engine, nb.LEO, "Adopted a cat called Mochi.")
    async with nb.matching(nb.plugin_matchers()) as ctx:
        bot = nb.v11_bot(ctx)
        asked = await nb.arrive(bot, nb.v11("/忘记我", mid=1))
        ctx.receive_event(bot, asked)
        ctx.should_call_send(asked, COMMANDS._say("forget.ask"), {"message_id": 1})
        yes = await nb.arrive(bot, nb.v11("是", mid=2))
        ctx.receive_event(bot, yes)
        ctx.should_call_send(yes, "Done: I forgot everything about you (1 notes).", {"message_id": 2})
    assert engine.notes(nb.LEO) == []


async def test_an_exchange_observed_while_forgetting_leaves_no_note_behind(
    db_path, clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The judge is still writing a note about the cat when the person says yes: once it has, the note
    is erased again."""
    writing = asyncio.Event()
    finish = asyncio.Event()

    async def slow_judge(system: str, user: str) -> str:
        if "QUESTIONS:" not in user:  # the note writer: hold it until the erase happened
            writing.set()
            await finish.wait()
        return await nb.judge(system, user)

    engine = Mneme(db_path, space="nonebot", clock=clock, zone="UTC", complete=slow_judge)
    try:
        async with await nb.given(monkeypatch, engine, nb.Model(), mneme_answer=True) as opened:
            async with nb.matching(nb.plugin_matchers()) as ctx:
                bot = nb.v11_bot(ctx)
                said = await nb.arrive(bot, nb.v11("I adopted a cat called Mochi", mid=1))
                ctx.receive_event(bot, said)
                ctx.should_call_send(said, "re: I adopted a cat called Mochi", {"message_id": 1})
            await asyncio.wait_for(writing.wait(), 10)
            async with nb.matching(nb.plugin_matchers()) as ctx:
                bot = nb.v11_bot(ctx)
                asked = await nb.arrive(bot, nb.v11("/forgetme", mid=2))
                ctx.receive_event(bot, asked)
                ctx.should_call_send(asked, COMMANDS._say("forget.ask"), None)
                yes = await nb.arrive(bot, nb.v11("yes", mid=3))
                ctx.receive_event(bot, yes)
                ctx.should_call_send(yes, "Done: I forgot everything about you (0 notes).", None)
            finish.set()
            assert await opened.runner.drain(10)
            assert engine.notes(nb.LEO) == []
        opened.use(None)
    finally:
        engine.close()


def test_every_chinese_sentence_has_an_english_one_with_the_same_placeholders() -> None:
    from mneme_nonebot.sentences import SENTENCES

    assert set(SENTENCES["zh"]) <= set(SENTENCES["en"])
    for key, said in SENTENCES["zh"].items():
        assert sorted(re.findall(r"\{[a-z_]+\}", said)) == sorted(
            re.findall(r"\{[a-z_]+\}", SENTENCES["en"][key])
        )
