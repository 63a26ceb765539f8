"""The Telegram adapter: the companion answers by itself (`mneme run telegram --config bot.toml`).

    [adapters.telegram]
    token = { "$env" = "TELEGRAM_BOT_TOKEN" }
    names = ["Mio"]                 # words that address the bot in a group, besides @mention and replies
    # ask = "ask"                   # /ask <text> addresses it too
    # drop_pending_updates = false  # true: forget what was sent while the bot was down
    # sentences = { "optout.done" = "..." }   # your own wording of the commands' answers
    # flood_wait = 25               # the longest flood-control wait obeyed, seconds (then the part fails)
    # memory_lines = 30             # how many notes /memory shows

It builds an `Application` (never calling `run_polling()`: that would own the event loop), installs the
middleware on it (opt-outs, the commands, and `/help`, `/start`), and adds one message handler that turns
each new message with text (or a captioned photo, video, file) into an `Incoming` for the runner; in a
group its text says who spoke and where (`Leo in Friends: ...`). `start` runs `initialize`, `start` and
`updater.start_polling` and returns, so other adapters (Discord) share the loop under `mneme run discord
telegram`; `stop` runs the reverse. The runner prompts, asks the model, sends the reply through `send`
(plain text, split under 4,096 UTF-16 units, flood control obeyed, quoting the message in a group), shows
"typing…" (`typing`) and observes off the reply's path; the middleware's own prompt and observe are off here.

PTB hands updates over one at a time (no `concurrent_updates`): handing a message to the runner takes no
time (`submit` never waits on the model), and it keeps each person's messages in the order they were sent.
Command answers are sent in that loop, so a flood-control wait on one delays the next update by as much.

Skipped, without a reply: edited messages, messages without text or caption (stickers, joins), other bots
and the bot itself, posts on behalf of a chat, commands for another bot, and in groups whatever does not
address the bot (the runner decides, by its `groups` setting). A malformed update is logged and skipped.

Tests (and a host with its own `Application`) pass `application=`: it is used as it is, its request
classes included; one built with `.updater(None)` is driven with `process_update`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from telegram import Update
from telegram.error import InvalidToken, NetworkError
from telegram.ext import Application, ContextTypes, MessageHandler, filters

from mneme_core.bot import Adapter, Incoming
from mneme_core.config import resolve
from mneme_core.errors import InvalidValue
from mneme_core.plugins import PluginError

from . import reading
from .installing import install
from .middleware import ALL_COMMANDS, Middleware
from .outgoing import LIMIT, Patience, send_text, typing
from .settings import TelegramSettings

if TYPE_CHECKING:
    from mneme_core.bot import Runner

__all__ = ["TelegramAdapter"]

log = logging.getLogger(__name__)


class TelegramAdapter(Adapter):
    """Telegram through python-telegram-bot 22, answering on its own; see the module docstring."""

    name = "telegram"
    limit = LIMIT

    def __init__(
        self,
        settings: Mapping[str, Any] | None = None,
        *,
        application: Application[Any, Any, Any, Any, Any, Any] | None = None,
        patience: Patience | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(settings)
        self.options = TelegramSettings.from_table(self.settings)
        self.patience = patience if patience is not None else Patience(longest=self.options.flood_wait)
        self.application = application
        self.environ = environ if environ is not None else os.environ
        self.middleware: Middleware | None = None
        self.runner: Runner | None = None
        self._started: list[str] = []

    # -- lifetime --------------------------------------------------------------------------------------

    def _build(self) -> Application[Any, Any, Any, Any, Any, Any]:
        """An Application with the token resolved now (never kept, never logged). A missing token is a
        `PluginError`, which `mneme run` shows as one line rather than a traceback."""
        try:
            token = resolve(self.options.token, self.environ, key="adapters.telegram.token")
        except InvalidValue as err:
            raise PluginError(f"the Telegram adapter cannot start: {err}") from err
        if not isinstance(token, str) or not token.strip():
            raise PluginError(
                'the Telegram adapter needs a bot token: [adapters.telegram] token = { "$env" = '
                '"TELEGRAM_BOT_TOKEN" } (from @BotFather)'
            )
        return Application.builder().token(token.strip()).build()

    async def start(self, runner: Runner) -> None:
        self.runner = runner
        app = self.application if self.application is not None else self._build()
        self.application = app
        self.middleware = install(
            app,
            runner.mneme,
            commands=ALL_COMMANDS,
            prompt="never",  # the runner keeps the lines, prompts, and observes
            turns=runner.turns,
            keep_lines=False,
            names=self.options.names,
            ask=self.options.ask,
            patience=self.patience,
            sentences=self.options.sentences,
            memory_lines=self.options.memory_lines,
        )
        wanted = filters.UpdateType.MESSAGE & (filters.TEXT | filters.CAPTION)
        app.add_handler(MessageHandler(wanted, self._on_message), group=0)
        app.add_error_handler(self._on_error)
        try:
            try:
                await app.initialize()  # getMe: a wrong token fails here
            except InvalidToken as err:
                raise PluginError(f"Telegram refused the bot token: {err}") from err
            except NetworkError as err:
                raise PluginError(f"the Telegram adapter could not reach Telegram: {err}") from err
            self._started.append("initialize")
            await app.start()
            self._started.append("start")
            if app.updater is not None:
                await app.updater.start_polling(
                    allowed_updates=Update.ALL_TYPES,
                    drop_pending_updates=bool(self.settings.get("drop_pending_updates", False)),
                )
                self._started.append("polling")
        except BaseException:
            await self.stop()  # the runner stops only adapters that started: undo what did
            raise
        log.info("Telegram: listening as @%s", app.bot.username)

    async def stop(self) -> None:
        app = self.application
        if app is None:
            return
        steps = {
            "polling": lambda: app.updater.stop(),  # type: ignore[union-attr]
            "start": app.stop,
            "initialize": app.shutdown,
        }
        while self._started:
            step = self._started.pop()
            try:
                await steps[step]()
            except Exception as err:  # a boundary: the rest of the shutdown matters more
                log.warning("Telegram: stopping (%s) failed: %s", step, err)

    # -- messages --------------------------------------------------------------------------------------

    async def _on_message(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        try:
            incoming = self.incoming(update)
        except Exception:  # a boundary: a malformed update is logged and skipped, never crashes the bot
            log.exception("Telegram: update %s could not be read; skipped", update.update_id)
            return
        if incoming is None or self.runner is None:
            return
        await self.runner.submit(self, incoming)

    async def _on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        where = update.update_id if isinstance(update, Update) else "-"
        log.error("Telegram: handling update %s failed", where, exc_info=context.error)

    def incoming(self, event: Any) -> Incoming | None:
        """A new message from a person with something to say (text, or a caption), as an `Incoming`; None
        for anything else."""
        if not isinstance(event, Update) or self.application is None:
            return None
        return reading.incoming_of(
            event, self.application.bot.bot, names=self.options.names, ask=self.options.ask
        )

    async def send(self, incoming: Incoming, text: str) -> None:
        if self.application is None:
            raise RuntimeError("the Telegram adapter is not started")
        message = incoming.raw
        topic = message.message_thread_id if message is not None and message.is_topic_message else None
        await send_text(
            self.application.bot,
            int(incoming.chat_id or incoming.user_id),
            text,
            reply_to=None if incoming.is_direct or incoming.message_id is None else int(incoming.message_id),
            thread_id=topic,
            patience=self.patience,
        )

    def typing(self, incoming: Incoming) -> AbstractAsyncContextManager[Any]:
        if self.application is None:
            raise RuntimeError("the Telegram adapter is not started")
        message = incoming.raw
        topic = message.message_thread_id if message is not None and message.is_topic_message else None
        return typing(self.application.bot, int(incoming.chat_id or incoming.user_id), topic)
