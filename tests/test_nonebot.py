"""The NoneBot2 plugin, loaded by name into a real NoneBot, driven by nonebug with the real OneBot adapter's
events: a private conversation remembered across two days, a group with two speakers kept apart, the bot
addressed and not, WeChat through v12, a matcher of one's own through `Depends(memory_of)`, other adapters'
subjects, malformed events, the settings and the driver's lifespan. A real `Mneme` in a temporary file
with a frozen clock; scripted models."""

from __future__ import annotations

import logging
import os
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import nonebot
import pytest
from nonebot.adapters import Adapter, Bot, Event
from nonebot.adapters import Message as BaseMessage
from nonebot.adapters import MessageSegment as BaseSegment
from nonebot.matcher import Matcher
from nonebot.params import Depends
from nonebot.rule import to_me
from nonebot_harness import (  # the fixtures too
    ANN,
    BOT,
    LEO,
    answering_fixture,  # noqa: F401
    arrive,
    engine_fixture,  # noqa: F401
    exchange,
    matching,
    model_fixture,  # noqa: F401
    plugin_matchers,
    quiet_fixture,  # noqa: F401
    running,
    segment,
    started,
    texts,
    v11,
    v11_bot,
    v12,
    v12_bot,
)

from mneme_core import Mneme
from mneme_core.bot import OfflineModel
from mneme_core.errors import InvalidValue

PLUGIN = started()
Memory, memory_of = PLUGIN.module.Memory, PLUGIN.module.memory_of  # after NoneBot loaded the plugin


# -- a conversation -------------------------------------------------------------------------------------


async def test_a_private_conversation_is_remembered_across_two_days(answering, engine, model, clock) -> None:
    frame = v11("I adopted a cat called Mochi &amp; I love her", mid=11)
    await exchange(
        plugin_matchers(), frame, "re: I adopted a cat called Mochi & I love her", {"message_id": 9}
    )
    assert await answering.runner.drain(10)
    assert texts(engine.notes(LEO)) == ["Adopted a cat called Mochi."]

    clock.advance(days=1)
    async with matching(plugin_matchers()) as ctx:
        bot = v11_bot(ctx)
        event = await arrive(bot, v11([segment("text", text="how is my cat doing?")], mid=12))
        ctx.receive_event(bot, event)
        ctx.should_call_send(event, "Mochi must be purring on your lap.", {"message_id": 902})
    system, *earlier, now = model.conversations[-1]
    assert "- Adopted a cat called Mochi." in system["content"]
    assert earlier == [
        {"role": "user", "content": "I adopted a cat called Mochi & I love her"},
        {"role": "assistant", "content": "re: I adopted a cat called Mochi & I love her"},
    ]
    assert now == {"role": "user", "content": "how is my cat doing?"}
    assert await answering.runner.drain(10)
    assert answering.runner.report()["observed"] == 2


async def test_an_image_and_other_peoples_mentions_are_marked(answering) -> None:
    picture = segment("image", file="abc.jpg", url="http://example.invalid/abc.jpg")
    async with matching(plugin_matchers()) as ctx:
        bot = v11_bot(ctx)
        alone = await arrive(bot, v11([picture], mid=21))
        ctx.receive_event(bot, alone)
        ctx.should_call_send(alone, "re: [image]", {"message_id": 910})
        words = [segment("text", text="look, "), segment("at", qq="10002", name="Ann"), picture]
        mixed = await arrive(bot, v11(words, mid=22))
        ctx.receive_event(bot, mixed)
        ctx.should_call_send(mixed, "re: look, @Ann [image]", {"message_id": 911})


# -- groups ---------------------------------------------------------------------------------------------


