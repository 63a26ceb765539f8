"""Mneme on Discord, both ways (discord.py 2: `pip install "mneme-bots[discord]"`).

1. The companion answers by itself: in direct messages, and in servers when mentioned or replied to (no
   privileged intent needed for that).

   a. A whole bot from a config file. Write `bot.toml`:

          [companion]
          name = "Mio"
          persona = "You are Mio, a warm and curious companion. Keep replies short."

          [adapters.discord]
          token = { "$env" = "DISCORD_TOKEN" }
          respond_in = ["dm", "mention", "reply"]
          channels = []              # server channel ids to answer in; empty: every channel

          [plugins.openai]           # any OpenAI-compatible endpoint
          base_url = "https://api.deepseek.com/v1"
          model = "deepseek-chat"
          api_key = { "$env" = "DEEPSEEK_API_KEY" }

      and run `mneme --db companion.db --config bot.toml run discord` (the file is taken whole the first
      time; after that its [adapters.*] and [plugins.*] at each start). In code that is
      `run_bot(mneme, ["discord"])`: `python examples/discord_bot.py run bot.toml`.

   b. Your existing bot, one line in its `setup_hook`: `await bot.load_extension("mneme_discord")`. The
      cog opens the file `MNEME_DB` names (space `MNEME_SPACE`, config `MNEME_CONFIG`, model `MNEME_MODEL`,
      persona `MNEME_PERSONA`), or uses `bot.mneme` if you set one: `python examples/discord_bot.py dropin`.

2. Your own bot and your own model call, with Mneme around it: `prompt_for(message)` before the call,
   `observe(message, reply)` after the reply went out (`Companion` below):
   `python examples/discord_bot.py own`.

People talking to the bot have `/memory show`, `/memory forget`, `/memory forget-me` (with a confirmation)
and `/memory mood`, answered only to them. Tell Discord about these commands once, not at every start:
`python -m mneme_discord sync --guild <server id>` (at once in one server) or without `--guild` (everywhere,
which Discord takes a while to spread), or `await bot.get_cog("Mneme").sync_commands()` from an owner-only
command of your own. Every mode needs `DISCORD_TOKEN`.

From a checkout without installing, put the adapters on the path: `PYTHONPATH=adapters python examples/...`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys

import discord
from discord.ext import commands
from mneme_discord import DiscordSettings
from mneme_discord.cog import MnemeCog

from mneme_core import Mneme
from mneme_core.bot import run_bot

PERSONA = "You are Mio, a warm and curious companion. Keep replies short."
QUIET = discord.AllowedMentions.none()  # a reply can never ping @everyone


async def my_model(system: str, user: str) -> str:
    """Your model call goes here (OpenAI, DeepSeek, a local model...). This stand-in says what it recalls."""
    recalled = [line[2:] for line in system.splitlines() if line.startswith("- ")]
    if recalled:
        return f"I remember: {recalled[0]} What's new?"
    return "Tell me more!"


# -- 2. your own bot, your own model call -----------------------------------------------------------------


class Companion(commands.Cog):
    """Your bot's own conversation: it decides when to answer and calls its model; Mneme says what it
    remembers before the call and records the exchange after the reply went out."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    def _for_me(self, message: discord.Message) -> bool:
        return message.guild is None or self.bot.user in message.mentions

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if message.author.bot or not self._for_me(message):
            return
        memory: MnemeCog = self.bot.get_cog("Mneme")  # type: ignore[assignment]
        async with message.channel.typing():
            system = PERSONA + "\n\n" + await memory.prompt_for(message)
            answer = await my_model(system, message.clean_content)
        await message.reply(answer[:2000], mention_author=False, allowed_mentions=QUIET)
        memory.observe(message, answer)  # in the background: the reply never waits on memory writing


class OwnBot(commands.Bot):
    def __init__(self, mneme: Mneme) -> None:
        intents = discord.Intents.default()  # no privileged intent: DMs and mentions carry their text
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, allowed_mentions=QUIET)
        self.mneme = mneme

    async def setup_hook(self) -> None:
        # answer=False: the cog keeps quiet and leaves the talking to Companion; its slash commands stay.
        await self.add_cog(MnemeCog(self, mneme=self.mneme, settings=DiscordSettings(answer=False)))
        await self.add_cog(Companion(self))


def run_own(db: str, token: str) -> None:
    with Mneme(db, space="mio", complete=my_model) as mneme:  # complete: your model, judging for observe
        OwnBot(mneme).run(token)


# -- 1b. your existing bot, with the cog answering --------------------------------------------------------


class DropInBot(commands.Bot):
    async def setup_hook(self) -> None:
        await self.load_extension("mneme_discord")  # settings from MNEME_* and the config's table


def run_dropin(token: str) -> None:
    intents = discord.Intents.default()
    DropInBot(command_prefix=commands.when_mentioned, intents=intents).run(token)


# -- 1a. the whole bot from a config file ------------------------------------------------------------------


def run_alone(db: str, config: str) -> None:
    with Mneme(db, space="mio", config=config) as mneme:
        report = asyncio.run(run_bot(mneme, ["discord"]))
    print(report)


def main(argv: list[str]) -> None:
    logging.basicConfig(level=logging.INFO)
    mode = argv[1] if len(argv) > 1 else ""
    db = os.environ.get("MNEME_DB", "companion.db")
    if mode == "run":
        run_alone(db, argv[2] if len(argv) > 2 else "bot.toml")  # the token: as the config names it
        return
    token = os.environ.get("DISCORD_TOKEN")
    if mode not in ("own", "dropin") or not token:
        sys.exit("usage: DISCORD_TOKEN=... python examples/discord_bot.py [run [bot.toml] | dropin | own]")
    if mode == "own":
        run_own(db, token)
    else:
        run_dropin(token)


if __name__ == "__main__":
    main(sys.argv)
