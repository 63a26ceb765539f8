"""`MnemeCog`: memory and mood for a discord.py bot, as a cog.

Lifetime. `cog_load` finds the engine (the runner's in `mneme run discord`; else the host's `bot.mneme`;
else one it opens from the environment, see `settings.Opening`), the model (`bot.mneme_model`, else the
provider the config names) and makes a `Runner` of its own; `cog_unload` lets pending replies and memory
writes finish, then closes what it opened, and only that. Loading is all-or-nothing: a `cog_load` that
fails closes what it had opened already, and discord.py adds nothing.

Two ways to use it, both through the bot layer's turn service (`mneme_core.bot.turns`), so every wait is
bounded and the conversation is kept:
- it answers by itself (`answer = true`, the default): each message the adapter's rules let through
  (`messages`) goes to the runner, which shows typing, asks the model with the memory block and the recent
  conversation, sends the reply in parts under 2,000 characters and observes the exchange after it was sent.
  A message that is one of the host's own prefix commands (`!ping`, `@bot ping`) is the command's, not a
  conversation: the listener leaves it alone, as Red's cogs do;
- the host makes its own model call (`answer = false`): `await cog.prompt_for(message)` gives the text for
  its system prompt ("" when the memory fails or is too slow: the reply goes on without it), `await
  cog.messages_for(message, persona)` the whole conversation as chat messages, and `cog.observe(message,
  reply)` keeps the reply and observes the exchange in the background (await the task it returns to wait
  until the exchange is kept; it is observed soon after, and kept until it was).

Under Red, the cog honours the data-deletion contract (`red_delete_data_for_user`, which erases the person)
and gives a person their data (`red_get_data_for_user`); the package states what it keeps
(`__red_end_user_data_statement__`).

Slash commands (`/memory ...`, answers only the person sees): `show` what it remembers, `forget` one note,
`forget-me` everything (after a confirmation), `mood` toward them. They land on `bot.tree` when the cog is
added and leave it when it is removed; telling Discord about them is an admin's act, done once
(`sync_commands`, or `python -m mneme_discord sync`), never at every start.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from mneme_core import Mneme
from mneme_core.bot import BotSettings, Incoming, OfflineModel, Runner, Turn, close_model, model_from_config

from .adapter import DiscordAdapter
from .messages import PLATFORM, incoming_of
from .settings import TABLE, DiscordSettings, Opening
from .sync import sync_commands
from .views import ASK, ForgetMe, choice_label, listing

__all__ = ["MnemeCog"]

log = logging.getLogger(__name__)

SETTLE_TIMEOUT = 60.0
CLOSE_TIMEOUT = 30.0
REMEMBERED_TURNS = 1000
FAILED = "Sorry, that did not work. Please try again in a little while."


@dataclass(frozen=True)
class _Given:
    """What the cog was handed; what it was not, it finds or opens in `cog_load`."""

    mneme: Mneme | None
    model: Any
    runner: Runner | None
    adapter: DiscordAdapter | None
    settings: DiscordSettings | None
    opening: Opening | None


class MnemeCog(commands.Cog, name="Mneme"):
    """Memory and mood for the bot it is added to (see the module docstring)."""

    memory = app_commands.Group(name="memory", description="What I remember of you")

    def __init__(
        self,
        bot: commands.Bot,
        *,
        mneme: Mneme | None = None,
        model: Any = None,
        runner: Runner | None = None,
        adapter: DiscordAdapter | None = None,
        settings: DiscordSettings | None = None,
        opening: Opening | None = None,
    ) -> None:
        self.bot = bot
        self._given = _Given(mneme, model, runner, adapter, settings, opening)
        self._reset()
        self._closers: list[Callable[[], Awaitable[Any]]] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self._turns: OrderedDict[int, Turn] = OrderedDict()
        self._views: set[ForgetMe] = set()

    def _reset(self) -> None:
        """Back to what the cog was given (so a removed cog can be added again)."""
        given = self._given
        runner = given.runner if given.runner is not None else getattr(self.bot, "mneme_runner", None)
        adapter = given.adapter if given.adapter is not None else getattr(self.bot, "mneme_adapter", None)
        self.runner: Runner | None = runner
        self.mneme: Mneme | None = given.mneme if given.mneme is not None else getattr(runner, "mneme", None)
        self.adapter: DiscordAdapter | None = adapter
        self.settings: DiscordSettings | None = adapter.options if adapter else given.settings

    # -- lifetime --------------------------------------------------------------------------------------

    async def cog_load(self) -> None:
        try:
            await self._open()
        except BaseException:
            await self._close()
            raise

    async def _open(self) -> None:
        opening = self._given.opening or Opening.from_env()
        if self.mneme is None:
            self.mneme = getattr(self.bot, "mneme", None)
        opened = self.mneme is None
        if opened:
            mneme = await asyncio.to_thread(Mneme, opening.db, space=opening.space, config=opening.config)
            self.mneme = mneme
            self._closers.append(mneme.aclose)
            log.info("opened %s (space %s) for Discord", opening.db, opening.space)
        if self.adapter is None:
            table = self.mneme.config.table(TABLE)
            if self.settings is None:
                self.settings = DiscordSettings.from_table(table, opening.environ)
            self.adapter = DiscordAdapter(table, bot=self.bot, options=self.settings)
        if self.runner is None:
            self.runner = self._make_runner(self.mneme, opening)
        if opened:  # an engine of its own starts with the cog (a host's engine, with its host)
            await self.runner.astart()
        if self.settings.answer and isinstance(self.runner.model, OfflineModel):
            log.warning("no model is configured: the offline stand-in answers on Discord")

    def _make_runner(self, mneme: Mneme, opening: Opening) -> Runner:
        model = self._given.model or getattr(self.bot, "mneme_model", None)
        if model is None:
            model = model_from_config(mneme, opening.provider)
            self._closers.append(lambda: close_model(model))
        settings = BotSettings.from_config(mneme.config, persona=opening.persona)
        runner = Runner(mneme, model, settings=settings, plugins=mneme.plugins)
        self._closers.append(runner.aclose)
        return runner

    async def cog_unload(self) -> None:
        await self._close()

    async def _close(self) -> None:
        """Stop the open questions, finish this cog's own writes, then close what it opened, newest first."""
        for view in list(self._views):
            view.stop()
        self._views.clear()
        if self._tasks:
            _done, pending = await asyncio.wait(list(self._tasks), timeout=CLOSE_TIMEOUT)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        while self._closers:
            closer = self._closers.pop()
            try:
                await closer()
            except Exception as err:  # closing is a boundary: the other resources must still be let go
                log.warning("closing the Discord cog's %r failed: %s", closer, err)
        self._reset()

    def _keep(self, task: asyncio.Task[Any]) -> asyncio.Task[Any]:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait until every reply was sent and every memory write finished (the runner's and this cog's),
        for at most `timeout` seconds; True when nothing is left. Waiting never cancels anything."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout

        def left() -> float | None:
            return None if deadline is None else max(0.0, deadline - loop.time())

        while True:
            if self.runner is not None and not await self.runner.drain(left()):
                return False
            waiting = [task for task in self._tasks if not task.done()]
            if not waiting:
                return True
            _done, pending = await asyncio.wait(waiting, timeout=left())
            if pending:
                return False

    # -- answering by itself ---------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if self.runner is None or self.settings is None or not self.settings.answer:
            return
        try:
            incoming = self.adapter.incoming(message)
        except Exception as err:  # a malformed event must not take the listener down: log it, skip it
            log.warning("skipping a Discord message that could not be read: %s: %s", type(err).__name__, err)
            return
        if incoming is None or await self._is_command(message):
            return
        await self.runner.submit(self.adapter, incoming)

    async def _is_command(self, message: discord.Message) -> bool:
        """Whether the message is one of the host's prefix commands (`!ping`, `@bot ping`): the command's
        to answer, not the conversation's."""
        try:
            context = await asyncio.wait_for(
                self.bot.get_context(message), self.runner.settings.prompt_timeout
            )
        except Exception as err:  # a host's prefix callable that fails: treat the message as conversation
            log.debug("could not tell whether a message is a command: %s", err)
            return False
        return bool(context.valid)

    # -- for a host that makes its own model call ------------------------------------------------------

    def _incoming(self, message: discord.Message) -> Incoming | None:
        return incoming_of(message, self.bot.user, self.settings, anywhere=True)

    async def _subject(self, user_id: int | str) -> str:
        return await self.runner.turns.subject(PLATFORM, str(user_id))

    async def _turn(self, message: discord.Message) -> Turn | None:
        """The message's turn (begun once: its line kept), or None for one never remembered."""
        incoming = self._incoming(message)
        if incoming is None:
            return None
        found = self._turns.get(message.id)
        if found is None:
            found = await self.runner.turns.begin(incoming)
            self._turns[message.id] = found
            while len(self._turns) > REMEMBERED_TURNS:
                self._turns.popitem(last=False)
        return found

    async def prompt_for(self, message: discord.Message) -> str:
        """The text to add to the host's system prompt before it answers `message`: what the companion
        remembers of its author and the plugins' sections; "" for a message it never remembers (a bot's,
        a system notice), and when the memory fails or is too slow (logged, counted)."""
        turn = await self._turn(message)
        return "" if turn is None else await self.runner.turns.block(turn)

    async def messages_for(self, message: discord.Message, persona: str = "") -> list[dict[str, str]]:
        """The chat messages for the host's model: `persona` with the memory block as the system message,
        the conversation's earlier lines, and `message` last ([] for a message it never remembers)."""
        turn = await self._turn(message)
        if turn is None:
            return []
        return (await self.runner.turns.prompt(turn, persona)).messages()

    def observe(self, message: discord.Message, reply: str) -> asyncio.Task[None]:
        """Keep the host's reply to `message` and observe the exchange in the background, after the
        earlier ones of the same person; the task ends once the exchange is kept (None either way)."""
        incoming = self._incoming(message)
        if incoming is None or not isinstance(reply, str) or not reply.strip():
            return self._keep(asyncio.ensure_future(_nothing()))
        return self._keep(asyncio.create_task(self._finish(message, reply)))

    async def _finish(self, message: discord.Message, reply: str) -> None:
        turn = await self._turn(message)
        self._turns.pop(message.id, None)
        if turn is not None:
            await self.runner.turns.finish(turn, reply)

    # -- slash commands --------------------------------------------------------------------------------

    @memory.command(name="show", description="See what I remember about you")
    async def show(self, interaction: discord.Interaction) -> None:
        subject = await self._subject(interaction.user.id)
        notes = await asyncio.to_thread(self.mneme.notes, subject)
        await _answer(interaction, listing(notes))

    @memory.command(name="forget", description="Make me forget one thing about you")
    @app_commands.describe(note="The note's number, as /memory show lists it")
    async def forget(self, interaction: discord.Interaction, note: app_commands.Range[int, 1]) -> None:
        subject = await self._subject(interaction.user.id)
        count = await self.mneme.aforget(subject, id=note)
        said = (
            f"Forgotten: note #{note}." if count else f"You have no note #{note}; /memory show lists yours."
        )
        await _answer(interaction, said)

    @forget.autocomplete("note")
    async def _note_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        subject = await self._subject(interaction.user.id)
        notes = await asyncio.to_thread(self.mneme.notes, subject)
        wanted = current.strip().lstrip("#").casefold()
        found = [n for n in notes if wanted in str(n.id) or wanted in n.text.casefold()]
        return [app_commands.Choice(name=choice_label(n), value=n.id) for n in found[:25]]

    @memory.command(name="forget-me", description="Make me forget everything about you")
    async def forget_me(self, interaction: discord.Interaction) -> None:
        subject = await self._subject(interaction.user.id)
        view = ForgetMe(interaction.user.id, lambda: self.erase(subject))
        self._views = {open_view for open_view in self._views if not open_view.is_finished()}
        self._views.add(view)
        await interaction.response.send_message(
            ASK, view=view, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
        )

    @memory.command(name="mood", description="See how I feel about you")
    async def mood(self, interaction: discord.Interaction) -> None:
        subject = await self._subject(interaction.user.id)
        await _answer(interaction, await asyncio.to_thread(self.mneme.describe_mood, subject))

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        cause = getattr(error, "original", error)
        log.warning(
            "/%s failed: %s: %s",
            getattr(interaction.command, "qualified_name", "?"),
            type(cause).__name__,
            cause,
        )
        if not interaction.response.is_done():
            await _answer(interaction, FAILED)

    # -- admin -----------------------------------------------------------------------------------------

    async def erase(self, subject: str) -> int:
        """Forget everything about a person now, and again once the replies and memory writes already under
        way for them have finished (so an exchange observed a moment later cannot bring a note back)."""
        count = await self.mneme.aerase(subject)
        later = asyncio.create_task(self._erase_after_pending(subject), name=f"mneme erase {subject}")
        self._keep(later)
        log.info("erased everything about %s (%d notes)", subject, count)
        return count

    async def _erase_after_pending(self, subject: str) -> None:
        pending = [task for task in self._tasks if not task.get_name().startswith("mneme erase")]
        self._turns = OrderedDict((k, t) for k, t in self._turns.items() if t.subject != subject)
        if self.runner is not None:
            await self.runner.drain(SETTLE_TIMEOUT)
        if pending:
            await asyncio.wait(pending, timeout=SETTLE_TIMEOUT)
        late = await self.mneme.aerase(subject)
        if late:
            log.info("erased %d more notes about %s written while forgetting them", late, subject)

    async def red_delete_data_for_user(self, *, requester: str, user_id: int) -> None:
        """Red's data-deletion contract: whoever asks (the person, the owner, Discord for a deleted
        account), everything the companion keeps about the user goes (`erase`)."""
        subject = await self._subject(user_id)
        await self.erase(subject)
        log.info("erased %s at the request of %s (Red)", subject, requester)

    async def red_get_data_for_user(self, *, user_id: int) -> dict[str, io.BytesIO]:
        """Red's data request: the user's notes, mood and what was said, as one JSON file."""
        subject = await self._subject(user_id)
        notes = await self.mneme.anotes(subject)
        lines = await self.mneme.transcript.alines_of(subject, limit=10_000)
        data = {
            "subject": subject,
            "notes": [asdict(note) for note in notes],
            "mood": await self.mneme.adescribe_mood(subject),
            "lines": [asdict(line) for line in lines],
        }
        body = json.dumps(data, ensure_ascii=False, indent=1).encode()
        return {"mneme_memory.json": io.BytesIO(body)}

    async def sync_commands(
        self, guild: discord.abc.Snowflake | None = None
    ) -> list[app_commands.AppCommand]:
        """Tell Discord about the slash commands (everywhere, or at once in one server): an admin's act,
        rate-limited by Discord, to do once after installing or upgrading, never at every start."""
        return await sync_commands(self.bot, guild=guild)


async def _answer(interaction: discord.Interaction, said: str) -> None:
    await interaction.response.send_message(
        said[:2000], ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
    )


async def _nothing() -> None:
    return None