async def test_a_group_answers_when_addressed_and_keeps_two_speakers_apart(answering, engine, model) -> None:
    async with matching(plugin_matchers()) as ctx:
        bot = v11_bot(ctx)
        aside = await arrive(bot, v11("I love hiking, anyone?", group=777, mid=1))  # not to the bot
        ctx.receive_event(bot, aside)
        at_bot = await arrive(bot, v11(f"[CQ:at,qq={BOT}] I love hiking too", group=777, mid=2))
        ctx.receive_event(bot, at_bot)
        ctx.should_call_send(
            at_bot, "re: Leo in group 777: I love hiking too", {"message_id": 500}, reply_message=True
        )
    assert at_bot.to_me and not aside.to_me  # NoneBot's own reading agrees

    reply_to_bot = [segment("reply", id="500"), segment("text", text="I play chess")]
    replied = {  # what the bridge answers get_msg with: the bot's message
        "time": 1709294400,
        "message_type": "group",
        "message_id": 500,
        "real_id": 500,
        "sender": {"user_id": int(BOT), "nickname": "Mio"},
        "message": "re: Leo in group 777: I love hiking too",
    }
    async with matching(plugin_matchers()) as ctx:
        bot = v11_bot(ctx)
        ctx.should_call_api("get_msg", {"message_id": 500}, replied)
        ann = await arrive(bot, v11(reply_to_bot, user=10002, group=777, mid=3, name="Ann"))
        ctx.receive_event(bot, ann)
        ctx.should_call_send(
            ann, "re: Ann in group 777: I play chess", {"message_id": 501}, reply_message=True
        )
        at_all = await arrive(bot, v11("[CQ:at,qq=all] chess tonight", user=10002, group=777, mid=4))
        ctx.receive_event(bot, at_all)  # @all is not to the bot: nothing sent
        named = await arrive(bot, v11("Mio, any chess tips?", user=10002, group=777, mid=5, name="Ann"))
        ctx.receive_event(bot, named)
        ctx.should_call_send(
            named, "re: Ann in group 777: Mio, any chess tips?", {"message_id": 502}, reply_message=True
        )

    assert await answering.runner.drain(10)
    report = answering.runner.report()
    assert report["ignored"] == 2 and report["replied"] == 3
    assert texts(engine.notes(LEO)) == ["Loves hiking in the hills."]
    assert texts(engine.notes(ANN)) == ["Plays chess every Sunday."]
    # The room is one conversation: what Leo said to everyone is what the model saw before Ann's line
    # (Ann has no notes yet, and there is no persona: no system message).
    assert model.conversations[1] == [
        {
            "role": "user",
            "content": "Leo in group 777: I love hiking, anyone?\nLeo in group 777: I love hiking too",
        },
        {"role": "assistant", "content": "re: Leo in group 777: I love hiking too"},
        {"role": "user", "content": "Ann in group 777: I play chess"},
    ]


async def test_wechat_through_onebot_v12_has_the_subjects_of_mneme_run_onebot(answering, engine) -> None:
    async with matching(plugin_matchers()) as ctx:
        bot = v12_bot(ctx)
        private = await arrive(bot, v12([segment("text", text="I adopted a cat called Mochi")], mid="m1"))
        ctx.receive_event(bot, private)
        ctx.should_call_send(private, "re: I adopted a cat called Mochi", {"message_id": "w1"})
        mention = [segment("mention", user_id="wxid_bot"), segment("text", text=" hiking on Sunday?")]
        group = await arrive(
            bot, v12(mention, user="wxid_ann", group="g1", mid="m2", over={"user_name": "Ann"})
        )
        ctx.receive_event(bot, group)
        ctx.should_call_send(
            group, "re: Ann in group g1: hiking on Sunday?", {"message_id": "w2"}, reply_message=True
        )
    assert await answering.runner.drain(10)
    assert texts(engine.notes("onebot:wechat:wxid_abc")) == ["Adopted a cat called Mochi."]
    assert texts(engine.notes("onebot:wechat:wxid_ann")) == ["Loves hiking in the hills."]


# -- a matcher of one's own -----------------------------------------------------------------------------


def host_chat() -> Any:
    """A host's chat matcher: its own model call around the plugin's memory (made once per process)."""
    if hasattr(host_chat, "made"):
        return host_chat.made
    chat = nonebot.on_message(rule=to_me(), priority=50, block=True)
    host_chat.calls = []  # type: ignore[attr-defined]

    @chat.handle()
    async def first(memory: Memory = Depends(memory_of)) -> None:  # noqa: B008 (NoneBot's own idiom)
        host_chat.calls.append(("first", memory))  # type: ignore[attr-defined]

    @chat.handle()
    async def second(memory: Memory = Depends(memory_of)) -> None:  # noqa: B008
        messages = await memory.messages("You are Mio.")
        host_chat.calls.append(("second", memory, messages))  # type: ignore[attr-defined]
        block = await memory.prompt()
        await memory.reply(f"[{len(messages)} messages] " + ("I remember you." if block else "Hello!"))

    host_chat.made = chat  # type: ignore[attr-defined]
    return chat


