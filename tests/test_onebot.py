"""The OneBot adapter on loopback, with the test playing the bridge through a real aiohttp WebSocket client:
tokens, both versions and both message forms, group addressing, echo matching, malformed frames, several
bridges at once, a bridge that drops mid-action, HTTP POST mode, and a conversation remembered across days.
A real `Mneme` in a temporary file with a frozen clock; scripted models."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import os
import runpy
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import mneme_onebot
import pytest
from aiohttp import web
from mneme_onebot import cqcode

from mneme_core import Mneme, hookimpl
from mneme_core.bot import Turns
from mneme_core.plugins import make_manager
from mneme_core.runner import Runner, RunnerSettings, build_adapters

TOKEN = "t0ken-for-tests"
BOT = 3000  # the QQ bot's own number


# -- scripted models ------------------------------------------------------------------------------------


class Model:
    """The chat model: knows the cat when the memory block names it, else echoes."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    async def complete(self, system: str, user: str) -> str:
        self.calls.append((system, user))
        if "cat" in user and "Mochi" in system:
            return "Mochi must be purring on your lap."
        if "long" in user:
            return "One sentence [to] start & go. Another sentence follows it. And a third one ends it."
        return f"re: {user}"


NOTES = {
    "Mochi": "Adopted a cat called Mochi.",
    "hiking": "Loves hiking in the hills.",
    "chess": "Plays chess every Sunday.",
}


async def judge(system: str, user: str) -> str:
    """The judge and the note writer: everything is worth remembering; notes by keyword."""
    if "QUESTIONS:" in user:
        return json.dumps({"mood_change": {"level": "1"}, "worth_remembering": {"probability": 0.9}})
    found = [{"text": note, "kind": "fact", "importance": 4} for key, note in NOTES.items() if key in user]
    return json.dumps(found) if found else "NONE"


class Steps:
    @hookimpl
    def track_event(self, event):
        self.seen.append((event.name, event.subject))

    def __init__(self) -> None:
        self.seen: list[tuple[str, str | None]] = []


# -- the bridge, played by the test ---------------------------------------------------------------------


