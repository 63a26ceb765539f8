"""The runner: the conversation loop every adapter shares.

For each message an adapter submits (`submit(adapter, incoming)`):

1. the subject is resolved (`resolve_subject`: `platform:user_id` unless a plugin maps it);
2. the message waits in its person's lane: one lane per subject, so two messages from one person are
   answered in order while different people are answered concurrently. A lane holds at most
   `queue_size` waiting messages and all lanes together `max_waiting`; a message beyond that is answered
   with the busy sentence at once, so a flood never blocks the platform's event loop or grows memory;
3. in its turn: `aprompt` gives the memory block; the system prompt is the persona, the block and the
   plugins' sections (`extra_prompt_sections`); the model answers (typing shown meanwhile) within
   `model_timeout`; the reply is split to the adapter's limit and sent;
4. `aobserve` runs after the reply was sent, in the background: the reply never waits on memory writing.
   Observes run one at a time per person (so the mood moves in order) and at most `max_observing` at
   once; past `max_observe_backlog` waiting ones a new one is dropped, logged and counted.

A model that fails, times out or answers nothing gets the person the failure sentence, never silence or a
traceback; the failure is logged and counted. A memory that fails to give its block costs the block, not
the reply. `track_event` sees each step (`plugins.Event`).

`aclose(timeout)` stops taking messages, lets the lanes finish and the pending observes write, and after
`timeout` seconds cancels what is left, saying how much. `serve(adapters)` starts adapters, waits until
`stop_soon()` (or SIGINT/SIGTERM), stops them and closes.

The model is a `complete(system, user) -> str` (plain or async) or a provider object with such a
`complete` method; `judge`, if given (or the provider's own `judge`), is passed to `aobserve` as the model
that judges and writes notes. Without a model the offline stand-in answers (`default_plugins.offline`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import signal
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .adapters import Adapter, Incoming, split_reply
from .decide import Complete, acomplete
from .default_plugins.offline import OfflineModel
from .errors import InvalidType, InvalidValue, describe
from .memory.note import count_of
from .plugins import Event, Manager, PluginError, make_manager

__all__ = [
    "Outcome",
    "Runner",
    "RunnerSettings",
    "build_adapters",
    "build_model",
    "close_model",
    "compose",
    "model_from_config",
    "run_bot",
]

log = logging.getLogger(__name__)

BUSY = "I'm a little overwhelmed right now. Give me a moment, then write again."
FAILED = "Sorry, I can't think straight right now. Please try again in a little while."


@dataclass(frozen=True, kw_only=True)
class RunnerSettings:
    """How the runner behaves; the sentences default to the companion's `reply.busy` / `reply.failed`
    sentences (its display language), then to the English ones here."""

    persona: str = ""
    busy: str | None = None
    failure: str | None = None
    groups: str = "addressed"
    """In a group chat, answer only when "addressed", or "all" messages."""
    queue_size: int = 5
    max_waiting: int = 1000
    model_timeout: float = 120.0
    send_timeout: float = 30.0
    max_observing: int = 4
    max_observe_backlog: int = 1000
    shutdown_timeout: float = 30.0

    def __post_init__(self) -> None:
        if not isinstance(self.persona, str):
            raise InvalidType(f"a persona is text, not {type(self.persona).__name__}")
        for name in ("busy", "failure"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise InvalidValue(
                    f"{name} is a sentence to send, or None for the default, not {describe(value)}"
                )
        if self.groups not in ("addressed", "all"):
            raise InvalidValue(f"groups is 'addressed' or 'all', not {describe(self.groups)}")
        for name in ("queue_size", "max_waiting", "max_observing", "max_observe_backlog"):
            count_of(name, getattr(self, name), 1)
        for name in ("model_timeout", "send_timeout", "shutdown_timeout"):
            value = getattr(self, name)
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if not number or not math.isfinite(value) or value <= 0:
                raise InvalidValue(f"{name} is a number of seconds above 0, not {describe(value)}")


@dataclass(frozen=True)
class Outcome:
    """What became of one message: replied, failed (the failure sentence was sent), busy (the busy sentence
    was sent), ignored (a group message not addressed to the bot, or a blank one), cancelled (at shutdown)."""

    status: str
    subject: str | None = None
    reply: str = ""
    parts: tuple[str, ...] = ()
    error: str = ""


@dataclass
class _Item:
    adapter: Adapter
    incoming: Incoming
    subject: str
    done: asyncio.Future[Outcome]


@dataclass
class _Lane:
    queue: asyncio.Queue[_Item]
    worker: asyncio.Task[None] | None = None


def _manager(mneme: Any, given: Manager | None) -> Manager:
    """The manager given, else the companion's own, else a new one."""
    found = given if given is not None else getattr(mneme, "plugins", None)
    return found if found is not None else make_manager()


