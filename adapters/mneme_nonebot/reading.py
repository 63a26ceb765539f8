"""A NoneBot2 message event as the bot layer takes it (`Incoming`): whose memory, which conversation,
whether the companion was addressed, and what was said.

Subjects are the ones our own adapters give, so a person keeps one memory whichever bridge carries them:
the platform comes from the NoneBot adapter's name, the user from `event.get_user_id()`.
- `OneBot V11`, `OneBot V12` (QQ and WeChat bridges): read by our OneBot adapter's own reader
  (`mneme_onebot.OneBotAdapter.incoming`, the code `mneme run onebot` runs): `onebot:qq:10001`,
  `onebot:wechat:wxid_abc`. A v12 event names its platform; a v11 bridge's is the one the companion's
  `[adapters.onebot]` table says (`platform`, or a bot's own under `bridges`; `qq` by default). Segments
  are read as there: text, other people's @-mentions as `@name`, images, voice, files as `[image]`,
  `[voice]`, `[file: name]`; a message that @-mentions the bot, replies to one of its messages or starts
  with one of `[adapters.onebot] names` addresses it.
- `Telegram` gives `telegram:<id>` and `Discord` `discord:<id>`, as `mneme_telegram` and `mneme_discord` do.
- `QQ` (QQ's official bot API) gives `qqbot:<openid>`: its ids are openids of one bot, not QQ numbers, so
  they are never `onebot:qq`. `Kaiheila` is `kook`. Any other adapter is its name in lowercase, other
  characters as `-` (`Feishu` -> `feishu`, `DingTalk` -> `dingtalk`).

Addressed: NoneBot's own `event.is_tome()` (the OneBot adapter sets it for an @-mention, a reply to the bot
and NoneBot's `NICKNAME`), or what the reader finds. Where: a OneBot event says private, group or channel.
On other adapters the event's session says it, by NoneBot's convention: a session id that is the user's id
is a private chat; any other is a room, whose conversation is the session id without the user's id at its
end (`group_777_10001` -> `group_777`), so everyone in the room shares it.

An event that is not a message (a notice, a heartbeat), an anonymous group message and the bot's own are
nobody's memory: `None`, quietly. An event that cannot be read (an id that is not one line, a platform
name that is not a name, an adapter whose `get_user_id` fails on a message) is logged and counted
(`counts["malformed"]`) and is `None` too: a bad event never takes a handler down.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from mneme_onebot import OneBotAdapter
from mneme_onebot import events as onebot_events
from mneme_onebot.adapter import Route
from nonebot.compat import model_dump

from mneme_core.bot import Incoming, spoken
from mneme_core.errors import InvalidType, InvalidValue, describe

__all__ = ["Delivery", "Reader", "platform_of"]

log = logging.getLogger(__name__)

ONEBOT = frozenset({"OneBot V11", "OneBot V12"})
PLATFORMS = {"Telegram": "telegram", "Discord": "discord", "QQ": "qqbot", "Kaiheila": "kook"}


def platform_of(adapter: str) -> str:
    """The platform a NoneBot adapter's name stands for, outside OneBot (see the module docstring)."""
    if adapter in PLATFORMS:
        return PLATFORMS[adapter]
    name = re.sub(r"[^a-z0-9_]+", "-", adapter.strip().lower()).strip("-")
    if not name or not name[0].isalpha():
        raise InvalidValue(f"a NoneBot adapter's name becomes a platform, but {describe(adapter)} cannot")
    return name[:40]


@dataclass(frozen=True, eq=False)
class Delivery:
    """Where a message came from, for its reply (an `Incoming`'s `raw`): the bot and the event, and the
    OneBot route (the bridge whose sent messages a reply to the bot is recognised by)."""

    bot: Any
    event: Any
    route: Route | None = None

    @property
    def adapter(self) -> str:
        return self.bot.adapter.get_name()


class Reader:
    """Reads NoneBot events; `onebot` is the companion's `[adapters.onebot]` table."""

    def __init__(self, onebot: Mapping[str, Any] | None = None) -> None:
        self.onebot = OneBotAdapter(onebot or {})
        self.counts: Counter[str] = Counter()

    @property
    def names(self) -> tuple[str, ...]:
        return self.onebot.config.names

    def incoming(self, bot: Any, event: Any) -> Incoming | None:
        """The event as an `Incoming` (its `raw` a `Delivery`), or None (see the module docstring)."""
        try:
            if event.get_type() != "message":
                return None
            adapter = bot.adapter.get_name()
            if adapter in ONEBOT:
                return self._onebot(bot, event)
            return self._other(platform_of(adapter), bot, event)
        except (InvalidValue, InvalidType, ValueError, TypeError, AttributeError) as err:
            self.counts["malformed"] += 1
            log.warning("skipped a NoneBot event that could not be read: %s: %s", type(err).__name__, err)
            return None

    def _onebot(self, bot: Any, event: Any) -> Incoming | None:
        frame = model_dump(event)
        frame["message"] = frame.get("original_message", frame.get("message"))  # the @ and the reply too
        event_of = onebot_events.parse(frame)
        if isinstance(event_of, onebot_events.Other):
            return None
        # The OneBot adapter's own reading of a message (its public `incoming` would log a bad one as an
        # HTTP post's): the same subject, text and addressing as `mneme run onebot`.
        found = self.onebot._incoming(event_of)
        route = found.raw if isinstance(found.raw, Route) else None
        return replace(
            found,
            addressed=found.addressed or bool(event.is_tome()),
            raw=Delivery(bot, event, route),
        )

    def _other(self, platform: str, bot: Any, event: Any) -> Incoming:
        user_id = event.get_user_id()
        if not isinstance(user_id, str):
            raise InvalidType(f"get_user_id() gave {describe(user_id)}, not a string")
        session = event.get_session_id()
        direct = session == user_id
        room = None if direct else session.removesuffix(f"_{user_id}")
        message = onebot_events.Message(
            version=12,
            self_id=str(bot.self_id),
            platform=platform,
            detail="private" if direct else "group",
            user_id=user_id,
            group_id=room,
            segments=tuple({"type": s.type, "data": s.data} for s in event.get_message()),
        )
        reading = onebot_events.read(message, names=() if direct else self.names)
        return Incoming(
            platform=platform,
            user_id=user_id,
            text=spoken(user_id, None if direct else f"group {room}", reading.text),
            chat_id=room,
            is_direct=direct,
            addressed=reading.addressed or bool(event.is_tome()),
            raw=Delivery(bot, event),
        )
