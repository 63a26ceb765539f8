"""The Discord adapter: how the runner reads Discord messages and answers them.

Two lives. In `mneme run discord` the adapter owns a bot: `start` makes one (default intents; the message
content intent only when `message_content = true`), loads the `mneme_discord` extension on it wired to the
runner (the cog finds the runner and this adapter on the bot, `bot.mneme_runner` / `bot.mneme_adapter`),
logs in with the token the config names (`token = { "$env" = "DISCORD_TOKEN" }`, resolved here and kept
nowhere else) and connects in a task of its own; `stop` closes it. In a drop-in cog (`mneme_discord.cog`)
the host owns the bot and its login; the cog makes an adapter around that bot only to read and send.

Sending: the first part of a reply answers the person's message as a Discord reply (without pinging them;
in a direct message it is a plain message), the rest follow as plain messages; no part can mention anyone
(`AllowedMentions.none()`), so a model that writes @everyone pings nobody. A deleted original is no error:
the reply then goes out as a plain message. Rate limits are discord.py's to wait out.

discord.py is imported inside the methods that need it, never at the top: listing plugins must work
without the `discord` extra.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import OrderedDict
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from mneme_core.bot import Adapter, Incoming
from mneme_core.config import resolve
from mneme_core.errors import InvalidValue

from .messages import incoming_of
from .settings import TABLE, DiscordSettings

if TYPE_CHECKING:
    from mneme_core.bot import Runner

__all__ = ["DiscordAdapter", "make_bot"]

log = logging.getLogger(__name__)

REMEMBERED_REPLIES = 1000
EXTENSION = "mneme_discord"


def make_bot(settings: DiscordSettings) -> Any:
    """A bot of our own for `mneme run discord`: no prefix commands, only the cog's listener and slash
    commands; the privileged message content intent only when the settings ask for it."""
    import discord
    from discord.ext import commands

    class CompanionBot(commands.Bot):
        async def on_message(self, message: discord.Message) -> None:
            """No prefix commands to process: the cog's listener does the talking."""

    intents = discord.Intents.default()
    intents.message_content = settings.message_content
    if settings.reads_servers and not settings.message_content:
        log.warning(
            "%s.respond_in has %s, which needs message_content = true (and the intent switched on in "
            "the Developer Portal); without it server messages reach the bot empty",
            TABLE,
            " and ".join(p for p in ("name", "all") if p in settings.respond_in),
        )
    return CompanionBot(
        command_prefix=commands.when_mentioned,
        intents=intents,
        allowed_mentions=discord.AllowedMentions.none(),
    )


class DiscordAdapter(Adapter):
    """Discord for the runner; `settings` is the `[adapters.discord]` table (see `settings`)."""

    name = "discord"
    limit = 2000

    def __init__(
        self,
        settings: Mapping[str, Any] | None = None,
        *,
        bot: Any = None,
        options: DiscordSettings | None = None,
    ) -> None:
        super().__init__(settings)
        # A bad table fails here, at start-up, with the setting named; `options` (already checked) wins.
        self.options = (
            options if options is not None else DiscordSettings.from_table(self.settings, os.environ)
        )
        self.bot = bot
        self._owns_bot = bot is None
        self._connection: asyncio.Task[None] | None = None
        self._replied: OrderedDict[str, None] = OrderedDict()

    # -- reading and sending ---------------------------------------------------------------------------

    def incoming(self, event: Any) -> Incoming | None:
        me = getattr(self.bot, "user", None) if self.bot is not None else None
        return incoming_of(event, me, self.options)

    async def send(self, incoming: Incoming, text: str) -> None:
        import discord

        message = incoming.raw
        channel = message.channel
        quiet = discord.AllowedMentions.none()
        first = incoming.message_id not in self._replied and not incoming.is_direct
        self._remember_reply(incoming.message_id)
        if first:
            reference = message.to_reference(fail_if_not_exists=False)
            await channel.send(text, reference=reference, mention_author=False, allowed_mentions=quiet)
        else:
            await channel.send(text, allowed_mentions=quiet)

    def _remember_reply(self, message_id: str | None) -> None:
        if message_id is None:
            return
        self._replied[message_id] = None
        self._replied.move_to_end(message_id)
        while len(self._replied) > REMEMBERED_REPLIES:
            self._replied.popitem(last=False)

    def typing(self, incoming: Incoming) -> AbstractAsyncContextManager[Any]:
        """discord.py's typing indicator: sent at once and renewed every few seconds until the reply."""
        return incoming.raw.channel.typing()

    # -- a bot of its own (`mneme run discord`) --------------------------------------------------------

    async def start(self, runner: Runner) -> None:
        token = None
        if self._owns_bot:
            if "token" not in self.settings:
                raise InvalidValue(f'{TABLE}.token is missing: write token = {{ "$env" = "DISCORD_TOKEN" }}')
            token = resolve(self.settings["token"], key=f"{TABLE}.token")
            self.bot = make_bot(self.options)
        self.bot.mneme_runner, self.bot.mneme_adapter = runner, self
        await self.bot.load_extension(EXTENSION)
        if token is None:  # a host's bot: its owner logs in and connects
            return
        try:
            await self.bot.login(token)
        except BaseException:
            await self.bot.close()
            raise
        self._connection = asyncio.create_task(self._connect(runner), name="mneme discord gateway")

    async def _connect(self, runner: Runner) -> None:
        try:
            await self.bot.connect(reconnect=True)
        except Exception as err:  # the gateway is a boundary: a bot that cannot stay connected stops the run
            log.error("the Discord connection ended: %s: %s", type(err).__name__, err)
        finally:
            runner.stop_soon()

    async def stop(self) -> None:
        if self.bot is None:
            return
        if self._owns_bot:
            await self.bot.close()
        elif EXTENSION in self.bot.extensions:
            await self.bot.unload_extension(EXTENSION)
        if self._connection is not None:
            await asyncio.gather(self._connection, return_exceptions=True)
            self._connection = None
