"""Mneme for Discord: memory and mood for a discord.py bot, as a drop-in cog or a whole bot.

A bot that already exists adds memory with one line, and its settings come from the companion's config
file or the environment (`settings`):

    await bot.load_extension("mneme_discord")          # in setup_hook

and a whole bot runs from a config file (`token = { "$env" = "DISCORD_TOKEN" }` under `[adapters.discord]`):

    MNEME_CONFIG=bot.toml mneme run discord

The modules: `settings` (the `[adapters.discord]` table and where a cog finds its engine), `messages` (a
Discord message as the runner takes it, and when the bot is spoken to), `adapter` (reading and sending for
the runner, and the bot of `mneme run discord`), `cog` (`MnemeCog`: lifetime, the listener, `prompt_for` /
`observe` for hosts with their own model call, the `/memory` slash commands), `views` (what the commands
show), `sync` (telling Discord about the commands, an admin's act).

This module is the extension (`setup`) and the plugin (`register_adapters`, entry point `discord` in group
`mneme`). It imports discord.py only inside `setup`, so listing plugins works without the `discord` extra.
"""

from __future__ import annotations

from typing import Any

from mneme_core import hookimpl

from .adapter import DiscordAdapter
from .settings import DiscordSettings, Opening

__all__ = ["DiscordAdapter", "DiscordSettings", "Opening", "register_adapters", "setup"]


async def setup(bot: Any) -> None:
    """discord.py's extension entry: add the cog, which opens the engine in `cog_load`."""
    from .cog import MnemeCog

    await bot.add_cog(MnemeCog(bot))


@hookimpl
def register_adapters(register: Any) -> None:
    register(DiscordAdapter)
