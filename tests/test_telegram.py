"""The Telegram adapter answering by itself, on a real python-telegram-bot `Application` driven offline.

The Bot API is `mneme_telegram.testing.OfflineAPI` (a `BaseRequest` answering getMe, recording sendMessage
and sendChatAction); updates are Telegram's JSON through `Update.de_json`, fed to `process_update` (and, in
the last tests, to long polling). The memory is a real `Mneme` on a temporary file with a frozen clock; the
reply model and the judge are scripted.
"""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mneme_telegram
import pytest
from mneme_telegram.adapter import TelegramAdapter
from mneme_telegram.consent import KEY
from mneme_telegram.outgoing import TELEGRAM_LIMIT, Patience, parts_of, units
from mneme_telegram.testing import ANA, BOT, LEO, OTHER_BOT, Chats, OfflineAPI, group
from telegram import Update
from telegram.ext import Application

from mneme_core import Mneme
from mneme_core.adapters import Adapter, Incoming
from mneme_core.plugins import PluginError, make_manager
from mneme_core.runner import Runner, RunnerSettings, build_adapters

ROOT = Path(__file__).resolve().parent.parent


class Replier:
    """The reply model: `answer(user)` (default `re: <user>`); records each system prompt and message."""

    def __init__(self, answer: Callable[[str], str] | None = None) -> None:
        self.answer = answer or (lambda user: f"re: {user}")
        self.calls: list[tuple[str, str]] = []

    async def complete(self, system: str, user: str) -> str:
        self.calls.append((system, user))
        return self.answer(user)

    @property
    def systems(self) -> list[str]:
        return [system for system, _ in self.calls]


class Notebook:
    """The judge and the note writer: a message containing a phrase is worth keeping, as the notes given."""

    def __init__(self, notes: dict[str, list[dict[str, Any]]]) -> None:
        self.notes = notes
        self.asked: list[str] = []

    async def complete(self, system: str, user: str) -> str:
        self.asked.append(user)
        found = next((kept for phrase, kept in self.notes.items() if phrase in user), None)
        if "QUESTIONS:" in user:
            worth = 0.9 if found else 0.05
            return json.dumps({"mood_change": {"level": "0"}, "worth_remembering": {"probability": worth}})
        return json.dumps(found or [])


class Harness:
    """An adapter on an offline Application, with a runner over `mneme`."""

    def __init__(
        self,
        mneme: Mneme,
        model: Any = None,
        *,
        judge: Any = None,
        settings: dict[str, Any] | None = None,
        patience: Patience | None = None,
        runner: RunnerSettings | None = None,
    ) -> None:
        self.api = OfflineAPI()
        self.app = (
            Application.builder()
            .token(self.api.token)
            .request(self.api)
            .get_updates_request(self.api)
            .updater(None)
            .build()
        )
        self.model = model if model is not None else Replier()
        self.adapter = TelegramAdapter(settings or {}, application=self.app, patience=patience)
        self.runner = Runner(mneme, self.model, judge=judge, settings=runner)
        self.chats = Chats()

    async def __aenter__(self) -> Harness:
        await self.adapter.start(self.runner)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.adapter.stop()
        await self.runner.aclose(5)

    async def send(self, update: dict[str, Any]) -> None:
        await self.app.process_update(Update.de_json(update, self.app.bot))
        await self.runner.drain(5)  # the reply, and the observe after it

    async def say(self, text: str, user: dict[str, Any] = LEO, chat: dict[str, Any] | None = None, **kw: Any):
        await self.send(self.chats.text(text, user, chat, **kw))


def live(mneme: Mneme, user: dict[str, Any]) -> list[str]:
    return [note.text for note in mneme.notes(f"telegram:{user['id']}")]


# -- a private conversation ----------------------------------------------------------------------------


