"""Serve the web app on uvicorn, on 127.0.0.1 unless told otherwise (another address needs a token)."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import uvicorn

from .app import create_app

if TYPE_CHECKING:
    from ..mneme import Mneme

HOST = "127.0.0.1"
PORT = 8766


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on `host` (IPv4 or IPv6), `port` 0 for any free one."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    return socket.create_server((host, port), family=family)


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


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
