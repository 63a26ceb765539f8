"""The OneBot adapter: WeChat and QQ (and any OneBot v11/v12 bridge) talking to the companion.

The bridges connect to us (`server`): each frame is read on its connection's loop, answers to our actions
are matched there by their echo (`actions`), and each message event is turned into an `Incoming` and
handed over in a task of its own, so the read loop never waits on the runner, the model or an action. One
person's messages are handed over in the order they came (a task waits for the one before it), different
people's at once.

Subjects are `onebot:<platform>:<user id>`: `onebot:qq:10001`, `onebot:wechat:wxid_abc`. The platform is
the one a v12 event names, or the one configured for the v11 bridge (`platform`, or its own table under
`bridges`), never the bot account or the connection: a person keeps their memory when the bridge restarts,
reconnects or changes its port. The chat (a group, a guild's channel) is the `Incoming`'s chat id, never
part of the subject.

Two ways to use it:
- `mneme run onebot`: the runner answers (`start(runner)`); in a group only when addressed.
- a bot of one's own: `await adapter.listen(handler)` hands every message to `handler(incoming)` (in a
  group too, with `incoming.addressed` saying whether it was to the bot), and `await adapter.reply(incoming,
  text)` answers it, split to the limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import weakref
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mneme_core.bot import Adapter, Incoming, split_reply, spoken
from mneme_core.errors import InvalidType, InvalidValue, describe
from mneme_core.loopback import is_loopback

from . import cqcode, events
from .actions import Bridge, HttpLink, SocketLink
from .events import Malformed, Message, Other
from .settings import Settings

if TYPE_CHECKING:
    from mneme_core.bot import Runner

    from .server import Server

__all__ = ["OneBotAdapter", "Route"]

log = logging.getLogger(__name__)

Handler = Callable[[Incoming], Awaitable[Any] | Any]


@dataclass(frozen=True, eq=False)
class Route:
    """Where a message came from, for its reply: the bridge and the event (an `Incoming`'s `raw`)."""

    bridge: Bridge
    message: Message


class OneBotAdapter(Adapter):
    """The `onebot` adapter; settings are the `[adapters.onebot]` table (`settings`)."""

    name = "onebot"
    limit = 1500

    def __init__(
        self, settings: Mapping[str, Any] | None = None, *, environ: Mapping[str, str] | None = None
    ):
        super().__init__(settings)
        self.config = Settings.from_table(self.settings)
        self.limit = self.config.limit  # type: ignore[misc]
        self.environ = environ
        self.bridges: dict[tuple[str, str], Bridge] = {}
        self.counts: Counter[str] = Counter()
        self._deliver: Handler | None = None
        self._server: Server | None = None
        self._session: Any = None
        self._http: dict[str, HttpLink] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._tails: dict[str, asyncio.Task[Any]] = {}
        self._quoted: weakref.WeakSet[Route] = weakref.WeakSet()

    @property
    def port(self) -> int:
        """The port listened on (the one the system chose, when configured as 0)."""
        return self._server.port if self._server is not None else self.config.port

    # -- lifetime --------------------------------------------------------------------------------------

    async def start(self, runner: Runner) -> None:
        """Listen, and hand each message to the runner (which answers it, or not, by its own rules)."""
        self._deliver = lambda incoming: runner.submit(self, incoming)
        await self._open()

    async def listen(self, handler: Handler) -> None:
        """Listen without a runner: each message goes to `handler(incoming)` (plain or async)."""
        self._deliver = handler
        await self._open()

    async def _open(self) -> None:
        from .server import Server  # aiohttp, the onebot extra, only once a bot starts

        token, secret = self.config.secrets(self.environ)
        if token is None and not is_loopback(self.config.host):
            raise InvalidValue(
                f"adapters.onebot: listening on {self.config.host} (not loopback) needs an access_token, "
                'like access_token = { "$env" = "ONEBOT_TOKEN" }, set on the bridges too'
            )
        if any(bridge.api_url for bridge in self.config.bridges):
            import aiohttp

            self._session = aiohttp.ClientSession()
            for bridge in self.config.bridges:
                if bridge.api_url:
                    self._http[bridge.self_id] = HttpLink(
                        self._session, bridge.api_url, version=bridge.version, token=token
                    )
        self._server = Server(self, host=self.config.host, port=self.config.port, token=token, secret=secret)
        try:
            await self._server.start()
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        for bridge in self.bridges.values():
            bridge.close()
        if self._server is not None:
            await self._server.stop()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._session is not None:
            await self._session.close()
            self._session = None

    # -- frames (called by the server) -----------------------------------------------------------------

    def link_opened(self, link: SocketLink) -> None:
        if link.self_id is not None and link.version == 11:
            self._bridge(self.config.platform_for(link.self_id), link.self_id).attach(link)
        elif link.role == "api" and link.self_id is None:
            log.warning("%s names no bot (X-Self-ID): no action can be sent on it", link)

    def link_closed(self, link: SocketLink) -> None:
        link.lose()
        for bridge in self.bridges.values():
            bridge.detach(link)

    def take_frame(self, link: SocketLink | None, text: str) -> None:
        """One frame from a connection (or an HTTP post): an answer, an event, or something to skip."""
        try:
            frame = json.loads(text)
        except ValueError:
            self._malformed(link, f"not JSON: {describe(text)}")
            return
        if link is not None and isinstance(frame, Mapping) and link.settle(frame):
            return
        found = self._read(link, frame)
        if found is not None:
            self._hand_over(found)

    def incoming(self, event: Any) -> Incoming | None:
        """A OneBot event (decoded, or its JSON text) as an `Incoming`; None for one that is not a message
        to answer (meta, notice, the bot's own) or is malformed (logged)."""
        if isinstance(event, str | bytes):
            try:
                event = json.loads(event)
            except ValueError:
                self._malformed(None, f"not JSON: {describe(event)}")
                return None
        return self._read(None, event)

    def _read(self, link: SocketLink | None, frame: object) -> Incoming | None:
        try:
            event = events.parse(frame)
            if link is not None:  # the bridge's events say which version its actions must be
                link.version = event.version
            self._attach(link, event, frame)
            if isinstance(event, Other):
                self.counts["quiet"] += 1
                log.debug("%s event from %s: nothing to answer", event.kind, link or "an HTTP post")
                return None
            return self._incoming(event)
        except Malformed as err:
            self._malformed(link, str(err))
            return None

    def _malformed(self, link: SocketLink | None, why: str) -> None:
        self.counts["malformed"] += 1
        log.warning("skipped a malformed frame from %s: %s", link or "an HTTP post", why)

    def _bridge(self, platform: str, self_id: str) -> Bridge:
        key = (platform, self_id)
        found = self.bridges.get(key)
        if found is None:
            found = self.bridges[key] = Bridge(platform, self_id, http=self._http.get(self_id))
        return found

    def _attach(self, link: SocketLink | None, event: Message | Other, frame: Any) -> None:
        """Make sure the bot the event is about has its bridge, and the connection is one of its links."""
        bots: list[tuple[str, str]] = []
        if event.version == 11 and event.self_id is not None:
            bots.append((self.config.platform_for(event.self_id), event.self_id))
        elif event.version == 12:
            if event.self_id is not None and event.platform is not None:
                with contextlib.suppress(Malformed):
                    bots.append((events.platform_name(event.platform), event.self_id))
            if isinstance(event, Other) and event.kind == "meta:status_update":
                bots.extend(_online_bots(frame))
        for platform, self_id in bots:
            bridge = self._bridge(platform, self_id)
            if link is not None:
                bridge.attach(link)

    def _incoming(self, message: Message) -> Incoming:
        platform = message.platform or self.config.platform_for(message.self_id)
        route = Route(self._bridge(platform, message.self_id), message)
        names = () if message.is_direct else self.config.names
        reading = events.read(message, mine=route.bridge.sent, names=names)
        try:
            return Incoming(
                platform=f"onebot:{platform}",
                user_id=message.user_id,
                user_name=message.user_name,
                text=spoken(message.user_name or message.user_id, message.place, reading.text),
                chat_id=message.chat_id,
                is_direct=message.is_direct,
                addressed=reading.addressed,
                message_id=message.message_id,
                raw=route,
            )
        except (InvalidValue, InvalidType) as err:
            raise Malformed(str(err)) from err

    # -- handing over, in order per person -------------------------------------------------------------

    def _hand_over(self, incoming: Incoming) -> None:
        self.counts["messages"] += 1
        key = f"{incoming.platform}:{incoming.user_id}"
        before = self._tails.get(key)
        task = asyncio.create_task(self._deliver_after(incoming, before), name=f"mneme onebot {key}")
        self._tails[key] = task
        self._tasks.add(task)

        def done(finished: asyncio.Task[Any]) -> None:
            self._tasks.discard(finished)
            if self._tails.get(key) is finished:
                del self._tails[key]

        task.add_done_callback(done)

    async def _deliver_after(self, incoming: Incoming, before: asyncio.Task[Any] | None) -> None:
        if before is not None:
            await asyncio.wait([before])
        if self._deliver is None:
            return
        try:
            result = self._deliver(incoming)
            if isinstance(result, Awaitable):
                await result
        except Exception:  # a boundary: the handler's failure is logged, the next message still goes
            log.exception("handing a message from %s:%s over failed", incoming.platform, incoming.user_id)

    def _background(self, work: Awaitable[Any], what: str) -> None:
        async def run() -> None:
            try:
                await work
            except Exception as err:  # cosmetic work (typing): logged, never raised
                log.debug("%s failed: %s", what, err)

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- sending ---------------------------------------------------------------------------------------

    async def send(self, incoming: Incoming, text: str) -> None:
        """Send one part to where `incoming` was said (waiting for the bridge to reconnect if it must)."""
        route = _route(incoming)
        quote = self.config.quote and not route.message.is_direct and route not in self._quoted
        action, params = self._outgoing(route.message, text, quote=quote and bool(route.message.message_id))
        await route.bridge.call(action, params, timeout=self.config.action_timeout)
        self._quoted.add(route)

    async def reply(self, incoming: Incoming, text: str) -> int:
        """Send a whole reply, split to the limit; returns how many parts went out."""
        parts = split_reply(text, self.limit)
        for part in parts:
            await self.send(incoming, part)
        return len(parts)

    def _outgoing(self, message: Message, text: str, *, quote: bool) -> tuple[str, dict[str, Any]]:
        """The action that sends `text` where `message` was said, in the message's version."""
        body: list[dict[str, Any]] = [{"type": "text", "data": {"text": text}}]
        if message.version == 12:
            if quote:
                body.insert(0, {"type": "reply", "data": {"message_id": message.message_id}})
            params: dict[str, Any] = {"detail_type": message.detail, "message": body}
            if message.detail == "private":
                params["user_id"] = message.user_id
            elif message.detail == "group":
                params["group_id"] = message.group_id
            else:
                params.update(guild_id=message.guild_id, channel_id=message.channel_id)
            return "send_message", params
        if quote:
            body.insert(0, {"type": "reply", "data": {"id": _number(message.message_id)}})
        sent: Any = cqcode.format_message(body) if self.config.message_format == "string" else body
        if message.is_direct:
            params = {"user_id": _number(message.user_id), "message": sent}
            if message.group_id is not None:  # a temporary chat started from a group
                params["group_id"] = _number(message.group_id)
            return "send_private_msg", params
        return "send_group_msg", {"group_id": _number(message.group_id), "message": sent}

    def typing(self, incoming: Incoming) -> AbstractAsyncContextManager[Any]:
        """NapCat's `set_input_status` in a v11 private chat, when `typing = true`; OneBot has none."""
        route = incoming.raw if isinstance(incoming.raw, Route) else None
        if not self.config.typing or route is None or route.message.version != 11 or not incoming.is_direct:
            return contextlib.nullcontext()
        return self._typing(route)

    @contextlib.asynccontextmanager
    async def _typing(self, route: Route) -> AsyncIterator[None]:
        params = {"user_id": _number(route.message.user_id), "event_type": 1}
        self._background(route.bridge.call("set_input_status", params, timeout=5.0), "set_input_status")
        yield


def _route(incoming: Incoming) -> Route:
    if not isinstance(incoming.raw, Route):
        raise InvalidType(f"the onebot adapter answers messages it read, not {describe(incoming)}")
    return incoming.raw


def _number(value: str | None) -> int | str | None:
    """A v11 id as the bridge expects it: a number when it is one (QQ), else the string (wxid_...)."""
    if value is not None and value.isascii() and value.isdigit():
        return int(value)
    return value


def _online_bots(frame: Any) -> list[tuple[str, str]]:
    """The bots a v12 `status_update` says are online: (platform, self id)."""
    status = frame.get("status") if isinstance(frame, Mapping) else None
    found = []
    for bot in (status.get("bots") if isinstance(status, Mapping) else None) or []:
        me = bot.get("self") if isinstance(bot, Mapping) else None
        if isinstance(me, Mapping) and bot.get("online", True):
            with contextlib.suppress(Malformed):
                found.append(
                    (events.platform_name(me.get("platform")), events.ident(me.get("user_id"), "self"))
                )
    return found