async def test_a_matcher_of_ones_own_gets_the_memory_and_the_room_through_depends(quiet, engine) -> None:
    chat = host_chat()
    matchers = [chat, *plugin_matchers()]
    async with matching(matchers) as ctx:
        bot = v11_bot(ctx)
        aside = await arrive(bot, v11("I love hiking, anyone?", group=777, mid=1))
        ctx.receive_event(bot, aside)  # the host's matcher is to_me: the plugin keeps it as the room's
        ctx.should_not_pass_rule(chat)
        at_bot = await arrive(bot, v11(f"[CQ:at,qq={BOT}] me too", user=10002, group=777, mid=2, name="Ann"))
        ctx.receive_event(bot, at_bot)
        ctx.should_pass_rule(chat)
        ctx.should_call_send(at_bot, "[2 messages] Hello!", {"message_id": 600}, reply_message=True)
    (_, first), (_, second, messages) = host_chat.calls[-2:]  # type: ignore[attr-defined]
    assert first is second  # one memory per message, however many handlers ask
    assert second.subject == ANN and not second.is_direct and second.addressed
    assert messages == [
        {"role": "system", "content": "You are Mio."},
        {"role": "user", "content": "Leo in group 777: I love hiking, anyone?\nAnn in group 777: me too"},
    ]
    assert await quiet.runner.drain(10)
    lines = engine.transcript.lines_of(ANN)
    assert [(line.role, line.text) for line in lines] == [  # newest first; Ann's line kept once
        ("assistant", "[2 messages] Hello!"),
        ("user", "Ann in group 777: me too"),
    ]
    assert texts(engine.notes(ANN)) == []  # "me too" says nothing worth a note

    async with matching(matchers) as ctx:
        bot = v11_bot(ctx)
        private = await arrive(bot, v11("I love hiking", user=10002, mid=3, name="Ann"))
        ctx.receive_event(bot, private)
        ctx.should_call_send(private, "[2 messages] Hello!", {"message_id": 601})
    assert await quiet.runner.drain(10)
    assert texts(engine.notes(ANN)) == ["Loves hiking in the hills."]
    assert quiet.runner.report().get("replied", 0) == 0  # the host answered, never the runner


SELF_SENT: list[Any] = []  # the matcher below, made once per process


def self_sending() -> Any:
    """A host's matcher that sends its reply itself (`matcher.send`) and then hands it to `observe`."""
    if not SELF_SENT:
        chat = nonebot.on_message(rule=to_me(), priority=40, block=True)

        @chat.handle()
        async def answer(matcher: Matcher, memory: Memory = Depends(memory_of)) -> None:  # noqa: B008
            reply = "Tell me more!"
            await matcher.send(reply)
            await memory.observe(reply)  # the task ends once the exchange is kept

        SELF_SENT.append(chat)
    return SELF_SENT[0]


async def test_a_reply_sent_by_the_host_itself_is_observed(quiet, engine) -> None:
    chat = self_sending()
    await exchange([chat, *plugin_matchers()], v11("I play chess every week", mid=1), "Tell me more!")
    assert await quiet.runner.drain(10)
    assert texts(engine.notes(LEO)) == ["Plays chess every Sunday."]
    assert [line.text for line in engine.transcript.lines_of(LEO)] == [
        "Tell me more!",
        "I play chess every week",
    ]


async def test_before_the_driver_starts_a_matcher_asking_for_memory_is_skipped(caplog) -> None:
    chat = self_sending()
    async with matching([chat, *plugin_matchers()]) as ctx:
        bot = v11_bot(ctx)
        ctx.receive_event(bot, await arrive(bot, v11("hello?", mid=1)))  # nothing is sent
        ctx.should_pass_rule(chat)
    assert "the companion is not open" in caplog.text


EXAMPLE = Path(__file__).parent.parent / "examples" / "nonebot_bot.py"
EXAMPLE_CHAT: list[Any] = []  # the example's matcher, made once per process


async def test_the_examples_own_chat_remembers_across_days(quiet, engine, clock) -> None:
    if not EXAMPLE_CHAT:
        EXAMPLE_CHAT.append(runpy.run_path(str(EXAMPLE), run_name="nonebot_bot_example")["own_chat"]())
    matchers = [*EXAMPLE_CHAT, *plugin_matchers()]
    await exchange(
        matchers, v11("I adopted a cat called Mochi", mid=1), "You said: I adopted a cat called Mochi"
    )
    assert await quiet.runner.drain(10)
    clock.advance(days=2)
    said = "You said: remember my cat? (I remember: Adopted a cat called Mochi.)"
    await exchange(matchers, v11("remember my cat?", mid=2), said)