async def test_a_private_conversation_is_remembered_the_next_day(mneme: Mneme, clock) -> None:
    judge = Notebook(
        {"adopted a cat": [{"text": "Leo adopted a cat called Mochi.", "kind": "episode", "importance": 3}]}
    )
    async with Harness(mneme, judge=judge.complete) as bot:
        await bot.say("I adopted a cat called Mochi today!")
        assert bot.api.sent("sendChatAction") == [{"chat_id": LEO["id"], "action": "typing"}]
        assert bot.api.texts() == ["re: I adopted a cat called Mochi today!"]
        assert "reply_parameters" not in bot.api.sent()[0]  # a private chat is not quoted
        assert "parse_mode" not in bot.api.sent()[0]  # plain text
        assert live(mneme, LEO) == ["Leo adopted a cat called Mochi."]

        clock.advance(days=1)
        await bot.say("How do I keep my cat Mochi from scratching the sofa?")
        system, user = bot.model.calls[-1]
        assert "[yesterday] Leo adopted a cat called Mochi." in system
        assert user == "How do I keep my cat Mochi from scratching the sofa?"
        assert bot.api.texts()[-1] == "re: How do I keep my cat Mochi from scratching the sofa?"
    assert bot.runner.report()["observed"] == 2


async def test_the_incoming_message_has_string_ids_and_the_display_name(mneme: Mneme) -> None:
    async with Harness(mneme) as bot:
        chats = Chats()
        update = Update.de_json(chats.text("@mio_bot hello there", ANA, group()), bot.app.bot)
        incoming = bot.adapter.incoming(update)
    assert incoming is not None
    assert (incoming.user_id, incoming.chat_id) == ("1002", "-1001234567890")
    assert incoming.user_name == "Ana Lima" and incoming.text == "Ana Lima in Friends: hello there"
    assert (incoming.is_direct, incoming.addressed, incoming.subject) == (False, True, "telegram:1002")


# -- a group -------------------------------------------------------------------------------------------


async def test_a_group_keeps_two_speakers_apart(mneme: Mneme) -> None:
    judge = Notebook(
        {
            "hiking": [{"text": "Leo loves hiking in the Alps.", "kind": "preference", "importance": 3}],
            "cello": [{"text": "Ana plays the cello.", "kind": "fact", "importance": 3}],
        }
    )
    room = group()
    async with Harness(mneme, judge=judge.complete, settings={"names": ["Mio"]}) as bot:
        await bot.say("@mio_bot I love hiking in the Alps", LEO, room)  # a mention
        await bot.say("Mio, I play the cello in an orchestra", ANA, room)  # named
        await bot.say("Leo, the cello is heavy to carry", ANA, room)  # not addressed
        answered = bot.chats.sent_by_bot("re: I love hiking", room)
        await bot.say("What should I pack for hiking?", LEO, room, reply_to=answered)  # a reply to the bot
        await bot.say("/ask what should I play on my cello next?", ANA, room)  # the ask command

        assert live(mneme, LEO) == ["Leo loves hiking in the Alps."]
        assert live(mneme, ANA) == ["Ana plays the cello."]
        assert bot.runner.report()["ignored"] == 1  # the message between the two of them
        assert [user for _, user in bot.model.calls] == [  # who spoke, and where
            "Leo in Friends: I love hiking in the Alps",
            "Ana Lima in Friends: Mio, I play the cello in an orchestra",
            "Leo in Friends: What should I pack for hiking?",
            "Ana Lima in Friends: what should I play on my cello next?",
        ]
        assert "Leo in Friends: I love hiking in the Alps" in judge.asked[0]
        leo_packing, ana_asks = bot.model.systems[2], bot.model.systems[3]
        assert "Leo loves hiking" in leo_packing and "cello" not in leo_packing
        assert "Ana plays the cello." in ana_asks and "hiking" not in ana_asks
        sent = bot.api.sent()
        assert all(part["chat_id"] == room["id"] for part in sent)
        assert all("reply_parameters" in part for part in sent)  # each answer quotes whom it answers
        assert len(sent) == 4


