"""Actions: asking a bridge to do something (send a message) and matching its answer to the question.

Glossary:
- link: one way to reach a bridge. A `SocketLink` is one WebSocket connection the bridge opened to us; an
  action goes out with an `echo` of ours, and the answer that carries the same `echo` settles it, however
  many other answers come first. An `HttpLink` posts the action to the bridge's HTTP API.
- bridge: one bot account on one platform (`qq` 10001, `wechat` wxid_bot), outliving its connections.
  A bridge that reconnects is the same bridge; its actions wait for it.

Policy: `Bridge.call` has one deadline. It waits for a link able to take actions (a Universal or API
connection, else the configured HTTP API); if the connection drops before the answer came, the action is
sent again on the next connection, within the same deadline. So a bridge that restarts mid-reply loses
nothing, at the price that a message the bridge had sent just before dropping can arrive twice (an answer
that never came cannot tell us it was sent). A bridge that answers `failed` raises `ActionFailed` at once
(no retry: it would fail again); no answer within the deadline raises `ActionTimeout`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from mneme_core.errors import MnemeError, describe

__all__ = [
    "ActionError",
    "ActionFailed",
    "ActionTimeout",
    "Bridge",
    "BridgeClosed",
    "HttpLink",
    "Link",
    "LinkLost",
    "SocketLink",
    "answer",
]

log = logging.getLogger(__name__)

REMEMBERED_SENT = 2000
"""How many ids of the bot's own messages a bridge keeps, to know a reply to one of them."""

_echoes = itertools.count(1)

Heard = Callable[[Mapping[str, Any]], None]


class ActionError(MnemeError, RuntimeError):
    """An action that did not get done."""


class ActionFailed(ActionError):
    """The bridge answered that the action failed (its `retcode` and message are kept)."""

    def __init__(self, action: str, retcode: object, message: str) -> None:
        super().__init__(f"{action} failed: retcode {retcode}{': ' + message if message else ''}")
        self.action, self.retcode, self.reason = action, retcode, message


class ActionTimeout(ActionError, TimeoutError):
    """No answer (or no connection to ask on) within the deadline."""


class LinkLost(ActionError, ConnectionError):
    """The connection closed before the answer came; the bridge may come back."""


class BridgeClosed(ActionError):
    """The adapter stopped: no action will be sent any more."""


def answer(action: str, frame: object) -> Any:
    """The `data` of an action's answer; `ActionFailed` when the bridge says it failed."""
    if not isinstance(frame, Mapping):
        raise ActionFailed(action, None, f"the answer is not an object: {describe(frame)}")
    status, retcode = frame.get("status"), frame.get("retcode")
    if status == "ok" or (status == "async" and retcode == 1) or (status is None and retcode == 0):
        return frame.get("data")
    reason = frame.get("message") or frame.get("wording") or frame.get("msg") or ""
    raise ActionFailed(action, retcode, str(reason))


class Link:
    """One way to send actions to a bridge."""

    version: int = 11
    closed: bool = False

    async def call(self, request: Mapping[str, Any], timeout: float, heard: Heard | None = None) -> Any:
        """Send `request`, return the answer's data; `heard(answer)` is told of the answer first."""
        raise NotImplementedError


class SocketLink(Link):
    """A WebSocket the bridge opened to us; `settle` is fed every answer the read loop sees."""

    def __init__(self, ws: Any, *, version: int, role: str, self_id: str | None, peer: str | None) -> None:
        self.ws = ws
        self.version = version
        self.role = role
        """universal, api or event (`X-Client-Role`); an event link takes no actions."""
        self.self_id = self_id
        self.peer = peer
        self.closed = False
        self.pending: dict[str, asyncio.Future[Any]] = {}
        self._heard: dict[str, Heard] = {}

    def __repr__(self) -> str:
        return f"SocketLink(v{self.version}, {self.role}, self_id={self.self_id!r}, peer={self.peer!r})"

    @property
    def takes_actions(self) -> bool:
        return self.role != "event" and not self.closed

    def settle(self, frame: Mapping[str, Any]) -> bool:
        """If `frame` answers one of our actions, hand it over; True when it was an answer at all."""
        if "echo" not in frame or ("status" not in frame and "retcode" not in frame):
            return False
        echo = frame["echo"]
        waiting = self.pending.get(echo) if isinstance(echo, str) else None
        if waiting is None:
            log.debug(
                "an answer with echo %s matches no action of ours (late, or another client's)", describe(echo)
            )
        elif not waiting.done():
            heard = self._heard.get(echo)
            if heard is not None:  # before the next frame is read: a reply to this message is known
                heard(frame)
            waiting.set_result(frame)
        return True

    def lose(self) -> None:
        """The connection closed: every action waiting on it is told, to be sent again elsewhere."""
        self.closed = True
        for waiting in self.pending.values():
            if not waiting.done():
                waiting.set_exception(LinkLost(f"{self} closed before answering"))

    async def call(self, request: Mapping[str, Any], timeout: float, heard: Heard | None = None) -> Any:
        if self.closed:
            raise LinkLost(f"{self} is closed")
        echo = f"mneme-{next(_echoes)}"
        waiting: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[echo] = waiting
        if heard is not None:
            self._heard[echo] = heard
        try:
            try:
                await self.ws.send_str(json.dumps({**request, "echo": echo}, ensure_ascii=False))
            except (ConnectionError, RuntimeError) as err:  # aiohttp: closing, or closed under us
                raise LinkLost(f"{self} could not take {request.get('action')}: {err}") from err
            try:
                frame = await asyncio.wait_for(waiting, timeout)
            except TimeoutError as err:
                raise ActionTimeout(f"{request.get('action')}: no answer within {timeout:g} s") from err
        finally:
            self.pending.pop(echo, None)
            self._heard.pop(echo, None)
            if not waiting.done():
                waiting.cancel()
        return answer(str(request.get("action")), frame)


