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
   says whether it was to the bot); `Turns` keeps the line and gives the prompt (the memory block and the
   conversation's earlier lines), you call your model and reply with `adapter.reply`, and `Turns.finish`
   keeps the reply and observes the exchange in the background, as the runner and every drop-in mode do.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from mneme_onebot import OneBotAdapter

from mneme_core import Mneme
from mneme_core.bot import Incoming, Runner, RunnerSettings, Turns, close_model, model_from_config

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


async def my_model(messages: list[dict[str, str]]) -> str:
    """Your own model call goes here (an HTTP API, a local model, NoneBot's LLM plugin...): the system
    prompt (persona and memory block), the conversation's earlier lines, the current line."""
    system, text = messages[0]["content"], messages[-1]["content"]
    remembered = [line[2:] for line in system.splitlines() if line.startswith("- ")]
    return f"You said: {text}" + (f" (I remember: {remembered[0]})" if remembered else "")


def handler_for(adapter: OneBotAdapter, turns: Turns) -> Callable[[Incoming], Awaitable[None]]:
    """What your bot does with each message: `Turns` around your own model call."""

    async def on_message(incoming: Incoming) -> None:
        turn = await turns.begin(incoming)  # onebot:qq:10001; the line kept, in groups too
        if not turn.wanted:
            return  # a group message to others: kept as the room's context, not answered
        prompted = await turns.prompt(turn, PERSONA)
        reply = await asyncio.wait_for(my_model(prompted.messages()), 120)
        await adapter.reply(incoming, reply)
        await turns.finish(turn, reply)  # observed after the reply went out, never on its path

    return on_message


async def own_bot(m: Mneme) -> None:
    adapter = OneBotAdapter(settings())
    turns = Turns(m)  # the turn every adapter shares: the conversation kept, every wait bounded
    await adapter.listen(handler_for(adapter, turns))
    print(f"listening on {adapter.config.host}:{adapter.port}; Ctrl-C to stop")
    stop = asyncio.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # Windows: Ctrl-C ends it the plain way
            asyncio.get_running_loop().add_signal_handler(number, stop.set)
    try:
        await stop.wait()
    finally:
        await adapter.stop()
        await turns.aclose(30)  # what is not observed by then waits in the file for the next start


async def run(path: str, own: bool) -> None:
    async with Mneme(path, space="onebot") as m:
        await (own_bot(m) if own else by_itself(m))


def main() -> None:
    args = [arg for arg in sys.argv[1:] if arg != "own"]
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(args[0] if args else "companion.db", "own" in sys.argv[1:]))


if __name__ == "__main__":
    main()
