"""OneBot events as values: which version, which bot, who said what where, and whether it was to the bot.

Both versions are read here, and nothing else in the package looks inside an event:
- v11 (`post_type`): `message` events with `message_type` private or group; ids are numbers, turned into
  their decimal strings; the bot is `self_id`, and the platform is not said (the configuration gives it).
  `message` is a segment array or a CQ string (`cqcode`), by the bridge's `message_post_format`.
- v12 (`type` and `detail_type`): `message` events with detail_type private, group or channel; ids are
  strings; the bot is `self = {platform, user_id}`. `message` is a segment array.

Meta events (v11 `meta_event`: heartbeat, lifecycle; v12 `meta`: connect, heartbeat, status_update),
notices and requests are `Other`: the adapter lets them pass quietly. Anything that is not an event of
either version, or a message event without what a message needs, raises `Malformed` (logged and skipped
by the adapter, never a crash). Anonymous group messages (v11) and the bot's own messages are `Other` too:
an anonymous speaker is no one person to remember, and the bot does not talk to itself.

Reading a message (`read`): text segments are the text; an @-mention of the bot, or a reply to one of its
messages (or, in v12, to a message whose sender is the bot), addresses it and is taken out of the text;
other mentions read `@name`; images, faces and the like are left out. In a group, a message that starts
with one of the bot's names addresses it too.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mneme_core import text
from mneme_core.errors import InvalidValue, describe

from . import cqcode

__all__ = ["Malformed", "Message", "Other", "Reading", "parse", "platform_name", "read"]

PLATFORM = re.compile(r"[a-z][a-z0-9_-]{0,39}")
ID_LIMIT = 120


class Malformed(InvalidValue):
    """A frame that is not a usable OneBot event; the message says what is wrong with it."""


@dataclass(frozen=True)
class Other:
    """An event that is not a message to answer: meta, notice, request, the bot's own, anonymous."""

    version: int
    kind: str
    """`meta:heartbeat`, `meta:lifecycle`, `notice:group_increase`, `message:self`, ..."""
    self_id: str | None = None
    platform: str | None = None


@dataclass(frozen=True, kw_only=True)
class Message:
    """A message event of either version, ids as strings."""

    version: int
    self_id: str
    platform: str | None
    """The platform the event names (v12); None for v11, where the configuration says it."""
    detail: str
    """private, group or channel."""
    user_id: str
    user_name: str | None = None
    group_id: str | None = None
    guild_id: str | None = None
    channel_id: str | None = None
    message_id: str | None = None
    segments: tuple[Mapping[str, Any], ...] = ()
    frame: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def is_direct(self) -> bool:
        return self.detail == "private"

    @property
    def place(self) -> str | None:
        """Where it was said, for the model: `group 12345`, `channel 7/9`; None in a private chat."""
        if self.detail == "group":
            return f"group {self.group_id}"
        if self.detail == "channel":
            return f"channel {self.guild_id}/{self.channel_id}"
        return None

    @property
    def chat_id(self) -> str | None:
        """Where it was said: the group, `guild/channel`, or None for a private chat."""
        if self.detail == "group":
            return self.group_id
        if self.detail == "channel":
            return f"{self.guild_id}/{self.channel_id}"
        return None