def compose(persona: str, block: str, sections: Iterable[str]) -> str:
    """The system prompt: the persona, the memory block, then the plugins' sections, blank ones left out."""
    return "\n\n".join(part.strip() for part in (persona, block, *sections) if part and part.strip())


def _completer(model: Any) -> Complete:
    found = getattr(model, "complete", None)
    if callable(found):
        return found
    if callable(model):
        return model
    raise InvalidType(
        f"a model is a function complete(system, user) -> text or an object with one, not {describe(model)}"
    )


class Runner:
    """The loop between adapters, the memory and the model; see the module docstring."""

    def __init__(
        self,
        mneme: Any,
        model: Any = None,
        *,
        judge: Complete | None = None,
        settings: RunnerSettings | None = None,
        plugins: Manager | None = None,
    ) -> None:
        self.mneme = mneme
        self.model = model if model is not None else OfflineModel()
        self._complete = _completer(self.model)
        self.judge = judge if judge is not None else getattr(self.model, "judge", None)
        self.settings = settings if settings is not None else RunnerSettings()
        if not isinstance(self.settings, RunnerSettings):
            raise InvalidType(f"settings are a RunnerSettings, not {type(self.settings).__name__}")
        self.plugins = _manager(mneme, plugins)
        self.counts: Counter[str] = Counter()
        self._lanes: dict[str, _Lane] = {}
        self._waiting = 0
        self._observing: set[asyncio.Task[None]] = set()
        self._observe_tails: dict[str, asyncio.Task[None]] = {}
        self._observe_slots = asyncio.Semaphore(self.settings.max_observing)
        self._chores: set[asyncio.Task[Any]] = set()
        self._closing = False
        self._stop = asyncio.Event()

    # -- sentences -------------------------------------------------------------------------------------

    def _sentence(self, given: str | None, key: str, default: str) -> str:
        if given is not None:
            return given
        words = getattr(self.mneme, "words", None)
        try:
            return words.say(key) if words is not None else default
        except KeyError:
            return default

    @property
    def busy_sentence(self) -> str:
        return self._sentence(self.settings.busy, "reply.busy", BUSY)

    @property
    def failure_sentence(self) -> str:
        return self._sentence(self.settings.failure, "reply.failed", FAILED)

    # -- events ----------------------------------------------------------------------------------------

    async def _track(self, name: str, subject: str | None, incoming: Incoming | None, **data: Any) -> None:
        self.counts[name] += 1
        platform = incoming.platform if incoming is not None else None
        clock = getattr(self.mneme, "clock", None)
        at = clock() if callable(clock) else time.time()
        await self.plugins.atrack(self.mneme, Event(name, subject, platform, data, at))

    def _chore(self, work: Awaitable[Any]) -> None:
        """Run `work` in the background, kept until it ends (and waited for by `aclose`)."""
        task = asyncio.ensure_future(work)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)

    # -- taking messages -------------------------------------------------------------------------------

    def wants_reply(self, incoming: Incoming) -> bool:
        return incoming.is_direct or incoming.addressed or self.settings.groups == "all"

    async def submit(self, adapter: Adapter, incoming: Incoming) -> asyncio.Future[Outcome]:
        """Take a message without waiting for its reply; the future says what became of it. Never waits
        on the model or on other people's messages, so an adapter may call it from its event handler."""
        if not isinstance(incoming, Incoming):
            raise InvalidType(f"the runner takes an Incoming, not {type(incoming).__name__}")
        done: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        subject = await self.plugins.aresolve_subject(incoming.platform, incoming.user_id)
        await self._track(
            "received", subject, incoming, direct=incoming.is_direct, addressed=incoming.addressed
        )
        if not self.wants_reply(incoming) or not incoming.text.strip():
            await self._track("ignored", subject, incoming)
            done.set_result(Outcome("ignored", subject))
            return done
        lane = self._lanes.get(subject)
        full = lane is not None and lane.queue.full()
        if self._closing or full or self._waiting >= self.settings.max_waiting:
            why = "closing" if self._closing else "queue full"
            log.warning("busy (%s): a message from %s was answered with the busy sentence", why, subject)
            await self._track("busy", subject, incoming, reason=why)
            self._chore(self._send(adapter, incoming, [self.busy_sentence], subject))
            done.set_result(Outcome("busy", subject, self.busy_sentence, (self.busy_sentence,)))
            return done
        if lane is None:
            lane = self._lanes[subject] = _Lane(asyncio.Queue(self.settings.queue_size))
        lane.queue.put_nowait(_Item(adapter, incoming, subject, done))
        self._waiting += 1
        if lane.worker is None:
            lane.worker = asyncio.create_task(self._work(subject, lane), name=f"mneme lane {subject}")
        return done

    async def handle(self, adapter: Adapter, incoming: Incoming) -> Outcome:
        """Take a message and wait until it was answered."""
        return await (await self.submit(adapter, incoming))

    async def _work(self, subject: str, lane: _Lane) -> None:
        """One person's messages, in order; the lane goes away when it runs dry."""
        while True:
            try:
                item = lane.queue.get_nowait()
            except asyncio.QueueEmpty:
                del self._lanes[subject]
                return
            self._waiting -= 1
            try:
                outcome = await self._turn(item)
            except asyncio.CancelledError:
                _settle(item.done, Outcome("cancelled", subject))
                raise
            except Exception as err:  # a bug of ours must not end this lane, nor leave the person unanswered
                log.exception("answering a message from %s failed", subject)
                sentence = self.failure_sentence
                parts = await self._send(item.adapter, item.incoming, [sentence], subject)
                outcome = Outcome("failed", subject, sentence, parts, f"{type(err).__name__}: {err}")
            _settle(item.done, outcome)

    # -- one turn --------------------------------------------------------------------------------------

    async def _system(self, item: _Item) -> str:
        mneme, incoming, subject = self.mneme, item.incoming, item.subject
        try:
            block = await mneme.aprompt(subject, query=incoming.text, user_name=incoming.user_name)
        except Exception as err:  # the memory is a boundary here: without it the reply still goes out
            log.warning("the memory block for %s failed; answering without it: %s", subject, err)
            self.counts["prompt_failed"] += 1
            block = ""
        sections = await self.plugins.aextra_sections(mneme, subject, incoming.text)
        system = compose(self.settings.persona, block, sections)
        await self._track("prompted", subject, incoming, length=len(system), sections=len(sections))
        return system

    async def _answer(self, item: _Item, system: str) -> tuple[str, str]:
        """The model's reply and "" or, when it failed, the failure sentence and the error."""
        subject = item.subject
        try:
            async with _typing(item.adapter, item.incoming):
                reply = await acomplete(
                    self._complete, system, item.incoming.text, timeout=self.settings.model_timeout
                )
            if not reply.strip():
                raise InvalidValue("the model answered nothing")
        except Exception as err:  # a provider boundary: the person hears the failure sentence, the log why
            error = f"{type(err).__name__}: {err}"
            log.warning("the model failed to answer %s: %s", subject, error)
            await self._track("model_failed", subject, item.incoming, error=error)
            return self.failure_sentence, error
        await self._track("replied", subject, item.incoming, length=len(reply))
        return reply, ""

    async def _turn(self, item: _Item) -> Outcome:
        system = await self._system(item)
        reply, error = await self._answer(item, system)
        parts = await self._send(
            item.adapter, item.incoming, split_reply(reply, item.adapter.limit), item.subject
        )
        if error:
            return Outcome("failed", item.subject, reply, parts, error)
        self._observe_later(item, reply)
        return Outcome("replied", item.subject, reply, parts)

    async def _send(
        self, adapter: Adapter, incoming: Incoming, parts: list[str], subject: str
    ) -> tuple[str, ...]:
        """Send the parts in order; a part that fails stops the rest (logged, counted, never raised)."""
        sent: list[str] = []
        for part in parts:
            try:
                limit = adapter.send_timeout or self.settings.send_timeout
                await asyncio.wait_for(adapter.send(incoming, part), limit)
            except Exception as err:  # an adapter boundary: the platform refused or timed out
                error = f"{type(err).__name__}: {err}"
                log.warning("sending a reply to %s through %s failed: %s", subject, adapter.name, error)
                await self._track("send_failed", subject, incoming, error=error, sent=len(sent))
                return tuple(sent)
            sent.append(part)
        await self._track("sent", subject, incoming, parts=len(sent))
        return tuple(sent)

    # -- observing -------------------------------------------------------------------------------------

    def _observe_later(self, item: _Item, reply: str) -> None:
        """Observe the exchange in the background, after this person's earlier observes."""
        if len(self._observing) >= self.settings.max_observe_backlog:
            log.warning(
                "%d observes wait; the exchange with %s is not observed", len(self._observing), item.subject
            )
            self.counts["observe_dropped"] += 1
            return
        subject, tails = item.subject, self._observe_tails
        task = asyncio.create_task(
            self._observe(item, reply, tails.get(subject)), name=f"mneme observe {subject}"
        )
        tails[subject] = task
        self._observing.add(task)

        def forget(done: asyncio.Task[None]) -> None:
            self._observing.discard(done)
            if tails.get(subject) is done:
                del tails[subject]

        task.add_done_callback(forget)

    async def _observe(self, item: _Item, reply: str, previous: asyncio.Task[None] | None) -> None:
        incoming, subject = item.incoming, item.subject
        user = {"role": "user", "content": incoming.text}
        if incoming.user_name:
            user["name"] = incoming.user_name
        exchange = [user, {"role": "assistant", "content": reply}]
        options: dict[str, Any] = {"source": "user", "user_name": incoming.user_name or "the user"}
        if self.judge is not None:
            options["complete"] = self.judge
        if previous is not None:
            await asyncio.wait([previous])  # one person's mood moves in the order things were said
        try:
            async with self._observe_slots:
                observation = await self.mneme.aobserve(subject, exchange, **options)
        except Exception as err:  # memory writing is off the reply's path: logged and counted, never shown
            error = f"{type(err).__name__}: {err}"
            log.warning("observing the exchange with %s failed: %s", subject, error)
            await self._track("observe_failed", subject, incoming, error=error)
            return
        kept = len(getattr(observation, "notes", ()) or ())
        moved = getattr(observation, "mood", None) is not None
        await self._track("observed", subject, incoming, notes=kept, mood=moved)

    # -- lifetime --------------------------------------------------------------------------------------

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait until every message taken was answered and every observe finished, or `timeout` seconds
        passed; True when nothing is left. Waiting never cancels anything (`aclose` does, at its end)."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while pending := self._pending():
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return False
            await asyncio.wait(pending, timeout=left)
        return True

    def _pending(self) -> list[asyncio.Task[Any]]:
        workers = [lane.worker for lane in self._lanes.values() if lane.worker is not None]
        return [*workers, *self._observing, *self._chores]

    async def aclose(self, timeout: float | None = None) -> None:
        """Stop taking messages, finish the ones taken and the observes pending, for at most `timeout`
        seconds (the settings' `shutdown_timeout` by default); then cancel what is left, saying so."""
        self._closing = True
        timeout = self.settings.shutdown_timeout if timeout is None else timeout
        if await self.drain(timeout):
            return
        left = self._pending()
        log.warning(
            "shutting down after %g s with %d observes and %d conversations unfinished; cancelled",
            timeout,
            len(self._observing),
            len(self._lanes),
        )
        self.counts["cancelled_at_shutdown"] += len(left)
        for task in left:
            task.cancel()
        await asyncio.gather(*left, return_exceptions=True)
        for lane in self._lanes.values():
            while not lane.queue.empty():
                item = lane.queue.get_nowait()
                _settle(item.done, Outcome("cancelled", item.subject))
        self._lanes.clear()

    def stop_soon(self) -> None:
        """Ask `serve` to stop (an adapter whose source ended, a signal)."""
        self._stop.set()

    async def serve(self, adapters: Iterable[Adapter], *, signals: bool = True) -> None:
        """Start the adapters, run until `stop_soon()` (or SIGINT/SIGTERM), then stop them and close."""
        adapters = list(adapters)
        loop = asyncio.get_running_loop()
        handled = []
        if signals:
            for number in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.add_signal_handler(number, self.stop_soon)
                    handled.append(number)
        started: list[Adapter] = []
        try:
            await self.plugins.astartup(self.mneme)
            for adapter in adapters:
                await adapter.start(self)
                started.append(adapter)
                log.info("adapter %s started", adapter.name)
            await self._stop.wait()
        finally:
            # Finish what was taken first, while the adapters can still deliver the replies; then stop them.
            await self.aclose()
            for adapter in reversed(started):
                try:
                    await adapter.stop()
                except Exception as err:  # an adapter boundary: stopping the others matters more
                    log.warning("stopping adapter %s failed: %s", adapter.name, err)
            await self.plugins.ashutdown(self.mneme)
            for number in handled:
                loop.remove_signal_handler(number)

    def report(self) -> dict[str, Any]:
        """What the runner did, by step (received, replied, model_failed, busy, observed, ...)."""
        return dict(self.counts)


