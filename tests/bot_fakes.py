"""Stand-ins the bot layer's tests share: an adapter that records what it was asked to send, and scripted
models (one that completes, one that takes chat messages)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

from mneme_core.bot import Adapter, Incoming, Runner


class FakeAdapter(Adapter):
    name = "fake"
    limit = 2000

    def __init__(self, settings: Any = None, *, limit: int = 2000, fail_sends: bool = False) -> None:
        super().__init__(settings)
        self.limit = limit  # type: ignore[misc]
        self.fail_sends = fail_sends
        self.sent: list[tuple[str, str, float]] = []
        self.typing_shown: list[str] = []
        self.started = self.stopped = False

    async def start(self, runner: Runner) -> None:
        self.started = True

    async def stop(self) -> None:
        self.stopped = True

    async def send(self, incoming: Incoming, text: str) -> None:
        if self.fail_sends:
            raise ConnectionError("the platform is down")
        self.sent.append((incoming.user_id, text, time.monotonic()))

    @contextlib.asynccontextmanager
    async def typing(self, incoming: Incoming) -> AsyncIterator[None]:
        self.typing_shown.append(incoming.user_id)
        yield

    def texts(self, user_id: str | None = None) -> list[str]:
        return [text for who, text, _ in self.sent if user_id is None or who == user_id]


class Scripted:
    """A model: replies `re: <message>` after the delay its message asks for ("slow" 0.2 s), raises for
    "fail", answers nothing for "blank"; records when each call ran."""

    def __init__(self, delay: float = 0.0, gate: asyncio.Event | None = None) -> None:
        self.delay = delay
        self.gate = gate
        self.calls: list[tuple[str, float, float]] = []
        self.systems: list[str] = []
        self.running = 0
        self.most = 0
        self.started = asyncio.Event()

    async def complete(self, system: str, user: str) -> str:
        began = time.monotonic()
        self.systems.append(system)
        self.running += 1
        self.most = max(self.most, self.running)
        self.started.set()
        try:
            if self.gate is not None:
                await self.gate.wait()
            await asyncio.sleep(0.2 if "slow" in user else self.delay)
            if "fail" in user:
                raise RuntimeError("the model is down")
            return "" if "blank" in user else f"re: {user}"
        finally:
            self.running -= 1
            self.calls.append((user, began, time.monotonic()))


def message(text: str, user: str = "42", **options: Any) -> Incoming:
    return Incoming(platform="fake", user_id=user, user_name=f"User{user}", text=text, **options)


class Chatting(Scripted):
    """`Scripted` that takes chat messages, as a provider does: records each message list it was given."""

    def __init__(self, delay: float = 0.0, gate: asyncio.Event | None = None) -> None:
        super().__init__(delay, gate)
        self.conversations: list[list[dict[str, str]]] = []

    async def chat(self, messages: list[dict[str, str]]) -> str:
        self.conversations.append([dict(m) for m in messages])
        system = messages[0]["content"] if messages and messages[0]["role"] == "system" else ""
        return await self.complete(system, messages[-1]["content"])
