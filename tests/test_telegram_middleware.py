"""The Telegram middleware on a host's own `Application`, driven offline: the type handler, `@remembered`,
the commands in front of the host's handlers, opt-outs, plain text under Markdown defaults."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from mneme_telegram import install, middleware_of, remembered
from mneme_telegram.middleware import Memory, Middleware
from mneme_telegram.testing import ANA, LEO, OTHER_BOT, Chats, OfflineAPI, group
from telegram import Update
from telegram.ext import Application, CommandHandler, Defaults, MessageHandler, filters

from mneme_core import Mneme

LEO_SUBJECT = f"telegram:{LEO['id']}"


class GatedJudge:
    """Judge and note writer; each call waits for `gate` and records how many messages had been sent."""

    def __init__(self, api: OfflineAPI, note: str) -> None:
        self.api = api
        self.note = note
        self.gate = asyncio.Event()
        self.sent_when_called: list[int] = []
        self.asked: list[str] = []

    async def complete(self, system: str, user: str) -> str:
        self.sent_when_called.append(len(self.api.sent()))
        self.asked.append(user)
        await self.gate.wait()
        if "QUESTIONS:" in user:
            return json.dumps({"mood_change": {"level": "1"}, "worth_remembering": {"probability": 0.9}})
        return json.dumps([{"text": self.note, "kind": "fact", "importance": 3}])


class Host:
    """Someone's bot: an Application of their own, with the middleware installed."""

    def __init__(self, mneme: Mneme, *, defaults: Defaults | None = None, **options: Any) -> None:
        self.api = OfflineAPI()
        builder = Application.builder().token(self.api.token).request(self.api).get_updates_request(self.api)
        if defaults is not None:
            builder = builder.defaults(defaults)
        self.app = builder.updater(None).build()
        self.middleware: Middleware = install(self.app, mneme, **options)
        self.chats = Chats()
        self.seen: list[Memory | None] = []

    def catch_all(self, group: int = 0) -> None:
        """A host handler that sees every update reaching its group."""

        async def everything(update: Update, context: Any) -> None:
            self.seen.append(context.memory)

        self.app.add_handler(MessageHandler(filters.ALL, everything), group=group)

    async def __aenter__(self) -> Host:
        await self.app.initialize()
        await self.app.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.app.stop()
        await self.app.shutdown()

    async def send(self, update: dict[str, Any]) -> None:
        await self.app.process_update(Update.de_json(update, self.app.bot))


async def test_the_reply_handler_gets_the_memory_and_observe_runs_after_the_reply(mneme: Mneme) -> None:
    mneme.remember(LEO_SUBJECT, "Leo has a cat called Mochi.", kind="fact", importance=4)
    host = Host(mneme, judge=lambda system, user: judge.complete(system, user))
    judge = GatedJudge(host.api, "Leo's cat Mochi is afraid of the vacuum cleaner.")
    got: list[tuple[str, str | None, Any]] = []

    @remembered
    async def chat(update: Update, context: Any) -> Any:
        got.append((context.memory.subject, context.memory.block, context.mneme))
        return await update.message.reply_text(f"Poor Mochi! ({context.memory.text})")

    host.app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, chat))
    async with host:
        update = host.chats.text("My cat Mochi hid from the vacuum cleaner", LEO)
        await asyncio.wait_for(host.send(update), 5)  # would never end if the reply waited on the judge
        # process_update is done: the reply went out, the observe still waits on the judge
        assert host.api.texts() == ["Poor Mochi! (My cat Mochi hid from the vacuum cleaner)"]
        assert len(host.middleware.observes.tasks) == 1
        assert [n.text for n in mneme.notes(LEO_SUBJECT)] == ["Leo has a cat called Mochi."]
        judge.gate.set()
        assert await host.middleware.drain(5)
    subject, block, engine = got[0]
    assert subject == LEO_SUBJECT and engine is mneme
    assert block is not None and "Leo has a cat called Mochi." in block
    assert judge.sent_when_called[0] == 1  # the judge was first asked after the reply was sent
    assert "Poor Mochi!" in judge.asked[0]
    assert "Leo's cat Mochi is afraid of the vacuum cleaner." in [n.text for n in mneme.notes(LEO_SUBJECT)]


async def test_a_non_blocking_reply_handler_is_still_observed_after_its_reply(mneme: Mneme) -> None:
    host = Host(mneme, judge=lambda system, user: judge.complete(system, user))
    judge = GatedJudge(host.api, "Leo runs every morning.")
    judge.gate.set()

    @remembered
    async def chat(update: Update, context: Any) -> Any:
        await asyncio.sleep(0.01)  # the reply takes a moment; PTB does not wait for it
        return await context.memory.reply("Good for you!")

    host.app.add_handler(MessageHandler(filters.TEXT, chat, block=False))
    async with host:
        await host.send(host.chats.text("I run every morning", LEO))
        await host.api.called("sendMessage")
        await asyncio.sleep(0)  # let the handler's task schedule the observe
        assert await host.middleware.drain(5)
    assert judge.sent_when_called == [1, 1]
    assert judge.asked[0].count("Good for you!") == 1
    assert [n.text for n in mneme.notes(LEO_SUBJECT)] == ["Leo runs every morning."]


