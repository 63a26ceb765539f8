"""Adapters: what a chat platform must give the runner, and what the runner gives back.

An adapter turns a platform's event into an `Incoming` (who wrote, where, whether the bot was addressed,
what they said), hands it to the runner, and sends the runner's reply back in parts no longer than the
platform allows, showing a typing signal while the model thinks. The runner does the rest (`runner`).

Glossary:
- platform: a lowercase name, with `:` for a bridge's platforms (`discord`, `telegram`, `onebot:wechat`).
- user id, chat id: strings, always. Discord and QQ ids exceed 32 bits and Telegram's group ids are
  negative; a number is taken and turned into its decimal string, once, here.
- subject: whose memory it is, `platform:user_id` (`discord:42`), never mixed with the chat: one person is
  one subject in every chat. A `resolve_subject` hook may map several platform ids to one person.
- direct / addressed: a direct message always wants a reply; in a group the runner answers only when the
  bot was addressed (mentioned, replied to, named), unless configured otherwise.

`split_reply` cuts a long reply at the best boundary it can find: between paragraphs, then lines, then
sentences, then words, and only then inside a word. A fenced code block (```) is never cut unless it alone
is over the limit; then it is cut between lines and each part is fenced again, so every part still renders.
No part is empty or only spaces. Lengths are counted in characters (code points): an adapter whose platform
counts otherwise (Telegram counts UTF-16 units) gives a limit with room to spare.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from . import text
from .errors import InvalidType, InvalidValue, describe
from .memory.note import subject_of as checked_subject

if TYPE_CHECKING:
    from .runner import Runner

__all__ = ["Adapter", "Incoming", "is_loopback", "platform_of", "split_reply", "subject_of"]

PLATFORM = re.compile(r"[a-z][a-z0-9_-]{0,39}(?::[a-z][a-z0-9_-]{0,39}){0,2}")
ID_LIMIT = 120
MIN_LIMIT = 16
FENCE = re.compile(r"^[ \t]*(```|~~~)", re.MULTILINE)


def is_loopback(host: str) -> bool:
    """Whether a server bound to `host` is reachable from this machine only (else it needs a token)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


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


def subject_of(platform: str, user_id: str | int) -> str:
    """The subject of a platform user: `subject_of("discord", 42)` is `discord:42`."""
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
        return subject_of(self.platform, self.user_id)


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


# -- splitting a reply ----------------------------------------------------------------------------------


def _blocks(reply: str) -> list[tuple[str, bool]]:
    """The reply as (text, is_code) pieces whose concatenation is the reply; a fenced block is one piece,
    with the line break after its closing fence; an unclosed fence runs to the end."""
    pieces: list[tuple[str, bool]] = []
    at = 0
    while True:
        opening = FENCE.search(reply, at)
        if opening is None:
            break
        line_end = reply.find("\n", opening.end())
        if line_end < 0:  # a fence on the last line opens nothing
            break
        closing = re.compile(rf"^[ \t]*{re.escape(opening.group(1))}[ \t]*$", re.MULTILINE)
        close = closing.search(reply, line_end + 1)
        end = len(reply) if close is None else close.end()
        if end < len(reply) and reply[end] == "\n":
            end += 1
        if opening.start() > at:
            pieces.append((reply[at : opening.start()], False))
        pieces.append((reply[opening.start() : end], True))
        at = end
    if at < len(reply):
        pieces.append((reply[at:], False))
    return pieces


# Each level cuts a piece into smaller ones whose concatenation is the piece, keeping the separators.
_LEVELS = (
    re.compile(r".*?(?:\n[ \t]*\n\s*|\Z)", re.DOTALL),  # paragraphs
    re.compile(r".*?(?:\n|\Z)", re.DOTALL),  # lines
    re.compile(r".*?(?:[.!?…]+[\"'”’)\]]*\s+|[。！？]+[”’」』）]*\s*|\Z)", re.DOTALL),  # sentences
    re.compile(r"\S*\s*|\s+"),  # words
)


def _cut(piece: str, level: int) -> list[str]:
    if level >= len(_LEVELS):
        return list(piece)
    return [found for found in _LEVELS[level].findall(piece) if found]


def _size(chunk: str) -> int:
    """A chunk's length as a part: the spaces and line breaks at its end go when it ends a part."""
    return len(chunk.rstrip())


def _prose(piece: str, limit: int, level: int = 0) -> list[str]:
    """A piece of plain text as chunks of at most `limit`, cut at the highest level that fits."""
    if _size(piece) <= limit:
        return [piece]
    chunks: list[str] = []
    for part in _cut(piece, level):
        chunks.extend(_prose(part, limit, level + 1) if _size(part) > limit else [part])
    return _pack(chunks, limit)


def _code(block: str, limit: int) -> list[str]:
    """A fenced block over the limit, cut between lines; each chunk fenced again with the same opening."""
    lines = block.rstrip("\n").split("\n")
    opening = lines[0]
    fence = opening.strip()[:3]
    body = lines[1:-1] if len(lines) > 1 and lines[-1].strip() == fence else lines[1:]
    room = limit - len(opening) - len(fence) - 2
    if room < 1:  # no room for a fence: plain text it is
        return _prose(block, limit)
    chunks: list[str] = []
    for line in body:
        pieces = [line[n : n + room] for n in range(0, len(line), room)] or [""]
        chunks.extend(piece + "\n" for piece in pieces)
    return [f"{opening}\n{chunk}{fence}" for chunk in _pack(chunks, room + 1, len)]


def _pack(chunks: list[str], limit: int, size: Callable[[str], int] = _size) -> list[str]:
    """Consecutive chunks joined while they fit (measured by `size`)."""
    packed: list[str] = []
    for chunk in chunks:
        if packed and size(packed[-1] + chunk) <= limit:
            packed[-1] += chunk
        else:
            packed.append(chunk)
    return packed


def split_reply(reply: str, limit: int) -> list[str]:
    """The reply in parts of at most `limit` characters, cut at the best boundaries; [] for a blank one."""
    if not isinstance(reply, str):
        raise InvalidType(f"a reply is a string, not {type(reply).__name__}")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < MIN_LIMIT:
        raise InvalidValue(f"a length limit is a whole number of {MIN_LIMIT} or more, not {describe(limit)}")
    reply = reply.strip("\n").rstrip()
    if not reply.strip():
        return []
    if len(reply) <= limit:
        return [reply]
    chunks: list[str] = []
    for piece, is_code in _blocks(reply):
        if _size(piece) <= limit:
            chunks.append(piece)
        elif is_code:
            chunks.extend(chunk + "\n" for chunk in _code(piece, limit - 1))
        else:
            chunks.extend(_prose(piece, limit))
    parts = [part.strip("\n").rstrip() for part in _pack(chunks, limit)]
    return [part for part in parts if part.strip()]
