"""The server the bridges reach: reverse WebSocket and HTTP POST on one aiohttp port.

Any path is served, so a bridge configured with `ws://host:port/onebot/v11/ws` (NoneBot's path), `/ws` or
`/onebot/v12/ws` all work. What a request is:
- a WebSocket upgrade: a reverse WebSocket. `X-Self-ID` names the bot (v11), `X-Client-Role` says whether
  the connection carries events, actions or both (Event, API, Universal; Universal when not said); the
  version is 12 when the path says `v12` or the bridge offers a `12.<impl>` subprotocol (whose name is
  echoed back), else 11; the events that come then settle it. Several bridges may be connected at once.
- a POST: an event pushed in HTTP POST mode (v11 `http_post`, v12 `http-webhook`), answered 204 at once;
  the reply goes out later through the bridge's HTTP API (`api_url`) or a WebSocket of the same bot.

Authorization, before anything is read: with an access token configured, every request carries it as
`Authorization: Bearer <token>` (or `Token <token>`, as old CQHTTP bridges send) or as the `access_token`
query parameter; otherwise it gets 401 with an empty body, and nothing else happens. A v11 POST is checked
by its `X-Signature` (HMAC-SHA1 of the body with `secret`) instead, when a secret is configured, since
that is what v11 bridges sign posts with. Tokens are compared in constant time and never logged; the
access log is off, as a query string may carry the token.

Frames are handed to the hub (the adapter) as text; the hub never raises into the read loop, so one bad
frame costs a log line, never the connection.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
from typing import Protocol

from aiohttp import WSCloseCode, WSMsgType, web

from .actions import SocketLink

__all__ = ["Hub", "Server"]

log = logging.getLogger(__name__)

ROLES = ("universal", "api", "event")
HEARTBEAT = 30.0
"""Seconds between our pings; a bridge gone silent (no pong) is dropped, so actions wait for its return."""


class Hub(Protocol):
    def link_opened(self, link: SocketLink) -> None: ...
    def link_closed(self, link: SocketLink) -> None: ...
    def take_frame(self, link: SocketLink | None, text: str) -> None: ...


class Server:
    """The aiohttp server; `start` returns once it listens, `stop` closes every connection."""

    def __init__(self, hub: Hub, *, host: str, port: int, token: str | None, secret: str | None) -> None:
        self.hub = hub
        self.host = host
        self.port = port
        self._token = token
        self._secret = secret
        self._runner: web.AppRunner | None = None
        self._sockets: set[web.WebSocketResponse] = set()

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._route)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        for address in self._runner.addresses:
            if isinstance(address, tuple) and len(address) >= 2:
                self.port = int(address[1])
                break
        log.info("OneBot server listening on %s:%d", self.host, self.port)

    async def stop(self) -> None:
        closing = [
            ws.close(code=WSCloseCode.GOING_AWAY, message=b"the bot is stopping") for ws in self._sockets
        ]
        await asyncio.gather(*closing, return_exceptions=True)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # -- authorization ---------------------------------------------------------------------------------

    def _token_ok(self, request: web.Request) -> bool:
        if self._token is None:
            return True
        expected = self._token.encode()
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() in ("bearer", "token") and hmac.compare_digest(given.strip().encode(), expected):
            return True
        query = request.query.get("access_token")
        return query is not None and hmac.compare_digest(query.encode(), expected)

    def _signature_ok(self, request: web.Request, body: bytes) -> bool:
        assert self._secret is not None
        given = request.headers.get("X-Signature", "")
        expected = "sha1=" + hmac.new(self._secret.encode(), body, hashlib.sha1).hexdigest()
        return hmac.compare_digest(given.encode(), expected.encode())

    @staticmethod
    def _refuse(request: web.Request, why: str) -> web.Response:
        log.warning("refused %s %s from %s: %s", request.method, request.path, request.remote, why)
        return web.Response(status=401)

    # -- requests --------------------------------------------------------------------------------------

    async def _route(self, request: web.Request) -> web.StreamResponse:
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return await self._socket(request)
        if request.method == "POST":
            return await self._post(request)
        return web.Response(status=405, text="OneBot bridges connect by WebSocket or POST their events\n")

    @staticmethod
    def _version(request: web.Request, offered: list[str]) -> int:
        if "/v12" in request.path or request.headers.get("X-OneBot-Version", "").strip() == "12":
            return 12
        return 12 if any(protocol.startswith("12.") for protocol in offered) else 11

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        if not self._token_ok(request):
            return self._refuse(request, "wrong or missing access token")
        offered = [
            p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()
        ]
        role = request.headers.get("X-Client-Role", "Universal").strip().lower()
        if role not in ROLES:
            log.warning("unknown X-Client-Role %r from %s; taken as Universal", role[:40], request.remote)
            role = "universal"
        self_id = request.headers.get("X-Self-ID", "").strip() or None
        ws = web.WebSocketResponse(protocols=offered, heartbeat=HEARTBEAT)
        await ws.prepare(request)
        link = SocketLink(
            ws, version=self._version(request, offered), role=role, self_id=self_id, peer=request.remote
        )
        self._sockets.add(ws)
        log.info("bridge connected: %s", link)
        self.hub.link_opened(link)
        try:
            async for frame in ws:
                if frame.type == WSMsgType.TEXT:
                    self._take(link, frame.data)
                elif frame.type == WSMsgType.BINARY:
                    log.warning(
                        "skipped a binary frame from %s: configure the bridge to send JSON text", link
                    )
        finally:
            self._sockets.discard(ws)
            self.hub.link_closed(link)
            log.info("bridge disconnected: %s", link)
        return ws

    async def _post(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        version = self._version(request, [])
        if version == 11 and self._secret is not None:
            if not self._signature_ok(request, body):
                return self._refuse(request, "wrong or missing X-Signature")
        elif not self._token_ok(request):
            return self._refuse(request, "wrong or missing access token")
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            log.warning("skipped an event post from %s: not UTF-8", request.remote)
            return web.Response(status=400)
        self._take(None, text)
        return web.Response(status=204)

    def _take(self, link: SocketLink | None, text: str) -> None:
        try:
            self.hub.take_frame(link, text)
        except Exception:  # a boundary: one frame must never end the connection
            log.exception("a frame from %s could not be handled", link or "an HTTP post")