async def test_updates_from_nobody_reach_the_host_with_no_memory(mneme: Mneme) -> None:
    host = Host(mneme)
    host.catch_all()
    async with host:
        await host.send(
            host.chats.message("news", LEO, {"id": -100777, "type": "channel"}, kind="channel_post")
        )
        await host.send(host.chats.text("@mio_bot beep", OTHER_BOT, group()))
        await host.send(host.chats.text("hello", ANA))
    assert host.seen[:2] == [None, None]
    assert isinstance(host.seen[2], Memory) and host.seen[2].subject == "telegram:1002"
    assert host.seen[2].user_name == "Ana Lima" and host.seen[2].is_direct


async def test_commands_answer_before_the_hosts_handlers_and_stop_there(mneme: Mneme) -> None:
    mneme.remember(LEO_SUBJECT, "Leo has a cat called Mochi.", kind="fact")
    host = Host(mneme)
    host.catch_all()
    helped: list[str] = []

    async def own_help(update: Update, context: Any) -> None:
        helped.append(update.message.text)

    host.app.add_handler(CommandHandler("help", own_help), group=-1)
    async with host:
        await host.send(host.chats.text("/memory", LEO))
        await host.send(host.chats.text("/mood", LEO))
        await host.send(host.chats.text("/help", LEO))  # the host's own: not installed by default
        await host.send(host.chats.text("hello", LEO))
    assert "Leo has a cat called Mochi." in host.api.texts()[0]
    assert host.api.texts()[1].startswith("Mood 70/100")
    assert helped == ["/help"]
    assert [memory.text for memory in host.seen if memory] == ["", "hello"]  # /help, then hello


async def test_a_person_who_opted_out_never_reaches_the_host(mneme: Mneme) -> None:
    host = Host(mneme)
    host.catch_all()
    async with host:
        await host.send(host.chats.text("/optout", LEO))
        await host.send(host.chats.text("hello", LEO))
        await host.send(host.chats.text("hello", ANA))
        await host.send(host.chats.text("/optin", LEO))
        await host.send(host.chats.text("hello again", LEO))
    assert [memory.subject for memory in host.seen] == ["telegram:1002", LEO_SUBJECT]
    assert mneme.config.get("adapters.telegram.opted_out") == []


async def test_the_block_waits_for_messages_the_bot_may_answer(mneme: Mneme) -> None:
    mneme.feel(LEO_SUBJECT, delta=-15, emotions={"worried": 40}, reason="Leo sounded tired")
    host = Host(mneme)
    host.catch_all()
    room = group()
    async with host:
        await host.send(host.chats.text("anyone up for lunch?", LEO, room))  # not to the bot
        assert host.seen[-1] is not None and host.seen[-1].block is None
        assert mneme.news(LEO_SUBJECT, mark=False) is not None  # the mood's news is still untold
        await host.send(host.chats.text("@mio_bot are you up for lunch?", LEO, room))
    block = host.seen[-1].block if host.seen[-1] else None
    assert block is not None and "Leo sounded tired" in block
    assert mneme.news(LEO_SUBJECT, mark=False) is None  # told now, once


async def test_memory_reply_is_plain_text_even_under_markdown_defaults(mneme: Mneme) -> None:
    host = Host(mneme, defaults=Defaults(parse_mode="MarkdownV2"))

    @remembered
    async def chat(update: Update, context: Any) -> None:
        async with context.memory.typing():
            answer = "*Mochi* is a _good_ cat [really] (yes!)"
        await context.memory.reply(answer)

    async def markdown(update: Update, context: Any) -> None:
        await update.message.reply_text("*bold*")

    host.app.add_handler(CommandHandler("md", markdown))
    host.app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, chat))
    async with host:
        await host.send(host.chats.text("tell me about Mochi", LEO))
        await host.send(host.chats.text("/md", LEO))
        await host.middleware.drain(5)
    plain, markdown_sent = host.api.sent()
    assert plain["text"] == "*Mochi* is a _good_ cat [really] (yes!)" and "parse_mode" not in plain
    assert markdown_sent["parse_mode"] == "MarkdownV2"  # the host's own default, left alone
    assert host.api.sent("sendChatAction") == [{"chat_id": LEO["id"], "action": "typing"}]
    assert host.middleware.observes.failed == 0


def test_install_twice_is_refused(mneme: Mneme) -> None:
    host = Host(mneme)
    assert middleware_of(host.app) is host.middleware
    with pytest.raises(ValueError, match="already installed"):
        install(host.app, mneme)
    with pytest.raises(ValueError, match="no command 'memroy'"):
        install(Application.builder().token("1:x").build(), mneme, commands=["memroy"])


