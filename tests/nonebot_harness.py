"""What the NoneBot2 tests share: NoneBot started once per test process as a bot's `bot.py` starts it, the
plugin loaded by name, nonebug's `App` driving matchers, and OneBot events made by the real adapter.

nonebug's pytest plugin is turned off for the suite (`-p no:nonebug` in pyproject.toml): it would start
NoneBot for every test, with a session-wide event loop the rest of the suite does not use. `started()`
does what its fixtures do (`nonebot.init`, `NoneBugProvider`), once, here.

Events are what the OneBot adapter makes of a bridge's frame: `Adapter.json_to_event(frame)`, then the
steps its `Bot.handle_event` runs before NoneBot's (v11: `_check_reply`, which asks the bridge for the
replied message through `get_msg`, `_check_at_me`, `_check_nickname`; v12 alike). nonebug's
`receive_event` goes to NoneBot's `handle_event` directly, so `arrive` runs them first, inside the test's
context, where nonebug answers `get_msg` as the test says.

A process has one NoneBot driver and loads a plugin once; each test runs its own driver lifespan
(`running`): the startup opens the companion from that test's settings, the shutdown closes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import nonebot
import pytest
import test_onebot as onebot_frames  # the frames the OneBot adapter's own tests send
from nonebot.adapters.onebot.v11 import Adapter as V11
from nonebot.adapters.onebot.v11 import Bot as V11Bot
from nonebot.adapters.onebot.v11.bot import _check_at_me, _check_nickname, _check_reply
from nonebot.adapters.onebot.v12 import Adapter as V12
from nonebot.adapters.onebot.v12 import Bot as V12Bot
from nonebot.adapters.onebot.v12 import bot as v12_steps
from nonebot.matcher import matchers
from nonebug import App
from nonebug.provider import NoneBugProvider

from mneme_core import Mneme

BOT = "3000"  # the QQ bot's own number
FAILSAFE = 30.0
LEO = "onebot:qq:10001"
ANN = "onebot:qq:10002"
NOTES = {
    "Mochi": "Adopted a cat called Mochi.",
    "hiking": "Loves hiking in the hills.",
    "chess": "Plays chess every Sunday.",
}


def started() -> Any:
    """NoneBot initialised (once) with both OneBot adapters, and the plugin loaded by its name."""
    try:
        nonebot.get_driver()
    except ValueError:
        nonebot.init(driver="~none", nickname={"Mio"}, command_start={"/"}, log_level="WARNING")
        matchers.set_provider(NoneBugProvider)
        driver = nonebot.get_driver()
        driver.register_adapter(V11)
        driver.register_adapter(V12)
    loaded = nonebot.get_plugin("mneme_nonebot")
    if loaded is not None:
        return loaded
    plain = sys.modules.get("mneme_nonebot")
    if plain is not None and not hasattr(plain, "__plugin__"):
        # An earlier test made a `Mneme`, whose plugin loading imported the package as a plain module; a
        # NoneBot process loads its plugins first, so start from there.
        for name in [n for n in sys.modules if n == "mneme_nonebot" or n.startswith("mneme_nonebot.")]:
            del sys.modules[name]
    plugin = nonebot.load_plugin("mneme_nonebot")
    assert plugin is not None, "NoneBot could not load mneme_nonebot"
    return plugin


class Model:
    """The chat model: knows the cat when the memory block names it, else echoes; records each call."""

    def __init__(self) -> None:
        self.conversations: list[list[dict[str, str]]] = []

    async def chat(self, messages: list[dict[str, str]]) -> str:
        self.conversations.append([dict(m) for m in messages])
        system = messages[0]["content"] if messages[0]["role"] == "system" else ""
        said = messages[-1]["content"].splitlines()[-1]  # a room's lines before it come joined
        if "cat" in said and "Mochi" in system:
            return "Mochi must be purring on your lap."
        return f"re: {said}"


async def judge(system: str, user: str) -> str:
    """The engine's judge and note writer: everything is worth keeping; notes by keyword."""
    if "QUESTIONS:" in user:
        return json.dumps({"mood_change": {"level": "1"}, "worth_remembering": {"probability": 0.9}})
    found = [{"text": note, "kind": "fact", "importance": 4} for word, note in NOTES.items() if word in user]
    return json.dumps(found) if found else "NONE"


LEO = "onebot:qq:10001"
ANN = "onebot:qq:10002"


def plugin_matchers() -> list[Any]:
    """The plugin's own matchers: the listener and the commands."""
    plugin = started()
    commands = plugin.module.commands
    return [plugin.module.listener, commands.remembered, commands.forget, commands.forget_me, commands.mood]


@pytest.fixture(name="engine")
def engine_fixture(db_path: Path, clock: Any) -> Any:
    m = Mneme(db_path, space="nonebot", clock=clock, zone="UTC", complete=judge)
    try:
        yield m
    finally:
        m.close()


