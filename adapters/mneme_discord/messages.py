"""A Discord message as the runner takes it (`Incoming`), and the rules of when the bot is spoken to.

- Ignored (None): messages of bots, webhooks and the bot itself; system notices (joins, pins, boosts: any
  type but a plain message or a reply); direct messages when "dm" is not in `respond_in`; messages in server
  channels the settings leave out.
- Addressed: a direct message always; in a server, a mention of the bot or of its own role ("mention"),
  never through @everyone or @here; a reply to one of its messages ("reply"); its name as a word ("name");
  any message ("all"). A server message not addressed still becomes an `Incoming` (addressed False): the
  runner counts it and lets it pass.
- The text: mentions become `@name` (the bot's own at the start is dropped), custom emoji `:name:`;
  attachments and stickers are noted in brackets (`[image: cat.png]`, `[sticker: wave]`), never fetched. In
  a server the text says who spoke and where (`Leo in #general: ...`), so the model knows who talks to it
  and the notes written from the exchange say where it was said.

Works on discord.py's objects by their attributes only; nothing here imports discord.py.
"""

from __future__ import annotations

import re
from typing import Any

from mneme_core import text as mtext
from mneme_core.bot import Incoming, spoken

from .settings import DiscordSettings

__all__ = ["PLATFORM", "addressed", "body", "incoming_of", "spoken"]

PLATFORM = "discord"
CONVERSATION = frozenset({"default", "reply"})
USER = re.compile(r"<@!?(\d+)>")
ROLE = re.compile(r"<@&(\d+)>")
CHANNEL = re.compile(r"<#(\d+)>")
EMOJI = re.compile(r"<a?:(\w+):\d+>")
NAME_LIMIT = 80


def _id(thing: Any) -> int | None:
    return getattr(thing, "id", None)


def mentions_me(message: Any, me: int) -> bool:
    """The bot, or the role Discord made for it, is mentioned (@everyone and @here are not mentions)."""
    if any(_id(user) == me for user in message.mentions or ()):
        return True
    member = getattr(message.guild, "me", None)
    own_roles = {role.id for role in getattr(member, "roles", ()) if role.is_bot_managed()}
    return any(_id(role) in own_roles for role in message.role_mentions or ())


def replies_to_me(message: Any, me: int) -> bool:
    reference = message.reference
    if reference is None:
        return False
    found = reference.resolved or reference.cached_message
    return _id(getattr(found, "author", None)) == me


def names_me(said: str, names: tuple[str, ...]) -> bool:
    folded = said.casefold()
    return any(re.search(rf"(?<!\w){re.escape(name.casefold())}(?!\w)", folded) for name in names)


def addressed(message: Any, me: Any, settings: DiscordSettings) -> bool:
    """Whether a server message is for the bot, by the places in `respond_in`."""
    places = settings.respond_in
    if "all" in places:
        return True
    if me is None:  # not logged in yet: nothing can be addressed to nobody
        return False
    if "mention" in places and mentions_me(message, me.id):
        return True
    if "reply" in places and replies_to_me(message, me.id):
        return True
    if "name" not in places:
        return False
    member = getattr(message.guild, "me", None)
    names = (
        *settings.names,
        *(getattr(who, field, None) for who, field in ((me, "name"), (me, "global_name"), (member, "nick"))),
    )
    return names_me(message.content or "", tuple(name for name in names if name))


def body(message: Any, me_id: int | None = None) -> str:
    """What the person wrote, readable: mentions by name, emoji by name, attachments and stickers noted."""
    said = message.content or ""
    if me_id is not None:
        said = re.sub(rf"^\s*(?:<@!?{me_id}>[\s,:]*)+", "", said)
    users = {str(user.id): user.display_name for user in message.mentions or ()}
    roles = {str(role.id): role.name for role in message.role_mentions or ()}
    channels = {str(ch.id): getattr(ch, "name", None) for ch in message.channel_mentions or ()}
    said = USER.sub(lambda m: "@" + users.get(m.group(1), "someone"), said)
    said = ROLE.sub(lambda m: "@" + roles.get(m.group(1), "a role"), said)
    said = CHANNEL.sub(lambda m: "#" + (channels.get(m.group(1)) or "a channel"), said)
    said = EMOJI.sub(lambda m: f":{m.group(1)}:", said)
    notes = [_attachment(item) for item in message.attachments or ()]
    notes += [
        f"[sticker: {mtext.one_line(getattr(item, 'name', '') or '?', NAME_LIMIT)}]"
        for item in _stickers(message)
    ]
    return "\n".join(part for part in (said.strip(), " ".join(notes)) if part)


def _stickers(message: Any) -> list[Any]:
    return list(getattr(message, "stickers", None) or ())


def _attachment(item: Any) -> str:
    kind = (getattr(item, "content_type", None) or "").split("/")[0]
    label = kind if kind in ("image", "video", "audio") else "attachment"
    return f"[{label}: {mtext.one_line(getattr(item, 'filename', '') or '?', NAME_LIMIT)}]"


def place_of(channel: Any) -> str:
    name = getattr(channel, "name", None)
    return f"#{mtext.one_line(name, NAME_LIMIT)}" if name else "a server channel"


def incoming_of(
    message: Any, me: Any, settings: DiscordSettings, *, anywhere: bool = False
) -> Incoming | None:
    """The message as an `Incoming`, or None for one the bot never answers (see the module docstring).
    `anywhere` drops the rules of where the bot answers (for a host that decided to answer itself): only
    bots, the bot itself and system notices are None then."""
    author = message.author
    if author is None or author.bot or message.webhook_id is not None:
        return None
    if me is not None and author.id == me.id:
        return None
    if getattr(message.type, "name", None) not in CONVERSATION:
        return None
    channel = message.channel
    direct = message.guild is None
    if direct:
        if "dm" not in settings.respond_in and not anywhere:
            return None
        spoken_to = True
    elif anywhere:
        spoken_to = True
    else:
        parent = getattr(channel, "parent_id", None)
        if not settings.answers_in(str(channel.id), None if parent is None else str(parent)):
            return None
        spoken_to = addressed(message, me, settings)
    name = mtext.one_line(author.display_name or author.name or "", NAME_LIMIT) or None
    said = body(message, None if me is None else me.id)
    return Incoming(
        platform=PLATFORM,
        user_id=str(author.id),
        user_name=name,
        text=spoken(name, None if direct else place_of(channel), said),
        chat_id=str(channel.id),
        is_direct=direct,
        addressed=spoken_to,
        message_id=str(message.id),
        raw=message,
    )
