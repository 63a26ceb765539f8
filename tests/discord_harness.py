"""What the Discord tests share: a real discord.py bot driven offline by dpytest, scripted models, and slash
commands delivered as interaction payloads through discord.py's own gateway parser and command tree.

dpytest fakes Discord's HTTP and gateway. Two gaps are filled here, both after `dpytest.configure`, which
replaces the bot's connection state: the state's loop (discord.py sets it at login; `channel.typing()` needs
it) and the state's command tree (set when the tree is made; interactions need it to reach the commands).
dpytest has no interactions, so `Slash` builds the payloads Discord would send and answers the callback
requests discord.py makes (`AsyncWebhookAdapter.create_interaction_response`) by recording them: that is the
only network the tests replace beyond dpytest's.

The bot asks for the members intent only because dpytest keeps its fake members in the member cache; the
cog itself needs no privileged intent (dpytest delivers content either way).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
import discord.ext.test as dpytest
from discord.ext import commands
from discord.ext.test import backend, factories
from discord.webhook.async_ import AsyncWebhookAdapter

from mneme_core import Mneme
from mneme_core.prompts import PROMPTS

ids = itertools.count(10**17)


class Scripted:
    """The host's chat model: `re: <what it was told>` unless `reply` says otherwise; records each call."""

    def __init__(self, reply: Callable[[str], str] | None = None) -> None:
        self.reply = reply
        self.systems: list[str] = []
        self.users: list[str] = []

    async def complete(self, system: str, user: str) -> str:
        self.systems.append(system)
        self.users.append(user)
        return self.reply(user) if self.reply is not None else f"re: {user}"


class Judge:
    """The memory's model: a sure verdict (mood up, worth keeping) and, for the note writer, one note per
    keyword found in the exchange (`notes`: keyword -> note)."""

    def __init__(self, notes: dict[str, str]) -> None:
        self.notes = notes
        self.written: list[str] = []  # what the note writer was shown

    async def __call__(self, system: str, user: str) -> str:
        if system == PROMPTS["judge"]:
            return json.dumps({"mood_change": {"level": "1"}, "worth_remembering": {"probability": 0.9}})
        self.written.append(user)
        found = [note for word, note in self.notes.items() if word in user.split("EXCHANGE", 1)[-1]]
        return json.dumps([{"text": note, "kind": "fact", "importance": 4} for note in found])


async def offline_bot(members: list[str], channels: list[str] | None = None) -> commands.Bot:
    """A `commands.Bot` wired to dpytest, with one server holding `members` and text `channels`."""
    intents = discord.Intents.default()
    intents.members = True
    bot = commands.Bot(command_prefix="!", intents=intents)
    await bot._async_setup_hook()
    dpytest.configure(bot, text_channels=channels or ["general"], voice_channels=0, members=members)
    bot._connection.loop = asyncio.get_running_loop()  # dpytest gap: needed by channel.typing()
    bot._connection._command_tree = bot.tree  # dpytest gap: interactions reach the tree through the state
    bot._connection.application_id = bot.user.id
    for person in dpytest.get_config().members:
        backend.update_member(person, nick=person.name)  # dpytest nicknames them "Leo_0_nick"
    return bot


def member(name: str) -> discord.Member:
    return next(m for m in dpytest.get_config().members if m.name == name)


def channel(name: str = "general") -> discord.TextChannel:
    return next(c for c in dpytest.get_config().channels if c.name == name)


def bot_member(name: str, guild: discord.Guild) -> discord.Member:
    """Another bot in the server."""
    state = backend.get_state()
    user = state.store_user(factories.make_user_dict(name, "0099", None, bot=True))
    return backend.make_member(user, guild)


async def post(message_data: dict[str, Any]) -> discord.Message:
    """Deliver a message payload as the gateway would (for what `dpytest.message` cannot say: replies,
    stickers)."""
    state = backend.get_state()
    state.parse_message_create(message_data)
    await dpytest.run_all_events()
    return state._get_message(message_data["id"])


class Sent:
    """Every message the bot sent, with the payload it sent (allowed mentions, reply reference)."""

    def __init__(self, monkeypatch: Any) -> None:
        self.payloads: list[dict[str, Any]] = []
        self.typing: list[int] = []
        original = backend.FakeHttp.send_message
        recorder = self

        async def send_message(self: Any, channel_id: int, *, params: Any) -> Any:
            # dpytest reads `channel` from its caller's frame: keep it in this one's locals for it.
            channel = sys._getframe(1).f_locals.get("channel")  # noqa: F841
            recorder.payloads.append({"channel_id": channel_id, **(params.payload or {})})
            return await original(self, channel_id, params=params)

        async def send_typing(self: Any, channel_id: int) -> None:
            recorder.typing.append(channel_id)

        monkeypatch.setattr(backend.FakeHttp, "send_message", send_message)
        monkeypatch.setattr(backend.FakeHttp, "send_typing", send_typing)

    def texts(self, channel_id: int | None = None) -> list[str]:
        return [
            p.get("content") for p in self.payloads if channel_id is None or p["channel_id"] == channel_id
        ]


