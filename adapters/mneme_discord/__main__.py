"""`python -m mneme_discord sync [--guild ID] [--token-env NAME]`: tell Discord about the slash commands.

An admin's act, done once after installing or upgrading (see `sync`); it needs the bot's token in the
environment (`DISCORD_TOKEN` unless `--token-env` names another variable) and opens no engine.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Sequence


async def _sync(token: str, guild_id: int | None) -> int:
    import discord
    from discord.ext import commands

    from .cog import MnemeCog
    from .sync import sync_commands

    bot = commands.Bot(command_prefix=commands.when_mentioned, intents=discord.Intents.none())
    for command in MnemeCog(bot).get_app_commands():  # the commands only: no cog_load, no engine
        bot.tree.add_command(command)
    try:
        await bot.login(token)
        guild = discord.Object(id=guild_id) if guild_id is not None else None
        synced = await sync_commands(bot, guild=guild)
    finally:
        await bot.close()
    print(f"synced {len(synced)} command(s): {', '.join(c.name for c in synced)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mneme_discord", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    sync = commands.add_parser("sync", help="tell Discord about the /memory slash commands")
    sync.add_argument(
        "--guild", type=int, default=None, help="one server's id: the commands appear there at once"
    )
    sync.add_argument("--token-env", default="DISCORD_TOKEN", help="the variable holding the bot's token")
    args = parser.parse_args(argv)
    token = os.environ.get(args.token_env)
    if not token:
        parser.error(f"the environment variable {args.token_env} is not set")
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    return asyncio.run(_sync(token, args.guild))


if __name__ == "__main__":
    sys.exit(main())
