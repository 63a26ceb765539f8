"""Reading a Telegram message: who wrote it, whether the bot was addressed, and what they said to it.

Policy (the same for the middleware and the adapter):
- A person is `message.from_user` when it is not a bot. Other bots, the bot itself, channel posts and
  anonymous group admins (who write as `GroupAnonymousBot`) are nobody: no subject, no memory, no reply.
- A private chat always addresses the bot. In a group the bot is addressed when mentioned (`@username`, or a
  text mention of its account), replied to (a reply to one of its messages, not the automatic reply to a
  forum topic's first message), named (one of `names`, as a whole word), or by its ask command
  (`/ask <text>`, `/ask@username <text>`). Privacy mode (on by default, BotFather's /setprivacy) shows a
  bot only such messages anyway, and commands.
- The text for the model is the message's text with the ask command and the bot's own `@username` taken
  out; what remains blank leaves the original text.
- A photo, video, document, voice note or animation with a caption is conversation too: its text is the
  caption after the kind in brackets (`[photo] look at Mochi`), so the model knows there was something it
  cannot see. Without a caption it is not, nor are stickers, joins and the like; edited messages neither
  (callers skip them).
- `spoken` gives the adapter's text for the model in a group, who spoke and where (`Leo in Friends: ...`),
  as the Discord adapter does, so the reply and the notes written from the exchange know who said it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from telegram import Message, MessageEntity, Update, User
from telegram.constants import ChatType

from mneme_core.bot import Incoming
from mneme_core.bot import spoken as framed

from .settings import ASK

__all__ = ["ASK", "MEDIA", "Said", "command_of", "incoming_of", "person_of", "read", "spoken"]

MEDIA = ("photo", "video", "animation", "document", "audio", "voice", "video_note")


@dataclass(frozen=True)
class Said:
    """A conversational message: its text for the model, and whether the bot was addressed."""

    text: str
    is_direct: bool
    addressed: bool


def person_of(update: Update) -> User | None:
    """Who this update is from, when it is a person (not a bot, not a channel); else None."""
    user = update.effective_user
    if user is None or user.is_bot:
        return None
    message = update.effective_message
    if message is not None and message.sender_chat is not None and update.callback_query is None:
        return None  # written on behalf of a chat (a channel, an anonymous admin): no one to remember
    return user


def _command(message: Message, text: str) -> tuple[str, str | None, str] | None:
    """(command, addressee or None, the rest) when the message starts with a bot command."""
    entities = message.entities or ()
    first = next((e for e in entities if e.type == MessageEntity.BOT_COMMAND and e.offset == 0), None)
    if first is None:
        return None
    word = message.parse_entity(first)[1:]
    command, _, addressee = word.partition("@")
    return command.lower(), addressee or None, text[len(message.parse_entity(first)) :].strip()


def command_of(message: Message, bot: User) -> tuple[str, str] | None:
    """(command, the rest) when the message starts with a command for this bot (`/memory`,
    `/memory@this_bot`); None for plain text and for another bot's command."""
    found = _command(message, message.text or "")
    if found is None:
        return None
    name, addressee, rest = found
    if addressee is not None and addressee.lower() != (bot.username or "").lower():
        return None
    return name, rest


def _mentions(message: Message, bot: User, caption: bool = False) -> bool:
    wanted = (bot.username or "").lower()
    kinds = [MessageEntity.MENTION, MessageEntity.TEXT_MENTION]
    found_in = message.parse_caption_entities(kinds) if caption else message.parse_entities(kinds)
    for entity, found in found_in.items():
        if entity.type == MessageEntity.TEXT_MENTION and entity.user is not None and entity.user.id == bot.id:
            return True
        if entity.type == MessageEntity.MENTION and wanted and found[1:].lower() == wanted:
            return True
    return False


def _replies_to(message: Message, bot: User) -> bool:
    original = message.reply_to_message
    if original is None or original.from_user is None or original.from_user.id != bot.id:
        return False
    # In a forum topic every message "replies" to the topic's first message; that addresses nobody.
    return not (message.is_topic_message and original.forum_topic_created is not None)


def _named(text: str, names: Iterable[str]) -> bool:
    folded = text.casefold()
    for name in names:
        name = name.strip().casefold()
        if name and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", folded):
            return True
    return False


def _without_username(text: str, bot: User) -> str:
    if not bot.username:
        return text
    stripped = re.sub(rf"@{re.escape(bot.username)}\b", "", text, flags=re.IGNORECASE)
    return re.sub(r"[ \t]{2,}", " ", stripped).strip()


def _media(message: Message) -> str | None:
    return next((kind for kind in MEDIA if getattr(message, kind, None)), None)


def read(message: Message, bot: User, *, names: Iterable[str] = (), ask: str = ASK) -> Said | None:
    """The message as conversation, or None when it is not (no text nor captioned media, another bot's
    command, a command of this bot other than the ask command: those have handlers of their own)."""
    is_direct = message.chat.type == ChatType.PRIVATE
    text = message.text
    if text is None:
        kind = _media(message)
        if kind is None or not message.caption or not message.caption.strip():
            return None
        caption = message.caption
        addressed = is_direct or _mentions(message, bot, True) or _replies_to(message, bot)
        addressed = addressed or _named(caption, names)
        said = _without_username(caption, bot) or caption.strip()
        return Said(f"[{kind}] {said}", is_direct, addressed)
    if not text.strip():
        return None
    if _command(message, text) is not None:
        command = command_of(message, bot)
        if command is None:
            return None  # another bot's command
        name, rest = command
        if name != ask or not rest:
            return None  # this bot's other commands have handlers of their own
        return Said(_without_username(rest, bot) or rest, is_direct, True)
    addressed = is_direct or _mentions(message, bot) or _replies_to(message, bot) or _named(text, names)
    return Said(_without_username(text, bot) or text.strip(), is_direct, addressed)


def spoken(message: Message, person: User, said: str) -> str:
    """The text as the model and the notes see it: in a group, who spoke and where."""
    if message.chat.type == ChatType.PRIVATE:
        return said
    return framed(person.full_name or person.username, (message.chat.title or "").strip() or "a group", said)


def incoming_of(update: Update, bot: User, *, names: Iterable[str] = (), ask: str = ASK) -> Incoming | None:
    """A new message from a person with something to say (text, or a caption), as an `Incoming` (its text
    framed in a group, `spoken`); None for anything else."""
    message = update.message
    person = person_of(update)
    if message is None or person is None:
        return None
    said = read(message, bot, names=names, ask=ask)
    if said is None:
        return None
    return Incoming(
        platform="telegram",
        user_id=str(person.id),
        user_name=person.full_name or person.username or None,
        text=spoken(message, person, said.text),
        chat_id=str(message.chat.id),
        is_direct=said.is_direct,
        addressed=said.addressed,
        message_id=str(message.message_id),
        raw=message,
    )
