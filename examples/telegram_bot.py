"""Mneme on Telegram, both ways (python-telegram-bot 22: `pip install "mneme-bots[telegram]"`).

1. The companion answers by itself. Write `bot.toml`:

       [companion]
       name = "Mio"
       persona = "You are Mio, a warm and curious companion. Keep replies short."

       [adapters.telegram]
       token = { "$env" = "TELEGRAM_BOT_TOKEN" }
       names = ["Mio"]            # in groups: mention, reply, /ask, or say its name

       [plugins.openai]           # any OpenAI-compatible endpoint
       base_url = "https://api.deepseek.com/v1"
       model = "deepseek-chat"
       api_key = { "$env" = "DEEPSEEK_API_KEY" }

   and run `mneme --db companion.db run telegram --config bot.toml` (or `run discord telegram`: both on one
   event loop). In code that is `run_bot(mneme, ["telegram"])`: `python examples/telegram_bot.py run`.

2. Your own bot and your own model call, with Mneme around it: `install(app, mneme)` and `@remembered`
   (`own_bot` below): `TELEGRAM_BOT_TOKEN=... python examples/telegram_bot.py own`.

3. No token at hand: `python examples/telegram_bot.py offline` plays a two-day conversation against an
   offline Bot API (`mneme_telegram.testing`): day 1 through the adapter answering by itself, day 2 through
   your own bot with the middleware, on the same file, and prints what the bot sent and remembered. The
   judge is the demo's scripted one (`mneme_core.bot.demo`), so what is kept goes through the real engine.

From a checkout without installing, put the adapters on the path: `PYTHONPATH=adapters python examples/...`.

People talking to either bot have `/memory`, `/forget <number>`, `/forget all` (with a confirmation button),
`/mood`, `/optout` and `/optin`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import tempfile
from typing import Any

from mneme_telegram import TelegramAdapter, install, remembered
from telegram import Update
from telegram.ext import Application, ContextTypes, MessageHandler, filters

from mneme_core import Mneme
from mneme_core.bot import Runner, RunnerSettings, run_bot
from mneme_core.bot.demo import DAYS, START, ScriptedMemory

PERSONA = "You are Mio, a warm and curious companion. Keep replies short."


# -- 2. your own bot -----------------------------------------------------------------------------------


async def my_model(system: str, user: str) -> str:
    """Your model call goes here (OpenAI, DeepSeek, a local model...). This stand-in says what it recalls."""
    recalled = [line[2:] for line in system.splitlines() if line.startswith("- ")]
    if recalled:
        return f"I remember: {recalled[0]} What's new?"
    return "Tell me more!"


def own_bot(app: Application[Any, Any, Any, Any, Any, Any], mneme: Mneme) -> None:
    """Memory around your own reply handler: the block before it, the observe after the reply is sent."""
    install(app, mneme)  # the subject, the block on the context, the commands, opt-outs

    @remembered  # aobserve runs after this returns, off the reply's path
    async def chat(update: Update, context: ContextTypes.DEFAULT_TYPE) -> Any:
        memory = context.memory  # type: ignore[attr-defined]
        if memory is None or not memory.addressed:
            return None  # from nobody (a channel post, an anonymous admin); in a group, only when addressed
        async with memory.typing():
            answer = await my_model(PERSONA + "\n\n" + await memory.prompt(), memory.text)
        return await memory.reply(answer)  # plain text, split to fit, flood control obeyed

    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, chat))


def run_own(db: str) -> None:
    token = os.environ.get("TELEGRAM_BOT_TOKEN")
    if not token:
        sys.exit("set TELEGRAM_BOT_TOKEN (from @BotFather) first")
    with Mneme(db, space="mio", complete=my_model) as mneme:  # complete: your judge model, for observe
        app = Application.builder().token(token).build()
        own_bot(app, mneme)
        app.run_polling()  # your bot alone owns the loop here; `mneme run` does not use run_polling


# -- 1. the companion by itself ---------------------------------------------------------------------------


def run_alone(db: str, config: str) -> None:
    with Mneme(db, space="mio", config=config) as mneme:
        report = asyncio.run(run_bot(mneme, ["telegram"]))
    print(report)


# -- 3. both, offline -------------------------------------------------------------------------------------


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def offline_app(api: Any) -> Application[Any, Any, Any, Any, Any, Any]:
    return Application.builder().token(api.token).request(api).get_updates_request(api).updater(None).build()


async def play_offline(db: str) -> None:
    from mneme_telegram.testing import LEO, Chats, OfflineAPI

    clock = Clock(START)
    chats = Chats(int(START))
    judge = ScriptedMemory()
    (day1, first), (day2, second) = DAYS
    async with Mneme(db, space="mio", clock=clock, zone="UTC", complete=judge.complete) as mneme:
        print(f"=== {day1}: the adapter answers by itself (the offline model shows its prompt) ===")
        api = OfflineAPI()
        app = offline_app(api)
        runner = Runner(mneme, settings=RunnerSettings(persona=PERSONA))
        adapter = TelegramAdapter({}, application=app)
        await adapter.start(runner)
        for turn in (*first, None):
            said = turn.text if turn else "/memory"
            print(f"\nLeo: {said}")
            await app.process_update(Update.de_json(chats.text(said, LEO), app.bot))
            await runner.drain()
            for text in api.texts():
                print(f"Mio: {text}")
            api.clear()
        await adapter.stop()
        await runner.aclose()

        clock.now += 86_400
        print(f"\n=== {day2}: your own bot, with the middleware ===")
        api = OfflineAPI()
        app = offline_app(api)
        own_bot(app, mneme)
        async with app:
            await app.start()
            for turn in second:
                print(f"\nLeo: {turn.text}")
                await app.process_update(Update.de_json(chats.text(turn.text, LEO), app.bot))
                for text in api.texts():
                    print(f"Mio: {text}")
                api.clear()
            await app.stop()  # waits for the observes still running
        print("\n=== what Mio remembers of Leo ===")
        for note in mneme.notes(f"telegram:{LEO['id']}"):
            print(f"  #{note.id} {note.text} ({note.kind})")


def main(argv: list[str]) -> None:
    logging.basicConfig(level=logging.WARNING)
    mode = argv[1] if len(argv) > 1 else "offline"
    if mode == "offline":
        with tempfile.TemporaryDirectory() as folder:
            asyncio.run(play_offline(os.path.join(folder, "companion.db")))
    elif mode == "own":
        run_own(os.environ.get("MNEME_DB", "companion.db"))
    elif mode == "run":
        run_alone(os.environ.get("MNEME_DB", "companion.db"), argv[2] if len(argv) > 2 else "bot.toml")
    else:
        sys.exit("usage: python examples/telegram_bot.py [offline | own | run [bot.toml]]")


if __name__ == "__main__":
    main(sys.argv)
