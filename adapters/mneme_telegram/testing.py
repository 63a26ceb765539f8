"""Telegram offline, for tests: a Bot API that answers from memory, and updates as Telegram writes them.

    api = OfflineAPI()
    app = Application.builder().token(api.token).request(api).get_updates_request(api).updater(None).build()
    chat = Chats()
    async with app:
        await app.process_update(Update.de_json(chat.text("hi", LEO), app.bot))
    assert api.texts() == [...]

`OfflineAPI` is a `telegram.request.BaseRequest`: PTB's whole stack runs (the Bot, its request encoding, the
error mapping), only the HTTP round trip is replaced. It answers `getMe` with `BOT`, `sendMessage` and
`editMessageText` with the message they made, `getUpdates` with what `feed` queued (waiting for more, as
long polling does), anything else with `true`, and records every call as `(method, parameters)`.
`flood(method, seconds)` makes the next call of a method fail as Telegram's flood control does (HTTP 429,
`retry_after`), so retries can be tested without waiting; `fail(method, code, description)` any other way
(401 for a refused token, 403 for a user who blocked the bot). Nothing touches the network.

`Chats` writes update dicts (`Update.de_json` turns them into PTB's objects): text messages with their
entities (commands, `@mentions`, offsets counted in UTF-16 as Telegram does), replies, edits, photos,
channel posts, button presses. Ids and dates count up.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping
from typing import Any

from telegram.request import BaseRequest, RequestData

__all__ = ["ANA", "BOT", "LEO", "OTHER_BOT", "Chats", "OfflineAPI", "group", "private"]

BOT: dict[str, Any] = {
    "id": 777000111,
    "is_bot": True,
    "first_name": "Mio",
    "username": "mio_bot",
    "can_join_groups": True,
    "can_read_all_group_messages": False,
    "supports_inline_queries": False,
}
LEO: dict[str, Any] = {"id": 1001, "is_bot": False, "first_name": "Leo", "username": "leo"}
ANA: dict[str, Any] = {"id": 1002, "is_bot": False, "first_name": "Ana", "last_name": "Lima"}
OTHER_BOT: dict[str, Any] = {"id": 5550001, "is_bot": True, "first_name": "Helper", "username": "helper_bot"}


def private(user: Mapping[str, Any]) -> dict[str, Any]:
    """The private chat with `user` (its id is the user's)."""
    return {"id": user["id"], "type": "private", "first_name": user["first_name"]}


def group(chat_id: int = -1001234567890, title: str = "Friends") -> dict[str, Any]:
    return {"id": chat_id, "type": "supergroup", "title": title}


def _units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def entities_of(text: str) -> list[dict[str, Any]]:
    """The entities Telegram would find: a leading `/command`, and `@username` mentions."""
    found: list[dict[str, Any]] = []
    command = re.match(r"/[A-Za-z0-9_]+(?:@[A-Za-z0-9_]+)?", text)
    if command:
        found.append({"type": "bot_command", "offset": 0, "length": _units(command.group())})
    for mention in re.finditer(r"(?<![\w/])@[A-Za-z0-9_]{5,32}", text):
        found.append(
            {"type": "mention", "offset": _units(text[: mention.start()]), "length": _units(mention.group())}
        )
    return found


class OfflineAPI(BaseRequest):
    """The Bot API, answered offline; see the module docstring."""

    token = "777000111:TEST-TOKEN"

    def __init__(self, bot: Mapping[str, Any] = BOT, *, date: int = 1_709_294_400) -> None:
        self.bot = dict(bot)
        self.date = date
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self._floods: dict[str, list[int]] = {}
        self._failures: dict[str, list[tuple[int, str]]] = {}
        self._updates: asyncio.Queue[dict[str, Any]] | None = None
        self._message_id = 9000
        self._called: dict[str, asyncio.Event] = {}

    # -- what tests set up and read ----------------------------------------------------------------------

    def flood(self, method: str, seconds: int, times: int = 1) -> None:
        """The next `times` calls of `method` fail with flood control asking to wait `seconds`."""
        self._floods.setdefault(method, []).extend([seconds] * times)

    def fail(self, method: str, code: int, description: str, times: int = 1) -> None:
        """The next `times` calls of `method` fail with HTTP `code` and Telegram's `description`."""
        self._failures.setdefault(method, []).extend([(code, description)] * times)

    def feed(self, *updates: dict[str, Any]) -> None:
        """Updates for the next `getUpdates` (long polling)."""
        if self._updates is None:
            self._updates = asyncio.Queue()
        for update in updates:
            self._updates.put_nowait(update)

    def sent(self, method: str = "sendMessage") -> list[dict[str, Any]]:
        """The parameters of each call of `method`, in order."""
        return [params for name, params in self.calls if name == method]

    def texts(self) -> list[str]:
        """The text of each message sent."""
        return [params["text"] for params in self.sent("sendMessage")]

    def methods(self) -> list[str]:
        return [name for name, _ in self.calls]

    async def called(self, method: str, timeout: float = 5.0) -> None:
        """Wait until `method` was called (at most `timeout` seconds)."""
        if method not in self.methods():
            event = self._called.setdefault(method, asyncio.Event())
            await asyncio.wait_for(event.wait(), timeout)

    def clear(self) -> None:
        self.calls.clear()

    # -- BaseRequest -------------------------------------------------------------------------------------

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    @property
    def read_timeout(self) -> float | None:
        return 1.0

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = None,
        write_timeout: Any = None,
        connect_timeout: Any = None,
        pool_timeout: Any = None,
    ) -> tuple[int, bytes]:
        name = url.rsplit("/", 1)[-1]
        params = dict(request_data.parameters) if request_data is not None else {}
        if name == "getUpdates":
            return 200, self._ok(await self._poll(params))
        self.calls.append((name, params))
        if name in self._called:
            self._called[name].set()
        failures = self._failures.get(name)
        if failures:
            code, description = failures.pop(0)
            body = {"ok": False, "error_code": code, "description": description}
            return code, json.dumps(body).encode()
        floods = self._floods.get(name)
        if floods:
            seconds = floods.pop(0)
            body = {
                "ok": False,
                "error_code": 429,
                "description": f"Too Many Requests: retry after {seconds}",
                "parameters": {"retry_after": seconds},
            }
            return 429, json.dumps(body).encode()
        return 200, self._ok(self._answer(name, params))

    @staticmethod
    def _ok(result: Any) -> bytes:
        return json.dumps({"ok": True, "result": result}).encode()

    def _answer(self, name: str, params: dict[str, Any]) -> Any:
        if name == "getMe":
            return self.bot
        if name in ("sendMessage", "editMessageText"):
            self._message_id += 1
            chat_id = params.get("chat_id", 0)
            message: dict[str, Any] = {
                "message_id": params.get("message_id", self._message_id),
                "date": self.date,
                "chat": {"id": chat_id, "type": "private" if int(chat_id) > 0 else "supergroup"},
                "from": self.bot,
                "text": params.get("text", ""),
            }
            markup = params.get("reply_markup")
            if markup:
                message["reply_markup"] = json.loads(markup) if isinstance(markup, str) else markup
            return message
        return True

    async def _poll(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        if self._updates is None:
            self._updates = asyncio.Queue()
        found: list[dict[str, Any]] = []
        offset = int(params.get("offset") or 0)
        timeout = float(params.get("timeout") or 0)
        if self._updates.empty() and timeout > 0:
            try:  # long polling: wait for an update (the updater cancels this when it stops)
                found.append(await asyncio.wait_for(self._updates.get(), timeout))
            except TimeoutError:
                return []
        while not self._updates.empty():
            found.append(self._updates.get_nowait())
        return [update for update in found if update["update_id"] >= offset]


class Chats:
    """Update dicts as Telegram writes them; ids and dates count up."""

    def __init__(self, date: int = 1_709_294_400) -> None:
        self.date = date
        self._update_id = 500
        self._message_id = 100

    def _next(self) -> tuple[int, int]:
        self._update_id += 1
        self._message_id += 1
        return self._update_id, self._message_id

    def message(
        self,
        text: str | None,
        user: Mapping[str, Any],
        chat: Mapping[str, Any] | None = None,
        *,
        reply_to: Mapping[str, Any] | None = None,
        kind: str = "message",
        entities: list[dict[str, Any]] | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """An update with a message (`kind`: message, edited_message, channel_post) from `user` in `chat`
        (the private chat by default); `reply_to` is the message dict it replies to."""
        update_id, message_id = self._next()
        message: dict[str, Any] = {
            "message_id": message_id,
            "date": self.date,
            "chat": dict(chat) if chat is not None else private(user),
            **extra,
        }
        if kind != "channel_post":
            message["from"] = dict(user)
        if text is not None:
            message["text"] = text
            found = entities if entities is not None else entities_of(text)
            if found:
                message["entities"] = found
        if reply_to is not None:
            message["reply_to_message"] = dict(reply_to)
        if kind == "edited_message":
            message["edit_date"] = self.date + 60
        return {"update_id": update_id, kind: message}

    def text(self, text: str, user: Mapping[str, Any], chat: Mapping[str, Any] | None = None, **extra: Any):
        return self.message(text, user, chat, **extra)

    def sent_by_bot(self, text: str, chat: Mapping[str, Any], bot: Mapping[str, Any] = BOT) -> dict[str, Any]:
        """A message the bot sent, to reply to."""
        _, message_id = self._next()
        return {
            "message_id": message_id,
            "date": self.date,
            "chat": dict(chat),
            "from": dict(bot),
            "text": text,
        }

    def button(
        self, data: str, user: Mapping[str, Any], message: Mapping[str, Any], query_id: str = "q1"
    ) -> dict[str, Any]:
        """A press of an inline button with `data`, on the bot's `message` (a sendMessage's parameters or a
        message dict)."""
        update_id, _ = self._next()
        shown = dict(message)
        shown.setdefault("message_id", 9999)
        shown.setdefault("date", self.date)
        shown.setdefault("from", BOT)
        if "chat" not in shown:
            chat_id = int(shown.pop("chat_id"))
            shown["chat"] = {"id": chat_id, "type": "private" if chat_id > 0 else "supergroup"}
        markup = shown.get("reply_markup")
        if isinstance(markup, str):
            shown["reply_markup"] = json.loads(markup)
        shown = {k: v for k, v in shown.items() if k in _MESSAGE_FIELDS}
        return {
            "update_id": update_id,
            "callback_query": {
                "id": query_id,
                "from": dict(user),
                "chat_instance": "ci-1",
                "data": data,
                "message": shown,
            },
        }


_MESSAGE_FIELDS = frozenset({"message_id", "date", "chat", "from", "text", "reply_markup"})
