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
- The prompt block (`aprompt` plus the plugins' `extra_prompt_sections`) is computed there for messages the
  bot is likely to answer (`prompt="addressed"`: private chats, and group messages that mention, reply to,
  name or ask the bot); for any other update `memory.block` stays None until a handler awaits
  `memory.prompt()` (the `remembered` wrapper does). Computing it for every group message would tell the
  mood's news to a reply that never happens (`aprompt` marks it told).
- A person who opted out (`/optout`, kept in the companion's config: `consent`) is skipped entirely: the
  type handler raises `ApplicationHandlerStop`, so no later group sees the update; only `/optin` and
  `/forget` (and its button) still reach the commands, so leaving never blocks being forgotten.
- The commands `/memory`, `/forget`, `/mood`, `/optout`, `/optin` (and `/help`, `/start` if asked) in the
  next group (`commands`); each stops the update after answering, so your own handlers never see them.

Observing: `remembered` wraps your reply handler. It awaits `memory.prompt()` before your handler, and after
it returns schedules `aobserve` of the exchange (the person's text, and the text you sent: the `Message`s
your handler returns, or what went through `memory.reply`/`memory.said`) as a task of its own, so your
handler returns, and PTB moves on, without waiting for memory writing. A separate handler in a later group
cannot do this: with `block=False` handlers PTB runs the later group before the reply was sent. Observes of
one person run in the order their replies were sent; at most `backlog` wait, after which one is dropped and
logged. They are the Application's tasks while it runs, so `app.stop()` waits for them.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

from telegram import Message, Update, User
from telegram.ext import Application, ApplicationHandlerStop, CallbackContext, TypeHandler

from mneme_core.runner import compose

from . import reading
from .consent import KEY, OptOuts
from .outgoing import Patience, send_text, texts_of, typing
from .sentences import Sentences

__all__ = ["COMMANDS", "Memory", "Middleware", "install", "middleware_of", "remembered"]

log = logging.getLogger(__name__)

COMMANDS = ("memory", "forget", "mood", "optout", "optin")
"""The commands `install` adds by default; `help` and `start` are there to add too (the adapter does)."""
ALL_COMMANDS = (*COMMANDS, "help", "start")
# What a person who opted out may still do: come back, and be forgotten.
WHILE_OUT = frozenset({"optin", "forget"})

Handler = Callable[[Update, CallbackContext[Any, Any, Any, Any]], Awaitable[Any]]
_installed: weakref.WeakKeyDictionary[Application[Any, Any, Any, Any, Any, Any], Middleware] = (
    weakref.WeakKeyDictionary()
)


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

    @property
    def mneme(self) -> Any:
        return self.middleware.mneme

    async def prompt(self) -> str:
        """The prompt block for this message (computed once): who the person is to the companion, what it
        remembers of them, how it feels if that changed, and the plugins' sections. A memory that fails
        gives "" (logged): the reply goes on without it."""
        if self.block is None:
            self.block = await self.middleware.block_for(self)
        return self.block

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


class Observes:
    """Observes run after replies, in the background: in order per person, bounded in number."""

    def __init__(
        self,
        mneme: Any,
        judge: Any = None,
        backlog: int = 1000,
        skip: Callable[[Memory], bool] = lambda memory: False,
    ) -> None:
        self.mneme = mneme
        self.judge = judge
        self.backlog = backlog
        self.skip = skip
        self.tasks: set[asyncio.Task[None]] = set()
        self._tails: dict[str, asyncio.Task[None]] = {}
        self.dropped = 0
        self.failed = 0

    def later(
        self, app: Application[Any, Any, Any, Any, Any, Any] | None, memory: Memory, reply: str
    ) -> None:
        if len(self.tasks) >= self.backlog:
            self.dropped += 1
            log.warning(
                "%d observes wait; the exchange with %s is not observed", len(self.tasks), memory.subject
            )
            return
        subject = memory.subject
        work = self._observe(memory, reply, self._tails.get(subject))
        name = f"mneme observe {subject}"
        if app is not None and app.running:
            task = app.create_task(work, name=name)  # so app.stop() waits for it
        else:
            task = asyncio.create_task(work, name=name)
        self.tasks.add(task)
        self._tails[subject] = task

        def done(finished: asyncio.Task[None]) -> None:
            self.tasks.discard(finished)
            if self._tails.get(subject) is finished:
                del self._tails[subject]

        task.add_done_callback(done)

    async def _observe(self, memory: Memory, reply: str, previous: asyncio.Task[None] | None) -> None:
        if previous is not None:
            await asyncio.wait([previous])  # one person's mood moves in the order things were said
        if self.skip(memory):
            log.info("%s opted out before the exchange was observed; not observed", memory.subject)
            return
        user: dict[str, str] = {"role": "user", "content": memory.text}
        if memory.user_name:
            user["name"] = memory.user_name
        options: dict[str, Any] = {"source": "user", "user_name": memory.user_name or "the user"}
        if self.judge is not None:
            options["complete"] = self.judge
        try:
            await self.mneme.aobserve(
                memory.subject, [user, {"role": "assistant", "content": reply}], **options
            )
        except Exception as err:  # memory writing is off the reply's path: logged and counted, never shown
            self.failed += 1
            log.warning(
                "observing the exchange with %s failed: %s: %s", memory.subject, type(err).__name__, err
            )

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait until every observe scheduled so far finished (or `timeout`); True when none is left."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while self.tasks:
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return False
            await asyncio.wait(set(self.tasks), timeout=left)
        return True


class Middleware:
    """What `install` put on an Application: the engine, the opt-outs, the observes, the commands."""

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
        self.observes = Observes(mneme, judge, backlog, skip=lambda memory: memory.user_id in self.opt_outs)
        self.application: Application[Any, Any, Any, Any, Any, Any] | None = None

    # -- the type handler ------------------------------------------------------------------------------

    async def pre(self, update: object, context: CallbackContext[Any, Any, Any, Any]) -> None:
        """Runs first for every update: the engine and the person's memory on the context, or the stop."""
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
                await memory.prompt()
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
        subject = await self.mneme.plugins.aresolve_subject("telegram", user_id)
        message = update.message  # a new message only: an edit is not conversation
        chat = update.effective_chat
        said = None
        if message is not None:
            said = reading.read(message, context.bot.bot, names=self.names, ask=self.ask)
        return Memory(
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

    def _wants_block(self, update: Update, memory: Memory) -> bool:
        if self.prompt_when == "never":
            return False
        if self.prompt_when == "always":
            return bool(memory.text)
        if self.prompt_when == "addressed":
            return bool(memory.text) and memory.addressed
        return bool(self.prompt_when(update, memory))  # type: ignore[operator]

    async def block_for(self, memory: Memory) -> str:
        """`aprompt` and the plugins' sections, for one message; "" when the memory fails."""
        mneme = self.mneme
        try:
            block = await mneme.aprompt(memory.subject, query=memory.text, user_name=memory.user_name)
            sections = await mneme.plugins.aextra_sections(mneme, memory.subject, memory.text)
        except Exception as err:  # the memory is a boundary: without it the reply still goes out
            log.warning("the memory block for %s failed; answering without it: %s", memory.subject, err)
            return ""
        return compose("", block, sections)

    # -- observing ------------------------------------------------------------------------------------

    def observe_later(self, memory: Memory, result: object = None) -> bool:
        """Schedule `aobserve` of the person's text and the reply (what the handler returned, and what
        went through `memory.reply`/`memory.said`); False when there is nothing to observe."""
        # What went through memory.reply/said is the reply; else what the handler returned (not both:
        # `return await memory.reply(...)` would count it twice).
        reply = "\n".join(memory.sent).strip() or _returned(result)
        if not memory.text or not reply:
            log.debug("nothing to observe for %s (no text, or no reply was seen)", memory.subject)
            return False
        self.observes.later(self.application, memory, reply)
        return True

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait for the observes scheduled so far (tests, and shutdown without `app.stop()`)."""
        return await self.observes.drain(timeout)


def _returned(result: object) -> str:
    if isinstance(result, Message):
        return texts_of(result)
    messages = isinstance(result, Sequence) and not isinstance(result, str | bytes) and result
    if messages and all(isinstance(item, Message) for item in result):  # type: ignore[attr-defined]
        return texts_of(result)  # type: ignore[arg-type]
    return ""


def install(app: Application[Any, Any, Any, Any, Any, Any], mneme: Any, **options: Any) -> Middleware:
    """Put the companion's memory on `app`: the type handler in group `group` (-100), the commands in the
    next one. Options: `commands` (True, False or names), `prompt` ("addressed", "always", "never" or a
    function of (update, memory)), `judge` (the model that judges observes; the engine's own by default),
    `names` (words that address the bot in groups), `ask` (the ask command), `patience` (flood control),
    `sentences` (your own wording), `memory_lines`, `backlog`. Returns the `Middleware`."""
    if app in _installed:
        raise ValueError("the Mneme middleware is already installed on this Application")
    from .commands import Commands  # the commands need the middleware class defined

    middleware = Middleware(mneme, **options)
    middleware.application = app
    app.add_handler(TypeHandler(Update, middleware.pre, block=True), group=middleware.group)
    for handler in Commands(middleware).handlers():
        app.add_handler(handler, group=middleware.group + 1)
    _installed[app] = middleware
    return middleware


def middleware_of(app: Application[Any, Any, Any, Any, Any, Any]) -> Middleware | None:
    """The middleware installed on `app`, if any."""
    return _installed.get(app)


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
