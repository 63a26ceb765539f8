"""Mneme for NoneBot2: memory and mood for any NoneBot bot, on any of its adapters, as a NoneBot plugin.

    nonebot.load_plugin("mneme_nonebot")      # in bot.py, or plugins = ["mneme_nonebot"] in pyproject.toml

with `MNEME_DB`, `MNEME_CONFIG` (and `MNEME_ANSWER=true` for it to answer by itself) in the bot's `.env`
(`settings`). The driver's startup opens the companion's engine and its turn service, the shutdown closes
them (`lifetime`). Then:
- a matcher of one's own takes `memory: Memory = Depends(memory_of)` (after `require("mneme_nonebot")`):
  the memory block, the conversation for the model, and `memory.reply(text)` / `memory.observe(text)`,
  which keep the reply and observe the exchange off the reply's path (`memory`);
- or, with `MNEME_ANSWER=true`, the plugin answers by itself through the bot layer's runner: private
  messages, and in groups when addressed, as `mneme run onebot` does (`plugin`);
- `/memory`, `/forget <number>`, `/forgetme` (with a confirmation) and `/mood`, with Chinese aliases,
  answered privately where the platform allows (`commands`).
Subjects are our own adapters' (`onebot:qq:10001`, `telegram:42`, `discord:7`): the same person keeps one
memory whether NoneBot or `mneme run` carries them (`reading`).

This package is also a Mneme plugin (entry point `nonebot` in group `mneme`), so `mneme plugins` lists it;
that import loads neither NoneBot nor the bot layer. Only when NoneBot loads it as its plugin (it sets
`__plugin__` before running this module) does it make its matchers. NoneBot's own rule applies: load the
plugin before importing it (`nonebot.require("mneme_nonebot")` in another plugin), and before making a
`Mneme` in the same process, whose plugin loading would import it first.
"""

from __future__ import annotations

from mneme_core.lazy import lazy_names

__all__ = ["Companion", "Config", "Memory", "NoneBotAdapter", "Remembered", "companion", "memory_of"]

MISSING = 'the NoneBot2 plugin needs NoneBot2: pip install "mneme-bots[nonebot]"'

_LAZY = {
    "Companion": "lifetime",
    "companion": "lifetime",
    "memory_of": "lifetime",
    "Remembered": "lifetime",
    "Config": "settings",
    "Memory": "memory",
    "NoneBotAdapter": "sending",
}

__getattr__ = lazy_names(globals(), _LAZY, needs=("nonebot", MISSING))

if "__plugin__" in globals():  # NoneBot is loading the package as its plugin
    from .plugin import __plugin_meta__, commands, listener  # noqa: F401
