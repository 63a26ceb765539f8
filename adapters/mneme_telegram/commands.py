"""The commands a person uses to see, correct and leave the companion's memory of them.

- `/memory`: the live notes, newest first, numbered by their ids (at most `memory_lines`, then how many
  more). Only in a private chat: in a group it points to the private chat instead, since notes about a
  person are nobody else's business.
- `/forget <number>` hides one note (`aforget`; only the person's own: another person's number finds
  nothing); `/forget <key>` the live note of a key; `/forget all` asks first, with two buttons, and only
  the person who asked may press them, within `CONFIRM_SECONDS`; yes erases everything about them
  (`aerase`: notes, history, mood, relationship), for good.
- `/mood`: how the companion feels about them (`describe_mood`).
- `/optout`, `/optin`: stop and resume being read, remembered and answered (`consent`).
- `/help`, `/start` (when asked for): what the companion is and these commands.

Each command answers as plain text and stops the update (`ApplicationHandlerStop`), so the host's own
handlers do not also answer it. Commands edited after sending are not commands again.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import TelegramError
from telegram.ext import (
    ApplicationHandlerStop,
    CallbackContext,
    CallbackQueryHandler,
    CommandHandler,
    filters,
)

from mneme_core import dates, text
from mneme_core.errors import MnemeError

from .middleware import Memory, Middleware
from .outgoing import send_text

if TYPE_CHECKING:
    from telegram.ext import BaseHandler

__all__ = ["CONFIRM_SECONDS", "PREFIX", "Commands"]

log = logging.getLogger(__name__)

PREFIX = "mneme:forget:"
CONFIRM_SECONDS = 600
EVERYTHING = frozenset({"all", "everything", "全部", "所有"})

Context = CallbackContext[Any, Any, Any, Any]


class Commands:
    """The command handlers of one middleware."""

    def __init__(self, middleware: Middleware) -> None:
        self.m = middleware
        self.say = middleware.sentences.say

    def handlers(self) -> list[BaseHandler[Any, Any, Any]]:
        only_new = filters.UpdateType.MESSAGE  # an edited command is not run again
        found: list[BaseHandler[Any, Any, Any]] = []
        for name in self.m.commands:
            callback = getattr(self, f"on_{name}")
            found.append(CommandHandler(name, self._stopping(callback), filters=only_new, block=True))
        if "forget" in self.m.commands:
            found.append(
                CallbackQueryHandler(self._stopping(self.on_button), pattern=f"^{PREFIX}", block=True)
            )
        return found

    def _stopping(self, callback: Any) -> Any:
        async def run(update: Update, context: Context) -> None:
            memory: Memory | None = getattr(context, "memory", None)
            if memory is None:
                return  # from nobody (a bot, a channel): not ours to answer, and nothing to stop
            try:
                await callback(update, context, memory)
            except (TelegramError, MnemeError) as err:  # a boundary: logged, and the update still stops
                log.warning("the command for %s failed: %s: %s", memory.subject, type(err).__name__, err)
            raise ApplicationHandlerStop

        return run

    async def _answer(self, memory: Memory, words: str, markup: Any = None) -> None:
        reply_to = None if memory.is_direct or memory.message is None else memory.message.message_id
        message = memory.message
        thread = message.message_thread_id if message is not None and message.is_topic_message else None
        await send_text(
            memory.bot,
            int(memory.chat_id or memory.user_id),
            words,
            reply_to=reply_to,
            thread_id=thread,
            patience=self.m.patience,
            markup=markup,
        )

    # -- the commands ----------------------------------------------------------------------------------

    async def on_help(self, update: Update, context: Context, memory: Memory) -> None:
        name = getattr(getattr(self.m.mneme, "settings", None), "companion_name", None) or "your companion"
        await self._answer(memory, self.say("help", name=name))

    on_start = on_help

    async def on_memory(self, update: Update, context: Context, memory: Memory) -> None:
        if not memory.is_direct:
            link = f"https://t.me/{context.bot.username}" if context.bot.username else ""
            await self._answer(memory, self.say("memory.private", link=link).strip())
            return
        await self._answer(memory, await self._listing(memory.subject))

    async def _listing(self, subject: str) -> str:
        """The person's live notes as numbered lines, newest first."""
        mneme = self.m.mneme
        found = await mneme.anotes(subject)
        if not found:
            return self.say("memory.empty")
        now = float(mneme.clock())
        zone = mneme.settings.zone
        language = self.m.sentences.language
        lines = [self.say("memory.header", count=len(found))]
        for note in found[: self.m.memory_lines]:
            said = text.one_line(note.text, 500)
            if note.lasting:
                lines.append(self.say("memory.line", id=note.id, text=said))
            else:
                day = dates.when(note.happened_at, now, zone, language)
                lines.append(self.say("memory.line_dated", id=note.id, date=day, text=said))
        if len(found) > self.m.memory_lines:
            lines.append(self.say("memory.more", count=len(found) - self.m.memory_lines))
        return "\n".join(lines)

    async def on_forget(self, update: Update, context: Context, memory: Memory) -> None:
        wanted = " ".join(context.args or ()).strip()
        if not wanted:
            await self._answer(memory, self.say("forget.usage"))
            return
        if wanted.casefold() in EVERYTHING:
            await self._ask_first(memory)
            return
        number = wanted.removeprefix("#")
        try:
            if number.isdigit():
                count = await self.m.mneme.aforget(memory.subject, id=int(number))
            else:
                count = await self.m.mneme.aforget(memory.subject, key=wanted)
        except (ValueError, TypeError):  # not a note's number nor a key: say how it is used
            await self._answer(memory, self.say("forget.usage"))
            return
        if count:
            await self._answer(memory, self.say("forget.done"))
        else:
            await self._answer(memory, self.say("forget.none", id=wanted))

    async def _ask_first(self, memory: Memory) -> None:
        asked = int(float(self.m.mneme.clock()))
        tail = f"{memory.user_id}:{asked}"
        buttons = InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(self.say("forget.yes"), callback_data=f"{PREFIX}yes:{tail}"),
                    InlineKeyboardButton(self.say("forget.no"), callback_data=f"{PREFIX}no:{tail}"),
                ]
            ]
        )
        await self._answer(memory, self.say("forget.ask"), markup=buttons)

    async def on_button(self, update: Update, context: Context, memory: Memory) -> None:
        query = update.callback_query
        if query is None:
            return
        try:
            choice, user_id, asked = (query.data or "").removeprefix(PREFIX).split(":")
            asked_at = float(asked)
        except ValueError:
            log.warning("a forget button with malformed data %r was pressed; ignored", query.data)
            await query.answer()
            return
        if user_id != memory.user_id:
            await query.answer(self.say("forget.not_yours"), show_alert=True)
            return
        await query.answer()
        if float(self.m.mneme.clock()) - asked_at > CONFIRM_SECONDS:
            await query.edit_message_text(self.say("forget.expired"), parse_mode=None)
            return
        if choice != "yes":
            await query.edit_message_text(self.say("forget.kept"), parse_mode=None)
            return
        count = await self.m.mneme.aerase(memory.subject)
        await query.edit_message_text(self.say("forget.erased", count=count), parse_mode=None)

    async def on_mood(self, update: Update, context: Context, memory: Memory) -> None:
        mood = await self.m.mneme.adescribe_mood(memory.subject)
        await self._answer(memory, self.say("mood", mood=mood))

    async def on_optout(self, update: Update, context: Context, memory: Memory) -> None:
        await self.m.opt_outs.add(memory.user_id)
        await self._answer(memory, self.say("optout.done"))

    async def on_optin(self, update: Update, context: Context, memory: Memory) -> None:
        back = await self.m.opt_outs.remove(memory.user_id)
        await self._answer(memory, self.say("optin.done" if back else "optin.already"))