class Peer:
    """One bridge connection: a real WebSocket client talking to the adapter."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws

    async def event(self, frame: dict[str, Any]) -> None:
        await self.ws.send_json(frame)

    async def action(self) -> dict[str, Any]:
        """The next action the adapter asks for (a failsafe timeout, not a timing assert)."""
        while True:
            frame = await self.ws.receive(timeout=10)
            assert frame.type == aiohttp.WSMsgType.TEXT, f"the connection ended: {frame}"
            data = json.loads(frame.data)
            if "action" in data:
                return data

    async def answer(self, action: dict[str, Any], data: Any = None, *, retcode: int = 0) -> None:
        status = "ok" if retcode == 0 else "failed"
        await self.ws.send_json(
            {"status": status, "retcode": retcode, "data": data, "message": "", "echo": action["echo"]}
        )

    async def serve(self, message_id: Any = 1) -> dict[str, Any]:
        """Take the next action and answer it ok."""
        action = await self.action()
        await self.answer(action, {"message_id": message_id})
        return action


class Bot:
    def __init__(self, m: Mneme, runner: Runner, adapter: Any, model: Model, steps: Steps, session: Any):
        self.mneme, self.runner, self.adapter, self.model, self.steps = m, runner, adapter, model, steps
        self.session = session

    def url(self, path: str = "/onebot/v11/ws") -> str:
        return f"http://127.0.0.1:{self.adapter.port}{path}"

    async def connect(
        self,
        self_id: Any = BOT,
        *,
        token: str | None = TOKEN,
        role: str | None = None,
        path: str = "/onebot/v11/ws",
        protocols: tuple[str, ...] = (),
        query: bool = False,
    ) -> Peer:
        headers = {}
        if self_id is not None:
            headers["X-Self-ID"] = str(self_id)
        if role is not None:
            headers["X-Client-Role"] = role
        if token is not None and not query:
            headers["Authorization"] = f"Bearer {token}"
        params = {"access_token": token} if query and token is not None else None
        ws = await self.session.ws_connect(
            self.url(path), headers=headers, params=params, protocols=protocols
        )
        return Peer(ws)


@pytest.fixture
async def start(db_path: Path, clock, monkeypatch) -> AsyncIterator[Callable[..., Awaitable[Bot]]]:
    """Start a bot from an `[adapters.onebot]` table, as `mneme run onebot` builds it."""
    monkeypatch.setenv("ONEBOT_TOKEN", TOKEN)
    monkeypatch.setenv("ONEBOT_SECRET", "sign-me")
    stack = contextlib.AsyncExitStack()

    async def make(**table: Any) -> Bot:
        m = Mneme(db_path, space="onebot", clock=clock, zone="UTC", complete=judge)
        stack.callback(m.close)
        steps = Steps()
        manager = make_manager(load_entry_points=False, environ={}, plugins=[mneme_onebot, steps])
        settings = {"port": 0, "access_token": {"$env": "ONEBOT_TOKEN"}, "names": ["Mio"], **table}
        (adapter,) = build_adapters(manager, ["onebot"], {"onebot": settings})
        model = Model()
        runner = Runner(m, model, settings=RunnerSettings(persona="You are Mio."), plugins=manager)
        await adapter.start(runner)
        stack.push_async_callback(runner.aclose, 5)
        stack.push_async_callback(adapter.stop)
        session = await stack.enter_async_context(aiohttp.ClientSession())
        return Bot(m, runner, adapter, model, steps, session)

    async with stack:
        yield make


def v11(
    message: Any, *, user: Any = 10001, group: int | None = None, mid: int = 1, name: str = "Leo"
) -> dict:
    frame = {
        "time": 1709294400,
        "self_id": BOT,
        "post_type": "message",
        "message_type": "group" if group else "private",
        "sub_type": "normal" if group else "friend",
        "message_id": mid,
        "user_id": user,
        "message": message,
        "raw_message": message if isinstance(message, str) else "",
        "font": 0,
        "sender": {"user_id": user, "nickname": name},
    }
    if group:
        frame.update(group_id=group, anonymous=None)
        frame["sender"]["card"] = ""
    return frame


def v12(message: Any, *, user: str = "wxid_abc", group: str | None = None, mid: str = "m1") -> dict:
    frame = {
        "id": f"event-{mid}",
        "impl": "comwechat",
        "time": 1709294400.0,
        "type": "message",
        "detail_type": "group" if group else "private",
        "sub_type": "",
        "self": {"platform": "wechat", "user_id": "wxid_bot"},
        "message_id": mid,
        "message": message,
        "alt_message": "",
        "user_id": user,
    }
    if group:
        frame["group_id"] = group
    return frame


def text(segments: Any) -> str:
    return "".join(s["data"]["text"] for s in segments if s["type"] == "text")


# -- tokens ---------------------------------------------------------------------------------------------


async def test_a_wrong_or_missing_token_gets_401_and_nothing_else(start) -> None:
    bot = await start()
    for token in ("wrong", None):
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await bot.connect(token=token)
        assert refused.value.status == 401
    upgrade = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Authorization": "Bearer wrong"}  # fmt: skip
    async with bot.session.get(bot.url(), headers=upgrade) as response:
        assert response.status == 401 and await response.read() == b""
    async with bot.session.post(bot.url("/onebot/v12/http"), json=v12("hi")) as response:
        assert response.status == 401
    assert bot.runner.report().get("received", 0) == 0 and bot.adapter.bridges == {}

    peer = await bot.connect(query=True)  # the token as the access_token query parameter
    await peer.event(v11("hello"))
    action = await peer.serve()
    assert action["action"] == "send_private_msg" and text(action["params"]["message"]) == "re: hello"


# -- a conversation ------------------------------------------------------------------------------------


async def test_a_private_conversation_is_remembered_across_two_days(start, clock) -> None:
    bot = await start()
    peer = await bot.connect()
    await peer.event(v11("I adopted a cat called Mochi &amp; I love her &#91;so much&#93;", mid=11))
    action = await peer.serve(message_id=901)
    assert action["action"] == "send_private_msg"
    assert action["params"]["user_id"] == 10001  # a v11 number goes back as a number
    assert bot.model.calls[0][1] == "I adopted a cat called Mochi & I love her [so much]"
    assert await bot.runner.drain(timeout=10)
    assert [n.text for n in bot.mneme.notes("onebot:qq:10001")] == ["Adopted a cat called Mochi."]

    clock.advance(days=1)
    await peer.event(v11([{"type": "text", "data": {"text": "how is my cat doing?"}}], mid=12))
    action = await peer.serve(message_id=902)
    assert text(action["params"]["message"]) == "Mochi must be purring on your lap."
    assert "Mochi" in bot.model.calls[1][0]
    assert ("sent", "onebot:qq:10001") in bot.steps.seen


async def test_an_image_is_marked_and_an_image_alone_is_still_answered(start) -> None:
    bot = await start()
    peer = await bot.connect()
    picture = {"type": "image", "data": {"file": "abc.jpg", "url": "http://example.invalid/abc.jpg"}}
    await peer.event(v11([picture], mid=21))  # an image and nothing else
    action = await peer.serve(message_id=910)
    assert text(action["params"]["message"]) == "re: [image]"
    words = {"type": "text", "data": {"text": "look at Mochi"}}
    await peer.event(v11([words, picture, {"type": "file", "data": {"name": "vet bill.pdf"}}], mid=22))
    action = await peer.serve(message_id=911)
    assert text(action["params"]["message"]) == "re: look at Mochi [image] [file: vet bill.pdf]"
    await peer.event(v11("[CQ:image,file=xyz.png]", mid=23))  # the string form too
    action = await peer.serve(message_id=912)
    assert text(action["params"]["message"]) == "re: [image]"


# -- groups ---------------------------------------------------------------------------------------------


async def test_a_group_answers_when_addressed_and_keeps_speakers_apart(start) -> None:
    bot = await start()
    peer = await bot.connect()
    await peer.event(v11("I love hiking, anyone?", group=777, mid=1))  # not to the bot
    await peer.event(v11(f"[CQ:at,qq={BOT}] I love hiking too", group=777, mid=2))  # string form
    first = await peer.serve(message_id=500)
    assert first["action"] == "send_group_msg" and first["params"]["group_id"] == 777
    assert first["params"]["message"][0] == {"type": "reply", "data": {"id": 2}}  # quotes what it answers
    assert text(first["params"]["message"]) == "re: Leo in group 777: I love hiking too"  # who, where

    reply_to_bot = [
        {"type": "reply", "data": {"id": "500"}},
        {"type": "text", "data": {"text": "I play chess"}},
    ]
    await peer.event(v11(reply_to_bot, user=10002, group=777, mid=3, name="Ann"))  # a reply to the bot
    second = await peer.serve(message_id=501)
    assert text(second["params"]["message"]) == "re: Ann in group 777: I play chess"
    await peer.event(v11("[CQ:at,qq=all] chess tonight", user=10002, group=777, mid=4))  # @all: not to it
    await peer.event(v11("mio, any chess tips?", user=10002, group=777, mid=5))  # named
    third = await peer.serve(message_id=502)
    assert text(third["params"]["message"]) == "re: Leo in group 777: mio, any chess tips?"

    assert await bot.runner.drain(timeout=10)
    assert bot.runner.report()["ignored"] == 2 and bot.runner.report()["replied"] == 3
    leo = [n.text for n in bot.mneme.notes("onebot:qq:10001")]
    ann = [n.text for n in bot.mneme.notes("onebot:qq:10002")]
    assert leo == ["Loves hiking in the hills."]
    assert ann == ["Plays chess every Sunday."]


async def test_a_long_reply_is_split_and_only_its_first_part_quotes(start) -> None:
    bot = await start(limit=40, message_format="string")
    peer = await bot.connect()
    await peer.event(v11(f"[CQ:at,qq={BOT}] a long one [please]", group=777, mid=9))
    parts = [await peer.serve(message_id=600 + n) for n in range(3)]
    strings = [part["params"]["message"] for part in parts]
    assert strings[0].startswith("[CQ:reply,id=9]") and not any("CQ:reply" in s for s in strings[1:])
    shown = [cqcode.unescape(s.removeprefix("[CQ:reply,id=9]")) for s in strings]
    assert all(len(part) <= 40 for part in shown)  # the limit counts what is shown, not the escapes
    said = " ".join(shown)
    assert "One sentence &#91;to&#93; start &amp; go." in strings[0]  # escaped in the string form
    whole = "One sentence [to] start & go. Another sentence follows it. And a third one ends it."
    assert said.split() == whole.split()


# -- v12, and several bridges at once ------------------------------------------------------------------


async def test_two_bridges_at_once_each_answered_on_its_own(start) -> None:
    bot = await start(bridges={"wxid_bot2": {"platform": "wechat"}})
    qq = await bot.connect()
    wechat = await bot.connect(None, path="/onebot/v12/ws", protocols=("12.comwechat",))
    assert wechat.ws.protocol == "12.comwechat"  # the subprotocol the bridge offered is taken
    old_wechat = await bot.connect("wxid_bot2")  # a v11 bridge configured as wechat

    connect = {"id": "c", "impl": "comwechat", "time": 1.0, "type": "meta", "detail_type": "connect"}
    await wechat.event({**connect, "sub_type": "", "version": {"impl": "comwechat", "onebot_version": "12"}})
    await wechat.event(v12([{"type": "text", "data": {"text": "你好"}}]))
    await qq.event(v11("hello from qq"))
    old = v11("hello from an old bridge", user="wxid_leo")
    old["self_id"] = "wxid_bot2"
    await old_wechat.event(old)

    on_wechat = await wechat.serve(message_id="w1")
    assert on_wechat["action"] == "send_message"
    assert on_wechat["self"] == {"platform": "wechat", "user_id": "wxid_bot"}
    assert on_wechat["params"]["detail_type"] == "private" and on_wechat["params"]["user_id"] == "wxid_abc"
    assert text(on_wechat["params"]["message"]) == "re: 你好"
    on_qq = await qq.serve()
    assert text(on_qq["params"]["message"]) == "re: hello from qq"
    on_old = await old_wechat.serve()
    assert on_old["params"]["user_id"] == "wxid_leo"  # not a number: stays a string

    assert await bot.runner.drain(timeout=10)
    sent = {subject for name, subject in bot.steps.seen if name == "sent"}
    assert sent == {"onebot:wechat:wxid_abc", "onebot:qq:10001", "onebot:wechat:wxid_leo"}
    assert set(bot.adapter.bridges) == {("wechat", "wxid_bot"), ("qq", "3000"), ("wechat", "wxid_bot2")}


async def test_v12_group_mentions_and_replies_address_the_bot(start) -> None:
    bot = await start()
    peer = await bot.connect(None, path="/onebot/v12/ws")
    me = {"type": "mention", "data": {"user_id": "wxid_bot"}}
    words = {"type": "text", "data": {"text": " what do you think?"}}
    await peer.event(v12([{"type": "text", "data": {"text": "just chatting"}}], group="g1", mid="a"))
    await peer.event(v12([me, words], group="g1", mid="b"))
    action = await peer.serve(message_id="w9")
    quote = {"type": "reply", "data": {"message_id": "b"}}
    said = {"type": "text", "data": {"text": "re: wxid_abc in group g1: what do you think?"}}
    assert action["params"] == {"detail_type": "group", "group_id": "g1", "message": [quote, said]}
    quoted = {"type": "reply", "data": {"message_id": "older", "user_id": "wxid_bot"}}
    await peer.event(
        v12([quoted, {"type": "text", "data": {"text": "right?"}}], user="wxid_ann", group="g1", mid="c")
    )
    action = await peer.serve(message_id="w10")
    assert text(action["params"]["message"]) == "re: wxid_ann in group g1: right?"
    assert await bot.runner.drain(timeout=10)
    assert bot.runner.report()["ignored"] == 1


async def test_separate_event_and_api_connections(start) -> None:
    bot = await start()
    events = await bot.connect(role="Event")
    api = await bot.connect(role="API")
    await events.event(v11("over the event line"))
    action = await api.serve()
    assert text(action["params"]["message"]) == "re: over the event line"


# -- actions: echo matching, failures, timeouts, reconnection -------------------------------------------


async def test_answers_are_matched_by_echo_whatever_their_order(start) -> None:
    bot = await start()
    peer = await bot.connect()
    await peer.event(v11("from leo", user=10001, mid=1))
    await peer.event(v11("from ann", user=10002, mid=2))
    asked = [await peer.action(), await peer.action()]
    by_user = {action["params"]["user_id"]: action for action in asked}
    assert len({action["echo"] for action in asked}) == 2
    await peer.ws.send_json({"status": "ok", "retcode": 0, "data": None, "echo": "not-ours"})
    await peer.answer(by_user[10002], retcode=34001)  # the later one first, and it failed
    await peer.answer(by_user[10001], {"message_id": 77})
    assert await bot.runner.drain(timeout=10)
    assert ("sent", "onebot:qq:10001") in bot.steps.seen
    assert ("send_failed", "onebot:qq:10002") in bot.steps.seen
    assert ("sent", "onebot:qq:10002") not in bot.steps.seen
    assert "77" in bot.adapter.bridges[("qq", "3000")].sent


async def test_an_action_without_answer_times_out(start) -> None:
    bot = await start(action_timeout=0.3)
    peer = await bot.connect()
    await peer.event(v11("anyone there?"))
    await peer.action()  # never answered
    assert await bot.runner.drain(timeout=10)
    assert ("send_failed", "onebot:qq:10001") in bot.steps.seen


async def test_a_bridge_that_drops_mid_action_gets_it_again_when_back(start) -> None:
    bot = await start()
    first = await bot.connect()
    await first.event(v11("I adopted a cat called Mochi"))
    dropped = await first.action()
    await first.ws.close()  # gone before answering
    again = await bot.connect()  # the bridge restarts and reconnects
    action = await again.action()
    assert action["params"] == dropped["params"] and action["echo"] != dropped["echo"]
    await again.answer(action, {"message_id": 5})
    assert await bot.runner.drain(timeout=10)
    assert ("sent", "onebot:qq:10001") in bot.steps.seen and bot.runner.report().get("send_failed", 0) == 0
    assert [n.text for n in bot.mneme.notes("onebot:qq:10001")] == ["Adopted a cat called Mochi."]


# -- what is skipped ------------------------------------------------------------------------------------


async def test_malformed_frames_are_logged_and_skipped(start, caplog) -> None:
    bot = await start()
    peer = await bot.connect()
    caplog.set_level(logging.WARNING, logger="mneme_onebot")
    no_user = v11("hi")
    del no_user["user_id"]
    bad_body = v11("hi")
    bad_body["message"] = 42
    bad_platform = v12("hi")
    bad_platform["self"] = {"platform": "Not a Platform!", "user_id": "wxid_bot"}
    await peer.ws.send_str("this is not json")
    await peer.ws.send_str("[1, 2, 3]")
    await peer.ws.send_json({"hello": "world"})
    for frame in (no_user, bad_body, bad_platform):
        await peer.event(frame)
    await peer.ws.send_bytes(b"\x81\xa4type")
    await peer.event(v11("still there?"))
    action = await peer.serve()
    assert text(action["params"]["message"]) == "re: still there?"
    assert bot.adapter.counts["malformed"] == 6
    skipped = [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()]
    assert len(skipped) == 7 and any("binary" in line for line in skipped)
    assert any("user_id" in line for line in skipped)


async def test_meta_events_and_the_bots_own_messages_pass_quietly(start, caplog) -> None:
    bot = await start()
    peer = await bot.connect()
    caplog.set_level(logging.INFO, logger="mneme_onebot")
    caplog.clear()
    meta = {"time": 1, "self_id": BOT, "post_type": "meta_event"}
    await peer.event({**meta, "meta_event_type": "lifecycle", "sub_type": "connect"})
    await peer.event({**meta, "meta_event_type": "heartbeat", "interval": 5000, "status": {"online": True}})
    await peer.event({**v11("echo of myself"), "post_type": "message_sent", "user_id": BOT})
    await peer.event({**v11("anonymous", group=777), "anonymous": {"id": 1, "name": "x", "flag": "f"}})
    await peer.event({"time": 1, "self_id": BOT, "post_type": "notice", "notice_type": "group_increase"})
    await peer.event(v11("and now a message"))
    await peer.serve()
    assert await bot.runner.drain(timeout=10)
    assert bot.adapter.counts["quiet"] == 5
    assert bot.runner.report()["received"] == 1
    assert not [r for r in caplog.records if r.levelno >= logging.INFO and "connected" not in r.getMessage()]


async def test_typing_is_shown_in_private_chats_when_asked(start) -> None:
    bot = await start(typing=True)
    peer = await bot.connect()
    await peer.event(v11("hi"))
    asked = [await peer.serve(), await peer.serve()]
    assert {a["action"] for a in asked} == {"set_input_status", "send_private_msg"}
    typing = next(a for a in asked if a["action"] == "set_input_status")
    assert typing["params"] == {"user_id": 10001, "event_type": 1}


# -- HTTP POST mode -------------------------------------------------------------------------------------


async def test_http_post_mode_events_in_and_actions_out(start) -> None:
    calls: asyncio.Queue[tuple[str, dict, str]] = asyncio.Queue()

    async def api(request: web.Request) -> web.Response:
        await calls.put((request.path, await request.json(), request.headers.get("Authorization", "")))
        return web.json_response({"status": "ok", "retcode": 0, "data": {"message_id": 42}})

    app = web.Application()
    app.router.add_post("/{action}", api)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        api_port = runner.addresses[0][1]
        bot = await start(
            secret={"$env": "ONEBOT_SECRET"}, bridges={str(BOT): {"api_url": f"http://127.0.0.1:{api_port}"}}
        )
        body = json.dumps(v11("over http")).encode()
        signed = "sha1=" + hmac.new(b"sign-me", body, hashlib.sha1).hexdigest()
        headers = {"Content-Type": "application/json", "X-Self-ID": str(BOT)}
        async with bot.session.post(bot.url("/onebot/v11/http"), data=body, headers=headers) as response:
            assert response.status == 401  # unsigned
        bad = {**headers, "X-Signature": "sha1=" + "0" * 40}
        async with bot.session.post(bot.url("/onebot/v11/http"), data=body, headers=bad) as response:
            assert response.status == 401
        ok = {**headers, "X-Signature": signed}
        async with bot.session.post(bot.url("/onebot/v11/http"), data=body, headers=ok) as response:
            assert response.status == 204
        path, params, authorization = await asyncio.wait_for(calls.get(), 10)
        assert path == "/send_private_msg" and params["user_id"] == 10001
        assert text(params["message"]) == "re: over http" and authorization == f"Bearer {TOKEN}"
        assert await bot.runner.drain(timeout=10)
        assert bot.runner.report()["received"] == 1
    finally:
        await runner.cleanup()


# -- start-up -------------------------------------------------------------------------------------------


async def test_off_loopback_without_a_token_does_not_start(db_path: Path) -> None:
    adapter = mneme_onebot.OneBotAdapter({"host": "0.0.0.0", "port": 0})
    with pytest.raises(ValueError, match="access_token"):
        await adapter.listen(lambda incoming: None)


@contextlib.asynccontextmanager
async def bridge_of(adapter: Any) -> AsyncIterator[Peer]:
    """A bridge connected to an adapter listening on loopback (no token), as a v11 bot `BOT`."""
    async with aiohttp.ClientSession() as session:
        ws = await session.ws_connect(f"http://127.0.0.1:{adapter.port}/ws", headers={"X-Self-ID": str(BOT)})
        try:
            yield Peer(ws)
        finally:
            await ws.close()


async def test_a_bot_of_ones_own_gets_every_message_and_replies(db_path: Path, clock) -> None:
    heard: list[Any] = []
    adapter = mneme_onebot.OneBotAdapter({"port": 0})  # loopback: no token needed

    async def handler(incoming) -> None:
        heard.append(incoming)
        if incoming.is_direct or incoming.addressed:
            await adapter.reply(incoming, f"you said {incoming.text}")

    await adapter.listen(handler)
    try:
        async with bridge_of(adapter) as peer:
            await peer.event(v11("not for you", group=777, mid=1))
            await peer.event(v11("hi there"))
            action = await peer.serve()
            assert text(action["params"]["message"]) == "you said hi there"
    finally:
        await adapter.stop()
    assert [(i.subject, i.addressed, i.chat_id) for i in heard] == [
        ("onebot:qq:10001", False, "777"),
        ("onebot:qq:10001", True, None),
    ]


async def test_the_examples_own_bot_keeps_the_conversation_and_remembers(db_path: Path, clock) -> None:
    """`examples/onebot_bot.py`'s own-bot mode goes through `Turns` like every drop-in: the room's line is
    kept but not answered, the person's model gets the memory block and the earlier lines, and the
    exchange is observed after the reply went out."""
    example = runpy.run_path(str(Path(__file__).parent.parent / "examples" / "onebot_bot.py"))
    adapter = mneme_onebot.OneBotAdapter({"port": 0})
    m = Mneme(db_path, space="onebot", clock=clock, zone="UTC", complete=judge)
    turns = Turns(m)
    handler = example["handler_for"](adapter, turns)
    handled: asyncio.Queue[str] = asyncio.Queue()

    async def handled_then_told(incoming) -> None:
        await handler(incoming)
        handled.put_nowait(incoming.text)

    await adapter.listen(handled_then_told)
    try:
        async with bridge_of(adapter) as peer:
            await peer.event(v11("the weather is nice", group=777, mid=1))
            await peer.event(v11("I adopted a cat called Mochi", mid=2))
            first = await peer.serve()
            assert text(first["params"]["message"]) == "You said: I adopted a cat called Mochi"
            done = [await asyncio.wait_for(handled.get(), 10) for _ in range(2)]
            assert sorted(done) == ["I adopted a cat called Mochi", "Leo in group 777: the weather is nice"]
            assert await turns.drain(10)
            assert [n.text for n in await m.anotes("onebot:qq:10001")] == ["Adopted a cat called Mochi."]
            await peer.event(v11("what do you remember?", mid=3))
            second = await peer.serve()
            assert "(I remember: Adopted a cat called Mochi.)" in text(second["params"]["message"])
        assert await turns.drain(10)
    finally:
        await adapter.stop()
        await turns.aclose(5)
        m.close()
    lines = m_lines(db_path, clock)
    assert ("user", "Leo in group 777: the weather is nice") in lines  # the room's context, not answered
    assert ("assistant", "You said: I adopted a cat called Mochi") in lines


def m_lines(db_path: Path, clock) -> list[tuple[str, str]]:
    with Mneme(db_path, space="onebot", clock=clock, zone="UTC") as again:
        return [(line.role, line.text) for line in again.transcript.lines_of("onebot:qq:10001")]


def test_listing_plugins_does_not_import_aiohttp() -> None:
    adapters = str(Path(__file__).resolve().parents[1] / "adapters")
    code = "import sys, mneme_onebot; print('aiohttp' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([adapters, os.environ.get("PYTHONPATH", "")])}
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert found.stdout.strip() == "False"
