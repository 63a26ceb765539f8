"""Who may reach one of our HTTP servers: the rules the MCP server and the web page (`mneme serve`) share.

- On loopback (127.0.0.0/8, ::1, localhost) a server may listen without a token. The danger there is a
  browser on the same machine: a page of another site whose name resolves to 127.0.0.1 (DNS rebinding), or
  one that posts to us from its own origin. So the Host header must name a loopback address and an Origin,
  when one is sent, must be one of ours (`CheckHost`); a wrong Host is answered 421 and a wrong Origin 403,
  as the MCP SDK's own guard answers.
- Anywhere else a bearer token is required: the server refuses to start without one (`exposure`), and a
  request without `Authorization: Bearer <token>` (or with another token, compared in constant time) is
  answered 401 before it reaches the app (`RequireToken`). With a token, loopback checks it too.

Pure ASGI, no framework: the MCP server (on the SDK's Starlette) and the web app (on FastAPI) wrap their
apps in the same two classes.
"""

from __future__ import annotations

import hmac
import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .errors import InvalidValue, describe
from .loopback import is_loopback

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN = re.compile(r"[\x21-\x7e]{16,200}")
TOKEN_RULE = "a token is 16 to 200 visible ASCII characters without spaces (say, `openssl rand -hex 32`)"
MCP_TOKEN = "--token or MNEME_MCP_TOKEN"
CHALLENGE = (b"www-authenticate", b'Bearer realm="mneme"')

__all__ = [
    "TOKEN",
    "TOKEN_RULE",
    "CheckHost",
    "RequireToken",
    "allowed_hosts",
    "allowed_origins",
    "exposure",
    "is_loopback",
]


def exposure(host: object, token: object, *, give: str = MCP_TOKEN) -> str | None:
    """The token to require, checked; `InvalidValue` when `host` is not loopback and there is none (`give`
    says where a token comes from, like "--token or MNEME_WEB_TOKEN")."""
    if not isinstance(host, str) or not host.strip():
        raise InvalidValue(f"host is an address like 127.0.0.1, not {describe(host)}")
    if token is None or token == "":
        if not is_loopback(host):
            raise InvalidValue(
                f"serving on {host} (not loopback) needs a bearer token: give {give}; " + TOKEN_RULE
            )
        return None
    if not isinstance(token, str) or not TOKEN.fullmatch(token):
        raise InvalidValue(TOKEN_RULE)
    return token


def _names(host: str) -> list[str]:
    """The names a loopback server bound to `host` answers to, as a Host header writes them."""
    found = ("127.0.0.1", "localhost", "[::1]", f"[{host.strip('[]')}]" if ":" in host else host)
    return list(dict.fromkeys(found))


def allowed_hosts(host: str) -> list[str]:
    """The Host headers a loopback server bound to `host` accepts (`name:*` is any port of it)."""
    return [f"{name}:*" for name in _names(host)]


def allowed_origins(host: str) -> list[str]:
    """The Origin headers a loopback server bound to `host` accepts (its own pages, any port)."""
    return [f"http://{name}:*" for name in _names(host)]


def _matches(value: str, allowed: Iterable[str]) -> bool:
    """`value` is one of `allowed`, where `x:*` stands for `x` with any port (the MCP SDK's rule)."""
    for pattern in allowed:
        if value == pattern or (
            pattern.endswith(":*") and value.startswith(pattern[:-1]) and value[len(pattern) - 1 :].isdigit()
        ):
            return True
    return False


def _header(scope: Scope, wanted: bytes) -> str | None:
    for name, value in scope.get("headers", []):
        if name.lower() == wanted:
            return value.decode("latin-1")
    return None


async def _refuse(send: Send, status: int, message: str, extra: Iterable[tuple[bytes, bytes]] = ()) -> None:
    headers = [(b"content-type", b"application/json"), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": json.dumps({"error": message}).encode()})


class CheckHost:
    """ASGI middleware for a server on loopback: the Host must be a loopback name with a port, and the
    Origin, when sent, one of ours; else 421 or 403. A server bound elsewhere passes every request on
    (there the token is the guard)."""

    def __init__(self, app: ASGIApp, host: str) -> None:
        self.app = app
        self.active = is_loopback(host)
        self.hosts = allowed_hosts(host)
        self.origins = allowed_origins(host)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        given = _header(scope, b"host")
        if given is None or not _matches(given, self.hosts):
            return 421, f"this server answers to {', '.join(self.hosts)}, not the host {describe(given)}"
        origin = _header(scope, b"origin")
        if origin is not None and not _matches(origin, self.origins):
            return 403, f"requests from the page {describe(origin)} are not allowed"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.active and scope["type"] in ("http", "websocket"):
            refused = self.refusal(scope)
            if refused is not None:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await _refuse(send, *refused)
                return
        await self.app(scope, receive, send)


class RequireToken:
    """ASGI middleware: every HTTP request carries `Authorization: Bearer <token>`, or is answered 401.

    `open_paths` pass without it: the web page's own files (`/`, its script and style), which hold no
    memory; the page then asks for the token and sends it with every call to the API."""

    def __init__(self, app: ASGIApp, token: str, *, open_paths: Iterable[str] = ()) -> None:
        self.app = app
        self._token = token.encode("ascii")
        self.open_paths = frozenset(open_paths)

    def allowed(self, scope: Scope) -> bool:
        if scope.get("path") in self.open_paths and scope.get("method", "GET") in ("GET", "HEAD"):
            return True
        for name, value in scope.get("headers", []):
            if name.lower() == b"authorization":
                scheme, _, given = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self._token)
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not self.allowed(scope):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            await _refuse(send, 401, "a bearer token is required", [CHALLENGE])
            return
        await self.app(scope, receive, send)