# -- bounded waits (the bot layer's turn service under the middleware) ----------------------------------


def hang_for(mneme: Mneme, subject: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The memory hangs for one person: their `aprompt` never returns."""
    real = mneme.aprompt

    async def aprompt(who: str, *args: Any, **kwargs: Any) -> str:
        if who == subject:
            await asyncio.sleep(3600)
        return await real(who, *args, **kwargs)

    monkeypatch.setattr(mneme, "aprompt", aprompt)


async def test_one_persons_hung_memory_never_stalls_the_application(
    mneme: Mneme, monkeypatch: pytest.MonkeyPatch
) -> None:
    mneme.remember("telegram:1002", "Ana plays the cello.", kind="fact", importance=4)
    mneme.config.set("bot.prompt_timeout", 0.5)
    hang_for(mneme, LEO_SUBJECT, monkeypatch)
    host = Host(mneme)
    blocks: list[str] = []

    @remembered
    async def chat(update: Update, context: Any) -> Any:
        blocks.append(context.memory.block)
        return await context.memory.reply("ok")

    host.app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, chat))
    async with host:
        # Sequential processing, as PTB does by default: Ana's update comes after Leo's hung one.
        await asyncio.wait_for(host.send(host.chats.text("hello?", LEO)), 5)
        await asyncio.wait_for(host.send(host.chats.text("hi Mio", ANA)), 5)
        await host.middleware.drain(5)
    assert blocks[0] == ""  # Leo's reply went without the block it could not get in time
    assert "Ana plays the cello." in blocks[1]
    assert host.api.texts() == ["ok", "ok"]
    assert host.middleware.turns.report()["prompt_timeout"] == 1


async def test_app_stop_returns_while_an_observe_hangs_and_the_exchange_waits(
    mneme: Mneme, clock: Any
) -> None:
    host = Host(mneme, judge=lambda system, user: judge.complete(system, user))
    judge = GatedJudge(host.api, "never written")  # its gate never opens: the judge hangs

    @remembered
    async def chat(update: Update, context: Any) -> Any:
        return await context.memory.reply("Noted!")

    host.app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, chat))
    await host.app.initialize()
    await host.app.start()
    await host.send(host.chats.text("I start a new job on Monday", LEO))
    await host.api.called("sendMessage")
    for _ in range(100):  # until the judge is being asked
        if judge.asked:
            break
        await asyncio.sleep(0.01)
    assert judge.asked
    await asyncio.wait_for(host.app.stop(), 5)  # never waits on the hung observe
    await host.app.shutdown()
    await host.middleware.aclose(0.1)
    assert host.middleware.turns.report()["observes_kept_for_next_start"] == 1
    clock.advance(mneme.config.get("bot.observe_timeout") + 31)  # its lease runs out
    assert mneme.transcript.due() == [LEO_SUBJECT]  # kept, to be observed by the next start


async def test_remembered_does_not_tell_the_news_to_a_group_message_not_addressed(mneme: Mneme) -> None:
    mneme.feel(LEO_SUBJECT, delta=-15, emotions={"worried": 40}, reason="Leo sounded tired")
    host = Host(mneme)
    blocks: list[str | None] = []

    @remembered
    async def everything(update: Update, context: Any) -> None:
        blocks.append(context.memory.block)

    host.app.add_handler(MessageHandler(filters.TEXT, everything))
    async with host:
        await host.send(host.chats.text("anyone up for lunch?", LEO, group()))
    assert blocks and "Leo sounded tired" in (blocks[0] or "")  # the host may answer it: the block is there
    assert mneme.news(LEO_SUBJECT, mark=False) is not None  # and the news is still to be told


async def test_the_examples_handler_skips_an_update_from_nobody(mneme: Mneme) -> None:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parent.parent / "examples" / "telegram_bot.py"
    spec = importlib.util.spec_from_file_location("telegram_bot_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    host = Host.__new__(Host)
    api = OfflineAPI()
    builder = Application.builder().token(api.token).request(api).get_updates_request(api)
    host.api, host.app, host.chats, host.seen = api, builder.updater(None).build(), Chats(), []
    example.own_bot(host.app, mneme)
    host.middleware = middleware_of(host.app)
    errors: list[BaseException] = []

    async def caught(update: object, context: Any) -> None:
        errors.append(context.error)

    host.app.add_error_handler(caught)
    anonymous = host.chats.text("hello all", LEO, group())
    anonymous["message"]["sender_chat"] = {"id": -100123, "type": "supergroup", "title": "Friends"}
    async with host:
        await host.send(anonymous)  # an anonymous admin: nobody to remember, nothing to answer
        await host.send(host.chats.text("hi there", LEO))
        await host.middleware.drain(5)
    assert errors == []
    assert api.texts() == ["Tell me more!"]
