"""Serve the web app on uvicorn, on 127.0.0.1 unless told otherwise (another address needs a token)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import uvicorn

from ..loopback import listen, url_of
from .app import create_app

if TYPE_CHECKING:
    from ..mneme import Mneme

HOST = "127.0.0.1"
PORT = 8766


async def serve(
    m: Mneme,
    *,
    host: str = HOST,
    port: int = PORT,
    token: str | None = None,
    mcp: Any = None,
    embed: Any = "",
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve `m` until interrupted; `ready(url)` is told the page's address once it listens."""
    app = create_app(m, host=host, token=token, mcp=mcp, embed=embed)
    sock = listen(host, port)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5, lifespan="on")
    server = uvicorn.Server(config)
    if ready is not None:
        ready(url_of(sock))
    await server.serve(sockets=[sock])