# -- other adapters -------------------------------------------------------------------------------------


class Segment(BaseSegment["Said"]):
    @classmethod
    def get_message_class(cls) -> type[Said]:
        return Said

    def __str__(self) -> str:
        return self.data.get("text", f"[{self.type}]")

    def is_text(self) -> bool:
        return self.type == "text"


class Said(BaseMessage[Segment]):
    @classmethod
    def get_segment_class(cls) -> type[Segment]:
        return Segment

    @staticmethod
    def _construct(msg: str) -> Any:
        yield Segment("text", {"text": msg})


class Chat(Event):
    """A message event of another adapter, shaped by NoneBot's base event only."""

    user: str
    session: str
    said: Said
    tome: bool = False

    def get_type(self) -> str:
        return "message"

    def get_event_name(self) -> str:
        return "message"

    def get_event_description(self) -> str:
        return str(self.said)

    def get_message(self) -> Said:
        return self.said

    def get_user_id(self) -> str:
        if not self.user:
            raise ValueError("this event has no user")
        return self.user

    def get_session_id(self) -> str:
        return self.session

    def is_tome(self) -> bool:
        return self.tome


def adapter_called(name: str) -> Adapter:
    class Named(Adapter):
        @classmethod
        def get_name(cls) -> str:
            return name

        async def _call_api(self, bot: Bot, api: str, **data: Any) -> Any:
            raise NotImplementedError(api)

    return Named(nonebot.get_driver())


async def test_telegram_and_discord_people_keep_the_subjects_our_adapters_give(answering, engine) -> None:
    from mneme_discord.messages import PLATFORM as DISCORD

    async with matching(plugin_matchers()) as ctx:
        telegram = ctx.create_bot(adapter=adapter_called("Telegram"), self_id="tg")
        private = Chat(user="456", session="456", said=Said("I adopted a cat called Mochi"))
        ctx.receive_event(telegram, private)
        ctx.should_call_send(private, "re: I adopted a cat called Mochi", None)
        aside = Chat(user="456", session="group_-100_456", said=Said("hiking, anyone?"))
        ctx.receive_event(telegram, aside)  # a group message to others: kept, not answered
        asked = Chat(user="789", session="group_-100_789", said=Said("me too"), tome=True)
        ctx.receive_event(telegram, asked)
        ctx.should_call_send(asked, "re: 789 in group group_-100: me too", None)
        discord = ctx.create_bot(adapter=adapter_called("Discord"), self_id="dc")
        dm = Chat(user="7", session="7", said=Said("I play chess"))
        ctx.receive_event(discord, dm)
        ctx.should_call_send(dm, "re: I play chess", None)
    assert await answering.runner.drain(10)
    assert texts(engine.notes("telegram:456")) == ["Adopted a cat called Mochi."]
    assert texts(engine.notes(f"{DISCORD}:7")) == ["Plays chess every Sunday."]  # the cog's subject
    room = engine.transcript.lines_of("telegram:789")
    assert [line.role for line in room] == ["assistant", "user"]  # newest first
    assert {line.conversation for line in room} == {"group:telegram:group_-100"}


def test_adapter_names_become_platforms() -> None:
    from mneme_nonebot.reading import platform_of

    found = {
        name: platform_of(name) for name in ("Telegram", "Discord", "QQ", "Kaiheila", "Feishu", "DingTalk")
    }
    assert found == {
        "Telegram": "telegram",
        "Discord": "discord",
        "QQ": "qqbot",
        "Kaiheila": "kook",
        "Feishu": "feishu",
        "DingTalk": "dingtalk",
    }
    with pytest.raises(InvalidValue, match="cannot"):
        platform_of("!!!")


# -- malformed events -----------------------------------------------------------------------------------


