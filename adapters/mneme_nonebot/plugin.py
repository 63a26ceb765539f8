"""The NoneBot2 side of the plugin: its metadata, the driver's startup and shutdown, and the listener.

The listener is one `on_message` matcher at `LISTENER_PRIORITY` (99: after commands and other plugins'
chat, which take a message by blocking it), non-blocking. For each message no earlier matcher took, and
that no host handler asked the memory of:
- `MNEME_ANSWER=true`: the runner answers it (`Companion.answer`): a private message, a group message
  that addresses the companion (an @-mention, a reply to it, its name); a group message to others is kept as
  the room's context;
- otherwise a group message to others is kept as the room's context, so a host's own chat handler has the
  room's recent lines in `memory.messages()`.
"""

from __future__ import annotations

from nonebot import get_driver, get_plugin_config, on_message
from nonebot.adapters import Bot, Event
from nonebot.plugin import PluginMetadata

from . import commands
from .lifetime import companion
from .settings import Config

__all__ = ["LISTENER_PRIORITY", "__plugin_meta__", "commands", "listener"]

LISTENER_PRIORITY = 99

__plugin_meta__ = PluginMetadata(
    name="Mneme",
    description="Memory and mood for a companion: who each person is to it, what it remembers, how it feels",
    usage=(
        "/memory (/记忆): what I remember about you; /forget <number> (/忘记): forget one thing; "
        "/forgetme (/忘记我): forget everything, after a confirmation; /mood (/心情): how I feel about you. "
        "In your own matcher: memory: Memory = Depends(memory_of)."
    ),
    type="application",
    homepage="https://pypi.org/project/mneme-bots/",
    config=Config,
    supported_adapters=None,
)

driver = get_driver()


@driver.on_startup
async def _open() -> None:
    await companion.open(get_plugin_config(Config))


@driver.on_shutdown
async def _close() -> None:
    await companion.close()


listener = on_message(priority=LISTENER_PRIORITY, block=False)


@listener.handle()
async def _listen(bot: Bot, event: Event) -> None:
    memory = await companion.memory(bot, event)
    if memory is None or memory.used:
        return
    if companion.answering:
        await companion.answer(memory)
    elif not memory.addressed:
        memory.keep()
