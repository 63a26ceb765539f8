"""Telling Discord about the slash commands: an admin's act, done once, never at every start.

Discord keeps its own copy of a bot's slash commands; `CommandTree.sync` replaces it with the bot's, and is
rate-limited. A bot syncs after installing or upgrading the cog, not each time it starts (the convention in
discord.py's documentation). With a `guild`, the commands are copied to that one server and appear there at
once, which suits trying them out; without, they are global and reach every server and direct message.

`python -m mneme_discord sync [--guild ID] [--token-env DISCORD_TOKEN]` does it from a shell: it logs in,
syncs the cog's commands and logs out, with no engine and no gateway connection.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["sync_commands"]

log = logging.getLogger(__name__)


async def sync_commands(bot: Any, *, guild: Any = None) -> list[Any]:
    """Sync `bot.tree` with Discord, globally or (`guild`, a `discord.Object` or a server) in one server."""
    if guild is not None:
        bot.tree.copy_global_to(guild=guild)
    synced = await bot.tree.sync(guild=guild)
    where = f"server {guild.id}" if guild is not None else "every server"
    log.info("synced %d slash commands in %s: %s", len(synced), where, ", ".join(c.name for c in synced))
    return synced
