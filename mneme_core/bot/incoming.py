"""What a chat platform gives the bot layer, and what it gets back: `Incoming` and `Adapter`.

An adapter turns a platform's event into an `Incoming` (who wrote, where, whether the bot was addressed,
what they said), hands it to the runner (or, in a drop-in mode, to the turn service, `turns`), and sends
the reply back in parts no longer than the platform allows (`split`), showing a typing signal while the
model thinks.

Glossary:
- platform: a lowercase name, with `:` for a bridge's platforms (`discord`, `telegram`, `onebot:wechat`).
- user id, chat id: strings, always. Discord and QQ ids exceed 32 bits and Telegram's group ids are
  negative; a number is taken and turned into its decimal string, once, here.
- subject: whose memory it is, `platform:user_id` (`discord:42`), never mixed with the chat: one person is
  one subject in every chat. A `resolve_subject` hook may map several platform ids to one person.
- direct / addressed: a direct message always wants a reply; in a group the bot answers only when it was
  addressed (mentioned, replied to, named), unless configured otherwise.
- spoken: in a group, the text as the model and the notes see it says who spoke and where
  (`Leo in #general: ...`), the same on every platform (`spoken`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from .. import text
from ..errors import InvalidType, InvalidValue, describe
from ..memory.note import subject_of as checked_subject

if TYPE_CHECKING:
    from .runner import Runner

__all__ = ["Adapter", "Incoming", "platform_of", "spoken", "subject_for"]

PLATFORM = re.compile(r"[a-z][a-z0-9_-]{0,39}(?::[a-z][a-z0-9_-]{0,39}){0,2}")
ID_LIMIT = 120


def platform_of(value: object) -> str:
    """A platform name as given, checked: `discord`, `onebot:wechat`."""
    if not isinstance(value, str) or not PLATFORM.fullmatch(value):
        raise InvalidValue(
            "a platform is a lowercase name like 'discord', or 'onebot:wechat' for a bridge, "
            f"not {describe(value)}"
        )
    return value


def _id(name: str, value: object) -> str:
    """An id as a string: a platform's number becomes its decimal string; anything else must be one line."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InvalidType(f"{name} is a string (or a whole number), not {describe(value)}")
    found = str(value).strip()
    if not found or len(found) > ID_LIMIT or text.clean(found) != found:
        raise InvalidValue(f"{name} is one line of 1 to {ID_LIMIT} characters, not {describe(value)}")
    return found


def subject_for(platform: str, user_id: str | int) -> str:
    """The subject of a platform user: `subject_for("discord", 42)` is `discord:42`."""
    return checked_subject(f"{platform_of(platform)}:{_id('a user id', user_id)}")


@dataclass(frozen=True, kw_only=True)
class Incoming:
    """One message from a platform, as the runner takes it. Ids are strings (numbers are converted)."""

    platform: str
    user_id: str
    text: str
    user_name: str | None = None
    """The display name, for the prompt and the notes ("Leo"); None when the platform has none."""
    chat_id: str | None = None
    """Where it was said (a channel, a group, a DM's chat); None means the direct chat with the user."""
    is_direct: bool = True
    addressed: bool = True
    """In a group: whether the bot was mentioned, replied to or named. A direct message is addressed."""
    message_id: str | None = None
    raw: Any = field(default=None, compare=False, repr=False)
    """The platform's own event, for the adapter's `send` (to reply in a thread, say); the runner never
    reads it."""

    def __post_init__(self) -> None:
        put = object.__setattr__
        platform_of(self.platform)
        put(self, "user_id", _id("a user id", self.user_id))
        for name in ("chat_id", "message_id"):
            value = getattr(self, name)
            if value is not None:
                put(self, name, _id(f"a {name.replace('_', ' ')}", value))
        if not isinstance(self.text, str):
            raise InvalidType(f"a message's text is a string, not {type(self.text).__name__}")
        if self.user_name is not None:
            if not isinstance(self.user_name, str):
                raise InvalidType(f"a display name is a string or None, not {describe(self.user_name)}")
            put(self, "user_name", text.one_line(self.user_name, 80) or None)
        for name in ("is_direct", "addressed"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidType(f"{name} is True or False, not {describe(getattr(self, name))}")

    @property
    def subject(self) -> str:
        """`platform:user_id`, before any `resolve_subject` plugin maps it."""
        return subject_for(self.platform, self.user_id)


def spoken(name: str | None, place: str | None, said: str) -> str:
    """The text as the model and the notes see it: in a group (`place`), who spoke and where."""
    if not said or place is None:
        return said
    return f"{text.one_line(name or '', 80) or 'someone'} in {text.one_line(place, 80)}: {said}"


class Adapter:
    """What a platform adapter implements. Subclass it, set `name` and `limit`, and register the class
    through `register_adapters`; the runner calls the rest.

    `__init__` takes the `[adapters.<name>]` settings (secrets still references: resolve them with
    `mneme_core.config.resolve` when starting, never log them). Heavy platform libraries are imported in
    `start`, not at the top of the module, so listing plugins never imports discord.py.
    """

    name: ClassVar[str] = "adapter"
    limit: ClassVar[int] = 2000
    """The longest message the platform takes, in characters; longer replies are split (`split_reply`)."""
    send_timeout: ClassVar[float | None] = None
    """How long one part may take to send, if not the runner's `send_timeout` (a platform that asks the
    bot to wait out a flood limit needs longer)."""

    def __init__(self, settings: Mapping[str, Any] | None = None) -> None:
        if settings is not None and not isinstance(settings, Mapping):
            raise InvalidType(f"an adapter's settings are a table, not {type(settings).__name__}")
        self.settings: dict[str, Any] = dict(settings or {})

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

    async def start(self, runner: Runner) -> None:
        """Connect, and hand each event the platform delivers to `await runner.submit(self, incoming)`.
        Return once listening (run the platform's loop in a task of your own); call `runner.stop_soon()`
        if the source ends for good."""
        raise NotImplementedError(f"{type(self).__name__} must implement start(runner)")

    async def stop(self) -> None:
        """Disconnect; called once, after the runner stopped taking messages."""

    def incoming(self, event: Any) -> Incoming | None:
        """The platform's event as an `Incoming`, or None for one to ignore (the bot's own messages, other
        bots, system notices)."""
        raise NotImplementedError(f"{type(self).__name__} must implement incoming(event)")

    async def send(self, incoming: Incoming, text: str) -> None:
        """Send one part of a reply (never longer than `limit`) to where `incoming` came from."""
        raise NotImplementedError(f"{type(self).__name__} must implement send(incoming, text)")

    def typing(self, incoming: Incoming) -> AbstractAsyncContextManager[Any]:
        """An async context manager showing "typing…" while the model thinks (none by default)."""
        return contextlib.nullcontext()
