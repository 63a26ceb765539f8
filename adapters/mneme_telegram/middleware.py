"""The middleware: memory and mood for a python-telegram-bot `Application` you already have.

    from mneme_telegram import install, remembered

    install(app, mneme)                     # once, before app.run_polling() or app.start()

    @remembered                             # prompt before, observe after the reply, off its path
    async def chat(update, context):
        system = PERSONA + "\\n\\n" + context.memory.block
        answer = await my_model(system, context.memory.text)
        return await update.message.reply_text(answer)   # return what you sent (or use memory.reply)

    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, chat))

What `install` adds:
- a `TypeHandler(Update)` in an early group (`group`, -100 by default) that runs for every update: it
  puts the engine on the context (`context.mneme`) and, when the update comes from a person, a `Memory`
  (`context.memory`: the subject `telegram:<user id>` as `resolve_subject` plugins map it, the display
  name, the chat, whether the bot was addressed, the text, and the prompt block). An update from nobody (a
  channel post, another bot) gets `context.memory = None` and goes on to your handlers untouched. The same
  `CallbackContext` object is handed to every group for one update, which is what carries the memory.
- The person's line is kept in the conversation (`mneme_core.bot.turns`: a group message that does not
  address the bot is kept as the group's context only), in the background: the type handler never waits on
  it.
- The prompt block (`aprompt` plus the plugins' `extra_prompt_sections`) is started there for messages the
  bot is likely to answer (`prompt="addressed"`: private chats, and group messages that mention, reply to,
  name or ask the bot); the type handler waits for it at most `READY_WAIT` seconds, so one person's slow
  memory holds the Application up for no longer, and the block goes on being made in the background:
  `memory.block` is set when it is ready, and `await memory.prompt()` waits for it within the bot's
  `prompt_timeout` (the `remembered` wrapper does), giving "" when the memory fails or hangs. For any other
  update `memory.block` stays None until a handler awaits `memory.prompt()`, which then does not tell the
  mood's news (`aprompt(mark=False)`): news is told to a reply to someone who addressed the bot, once.
- A person who opted out (`/optout`, kept in the companion's config: `consent`) is skipped entirely: the
  type handler raises `ApplicationHandlerStop`, so no later group sees the update; only `/optin` and
  `/forget` (and its button) still reach the commands, so leaving never blocks being forgotten.
- The commands `/memory`, `/forget`, `/mood`, `/optout`, `/optin` (and `/help`, `/start` if asked) in the
  next group (`commands`); each stops the update after answering, so your own handlers never see them.

Observing: `remembered` wraps your reply handler. It awaits `memory.prompt()` before your handler, and after
it returns keeps the reply (the text you sent: the `Message`s your handler returns, or what went through
`memory.reply`/`memory.said`) and observes the exchange through the bot layer, in the background, so your
handler returns, and PTB moves on, without waiting for memory writing. A separate handler in a later group
cannot do this: with `block=False` handlers PTB runs the later group before the reply was sent. Observes of
one person run in the order their replies were sent, each bounded; the exchange is kept in the database
until it was observed, so `app.stop()` never waits on a hung observe (they are not the Application's tasks)
and a stop loses nothing: `await middleware.aclose(timeout)` waits that long for the observes under way, and
what is left is observed at the next start. `await memory.messages(persona)` gives the whole conversation
as chat messages, for a model that takes them.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

from telegram import Message, Update, User
from telegram.ext import Application, ApplicationHandlerStop, CallbackContext

from mneme_core.bot import BotSettings, Turn, Turns

from . import reading
from .consent import KEY, OptOuts
from .outgoing import Patience, send_text, texts_of, typing
from .sentences import Sentences

__all__ = ["COMMANDS", "READY_WAIT", "Memory", "Middleware", "remembered"]

log = logging.getLogger(__name__)

COMMANDS = ("memory", "forget", "mood", "optout", "optin")
"""The commands `install` adds by default; `help` and `start` are there to add too (the adapter does)."""
ALL_COMMANDS = (*COMMANDS, "help", "start")
# What a person who opted out may still do: come back, and be forgotten.
WHILE_OUT = frozenset({"optin", "forget"})

READY_WAIT = 1.0
"""The longest the type handler waits for a block before handing the update on (it goes on being made)."""

Handler = Callable[[Update, CallbackContext[Any, Any, Any, Any]], Awaitable[Any]]


@dataclass(eq=False)
class Memory:
    """The companion's memory of the person behind one update (`context.memory`)."""

    middleware: Middleware = field(repr=False)
    bot: Any = field(repr=False)
    subject: str
    user_id: str
    user_name: str | None
    chat_id: str | None
    is_direct: bool
    addressed: bool
    text: str
    """The message's text for the model ("" for an update without text)."""
    message: Message | None = field(default=None, repr=False)
    block: str | None = None
    """The prompt block, once computed (`prompt()`): what to put in the system prompt after the persona."""
    sent: list[str] = field(default_factory=list, repr=False)
    turn: Turn | None = field(default=None, repr=False)
    """The message's turn in the bot layer (None for an update without text)."""
    _kept: asyncio.Future[Turn] | None = field(default=None, repr=False)
    _making: asyncio.Future[str] | None = field(default=None, repr=False)

    @property
    def mneme(self) -> Any:
        return self.middleware.mneme

    async def prompt(self) -> str:
        """The prompt block for this message (computed once): who the person is to the companion, what it
        remembers of them, how it feels if that changed, and the plugins' sections. A memory that fails or
        is too slow gives "" (logged, counted): the reply goes on without it."""
        if self.block is None:
            self.block = await self._block()
        return self.block

    def _block(self) -> asyncio.Future[str]:
        """The block being made (started once)."""
        if self._making is None:
            turns = self.middleware.turns
            self._making = asyncio.ensure_future(turns.block(self.turn) if self.turn else _blank())
        return self._making

    async def kept(self) -> Turn | None:
        """The turn with the person's line as kept (waiting for the write, bounded by the bot layer)."""
        if self._kept is None:
            return self.turn
        return await self._kept

    async def messages(self, persona: str = "") -> list[dict[str, str]]:
        """The chat messages for a model: `persona` and the block as the system message, the conversation's
        earlier lines, this message last ([] for an update without text)."""
        turn = await self.kept()
        if turn is None:
            return []
        return (await self.middleware.turns.prompt(turn, persona)).messages()

    async def reply(self, text: str) -> list[Message]:
        """Send `text` where the message came from (plain text, split to fit, flood control obeyed; in a
        group as a reply to the message) and note it as the reply to observe."""
        reply_to = None if self.is_direct or self.message is None else self.message.message_id
        thread = self.message.message_thread_id if self.message and self.message.is_topic_message else None
        sent = await send_text(
            self.bot,
            int(self.chat_id or self.user_id),
            text,
            reply_to=reply_to,
            thread_id=thread,
            patience=self.middleware.patience,
        )
        self.said(texts_of(sent))
        return sent

    def said(self, text: str) -> None:
        """Note `text` as (part of) the reply, when you sent it some other way and return nothing."""
        if text and text.strip():
            self.sent.append(text)

    def typing(self) -> AbstractAsyncContextManager[None]:
        """`async with memory.typing():` shows "typing…" in the chat until the block ends."""
        thread = self.message.message_thread_id if self.message and self.message.is_topic_message else None
        return typing(self.bot, int(self.chat_id or self.user_id), thread)


