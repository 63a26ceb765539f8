"""The web app: the REST API under `/api`, the page at `/`, `/metrics`, and the MCP server at `/mcp`.

`create_app(m)` gives an ASGI app over an open `Mneme` (the caller keeps it and closes it); other spaces of
the same file are opened on first use (`companions`). The app is guarded by `mneme_core.guard`, as the MCP
server is: on loopback the Host and Origin are checked; with a token (required anywhere else) every call
to the API, `/metrics` and `/mcp` carries it, while the page's own three files, which hold no memory, are
served without it so that the page can ask for it. Refusals are JSON (`problems`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI
from fastapi.responses import FileResponse

from .. import __version__
from ..guard import CheckHost, RequireToken, exposure
from . import about, config, mood, notes, people, problems, recall
from .companions import Companions
from .metrics import Metrics

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from ..mneme import Mneme

STATIC = Path(__file__).parent / "static"
PAGE_FILES = {"/": "index.html", "/app.js": "app.js", "/app.css": "app.css"}
MEDIA = {"html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css"}
WEB_TOKEN = "--token or MNEME_WEB_TOKEN"
MCP_PATH = "/mcp"


class Routed:
    """ASGI: `/mcp` to the MCP server's app, everything else to the API and the page."""

    def __init__(self, api: ASGIApp, mcp: ASGIApp | None) -> None:
        self.api = api
        self.mcp = mcp

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        to_mcp = path == MCP_PATH or path.startswith(MCP_PATH + "/")
        if self.mcp is not None and scope["type"] != "lifespan" and to_mcp:
            await self.mcp(scope, receive, send)
        else:
            await self.api(scope, receive, send)


def create_app(
    m: Mneme,
    *,
    host: str = "127.0.0.1",
    token: str | None = None,
    mcp: Any = None,
    embed: Any = "",
) -> ASGIApp:
    """The web app over `m` (kept open by the caller), guarded for `host` (a host off loopback needs
    `token`, see `mneme_core.guard`). `mcp`, an MCP `Server` (`mcp_server.build`), is served at `/mcp` in
    the same process. Other spaces of the file are opened with `embed` (words only by default)."""
    token = exposure(host, token, give=WEB_TOKEN)
    companions = Companions(m, embed=embed)
    metrics = Metrics(companions)
    mcp_app = _mcp_app(mcp, host)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        metrics.start()
        try:
            if mcp_app is None:
                yield
            else:
                async with mcp_app.router.lifespan_context(mcp_app):
                    yield
        finally:
            metrics.stop()
            await companions.aclose()

    api = FastAPI(
        title="Mneme",
        version=__version__,
        description="A companion's memory: people, notes, recall, mood, relationships, config.",
        openapi_url=problems.OPENAPI,
        docs_url=None,  # the hosted docs pages load their scripts from a CDN; the page works offline
        redoc_url=None,
        lifespan=lifespan,
        responses=problems.RESPONSES,
    )
    api.state.companions = companions
    api.state.metrics = metrics
    api.state.mcp = mcp_app is not None
    problems.install(api)
    for module in (about, people, notes, recall, mood, config):
        api.include_router(module.router, prefix="/api")
    api.add_api_route("/metrics", metrics.endpoint, methods=["GET"], include_in_schema=False)
    for path, name in PAGE_FILES.items():
        api.add_api_route(path, _file(STATIC / name), methods=["GET"], include_in_schema=False)
    guarded: ASGIApp = Routed(metrics.timed(api), mcp_app)
    if token:
        guarded = RequireToken(guarded, token, open_paths=PAGE_FILES)
    return CheckHost(guarded, host)


def _mcp_app(server: Any, host: str) -> Any:
    if server is None:
        return None
    from ..mcp_server import streamable_app  # needs the mcp extra: imported only when a server is mounted

    return streamable_app(server, host)


def _file(path: Path) -> Callable[[], Any]:
    media = MEDIA[path.suffix[1:]]

    async def page_file() -> FileResponse:
        return FileResponse(path, media_type=media, headers={"cache-control": "no-cache"})

    return page_file