def _settle(done: asyncio.Future[Outcome], outcome: Outcome) -> None:
    if not done.done():
        done.set_result(outcome)


@contextlib.asynccontextmanager
async def _typing(adapter: Adapter, incoming: Incoming) -> AsyncIterator[None]:
    """The adapter's typing signal; a signal that fails is logged and the reply goes on without it."""
    signal_cm = None
    try:
        signal_cm = adapter.typing(incoming)
        await signal_cm.__aenter__()
    except Exception as err:  # an adapter boundary: typing is cosmetic
        log.debug("adapter %s could not show typing: %s", adapter.name, err)
        signal_cm = None
    try:
        yield
    finally:
        if signal_cm is not None:
            try:
                await signal_cm.__aexit__(None, None, None)
            except Exception as err:  # as above
                log.debug("adapter %s could not stop typing: %s", adapter.name, err)


# -- building a bot from its config ---------------------------------------------------------------------


def build_adapters(
    manager: Manager, names: Iterable[str], tables: Mapping[str, Mapping[str, Any]]
) -> list[Adapter]:
    """The adapters named, each made by its registered factory from its `[adapters.<name>]` table."""
    adapters = []
    for name in names:
        if name not in manager.adapters:
            known = ", ".join(manager.adapters) or "none"
            raise PluginError(f"no adapter is called {name!r} (installed: {known})")
        try:
            adapter = manager.adapters[name](tables.get(name, {}))
        except Exception as err:  # a plugin boundary at start-up: name the adapter and its plugin
            owner = manager.adapters.owner(name)
            raise PluginError(f"adapter {name} (of plugin {owner}) could not be made: {err}") from err
        if not isinstance(adapter, Adapter):
            raise PluginError(f"adapter {name}'s factory made {describe(adapter)}, not an Adapter")
        adapters.append(adapter)
    return adapters


