"""The runner: the conversation loop of a bot that answers by itself (`mneme run`, `mneme chat`).

For each message an adapter submits (`submit(adapter, incoming)`):

1. the turn service (`turns.Turns`) resolves the subject and keeps the line; a group message the bot is not
   to answer is kept as the room's context and goes no further;
2. the message waits in its person's lane: one lane per subject, so two messages from one person are
   answered in order while different people are answered concurrently. A lane holds at most
   `queue_size` waiting messages and all lanes together `max_waiting`; a message beyond that is answered
   with the busy sentence at once, so a flood never blocks the platform's event loop or grows memory;
3. in its turn: the turn service gives what the model is told (the persona, the memory block within
   `prompt_timeout`, the plugins' sections, the conversation's earlier lines); the model answers (typing
   shown meanwhile) within `model_timeout`; the reply is split to the adapter's limit and sent;
4. the reply is kept and the exchange observed off the reply's path (`Turns.finish`): in order per
   person, bounded, and kept in the database until it was observed, so a model that is down or a stop
   loses nothing.

A model that fails, times out or answers nothing gets the person the failure sentence, never silence or a
traceback; the failure is logged and counted. A memory that fails to give its block costs the block, not
the reply. `track_event` sees each step (`plugins.Event`).

`aclose(timeout)` stops taking messages, lets the lanes finish and the observes under way write, and after
`timeout` seconds stops what is left, saying how much (exchanges not yet observed wait for the next start).
`serve(adapters)` starts adapters, waits until `stop_soon()` (or SIGINT/SIGTERM), stops them and closes.

Between conversations the runner does its chores (`chores`): the health check of the notes on
`check.schedule` (04:00 each day in the companion's zone by default) and tending on `lifecycle.schedule`
(03:30: lessons, the archive, link decay, the journal, `mneme_core.tending`), one process at a time across
the processes on the file, off the reply path, their counts in `report()`.

The model is a provider object (with `chat(messages)` or `complete(system, user)`) or a plain
`complete(system, user)` function; `judge`, if given (or the provider's own `judge`), is the model that
judges and writes notes. Without a model the offline stand-in answers (`offline`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..decide import Complete
from ..errors import InvalidType, InvalidValue, describe
from ..plugins import Event, Manager, PluginError
from . import hooks
from .chores import Chores, health_check, tending
from .collector import Collector
from .conversation import compose
from .incoming import Adapter, Incoming
from .models import build_model, close_model, completer, model_from_config
from .offline import OfflineModel
from .settings import BotSettings, RunnerSettings
from .split import split_reply
from .turns import Turn, Turns

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
    """The manager given, else the companion's own, ready for a bot (`hooks.ready`)."""
    return hooks.ready(given if given is not None else hooks.plugins_of(mneme))


