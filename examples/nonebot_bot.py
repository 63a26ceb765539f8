"""Mneme in a NoneBot2 bot: QQ and WeChat through a OneBot bridge (NapCat, LLOneBot, Lagrange, a WeChat
bridge), and any other NoneBot adapter the same way.

    pip install "mneme-bots[nonebot]" "nonebot2[fastapi]" nonebot-adapter-onebot
    python examples/nonebot_bot.py

with a `.env` beside it (NoneBot reads it; the `MNEME_*` keys are the plugin's):

    DRIVER=~fastapi
    HOST=127.0.0.1
    PORT=8080
    ONEBOT_ACCESS_TOKEN=change-me     # the bridge sends the same token
    NICKNAME=["Mio", "米奥"]           # "Mio, ..." in a group addresses the bot
    MNEME_DB=companion.db
    MNEME_CONFIG=bot.toml             # persona, [plugins.openai] for the model, bot.* timeouts
    MNEME_ANSWER=true                 # the plugin answers by itself; false: `own_chat` below does

Then point the bridge's reverse WebSocket at ws://127.0.0.1:8080/onebot/v11/ws (`examples/onebot_bridge.md`
says how for each bridge). A person on QQ is `onebot:qq:<number>`, as for `mneme run onebot`.

1. By itself (`MNEME_ANSWER=true`): the plugin's runner answers private messages and, in groups, messages
   that @-mention the bot, reply to it or start with its nickname, with the memory block and the recent
   conversation; it remembers off the reply's path. The model is the config's `[plugins.openai]`, else an
   offline stand-in that shows what a model would have been told.
2. Your own chat (`MNEME_ANSWER=false`): `own_chat()` adds a matcher that asks the plugin for the person's
   memory (`Depends(memory_of)`), calls your model with the conversation and replies through the plugin,
   which keeps the reply and observes the exchange in the background.
Either way `/memory`, `/forget <number>`, `/forgetme` and `/mood` (and `/记忆`, `/忘记`, `/忘记我`,
`/心情`) are there.
"""

import nonebot
from nonebot.params import Depends
from nonebot.rule import to_me

PERSONA = "You are Mio, a warm companion who remembers what people tell you."


async def my_model(messages: list[dict[str, str]]) -> str:
    """Your own model call goes here (an OpenAI-compatible API, a local model, another plugin's LLM)."""
    system, said = messages[0]["content"], messages[-1]["content"]
    remembered = [line[2:] for line in system.splitlines() if line.startswith("- ")]
    return f"You said: {said}" + (f" (I remember: {remembered[0]})" if remembered else "")


def own_chat():
    """A chat matcher of one's own, after the plugin is loaded (NoneBot's rule: `require` it first)."""
    mneme = nonebot.require("mneme_nonebot")
    chat = nonebot.on_message(rule=to_me(), priority=50, block=True)

    @chat.handle()
    async def answer(memory: mneme.Memory = Depends(mneme.memory_of)) -> None:  # noqa: B008 (NoneBot's way)
        reply = await my_model(await memory.messages(PERSONA))
        await memory.reply(reply)  # sent where it was said, then remembered off the reply's path

    return chat


def main() -> None:
    from nonebot.adapters.onebot.v11 import Adapter as OneBotV11

    nonebot.init()
    nonebot.get_driver().register_adapter(OneBotV11)
    mneme = nonebot.load_plugin("mneme_nonebot")
    if not nonebot.get_plugin_config(mneme.module.Config).mneme_answer:
        own_chat()
    nonebot.run()


if __name__ == "__main__":
    main()
