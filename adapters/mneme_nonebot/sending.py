"""Sending through NoneBot: a reply where the message was said, and an answer only the person sees.

`NoneBotAdapter` is the bot layer's `Adapter` for one NoneBot adapter (one per platform, for its limit):
the runner hands it each part of a reply, and it sends the part with `bot.send(event, part)`, NoneBot's
own way for every adapter. In a OneBot group the first part quotes the message it answers (as
`mneme run onebot` does, `[adapters.onebot] quote`), and the id of each message sent is kept on the
bridge, so a reply to it addresses the bot.

`privately(bot, event, text)`: what the companion remembers and how it feels about someone is theirs
alone. In a direct chat it is said there; in a OneBot group it goes to the person as a private message
(`send_private_msg`, with the group for a temporary chat, or v12's `send_message`), and the group hears
only that it was sent. Where the platform has no such message, or it is refused (QQ refuses strangers),
nothing private is said in the group: False, and the caller asks the person to write privately.
"""

from __future__ import annotations

import logging
import weakref
from typing import Any

from mneme_core.bot import Adapter, Incoming
from mneme_core.errors import InvalidType, describe

from .reading import Delivery

__all__ = ["LIMITS", "NoneBotAdapter", "privately"]

log = logging.getLogger(__name__)

# The longest message each platform takes (OneBot's is the [adapters.onebot] limit).
LIMITS = {"Telegram": 4096, "Discord": 2000}


class NoneBotAdapter(Adapter):
    """The runner's adapter for one NoneBot adapter's messages."""

    name = "nonebot"

    def __init__(self, adapter: str, *, limit: int = 2000, quote: bool = False) -> None:
        super().__init__()
        self.adapter = adapter
        self.limit = limit  # type: ignore[misc]
        self.quote = quote
        self._quoted: weakref.WeakSet[Delivery] = weakref.WeakSet()

    def __repr__(self) -> str:
        return f"NoneBotAdapter({self.adapter!r})"

    async def send(self, incoming: Incoming, text: str) -> None:
        delivery = _delivery(incoming)
        options: dict[str, Any] = {}
        first = delivery not in self._quoted
        if self.quote and first and not incoming.is_direct and incoming.message_id is not None:
            options["reply_message"] = True  # the first part only
        self._quoted.add(delivery)
        result = await delivery.bot.send(delivery.event, text, **options)
        if delivery.route is not None:
            delivery.route.bridge.remember_sent({"status": "ok", "data": result})


def _delivery(incoming: Incoming) -> Delivery:
    if not isinstance(incoming.raw, Delivery):
        raise InvalidType(f"the NoneBot adapter answers messages it read, not {describe(incoming)}")
    return incoming.raw


def _text(event: Any, text: str) -> Any:
    """`text` as one text segment of the event's own adapter (never parsed as CQ codes)."""
    message = event.get_message()
    return type(message)(message.get_segment_class().text(text))


async def privately(bot: Any, event: Any, incoming: Incoming, text: str) -> bool:
    """Say `text` to the person only (see the module docstring); False when it could not be."""
    if incoming.is_direct:
        await bot.send(event, text)
        return True
    adapter = bot.adapter.get_name()
    try:
        if adapter == "OneBot V11":
            params: dict[str, Any] = {"user_id": _number(incoming.user_id), "message": _text(event, text)}
            group = getattr(event, "group_id", None)
            if group is not None:
                params["group_id"] = group
            await bot.call_api("send_private_msg", **params)
        elif adapter == "OneBot V12":
            message = _text(event, text)
            await bot.call_api(
                "send_message", detail_type="private", user_id=incoming.user_id, message=message
            )
        else:
            return False
    except Exception as err:  # a platform boundary: a refused private message is said another way
        log.info("could not message %s privately: %s: %s", incoming.user_id, type(err).__name__, err)
        return False
    return True


def _number(value: str) -> int | str:
    return int(value) if value.isascii() and value.isdigit() else value