class Runner:
    """The loop between adapters, the turn service and the model; see the module docstring."""

    def __init__(
        self,
        mneme: Any,
        model: Any = None,
        *,
        judge: Complete | None = None,
        settings: BotSettings | None = None,
        plugins: Manager | None = None,
        turns: Turns | None = None,
    ) -> None:
        self.mneme = mneme
        self.model = model if model is not None else OfflineModel()
        completer(self.model)  # a model that cannot be asked is refused now, not at the first message
        self.judge = judge if judge is not None else getattr(self.model, "judge", None)
        if settings is None:
            settings = BotSettings.from_config(mneme.config) if hasattr(mneme, "config") else BotSettings()
        if not isinstance(settings, BotSettings):
            raise InvalidType(f"settings are a RunnerSettings, not {type(settings).__name__}")
        self.settings = settings
        self.plugins = _manager(mneme, plugins)
        self.turns = turns or Turns(
            mneme, judge=self.judge, settings=settings, plugins=self.plugins, track=self._tracked
        )
        self.chores = Chores(mneme)
        checking = health_check(mneme, settings, self.judge)
        if checking is not None:
            self.chores.add(checking)
        tended = tending(mneme, settings, self.judge)
        if tended is not None:
            self.chores.add(tended)
        self.counts: Counter[str] = Counter()
        self._lanes: dict[str, _Lane] = {}
        self._waiting = 0
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
        platform = incoming.platform if incoming is not None else None
        clock = getattr(self.mneme, "clock", None)
        at = clock() if callable(clock) else time.time()
        await self._tracked(Event(name, subject, platform, data, at))

    async def _tracked(self, event: Event) -> None:
        self.counts[event.name] += 1
        await self.plugins.atrack(self.mneme, event)

    def _chore(self, work: Any) -> None:
        """Run `work` in the background, kept until it ends (and waited for by `aclose`)."""
        task = asyncio.ensure_future(work)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)

    # -- taking messages -------------------------------------------------------------------------------

    def wants_reply(self, incoming: Incoming) -> bool:
        return self.turns.wants_reply(incoming)

    async def submit(self, adapter: Adapter, incoming: Incoming) -> asyncio.Future[Outcome]:
        """Take a message without waiting for its reply; the future says what became of it. Never waits
        on the model or on other people's messages, so an adapter may call it from its event handler."""
        if not isinstance(incoming, Incoming):
            raise InvalidType(f"the runner takes an Incoming, not {type(incoming).__name__}")
        done: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        subject = await self.turns.subject(incoming.platform, incoming.user_id)
        await self._track(
            "received", subject, incoming, direct=incoming.is_direct, addressed=incoming.addressed
        )
        if not self.wants_reply(incoming) or not incoming.text.strip():
            if incoming.text.strip() and not self._closing:  # a room's context: kept, nothing more
                self._chore(self.turns.begin(incoming, subject=subject))
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

    async def _answer(self, item: _Item, turn: Turn) -> tuple[str, str]:
        """The model's reply and "" or, when it failed, the failure sentence and the error."""
        subject = item.subject
        prompted = await self.turns.prompt(turn)
        await self._track(
            "prompted", subject, item.incoming, length=len(prompted.system), history=len(prompted.history)
        )
        try:
            async with _typing(item.adapter, item.incoming):
                reply = await self.turns.ask(self.model, prompted)
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
        turn = await self.turns.begin(item.incoming, subject=item.subject)
        reply, error = await self._answer(item, turn)
        parts = await self._send(
            item.adapter, item.incoming, split_reply(reply, item.adapter.limit), item.subject
        )
        if error:
            return Outcome("failed", item.subject, reply, parts, error)
        if parts:
            await self.turns.finish(turn, reply)
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

    # -- lifetime --------------------------------------------------------------------------------------

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait until every message taken was answered and every observe under way finished, or `timeout`
        seconds passed; True when nothing is left. Waiting never cancels anything (`aclose` does)."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while pending := self._pending():
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return False
            await asyncio.wait(pending, timeout=left)
        left = None if deadline is None else max(0.0, deadline - loop.time())
        return await self.turns.drain(left)

    def _pending(self) -> list[asyncio.Task[Any]]:
        workers = [lane.worker for lane in self._lanes.values() if lane.worker is not None]
        return [*workers, *self._chores]

    async def aclose(self, timeout: float | None = None) -> None:
        """Stop taking messages, finish the ones taken and the observes under way, for at most `timeout`
        seconds (the settings' `shutdown_timeout` by default); then stop what is left, saying so. An
        exchange not yet observed stays in the database for the next start."""
        self._closing = True
        timeout = self.settings.shutdown_timeout if timeout is None else timeout
        await self.chores.aclose(timeout)
        if await self.drain(timeout):
            await self.turns.aclose(0)
            return
        left = self._pending()
        log.warning(
            "shutting down after %g s with %d observes and %d conversations unfinished; stopped (the "
            "exchanges not yet observed wait for the next start)",
            timeout,
            len(self.turns.observing()),
            len(self._lanes),
        )
        for task in left:
            task.cancel()
        await asyncio.gather(*left, return_exceptions=True)
        for lane in self._lanes.values():
            while not lane.queue.empty():
                item = lane.queue.get_nowait()
                _settle(item.done, Outcome("cancelled", item.subject))
        self._lanes.clear()
        stopped = await self.turns.aclose(0)
        self.counts["cancelled_at_shutdown"] += len(left) + stopped

    async def astart(self) -> None:
        """Tell plugins the companion starts serving (`startup`, once), begin observing what waits, and start
        the chores between conversations."""
        await self.plugins.astartup(self.mneme)
        self.turns.start()
        self.chores.start()

    def quiet(self) -> bool:
        """Whether nothing is waiting, being answered or observed: a moment for a full collection."""
        return not self._lanes and not self.turns.pending()

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
        collector = Collector(self.quiet)
        try:
            await self.astart()
            for adapter in adapters:
                await adapter.start(self)
                started.append(adapter)
                log.info("adapter %s started", adapter.name)
            # While it serves, what start-up made (modules, config, plugins, the adapters' clients: some
            # 30,000 objects) is not traversed by the full collections, which stop every thread: in
            # benchmarks/busy.py (1,000 people) 66 ms of CPU a full collection before, 31 after. And the
            # full collections wait for a quiet moment (`collector`).
            collector.start()
            await self._stop.wait()
        finally:
            await collector.stop()  # CPython's own collections again, whatever goes wrong below
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
        """What the runner did, by step (received, replied, model_failed, busy, observed, ...), the turn
        service's own counts (prompt_timeout, observe_retried, ...) and the chores' (check_runs, check_found,
        check_fixed, check_busy, ...)."""
        return {**self.turns.report(), **self.chores.report(), **self.counts}


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
    manager = hooks.ready(manager)
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


async def run_bot(
    mneme: Any,
    adapters: Iterable[str],
    *,
    provider: str | None = None,
    settings: BotSettings | None = None,
    plugins: Manager | None = None,
) -> dict[str, Any]:
    """`mneme run`: the named adapters and a model provider, each made from its table of the companion's
    config (`[adapters.<name>]`, `[plugins.<name>]`), served until stopped; returns the runner's report."""
    manager = _manager(mneme, plugins)
    if settings is None:
        settings = BotSettings.from_config(mneme.config)
    names = list(adapters)
    built = build_adapters(manager, names, {name: mneme.config.table(f"adapters.{name}") for name in names})
    model = model_from_config(mneme, provider, manager)
    runner = Runner(mneme, model, settings=settings, plugins=manager)
    try:
        await runner.serve(built)
    finally:
        await close_model(model)
    return runner.report()