# -- commands ------------------------------------------------------------------------------------------


async def test_memory_forget_and_mood_commands(mneme: Mneme) -> None:
    subject = f"telegram:{LEO['id']}"
    cat = mneme.remember(subject, "Leo has a cat called Mochi.", kind="fact", importance=4)
    trip = mneme.remember(subject, "Leo goes to Lisbon in May.", kind="plan", importance=3)
    mneme.remember(f"telegram:{ANA['id']}", "Ana plays the cello.", kind="fact")
    async with Harness(mneme) as bot:
        await bot.say("/memory")
        listing = bot.api.texts()[-1]
        assert f"#{cat.id} Leo has a cat called Mochi." in listing
        assert f"#{trip.id} [today] Leo goes to Lisbon in May." in listing
        assert "cello" not in listing

        await bot.say(f"/forget {trip.id}")
        assert bot.api.texts()[-1] == "Forgotten."
        assert live(mneme, LEO) == ["Leo has a cat called Mochi."]

        ana_note = mneme.notes(f"telegram:{ANA['id']}")[0]
        await bot.say(f"/forget {ana_note.id}")  # someone else's note is not Leo's to forget
        assert bot.api.texts()[-1] == f"I have no note #{ana_note.id} about you."
        assert live(mneme, ANA) == ["Ana plays the cello."]

        await bot.say("/forget")
        assert bot.api.texts()[-1].startswith("/forget <number> forgets one thing")

        await bot.say("/mood")
        assert bot.api.texts()[-1].startswith("Mood 70/100")

        await bot.say("/memory@mio_bot", LEO, group())  # in a group: not in front of everyone
        assert bot.api.texts()[-1].endswith("https://t.me/mio_bot") and "Mochi" not in bot.api.texts()[-1]

        count = len(bot.api.texts())
        await bot.say("/memory@helper_bot", LEO, group())  # another bot's command
        assert len(bot.api.texts()) == count

        await bot.say("/start")
        assert "/memory" in bot.api.texts()[-1] and "/optout" in bot.api.texts()[-1]
    assert bot.model.calls == []  # no command reached the model