def ident(value: object, what: str) -> str:
    """An id as its string: a number becomes its decimal string; blank, multi-line or huge ones refused."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise Malformed(f"{what} is a string or a whole number, not {describe(value)}")
    found = str(value).strip()
    if not found or len(found) > ID_LIMIT or any(c in found for c in "\r\n\t\x00"):
        raise Malformed(f"{what} is one line of 1 to {ID_LIMIT} characters, not {describe(value)}")
    return found


def platform_name(value: object) -> str:
    """A v12 `self.platform` (or a configured one) as the lowercase name a subject carries."""
    found = value.strip().lower() if isinstance(value, str) else value
    if not isinstance(found, str) or not PLATFORM.fullmatch(found):
        raise Malformed(f"a platform is a lowercase name like qq or wechat, not {describe(value)}")
    return found


def parse(frame: object) -> Message | Other:
    """The event a decoded frame holds; `Malformed` when it is none."""
    if not isinstance(frame, Mapping):
        raise Malformed(f"an event is a JSON object, not {describe(frame)}")
    if "post_type" in frame:
        return _v11(frame)
    if "type" in frame and "detail_type" in frame:
        return _v12(frame)
    raise Malformed(f"neither a v11 event (post_type) nor a v12 one (type, detail_type): {describe(frame)}")


def _v11(frame: Mapping[str, Any]) -> Message | Other:
    post = frame.get("post_type")
    if post == "meta_event":
        return Other(11, f"meta:{frame.get('meta_event_type')}", _maybe(frame.get("self_id")))
    if post == "message_sent":  # the bot's own message, reported by bridges that do
        return Other(11, "message:self", _maybe(frame.get("self_id")))
    if post != "message":
        return Other(11, f"{post}:{frame.get(f'{post}_type')}", _maybe(frame.get("self_id")))
    self_id = ident(frame.get("self_id"), "self_id")
    detail = frame.get("message_type")
    if detail not in ("private", "group"):
        return Other(11, f"message:{detail}", self_id)
    user_id = ident(frame.get("user_id"), "user_id")
    if user_id == self_id:
        return Other(11, "message:self", self_id)
    if detail == "group" and frame.get("anonymous"):
        return Other(11, "message:anonymous", self_id)
    sender = frame.get("sender") if isinstance(frame.get("sender"), Mapping) else {}
    name = (sender.get("card") or sender.get("nickname")) if detail == "group" else sender.get("nickname")
    group_id = frame.get("group_id")
    body = frame.get("message", frame.get("raw_message"))
    return Message(
        version=11,
        self_id=self_id,
        platform=None,
        detail=detail,
        user_id=user_id,
        user_name=name if isinstance(name, str) and name.strip() else None,
        group_id=ident(group_id, "group_id") if detail == "group" or group_id is not None else None,
        message_id=_maybe(frame.get("message_id")),
        segments=segments_of(body),
        frame=frame,
    )


def _v12(frame: Mapping[str, Any]) -> Message | Other:
    kind, detail = frame.get("type"), frame.get("detail_type")
    me = frame.get("self")
    self_id = platform = None
    if isinstance(me, Mapping):
        self_id, platform = _maybe(me.get("user_id")), me.get("platform")
    if kind != "message":
        return Other(12, f"{kind}:{detail}", self_id, platform if isinstance(platform, str) else None)
    if not isinstance(me, Mapping):
        raise Malformed(f"a v12 message event names its bot in self {{platform, user_id}}: {describe(frame)}")
    self_id = ident(me.get("user_id"), "self.user_id")
    platform = platform_name(me.get("platform"))
    if detail not in ("private", "group", "channel"):
        return Other(12, f"message:{detail}", self_id, platform)
    user_id = ident(frame.get("user_id"), "user_id")
    if user_id == self_id:
        return Other(12, "message:self", self_id, platform)
    name = frame.get("user_name") or frame.get(f"{platform}.nickname")
    return Message(
        version=12,
        self_id=self_id,
        platform=platform,
        detail=detail,
        user_id=user_id,
        user_name=name if isinstance(name, str) and name.strip() else None,
        group_id=ident(frame.get("group_id"), "group_id") if detail == "group" else None,
        guild_id=ident(frame.get("guild_id"), "guild_id") if detail == "channel" else None,
        channel_id=ident(frame.get("channel_id"), "channel_id") if detail == "channel" else None,
        message_id=_maybe(frame.get("message_id")),
        segments=segments_of(frame.get("message"), cq=False),
        frame=frame,
    )


def _maybe(value: object) -> str | None:
    try:
        return ident(value, "an id")
    except Malformed:
        return None


def segments_of(body: object, *, cq: bool = True) -> tuple[Mapping[str, Any], ...]:
    """A message field as segments: a string (CQ codes in v11, plain text in v12), a segment array, or
    one segment. Items that are not segments are left out."""
    if isinstance(body, str):
        return tuple(cqcode.parse(body)) if cq else ({"type": "text", "data": {"text": body}},)
    if isinstance(body, Mapping):
        body = [body]
    if not isinstance(body, list):
        raise Malformed(f"a message is a CQ string or a list of segments, not {describe(body)}")
    return tuple(
        item
        for item in body
        if isinstance(item, Mapping)
        and isinstance(item.get("type"), str)
        and isinstance(item.get("data"), Mapping)
    )


@dataclass(frozen=True)
class Reading:
    text: str
    addressed: bool


def read(message: Message, *, mine: Collection[str] = (), names: Iterable[str] = ()) -> Reading:
    """The message's text and whether it is to the bot (`mine`: ids of messages the bot sent)."""
    parts: list[str] = []
    addressed = message.is_direct
    for segment in message.segments:
        kind, data = segment["type"], segment["data"]
        if kind == "text":
            parts.append(str(data.get("text", "")))
        elif kind in ("at", "mention"):
            target = _maybe(data.get("qq" if kind == "at" else "user_id"))
            if target == message.self_id:
                addressed = True
            elif target not in (None, "all"):
                name = data.get("name")
                parts.append(f"@{name if isinstance(name, str) and name.strip() else target}")
        elif kind == "reply":
            replied = _maybe(data.get("id", data.get("message_id")))
            if replied in mine or _maybe(data.get("user_id")) == message.self_id:
                addressed = True
        elif kind in ATTACHMENTS:
            parts.append(f" {_attachment(kind, data)} ")
    text = re.sub(r"[ \t]{2,}", " ", "".join(parts)).strip()
    if not addressed and _named(text, names):
        addressed = True
    return Reading(text, addressed)


# What the bridges send besides text, noted in brackets (never fetched), as the other adapters do: the model
# knows something was shown that it cannot see, and an image alone is still a message to answer.
ATTACHMENTS = {
    "image": "image",
    "record": "voice",
    "voice": "voice",
    "audio": "audio",
    "video": "video",
    "file": "file",
    "location": "location",
    "mface": "sticker",
    "face": "emoji",
}


def _attachment(kind: str, data: Mapping[str, Any]) -> str:
    label = ATTACHMENTS[kind]
    name = data.get("name") if kind == "file" else None
    if isinstance(name, str) and name.strip():
        return f"[{label}: {text.one_line(name, 80)}]"
    return f"[{label}]"


def _named(text: str, names: Iterable[str]) -> bool:
    """Whether `text` starts with one of the names, as a word (`Mio, hi`, `mio：你好`, not `Miosotis`)."""
    folded = text.casefold()
    for name in names:
        name = name.strip().casefold()
        if name and folded.startswith(name):
            rest = folded[len(name) :]
            if not rest or not (rest[0].isalnum() and rest[0].isascii()):
                return True
    return False