class Slash:
    """Slash commands and button presses as Discord delivers them; the bot's answers as it sends them."""

    def __init__(self, bot: commands.Bot, monkeypatch: Any) -> None:
        self.bot = bot
        self.responses: list[dict[str, Any]] = []
        self.message_ids: list[int] = []  # the message each response made, as Discord would number it
        recorder = self

        async def create_interaction_response(self: Any, interaction_id: int, token: str, **kw: Any) -> Any:
            payload = kw["params"].payload
            recorder.responses.append(payload)
            recorder.message_ids.append(next(ids))
            data = payload.get("data") or {}
            return {
                "interaction": {
                    "id": str(interaction_id),
                    "type": payload["type"],
                    "response_message_id": str(recorder.message_ids[-1]),
                    "response_message_ephemeral": bool((data.get("flags") or 0) & 64),
                }
            }

        monkeypatch.setattr(AsyncWebhookAdapter, "create_interaction_response", create_interaction_response)

    def _base(self, user: discord.abc.User, where: discord.abc.Messageable, kind: int) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "id": str(next(ids)),
            "application_id": str(self.bot.application_id),
            "token": "offline",
            "version": 1,
            "type": kind,
            "attachment_size_limit": 8 * 1024 * 1024,
            "locale": "en-US",
        }
        if isinstance(where, discord.DMChannel):
            payload["user"] = factories.dict_from_user(user)
            payload["channel"] = {"id": str(where.id), "type": 1}
            payload["channel_id"] = str(where.id)
        else:
            payload["guild_id"] = str(where.guild.id)
            payload["member"] = factories.dict_from_member(user)
            payload["channel"] = {"id": str(where.id), "type": 0, "guild_id": str(where.guild.id)}
            payload["channel_id"] = str(where.id)
        return payload

    async def command(
        self,
        user: discord.abc.User,
        sub: str,
        where: discord.abc.Messageable | None = None,
        *,
        focused: str | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        """`/memory <sub> option:value ...` from `user`; returns the response payload. With `focused`, an
        autocomplete request for that option instead."""
        where = where if where is not None else channel()
        inner = []
        for name, value in options.items():
            item = {"type": 4 if isinstance(value, int) else 3, "name": name, "value": value}
            if name == focused:
                item["focused"] = True
            inner.append(item)
        payload = self._base(user, where, 4 if focused else 2)
        payload["data"] = {
            "id": str(next(ids)),
            "name": "memory",
            "type": 1,
            "options": [{"type": 1, "name": sub, "options": inner}],
        }
        return await self._deliver(payload)

    async def press(
        self,
        user: discord.abc.User,
        response: dict[str, Any],
        label: str,
        where: discord.abc.Messageable | None = None,
    ) -> dict[str, Any]:
        """Press the button labelled `label` on the message a response made."""
        where = where if where is not None else channel()
        buttons = [item for row in response["data"]["components"] for item in row["components"]]
        custom_id = next(b["custom_id"] for b in buttons if b["label"] == label)
        message_id = next(i for r, i in zip(self.responses, self.message_ids, strict=True) if r is response)
        payload = self._base(user, where, 3)
        payload["data"] = {"custom_id": custom_id, "component_type": 2}
        message = factories.make_message_dict(where, self.bot.user, id_num=message_id)
        payload["message"] = {**message, "flags": 64, "components": response["data"]["components"]}
        return await self._deliver(payload)

    async def _deliver(self, payload: dict[str, Any]) -> dict[str, Any]:
        before = len(self.responses)
        backend.get_state().parse_interaction_create(payload)
        await settle()
        assert len(self.responses) == before + 1, "the interaction got no response"
        return self.responses[-1]


async def settle() -> None:
    """Wait for the tasks discord.py started for interactions (the tree's invoker, a view's callback)."""
    for _ in range(100):
        busy = [
            task
            for task in asyncio.all_tasks()
            if task.get_name().startswith(("CommandTree-invoker", "discord-ui-view-dispatch"))
            and not task.done()
        ]
        if not busy:
            return
        await asyncio.wait(busy, timeout=5)


NOTES = {"Mochi": "Leo adopted a cat called Mochi.", "jasmine": "Ann loves jasmine tea."}


@dataclass
class World:
    bot: commands.Bot
    cog: Any
    mneme: Mneme
    model: Scripted
    judge: Judge
    sent: Sent

    def subject(self, name: str) -> str:
        return f"discord:{member(name).id}"

    def notes(self, name: str) -> list[str]:
        return [note.text for note in self.mneme.notes(self.subject(name))]

    async def settle(self) -> None:
        assert await self.cog.drain(5)


async def world_of(db_path: Path, clock: Any, monkeypatch: Any, **adapter: Any) -> World:
    """Leo and Ann in a server with #general and #random, and a bot that loaded the extension with the
    host's engine and model (`bot.mneme`, `bot.mneme_model`); `adapter` sets `[adapters.discord]` keys."""
    monkeypatch.setenv("MNEME_PERSONA", "You are Mio.")
    judge = Judge(NOTES)
    mneme = Mneme(db_path, space="discord", clock=clock, zone="UTC", complete=judge)
    for key, value in adapter.items():
        mneme.config.set(f"adapters.discord.{key}", value)
    bot = await offline_bot(["Leo", "Ann"], ["general", "random"])
    bot.mneme, bot.mneme_model = mneme, Scripted()  # the host's engine and model: the cog closes neither
    sent = Sent(monkeypatch)
    await bot.load_extension("mneme_discord")
    return World(bot, bot.get_cog("Mneme"), mneme, bot.mneme_model, judge, sent)
