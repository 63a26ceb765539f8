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

This module is the extension (`setup`) and the plugin (`register_adapters`, `register_settings`, entry point
`discord` in group `mneme`). It imports discord.py only inside `setup`, and the bot layer only when the
adapter is made or its names are read, so listing plugins (and making a `Mneme`) works without either.
"""

from __future__ import annotations

from typing import Any

from mneme_core import hookimpl
from mneme_core.lazy import lazy_names

from .settings import SETTINGS, DiscordSettings, Opening

__all__ = [
    "DiscordAdapter",
    "DiscordSettings",
    "MnemeCog",
    "Opening",
    "make_adapter",
    "register_adapters",
    "register_settings",
    "setup",
]

__red_end_user_data_statement__ = (
    "This cog keeps what the companion remembers about the people it talks to: short notes, its mood toward "
    "them, who they are to it, and the recent lines of its conversations with them. `/memory forget-me` (or "
    "Red's data deletion) erases all of it for good."
)


__getattr__ = lazy_names(globals(), {"DiscordAdapter": "adapter", "MnemeCog": "cog"})


async def setup(bot: Any) -> None:
    """discord.py's extension entry: add the cog, which opens the engine in `cog_load`."""
    from .cog import MnemeCog

    await bot.add_cog(MnemeCog(bot))


@hookimpl
def register_adapters(register: Any) -> None:
    """Called by the bot layer when a bot starts (never by the engine), so the adapter's module, and the bot
    layer with it, load only then."""
    register(__getattr__("DiscordAdapter"))


@hookimpl
def register_settings(register: Any) -> None:
    """The `[adapters.discord]` keys, for the config's checks and template (`settings.SETTINGS`)."""
    SETTINGS.register(register)