class Observing:
    """What the middleware's observes are doing (the bot layer runs them): under way, failed."""

    def __init__(self, turns: Turns) -> None:
        self._turns = turns

    @property
    def tasks(self) -> list[asyncio.Task[Any]]:
        return self._turns.observing()

    @property
    def failed(self) -> int:
        return self._turns.counts["observe_failed"]


class Middleware:
    """What `install` put on an Application: the engine, the opt-outs, the turn service, the commands."""

    def __init__(
        self,
        mneme: Any,
        *,
        group: int = -100,
        commands: bool | Iterable[str] = True,
        prompt: str | Callable[[Update, Memory], bool] = "addressed",
        judge: Any = None,
        names: Iterable[str] = (),
        ask: str = reading.ASK,
        patience: Patience | None = None,
        sentences: Mapping[str, str] | None = None,
        memory_lines: int = 30,
        opt_out_key: str = KEY,
        backlog: int = 1000,
        turns: Turns | None = None,
        keep_lines: bool = True,
    ) -> None:
        if prompt not in ("addressed", "always", "never") and not callable(prompt):
            raise ValueError(f"prompt is 'addressed', 'always', 'never' or a function, not {prompt!r}")
        self.mneme = mneme
        self.group = group
        if commands is True:
            self.commands: tuple[str, ...] = COMMANDS
        elif commands is False:
            self.commands = ()
        else:
            self.commands = tuple(commands)
            unknown = [c for c in self.commands if c not in ALL_COMMANDS]
            if unknown:
                raise ValueError(f"no command {unknown[0]!r}; the commands are {', '.join(ALL_COMMANDS)}")
        self.prompt_when = prompt
        self.names = tuple(names)
        self.ask = ask
        self.patience = patience if patience is not None else Patience()
        language = getattr(getattr(mneme, "words", None), "language", "en")
        self.sentences = Sentences(language, sentences)
        self.memory_lines = memory_lines
        self.opt_outs = OptOuts(mneme, opt_out_key)
        if turns is None:
            settings = BotSettings.from_config(mneme.config, max_observe_backlog=backlog)
            turns = Turns(mneme, judge=judge, settings=settings)
        self.turns = turns
        self.keep_lines = keep_lines
        self.observes = Observing(turns)
        self.application: Application[Any, Any, Any, Any, Any, Any] | None = None

    # -- the type handler ------------------------------------------------------------------------------

    async def pre(self, update: object, context: CallbackContext[Any, Any, Any, Any]) -> None:
        """Runs first for every update: the engine and the person's memory on the context, or the stop.
        It waits on nothing slow: the line is kept in the background, the block for at most `READY_WAIT`."""
        context.mneme = self.mneme  # type: ignore[attr-defined]
        context.memory = None  # type: ignore[attr-defined]
        if not isinstance(update, Update):
            return
        person = reading.person_of(update)
        if person is None:
            return
        if str(person.id) in self.opt_outs and not self._allowed_while_out(update, context):
            raise ApplicationHandlerStop
        try:
            memory = await self._memory(update, person, context)
            context.memory = memory  # type: ignore[attr-defined]
            if self._wants_block(update, memory):
                making = memory._block()
                done, _ = await asyncio.wait([making], timeout=READY_WAIT)
                if done:
                    memory.block = making.result()
        except Exception:  # a boundary: a broken update or plugin must not take the host's handlers down
            log.exception("the memory of update %s could not be prepared", update.update_id)

    def _allowed_while_out(self, update: Update, context: CallbackContext[Any, Any, Any, Any]) -> bool:
        query = update.callback_query
        if query is not None:
            return bool(query.data and query.data.startswith("mneme:forget:"))
        message = update.message
        if message is None or not message.text:
            return False
        found = reading.command_of(message, context.bot.bot)
        return found is not None and found[0] in WHILE_OUT and found[0] in self.commands

    async def _memory(
        self, update: Update, person: User, context: CallbackContext[Any, Any, Any, Any]
    ) -> Memory:
        user_id = str(person.id)
        subject = await self.turns.subject("telegram", user_id)
        message = update.message  # a new message only: an edit is not conversation
        chat = update.effective_chat
        said = None
        if message is not None:
            said = reading.read(message, context.bot.bot, names=self.names, ask=self.ask)
        memory = Memory(
            middleware=self,
            bot=context.bot,
            subject=subject,
            user_id=user_id,
            user_name=person.full_name or person.username or None,
            chat_id=str(chat.id) if chat is not None else None,
            is_direct=chat is None or chat.type == "private",
            addressed=said.addressed if said is not None else False,
            text=said.text if said is not None else "",
            message=update.effective_message,
        )
        incoming = reading.incoming_of(update, context.bot.bot, names=self.names, ask=self.ask)
        if incoming is not None:
            memory.turn = self.turns.turn(incoming, subject)
            if self.keep_lines:
                memory._kept = self.turns.chore(self.turns.keep(memory.turn), name=f"mneme line {subject}")
        return memory

    def _wants_block(self, update: Update, memory: Memory) -> bool:
        if self.prompt_when == "never":
            return False
        if self.prompt_when == "always":
            return bool(memory.text)
        if self.prompt_when == "addressed":
            return bool(memory.text) and memory.addressed
        return bool(self.prompt_when(update, memory))  # type: ignore[operator]

    # -- observing ------------------------------------------------------------------------------------

    def observe_later(self, memory: Memory, result: object = None) -> bool:
        """Keep the reply (what the handler returned, or what went through `memory.reply`/`memory.said`)
        and observe the exchange in the background; False when there is nothing to observe."""
        # What went through memory.reply/said is the reply; else what the handler returned (not both:
        # `return await memory.reply(...)` would count it twice).
        reply = "\n".join(memory.sent).strip() or _returned(result)
        if not memory.text or not reply or memory.turn is None:
            log.debug("nothing to observe for %s (no text, or no reply was seen)", memory.subject)
            return False
        self.turns.chore(self._finish(memory, reply), name=f"mneme observe {memory.subject} (keeping)")
        return True

    async def _finish(self, memory: Memory, reply: str) -> None:
        if memory.user_id in self.opt_outs:
            log.info("%s opted out before the exchange was kept; not observed", memory.subject)
            return
        turn = await memory.kept()
        if turn is not None:
            await self.turns.finish(turn, reply)

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait for the lines and observes under way (tests, and a shutdown that wants them written)."""
        return await self.turns.drain(timeout)

    async def aclose(self, timeout: float | None = None) -> None:
        """Stop observing: wait up to `timeout` seconds for the observes under way; the exchanges not yet
        observed wait in the database for the next start."""
        await self.turns.aclose(timeout)


def _returned(result: object) -> str:
    if isinstance(result, Message):
        return texts_of(result)
    messages = isinstance(result, Sequence) and not isinstance(result, str | bytes) and result
    if messages and all(isinstance(item, Message) for item in result):  # type: ignore[attr-defined]
        return texts_of(result)  # type: ignore[arg-type]
    return ""


async def _blank() -> str:
    return ""


def remembered(handler: Handler | None = None, *, observe: bool = True) -> Any:
    """Wrap a reply handler: the prompt block is ready (`context.memory.block`) before it runs, and the
    exchange is observed after it returns, off its path. Use as `@remembered` or `@remembered(observe=...)`.
    Without the middleware (or for an update from nobody) the handler runs as it is."""

    def wrap(function: Handler) -> Handler:
        @functools.wraps(function)
        async def wrapper(update: Update, context: CallbackContext[Any, Any, Any, Any]) -> Any:
            memory = getattr(context, "memory", None)
            if not isinstance(memory, Memory):
                return await function(update, context)
            await memory.prompt()
            result = await function(update, context)
            if observe:
                memory.middleware.observe_later(memory, result)
            return result

        return wrapper

    return wrap(handler) if handler is not None else wrap