def build_model(manager: Manager, name: str | None, tables: Mapping[str, Mapping[str, Any]]) -> Any:
    """The provider named, made from its `[plugins.<name>]` table. Without a name: the first registered
    provider that has a table, else the offline stand-in."""
    if name is None:
        name = next((n for n in manager.providers if tables.get(n)), "offline")
    if name not in manager.providers:
        known = ", ".join(manager.providers) or "none"
        raise PluginError(f"no model provider is called {name!r} (installed: {known})")
    try:
        return manager.providers[name](tables.get(name, {}))
    except Exception as err:  # a plugin boundary at start-up, as in build_adapters
        owner = manager.providers.owner(name)
        raise PluginError(f"model provider {name} (of plugin {owner}) could not be made: {err}") from err


def model_from_config(mneme: Any, provider: str | None = None, plugins: Manager | None = None) -> Any:
    """The provider named (or the first configured one, else the offline stand-in), made from its
    `[plugins.<name>]` table of the companion's config."""
    manager = _manager(mneme, plugins)
    tables = {name: mneme.config.table(f"plugins.{name}") for name in manager.providers}
    return build_model(manager, provider, tables)


async def run_bot(
    mneme: Any,
    adapters: Iterable[str],
    *,
    provider: str | None = None,
    settings: RunnerSettings | None = None,
    plugins: Manager | None = None,
) -> dict[str, Any]:
    """`mneme run`: the named adapters and a model provider, each made from its table of the companion's
    config (`[adapters.<name>]`, `[plugins.<name>]`), served until stopped; returns the runner's report."""
    manager = _manager(mneme, plugins)
    if settings is None:
        settings = RunnerSettings(persona=mneme.config.get("companion.persona") or "")
    names = list(adapters)
    built = build_adapters(manager, names, {name: mneme.config.table(f"adapters.{name}") for name in names})
    model = model_from_config(mneme, provider, manager)
    runner = Runner(mneme, model, settings=settings, plugins=manager)
    try:
        await runner.serve(built)
    finally:
        await close_model(model)
    return runner.report()


async def close_model(model: Any) -> None:
    """Let a provider go (its `aclose`, if it has one)."""
    close = getattr(model, "aclose", None)
    if callable(close):
        await close()