class HttpLink(Link):
    """A bridge's HTTP API: v11 posts the params to `<url>/<action>`, v12 the whole request to `<url>`."""

    def __init__(self, session: Any, url: str, *, version: int, token: str | None) -> None:
        self.session = session
        self.url = url.rstrip("/")
        self.version = version
        self.token = token
        self.closed = False

    def __repr__(self) -> str:
        return f"HttpLink(v{self.version}, {self.url!r})"

    async def call(self, request: Mapping[str, Any], timeout: float, heard: Heard | None = None) -> Any:
        import aiohttp  # the onebot extra; only a running adapter gets here

        action = str(request.get("action"))
        url, body = (
            (self.url, dict(request)) if self.version == 12 else (f"{self.url}/{action}", request["params"])
        )
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        try:
            async with self.session.post(
                url, json=body, headers=headers, timeout=aiohttp.ClientTimeout(total=timeout)
            ) as response:
                if response.status != 200:
                    raise ActionFailed(action, f"HTTP {response.status}", response.reason or "")
                frame = await response.json(content_type=None)
        except TimeoutError as err:
            raise ActionTimeout(f"{action}: no answer from {self.url} within {timeout:g} s") from err
        except (aiohttp.ClientError, json.JSONDecodeError) as err:
            raise ActionFailed(action, None, f"{type(err).__name__}: {err}") from err
        if heard is not None:
            heard(frame)
        return answer(action, frame)


class Bridge:
    """One bot account of one platform, across its connections (see the module docstring)."""

    def __init__(self, platform: str, self_id: str, *, http: HttpLink | None = None) -> None:
        self.platform = platform
        self.self_id = self_id
        self.http = http
        self.links: list[SocketLink] = []
        self.sent: OrderedDict[str, None] = OrderedDict()
        self.closed = False
        self._changed = asyncio.Event()

    def __repr__(self) -> str:
        return f"Bridge({self.platform}:{self.self_id})"

    def attach(self, link: SocketLink) -> None:
        if link.takes_actions and link not in self.links:
            self.links.append(link)
            self._changed.set()

    def detach(self, link: SocketLink) -> None:
        if link in self.links:
            self.links.remove(link)

    def close(self) -> None:
        self.closed = True
        self._changed.set()

    def remember_sent(self, frame: object) -> None:
        """Keep the id of a message the bot sent, from an action's answer (`data.message_id`)."""
        data = frame.get("data") if isinstance(frame, Mapping) and frame.get("status") == "ok" else None
        found = data.get("message_id") if isinstance(data, Mapping) else None
        if isinstance(found, str | int) and not isinstance(found, bool):
            self.sent[str(found)] = None
            self.sent.move_to_end(str(found))
            while len(self.sent) > REMEMBERED_SENT:
                self.sent.popitem(last=False)

    def _usable(self) -> Link | None:
        live = [link for link in self.links if link.takes_actions]
        return live[-1] if live else self.http

    async def _link(self, deadline: float) -> Link:
        loop = asyncio.get_running_loop()
        while True:
            if self.closed:
                raise BridgeClosed(f"{self}: the adapter stopped")
            found = self._usable()
            if found is not None:
                return found
            left = deadline - loop.time()
            if left <= 0:
                raise ActionTimeout(f"{self} is not connected (and has no api_url)")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                continue

    async def call(self, action: str, params: Mapping[str, Any], *, timeout: float) -> Any:
        """Do `action` on this bridge and return its data, waiting for (re)connection within `timeout`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            link = await self._link(deadline)
            request: dict[str, Any] = {"action": action, "params": dict(params)}
            if link.version == 12:
                request["self"] = {"platform": self.platform, "user_id": self.self_id}
            try:
                return await link.call(request, max(deadline - loop.time(), 0.001), self.remember_sent)
            except LinkLost as err:
                log.info("%s; %s waits for the bridge to reconnect", err, action)
                if isinstance(link, SocketLink):
                    self.detach(link)
