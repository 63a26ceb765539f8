"""Sending to Telegram: plain text in parts that fit, flood control obeyed, "typing…" kept alive.

- Plain text. Every message goes out with `parse_mode=None`, given explicitly so an application's
  `Defaults(parse_mode=...)` cannot turn a model's stray `*` or `_` into a refused message: what the model
  wrote is what the person reads.
- Lengths. Telegram takes at most 4,096 characters a message, counted in UTF-16 code units (an emoji
  outside the Basic Multilingual Plane counts twice). `split_reply` counts code points, so parts are cut at
  `LIMIT` (4,000) code points and any part still over 4,096 units is cut again, smaller, until it fits.
- Flood control. A `RetryAfter` ("Too Many Requests: retry after N") is waited out, N seconds plus a half
  second of slack as PTB's own polling does, then the call is tried again, at most `Patience.retries` times
  and never for a wait longer than `Patience.longest` (the runner gives a send 30 s; past that it is better
  to fail loudly than to answer a minute late). A group upgraded to a supergroup (`ChatMigrated`) is
  written to at its new id.
- Typing. The chat action lasts about five seconds; `typing` sends it at once and again every `every`
  seconds until the reply is ready. A failed chat action is logged at debug and never stops the reply.

Nothing here imports the core's runner: the middleware and the adapter share it.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dtm
import logging
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from telegram import Bot, Message, ReplyParameters
from telegram.constants import ChatAction
from telegram.error import ChatMigrated, RetryAfter, TelegramError

from mneme_core.adapters import split_reply

__all__ = ["LIMIT", "TELEGRAM_LIMIT", "Patience", "parts_of", "send_text", "typing", "units", "waited"]

log = logging.getLogger(__name__)

TELEGRAM_LIMIT = 4096
"""The longest message Telegram takes, in UTF-16 code units."""
LIMIT = 4000
"""The code points a part is first cut at (`split_reply`), leaving room for the UTF-16 check."""
SLACK = 0.5

T = TypeVar("T")


def units(text: str) -> int:
    """The length Telegram counts: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def parts_of(text: str, limit: int = LIMIT) -> list[str]:
    """`text` in parts of at most `limit` code points and `TELEGRAM_LIMIT` UTF-16 units, cut at the best
    boundaries `split_reply` finds; [] for blank text."""
    parts: list[str] = []
    for part in split_reply(text, limit):
        if units(part) <= TELEGRAM_LIMIT:
            parts.append(part)
            continue
        # Astral characters made it too long: cut again, as much smaller as the part is over.
        smaller = max(16, limit * TELEGRAM_LIMIT // units(part) - 8)
        parts.extend(parts_of(part, smaller))
    return parts


def waited(err: RetryAfter) -> float:
    """The seconds Telegram asked to wait. (PTB 22 gives an int or a timedelta, warning about the int.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecation of the int form is PTB's, not the reader's
        value = err.retry_after
    if isinstance(value, dtm.timedelta):
        return value.total_seconds()
    return float(value)


@dataclass(frozen=True, kw_only=True)
class Patience:
    """How flood control is obeyed: at most `retries` retries, none after a wait over `longest` seconds;
    `sleep` waits (a test gives one that records instead)."""

    retries: int = 3
    longest: float = 25.0
    sleep: Callable[[float], Awaitable[Any]] = field(default=asyncio.sleep, compare=False)


async def obeying(call: Callable[[int | str], Awaitable[T]], chat_id: int | str, patience: Patience) -> T:
    """`call(chat_id)`, tried again after each flood-control wait Telegram asks for (within `patience`),
    and at a group's new id after it became a supergroup."""
    tries = 0
    while True:
        try:
            return await call(chat_id)
        except RetryAfter as err:
            wait = waited(err) + SLACK
            if tries >= patience.retries or wait > patience.longest:
                log.warning(
                    "flood control: Telegram asks to wait %.1f s; giving up on chat %s", wait, chat_id
                )
                raise
            tries += 1
            log.info("flood control: waiting %.1f s before trying chat %s again", wait, chat_id)
            await patience.sleep(wait)
        except ChatMigrated as err:
            if tries >= patience.retries:
                raise
            tries += 1
            log.info("chat %s became supergroup %s; writing there", chat_id, err.new_chat_id)
            chat_id = err.new_chat_id


async def send_text(
    bot: Bot,
    chat_id: int | str,
    text: str,
    *,
    reply_to: int | None = None,
    thread_id: int | None = None,
    patience: Patience | None = None,
    markup: Any = None,
) -> list[Message]:
    """Send `text` as plain text, in as many messages as it takes; returns the messages sent. `reply_to`
    quotes a message (sent even if that message is gone); `thread_id` is a forum topic; `markup` (buttons)
    goes on the last part."""
    patience = patience if patience is not None else Patience()
    parts = parts_of(text)
    sent: list[Message] = []
    for number, part in enumerate(parts, 1):
        options: dict[str, Any] = {"parse_mode": None}
        if reply_to is not None:
            options["reply_parameters"] = ReplyParameters(reply_to, allow_sending_without_reply=True)
        if thread_id is not None:
            options["message_thread_id"] = thread_id
        if markup is not None and number == len(parts):
            options["reply_markup"] = markup

        async def one(target: int | str, part: str = part, options: dict[str, Any] = options) -> Message:
            return await bot.send_message(chat_id=target, text=part, **options)

        sent.append(await obeying(one, chat_id, patience))
    return sent


async def _keep_typing(bot: Bot, chat_id: int | str, thread_id: int | None, every: float) -> None:
    while True:
        await asyncio.sleep(every)
        await _type_once(bot, chat_id, thread_id)


async def _type_once(bot: Bot, chat_id: int | str, thread_id: int | None) -> None:
    try:
        await bot.send_chat_action(chat_id=chat_id, action=ChatAction.TYPING, message_thread_id=thread_id)
    except TelegramError as err:  # typing is cosmetic: a refusal (flood control too) never stops a reply
        log.debug("could not show typing in chat %s: %s", chat_id, err)


@contextlib.asynccontextmanager
async def typing(
    bot: Bot, chat_id: int | str, thread_id: int | None = None, *, every: float = 4.5
) -> AsyncIterator[None]:
    """Show "typing…" in the chat now and every `every` seconds until the block ends."""
    await _type_once(bot, chat_id, thread_id)
    keeper = asyncio.create_task(_keep_typing(bot, chat_id, thread_id, every), name=f"typing in {chat_id}")
    try:
        yield
    finally:
        keeper.cancel()
        await asyncio.gather(keeper, return_exceptions=True)


def texts_of(sent: Message | Sequence[Message] | None) -> str:
    """The text of a message or messages the bot sent, joined; "" when there is none."""
    if sent is None:
        return ""
    messages = [sent] if isinstance(sent, Message) else list(sent)
    return "\n".join(m.text or m.caption or "" for m in messages if isinstance(m, Message)).strip()