async def test_forget_all_asks_with_a_button_only_the_asker_may_press(mneme: Mneme, clock) -> None:
    subject = f"telegram:{LEO['id']}"
    mneme.remember(subject, "Leo has a cat called Mochi.", kind="fact")
    mneme.remember(subject, "Leo works night shifts.", kind="fact")
    mneme.feel(subject, delta=10)
    assert mneme.mood(subject).value > 70
    room = group()
    async with Harness(mneme) as bot:
        await bot.say("/forget all", LEO, room)
        question = bot.api.sent()[-1]
        buttons = question["reply_markup"]["inline_keyboard"][0]
        yes, no = (button["callback_data"] for button in buttons)
        assert yes.startswith("mneme:forget:yes:1001:") and no.startswith("mneme:forget:no:1001:")

        await bot.send(bot.chats.button(yes, ANA, question, query_id="ana"))  # not hers to press
        refused = bot.api.sent("answerCallbackQuery")[-1]
        assert refused["callback_query_id"] == "ana" and refused["show_alert"] is True
        assert len(live(mneme, LEO)) == 2

        await bot.send(bot.chats.button(no, LEO, question, query_id="no"))
        assert bot.api.sent("editMessageText")[-1]["text"] == "All right, I keep what I remember."
        assert len(live(mneme, LEO)) == 2

        clock.advance(minutes=11)
        await bot.send(bot.chats.button(yes, LEO, question, query_id="late"))  # asked too long ago
        assert "expired" in bot.api.sent("editMessageText")[-1]["text"]
        assert len(live(mneme, LEO)) == 2

        await bot.say("/forget all", LEO, room)
        question = bot.api.sent()[-1]
        yes = question["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        await bot.send(bot.chats.button(yes, LEO, question, query_id="yes"))
        assert bot.api.sent("editMessageText")[-1]["text"] == "Done: I forgot everything about you (2 notes)."
        assert live(mneme, LEO) == []
        assert mneme.mood(subject).value == 70  # the mood went too
    assert bot.model.calls == []


# -- opting out ----------------------------------------------------------------------------------------


async def test_a_person_who_opted_out_is_skipped_entirely(db_path: Path, clock) -> None:
    judge = Notebook({"tea": [{"text": "Leo drinks green tea.", "kind": "preference", "importance": 3}]})
    with Mneme(db_path, space="optout", clock=clock, zone="UTC") as mneme:
        async with Harness(mneme, judge=judge.complete) as bot:
            await bot.say("/optout")
            assert bot.api.texts()[-1].startswith("All right: I won't read or remember")
            bot.api.clear()
            await bot.say("I drink green tea every morning")
            await bot.say("/memory")
            await bot.say("@mio_bot do you like tea?", LEO, group())
            assert bot.api.calls == []  # no reply, no typing, no command answer
            assert bot.model.calls == [] and judge.asked == []
            assert live(mneme, LEO) == []
            assert bot.runner.report().get("received", 0) == 0
            assert mneme.config.get(KEY) == ["1001"]

    with Mneme(db_path, space="optout", clock=clock, zone="UTC") as mneme:  # a restart remembers the wish
        async with Harness(mneme, judge=judge.complete) as bot:
            await bot.say("I drink green tea every morning")
            assert bot.api.calls[1:] == [] and bot.model.calls == []
            await bot.say("/optin")
            assert bot.api.texts() == ["Welcome back: I'm listening again."]
            await bot.say("I drink green tea every morning")
            assert bot.api.texts()[-1] == "re: I drink green tea every morning"
            assert live(mneme, LEO) == ["Leo drinks green tea."]
            assert mneme.config.get(KEY) == []


async def test_someone_who_opted_out_can_still_be_forgotten(mneme: Mneme) -> None:
    mneme.remember(f"telegram:{LEO['id']}", "Leo has a cat called Mochi.", kind="fact")
    async with Harness(mneme) as bot:
        await bot.say("/optout")
        await bot.say("/forget all")
        question = bot.api.sent()[-1]
        yes = question["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        await bot.send(bot.chats.button(yes, LEO, question))
    assert live(mneme, LEO) == []


# -- sending -------------------------------------------------------------------------------------------


async def test_a_long_reply_is_split_under_telegrams_limit_in_utf16_units(mneme: Mneme) -> None:
    paragraph = "Mochi *sleeps* on the _warm_ laptop 🐱🐾 [again]. " * 12
    reply = "\n\n".join(f"{n}. {paragraph}" for n in range(20))
    async with Harness(mneme, Replier(lambda user: reply)) as bot:
        await bot.say("Tell me everything about cats")
    parts = bot.api.texts()
    assert len(parts) >= 3
    assert all(units(part) <= TELEGRAM_LIMIT for part in parts)
    assert "".join(parts).replace("\n", "").replace(" ", "") == reply.replace("\n", "").replace(" ", "")
    assert all("parse_mode" not in sent for sent in bot.api.sent())  # the model's * and _ go out as they are


def test_parts_are_cut_again_when_astral_characters_make_them_too_long() -> None:
    faces = "😀" * 3000 + " " + "😺" * 3000  # 6,001 code points, 12,001 UTF-16 units
    parts = parts_of(faces)
    assert len(parts) >= 3
    assert all(units(part) <= TELEGRAM_LIMIT for part in parts)
    assert "".join(parts).replace(" ", "") == faces.replace(" ", "")


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # PTB's RetryAfter itself
async def test_flood_control_is_waited_out_and_the_message_sent_once(mneme: Mneme) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async with Harness(mneme, patience=Patience(sleep=sleep)) as bot:
        bot.api.flood("sendMessage", 3)
        await bot.say("hello")
        assert waits == [3.5]  # what Telegram asked, and half a second of slack
        assert [method for method in bot.api.methods() if method == "sendMessage"] == ["sendMessage"] * 2
        assert bot.runner.report()["sent"] == 1 and "send_failed" not in bot.runner.report()

        bot.api.flood("sendMessage", 120)  # longer than the adapter waits: the part fails, logged
        await bot.say("hello again")
        assert waits == [3.5]
        assert bot.runner.report()["send_failed"] == 1

        bot.api.flood("sendMessage", 1, times=5)  # more retries than it tries
        await bot.say("and again")
        assert waits == [3.5, 1.5, 1.5, 1.5]
        assert bot.runner.report()["send_failed"] == 2

        bot.api.fail("sendMessage", 403, "Forbidden: bot was blocked by the user")  # not retried
        await bot.say("one more")
        assert waits == [3.5, 1.5, 1.5, 1.5]
        assert bot.runner.report()["send_failed"] == 3


# -- what is not conversation ---------------------------------------------------------------------------


async def test_edits_media_bots_and_channel_posts_are_skipped_without_crashing(
    mneme: Mneme, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    room = group()
    async with Harness(mneme) as bot:
        chats = bot.chats
        updates = [
            chats.message("I meant to say hello", LEO, kind="edited_message"),
            chats.message(
                None, LEO, photo=[{"file_id": "p", "file_unique_id": "p", "width": 1, "height": 1}]
            ),
            chats.message(None, LEO, sticker=_sticker()),
            chats.message("news of the day", LEO, {"id": -100777, "type": "channel"}, kind="channel_post"),
            chats.message("@mio_bot ping", OTHER_BOT, room),
            chats.message("I talk to myself", BOT),
            chats.message(
                "@mio_bot hi", _ANONYMOUS, room, sender_chat={"id": room["id"], "type": "supergroup"}
            ),
            chats.message("   ", LEO),
            chats.message("/unknown_command", LEO),
            {"update_id": 99, "my_chat_member": _member_update(room)},
            chats.button("someone:else:data", LEO, {"chat_id": LEO["id"], "text": "old"}),
        ]
        for update in updates:
            await bot.send(update)
        assert bot.api.sent() == [] and bot.model.calls == []
        await bot.send(chats.message(None, LEO, photo=_photo(), caption="look at Mochi"))
        await bot.send(chats.message(None, ANA, room, photo=_photo(), caption="our hike"))  # not addressed
        await bot.say("and now a real message")
        assert bot.api.texts() == ["re: [photo] look at Mochi", "re: and now a real message"]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


def _photo() -> list[dict[str, Any]]:
    return [{"file_id": "p", "file_unique_id": "p", "width": 1, "height": 1}]


def _sticker() -> dict[str, Any]:
    return {
        "file_id": "s",
        "file_unique_id": "s",
        "type": "regular",
        "width": 512,
        "height": 512,
        "is_animated": False,
        "is_video": False,
    }


_ANONYMOUS = {"id": 1087968824, "is_bot": True, "first_name": "Group", "username": "GroupAnonymousBot"}


def _member_update(room: dict[str, Any]) -> dict[str, Any]:
    member = {"user": BOT, "status": "member"}
    return {
        "chat": room,
        "from": LEO,
        "date": 1_709_294_400,
        "old_chat_member": {"user": BOT, "status": "left"},
        "new_chat_member": member,
    }


# -- running beside other adapters -----------------------------------------------------------------------


class Beside(Adapter):
    """Another platform on the same loop (Discord's place in `mneme run discord telegram`)."""

    name = "beside"

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []
        self.stopped = False

    async def start(self, runner: Runner) -> None:
        await runner.submit(self, Incoming(platform="beside", user_id="7", text="hello from beside"))

    async def stop(self) -> None:
        self.stopped = True

    async def send(self, incoming: Incoming, text: str) -> None:
        self.sent.append(text)


async def test_polling_runs_beside_another_adapter_on_one_loop(mneme: Mneme) -> None:
    api = OfflineAPI()
    app = Application.builder().token(api.token).request(api).get_updates_request(api).build()
    telegram = TelegramAdapter({}, application=app)
    beside = Beside()
    runner = Runner(mneme, Replier())
    serving = asyncio.create_task(runner.serve([telegram, beside], signals=False))
    await api.called("deleteWebhook")  # start_polling's bootstrap: the updater runs on our loop
    assert app.running and app.updater is not None and app.updater.running
    api.feed(Chats().text("hello from Telegram", LEO))
    await api.called("sendMessage")
    await runner.drain(5)
    runner.stop_soon()
    await asyncio.wait_for(serving, 10)
    assert api.texts() == ["re: hello from Telegram"]
    assert beside.sent == ["re: hello from beside"] and beside.stopped
    assert not app.running and not app.updater.running  # stopped in reverse, nothing left polling


async def test_a_missing_token_is_named_and_nothing_is_left_running(mneme: Mneme) -> None:
    adapter = TelegramAdapter({"token": {"$env": "MNEME_TEST_NO_SUCH_TOKEN"}}, environ={})
    with pytest.raises(PluginError, match="MNEME_TEST_NO_SUCH_TOKEN"):
        await adapter.start(Runner(mneme, Replier()))
    assert adapter._started == []
    with pytest.raises(PluginError, match="needs a bot token"):
        await TelegramAdapter({}, environ={}).start(Runner(mneme, Replier()))


async def test_a_refused_token_is_named_and_the_application_shut_down(mneme: Mneme) -> None:
    api = OfflineAPI()
    api.fail("getMe", 401, "Unauthorized")
    app = Application.builder().token(api.token).request(api).get_updates_request(api).build()
    adapter = TelegramAdapter({}, application=app)
    with pytest.raises(PluginError, match="refused the bot token"):
        await adapter.start(Runner(mneme, Replier()))
    assert not app.running and adapter._started == []


def test_the_adapter_is_made_from_the_companions_config(mneme: Mneme) -> None:
    mneme.config.apply(
        {"adapters": {"telegram": {"token": {"$env": "TELEGRAM_BOT_TOKEN"}, "names": ["Mio"]}}}
    )
    mneme.config.set(KEY, ["1001"])  # an opt-out lives in the same table: it must not be refused
    manager = make_manager(plugins=[mneme_telegram], load_entry_points=False, environ={})
    (adapter,) = build_adapters(manager, ["telegram"], {"telegram": mneme.config.table("adapters.telegram")})
    assert isinstance(adapter, TelegramAdapter) and adapter.options.names == ("Mio",)
    assert adapter.settings["token"] == {"$env": "TELEGRAM_BOT_TOKEN"}  # still a reference until start


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match=r"adapters.telegram.tokn: no such setting \(did you mean token\?\)"):
        TelegramAdapter({"tokn": "x"})
    with pytest.raises(TypeError, match="names is a list"):
        TelegramAdapter({"names": "Mio"})
    with pytest.raises(ValueError, match="flood_wait"):
        TelegramAdapter({"flood_wait": -1})


# -- registration ---------------------------------------------------------------------------------------


def test_the_plugin_registers_the_adapter_without_importing_telegram() -> None:
    manager = make_manager(plugins=[mneme_telegram], load_entry_points=False, environ={})
    adapter = manager.adapters["telegram"]({"token": {"$env": "TELEGRAM_BOT_TOKEN"}})
    assert isinstance(adapter, TelegramAdapter) and adapter.limit < TELEGRAM_LIMIT
    code = (
        "import sys, mneme_telegram\n"
        "from mneme_core.plugins import make_manager\n"
        "make_manager(plugins=[mneme_telegram], load_entry_points=False, environ={})\n"
        "assert not any(m == 'telegram' or m.startswith('telegram.') for m in sys.modules), 'imported'\n"
    )
    env = {"PYTHONPATH": f"{ROOT / 'adapters'}:{ROOT}", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
