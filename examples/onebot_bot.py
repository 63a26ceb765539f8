"""Mneme on WeChat and QQ, through a OneBot v11/v12 bridge (NapCat, LLOneBot, Lagrange, a WeChat bridge).

    pip install "mneme-bots[onebot]"
    python examples/onebot_bot.py [companion.db]        # the adapter answers by itself
    python examples/onebot_bot.py [companion.db] own    # your own bot: your model call, Mneme's memory

Then point the bridge's reverse WebSocket at ws://127.0.0.1:8080/onebot/v11/ws (v12 bridges:
/onebot/v12/ws); `examples/onebot_bridge.md` says how for each bridge. Set ONEBOT_TOKEN to require the
bridge's access token (required when ONEBOT_HOST is not loopback); ONEBOT_PORT changes the port.

1. By itself: the runner does everything: answers private messages and, in groups, messages that @-mention
   the bot, reply to it or start with its name; shows typing; remembers off the reply's path. The model is
   the one configured in the companion's file (`[plugins.openai]`), else an offline stand-in that shows the
   memory block. The same as `mneme --config bot.toml run onebot`.
2. Your own bot: `adapter.listen(handler)` hands you every message (in groups too, `incoming.addressed`
   says whether it was to the bot); you ask Mneme for the memory block, call your model, reply with
   `adapter.reply`, and let Mneme observe the exchange in the background.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from typing import Any

from mneme_onebot import OneBotAdapter

from mneme_core import Mneme
from mneme_core.bot import Incoming, Runner, RunnerSettings, close_model, model_from_config

PERSONA = "You are Mio, a warm companion who remembers what people tell you."


def settings() -> dict[str, Any]:
    """The `[adapters.onebot]` table (in a bot.toml it would be written there instead)."""
    table: dict[str, Any] = {
        "host": os.environ.get("ONEBOT_HOST", "127.0.0.1"),
        "port": int(os.environ.get("ONEBOT_PORT", "8080")),
        "platform": os.environ.get("ONEBOT_PLATFORM", "qq"),  # v11 bridges do not say; v12 ones do
        "names": ["Mio", "米奥"],
    }
    if "ONEBOT_TOKEN" in os.environ:
        table["access_token"] = {"$env": "ONEBOT_TOKEN"}  # a reference: the token never sits in a file
    return table


async def by_itself(m: Mneme) -> None:
    model = model_from_config(m)
    runner = Runner(m, model, settings=RunnerSettings(persona=PERSONA))
    try:
        await runner.serve([OneBotAdapter(settings())])  # until Ctrl-C
    finally:
        await close_model(model)
    print(runner.report())


async def my_model(system: str, text: str) -> str:
    """Your own model call goes here (an HTTP API, a local model, NoneBot's LLM plugin...)."""
    remembered = [line[2:] for line in system.splitlines() if line.startswith("- ")]
    return f"You said: {text}" + (f" (I remember: {remembered[0]})" if remembered else "")


async def own_bot(m: Mneme) -> None:
    adapter = OneBotAdapter(settings())
    observing: set[asyncio.Task[Any]] = set()

    async def on_message(incoming: Incoming) -> None:
        if not (incoming.is_direct or incoming.addressed):
            return  # a group message to others: a bot of your own may still read it
        subject = incoming.subject  # onebot:qq:10001, onebot:wechat:wxid_abc
        block = await m.aprompt(subject, query=incoming.text, user_name=incoming.user_name)
        reply = await my_model(f"{PERSONA}\n\n{block}", incoming.text)
        await adapter.reply(incoming, reply)
        exchange = [
            {"role": "user", "content": incoming.text},
            {"role": "assistant", "content": reply},
        ]  # remembered after the reply went out, never on its path
        task = asyncio.create_task(m.aobserve(subject, exchange, user_name=incoming.user_name or "the user"))
        observing.add(task)
        task.add_done_callback(observing.discard)

    await adapter.listen(on_message)
    print(f"listening on {adapter.config.host}:{adapter.port}; Ctrl-C to stop")
    stop = asyncio.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # Windows: Ctrl-C ends it the plain way
            asyncio.get_running_loop().add_signal_handler(number, stop.set)
    try:
        await stop.wait()
    finally:
        await adapter.stop()
        await asyncio.gather(*observing, return_exceptions=True)


async def run(path: str, own: bool) -> None:
    async with Mneme(path, space="onebot") as m:
        await (own_bot(m) if own else by_itself(m))


def main() -> None:
    args = [arg for arg in sys.argv[1:] if arg != "own"]
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(args[0] if args else "companion.db", "own" in sys.argv[1:]))


if __name__ == "__main__":
    main()
