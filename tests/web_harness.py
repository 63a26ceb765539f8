"""What the web tests share: a companion with a little of everything, the app's lifespan driven through
its real ASGI protocol, and a client on httpx's ASGI transport."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx
import uvicorn

from mneme_core import Mneme
from mneme_core.decide import run

CAT, CITY = "discord:1", "telegram:2"
BASE = "http://127.0.0.1:8766"
DAY = 86400.0


def seed(m: Mneme, clock: Any) -> None:
    """Two people: one with notes, a key history, a role, mood changes and a recall; one with a line."""
    m.remember(CAT, "Has a cat named Mochi", kind="fact", key="pet.name", importance=4)
    m.remember(CAT, "Lives in Lyon", kind="fact", key="user.city")
    m.relate(CAT, "friend")
    clock.advance(days=2)
    m.feel(CAT, delta=-15, emotions={"worried": 40}, reason="a bad day at work")
    m.remember(CAT, "Lives in Paris now", kind="fact", key="user.city")
    clock.advance(days=2)
    m.feel(CAT, delta=10, emotions={"happy": 30}, reason="passed the exam")
    m.remember(CAT, "Exam on Friday", kind="plan", importance=3)
    m.recall(CAT, "how is the cat")
    m.recall_log.flush()
    clock.advance(hours=1)
    run(lambda: m.transcript.aadd_line(f"dm:{CITY}", subject=CITY, text="你好", name="小明"))
    m.remember(CITY, "喜欢喝乌龙茶", kind="preference")


@asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    """Start the app as a server would (the ASGI lifespan's startup), and stop it after."""
    sent: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    answers: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def receive() -> dict[str, Any]:
        return await sent.get()

    async def send(message: dict[str, Any]) -> None:
        await answers.put(message)

    running = asyncio.ensure_future(app({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send))
    await sent.put({"type": "lifespan.startup"})
    started = await asyncio.wait_for(answers.get(), 10)
    assert started["type"] == "lifespan.startup.complete", started
    try:
        yield
    finally:
        await sent.put({"type": "lifespan.shutdown"})
        stopped = await asyncio.wait_for(answers.get(), 10)
        assert stopped["type"] == "lifespan.shutdown.complete", stopped
        await asyncio.wait_for(running, 10)


@asynccontextmanager
async def client(app: Any, **options: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE, **options) as http,
    ):
        yield http


@contextmanager
def served(app: Any) -> Iterator[str]:
    """`app` on uvicorn on a free loopback port, in a thread of its own; yields its address."""
    from mneme_core.loopback import listen, url_of

    sock = listen("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline and thread.is_alive():
        time.sleep(0.02)
    assert server.started, "the app did not start"
    try:
        yield url_of(sock).rstrip("/")
    finally:
        server.should_exit = True
        thread.join(10)