@pytest.fixture(name="model")
def model_fixture() -> Model:
    return Model()


async def given(monkeypatch: pytest.MonkeyPatch, engine: Any, model: Any, **config: Any) -> Any:
    from mneme_nonebot import companion, lifetime

    # The failsafe: a check nonebug fails inside the runner's lane ends the lane, and the listener would
    # wait the runner's whole patience (minutes) for its outcome.
    monkeypatch.setattr(lifetime, "patience", lambda settings: 10.0)
    companion.use(engine, model=model)
    return running(monkeypatch, **config)


@pytest.fixture(name="answering")
async def answering_fixture(engine, model, monkeypatch) -> AsyncIterator[Any]:
    """The plugin answering by itself (`MNEME_ANSWER=true`) with the test's engine and model."""
    async with await given(monkeypatch, engine, model, mneme_answer=True) as opened:
        yield opened
    opened.use(None)


@pytest.fixture(name="quiet")
async def quiet_fixture(engine, model, monkeypatch) -> AsyncIterator[Any]:
    """The plugin leaving the answering to a host's own matcher (`MNEME_ANSWER=false`)."""
    async with await given(monkeypatch, engine, model, mneme_answer=False) as opened:
        yield opened
    opened.use(None)


def texts(notes: Any) -> list[str]:
    return [n.text for n in notes]


@contextlib.asynccontextmanager
async def running(monkeypatch: pytest.MonkeyPatch, **config: Any) -> AsyncIterator[Any]:
    """The driver's lifespan with these `mneme_*` settings in NoneBot's config: startup opens the
    companion, shutdown closes it. Yields the companion."""
    from mneme_nonebot import companion

    driver = nonebot.get_driver()
    for key, value in config.items():
        monkeypatch.setattr(driver.config, key, value, raising=False)
    try:
        await driver._lifespan.startup()
        yield companion
    finally:  # after a startup that failed too (NoneBot exits then), so the next test can start it again
        await driver._lifespan.shutdown()


@contextlib.asynccontextmanager
async def matching(matchers: list[Any] | None = None) -> AsyncIterator[Any]:
    """nonebug's matcher context for these matchers (all when None), within a failsafe timeout (not a
    timing assert: a check nonebug fails inside the runner's lane ends the lane, not the handler)."""
    async with asyncio.timeout(FAILSAFE), App().test_matcher(matchers) as ctx:
        yield ctx


def v11_bot(ctx: Any, self_id: str = BOT) -> V11Bot:
    return ctx.create_bot(base=V11Bot, adapter=nonebot.get_adapter(V11), self_id=self_id)


def v12_bot(ctx: Any, self_id: str = "wxid_bot") -> V12Bot:
    return ctx.create_bot(
        base=V12Bot, adapter=nonebot.get_adapter(V12), self_id=self_id, platform="wechat", impl="comwechat"
    )


def v11(message: Any, *, anonymous: Any = None, **given: Any) -> dict[str, Any]:
    """A OneBot v11 message event as a bridge (NapCat) sends it."""
    frame = onebot_frames.v11(message, **given)
    if anonymous is not None:
        frame["anonymous"] = anonymous
    return frame


def v12(message: Any, *, over: dict[str, Any] | None = None, **given: Any) -> dict[str, Any]:
    """A OneBot v12 message event as a WeChat bridge sends it, with fields `over` it."""
    return {**onebot_frames.v12(message, **given), **(over or {})}


async def exchange(matchers: list[Any], frame: dict[str, Any], reply: str, result: Any = None, **sent: Any):
    """One v11 message in, and the one reply nonebug must see sent for it (`sent`: `bot.send`'s options);
    returns the event."""
    async with matching(matchers) as ctx:
        bot = v11_bot(ctx)
        event = await arrive(bot, frame)
        ctx.receive_event(bot, event)
        ctx.should_call_send(event, reply, result, **sent)
    return event


async def arrive(bot: Any, frame: dict[str, Any]) -> Any:
    """The event the OneBot adapter hands NoneBot for a bridge's frame (see the module docstring)."""
    if isinstance(bot, V12Bot):
        event = V12.json_to_event(frame)
        assert event is not None, frame
        event.message.reduce()
        v12_steps._check_reply(bot, event)
        v12_steps._check_to_me(bot, event)
        v12_steps._check_nickname(bot, event)
        return event
    event = V11.json_to_event(frame)
    assert event is not None, frame
    event.message.reduce()
    await _check_reply(bot, event)
    _check_at_me(bot, event)
    _check_nickname(bot, event)
    return event


def segment(kind: str, **data: Any) -> dict[str, Any]:
    return {"type": kind, "data": data}