async def test_malformed_events_are_logged_and_skipped_and_the_next_is_answered(
    answering, engine, caplog
) -> None:
    caplog.set_level(logging.WARNING)
    bad_platform = v12("hi", mid="b1", over={"self": {"platform": "Not a platform!", "user_id": "wxid_bot"}})
    two_lines = v12("hi", user="wxid\nabc", mid="b2")
    async with matching(plugin_matchers()) as ctx:
        wechat = v12_bot(ctx)
        for frame in (bad_platform, two_lines):
            ctx.receive_event(wechat, await arrive(wechat, frame))
        qq = v11_bot(ctx)
        anonymous = {"id": 1, "name": "someone", "flag": "x"}
        ctx.receive_event(qq, await arrive(qq, v11("hello", group=777, mid=7, anonymous=anonymous)))
        odd = [segment("at"), segment("reply"), segment("face", id="1"), segment("text", text="still here")]
        oddly = await arrive(qq, v11(odd, mid=8))  # segments without their data: read, not refused
        ctx.receive_event(qq, oddly)
        ctx.should_call_send(oddly, "re: [emoji] still here", {"message_id": 1})
        nobody = ctx.create_bot(adapter=adapter_called("Telegram"), self_id="tg")
        ctx.receive_event(nobody, Chat(user="", session="x", said=Said("who am I")))
        fine = await arrive(qq, v11("are you there?", mid=9))
        ctx.receive_event(qq, fine)
        ctx.should_call_send(fine, "re: are you there?", {"message_id": 2})
    assert answering.reader.counts["malformed"] == 3
    warned = [r.getMessage() for r in caplog.records if "could not be read" in r.getMessage()]
    assert len(warned) == 3 and "platform" in warned[0] and "one line" in warned[1] and "no user" in warned[2]
    said = [line.text for line in engine.transcript.lines_of(LEO) if line.role == "user"]
    assert said == ["are you there?", "[emoji] still here"]  # newest first: only Leo's private messages
    assert engine.subjects() == []  # nothing about anyone written from the bad ones


# -- settings and the driver's lifespan -----------------------------------------------------------------


async def test_the_drivers_config_opens_the_engine_at_startup_and_shutdown_closes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mneme_nonebot import companion

    config = tmp_path / "bot.toml"
    config.write_text('[companion]\npersona = "You are Mio, a warm companion."\nname = "Mio"\n')
    db = tmp_path / "companion.db"
    monkeypatch.setenv("MNEME_CONFIG", str(config))  # the environment counts, as NoneBot reads it
    async with running(monkeypatch, mneme_db=str(db), mneme_space="mio", mneme_answer=True) as opened:
        m = opened.mneme
        assert isinstance(m, Mneme) and Path(m.store.path) == db and m.space == "mio"
        assert opened.runner.settings.persona == "You are Mio, a warm companion."
        async with matching(plugin_matchers()) as ctx:
            bot = v11_bot(ctx)
            event = await arrive(bot, v11("hello", mid=1))
            ctx.receive_event(bot, event)
            shown = await OfflineModel().complete("You are Mio, a warm companion.", "hello")
            ctx.should_call_send(event, shown, {"message_id": 1})
        assert await opened.runner.drain(10)
    assert not companion.is_open and companion.mneme is None
    again = Mneme(db, space="mio")
    try:  # the file was let go, with the conversation in it
        assert [line.text for line in again.transcript.lines_of(LEO)] == [shown, "hello"]
    finally:
        again.close()


async def test_a_bad_setting_stops_the_startup_naming_it(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from mneme_nonebot import companion

    with pytest.raises(InvalidValue, match="MNEME_SPACE"):
        async with running(monkeypatch, mneme_db=str(tmp_path / "x.db"), mneme_space="two\nlines"):
            pass
    assert not companion.is_open and not (tmp_path / "x.db").exists()


def test_listing_plugins_loads_neither_nonebot_nor_the_bot_layer() -> None:
    """`mneme plugins` (the entry point loads the package) without NoneBot installed."""
    root = Path(__file__).resolve().parents[1]
    code = (
        "import sys\n"
        "sys.modules['nonebot'] = None  # as if the nonebot extra were not installed\n"
        "from mneme_core.plugins import make_manager\n"
        "manager = make_manager(environ={'MNEME_LOAD_PLUGINS': 'nonebot'})\n"
        "assert manager.has_plugin('nonebot')\n"
        "import mneme_nonebot\n"
        "print(sorted(m for m in sys.modules if m.startswith(('mneme_core.bot', 'mneme_nonebot.'))))\n"
        "try:\n"
        "    mneme_nonebot.memory_of\n"
        "except ImportError as err:\n"
        "    print(err)\n"
    )
    paths = [str(root / "adapters"), str(root / "plugins"), str(root), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert found.returncode == 0, found.stderr
    assert found.stdout.splitlines() == [
        "[]",
        'the NoneBot2 plugin needs NoneBot2: pip install "mneme-bots[nonebot]"',
    ]
