"""The companion inside a NoneBot2 process: its engine, its runner and turn service, its events' memories.

Lifetime. The driver's startup opens the engine from the plugin's settings (`settings.Config`: the file,
the space, the config file) and enters it as `async with` does (its plugins' startup; their shutdown when
it closes), makes the model (the config's provider, else the offline stand-in) and one `Runner`, whose
turn service (`Turns`) every path uses; the driver's shutdown lets the replies and observes under way
finish within `bot.shutdown_timeout` (what is left waits in the database for the next start), then closes
what startup opened, and only that. A host that has an engine of its own hands it over before the driver
starts (`companion.use(mneme, model=...)`); it is never closed here.

Memories. `memory_of(bot, event)` is the one per message event (however many matchers ask; the newest
`REMEMBERED_EVENTS` are kept), made from the `Incoming` the reader gives (`reading`): the subject through
`resolve_subject`, the turn, the adapter the reply goes through. `memory_of` is also the dependency a
matcher takes (`Depends(memory_of)`); a matcher asking for the memory of an event that is nobody's (a
notice, the bot's own, a malformed event) or before the engine is open is skipped.

Answering (`MNEME_ANSWER=true`): the plugin's listener hands each message no other matcher took to the
runner (`answer`), which answers a private message, and in a group one that addresses the companion, as
`mneme run onebot` does; what a group says to others is kept as the room's context. Either way nothing here
calls a hook or an observe itself: the turn service does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from typing import Annotated, Any

from nonebot.adapters import Bot, Event
from nonebot.matcher import Matcher
from nonebot.params import Depends

from mneme_core import Mneme
from mneme_core.bot import BotSettings, Outcome, Runner, close_model, model_from_config
from mneme_core.errors import MnemeError

from .memory import Memory
from .reading import Reader
from .sending import LIMITS, NoneBotAdapter
from .settings import Config

__all__ = ["REMEMBERED_EVENTS", "SETTLE_TIMEOUT", "Companion", "Remembered", "companion", "memory_of"]

log = logging.getLogger(__name__)

REMEMBERED_EVENTS = 1000
SETTLE_TIMEOUT = 60.0


class Companion:
    """What the plugin opened (or was given), from the driver's startup to its shutdown."""

    def __init__(self) -> None:
        self.mneme: Any = None
        self.runner: Runner | None = None
        self.reader: Reader | None = None
        self.settings = Config()
        self._given: tuple[Any, Any] | None = None
        self._opened = contextlib.AsyncExitStack()
        self._adapters: dict[str, NoneBotAdapter] = {}
        self._memories: OrderedDict[int, tuple[Event, Memory]] = OrderedDict()

    @property
    def is_open(self) -> bool:
        return self.runner is not None

    @property
    def answering(self) -> bool:
        return self.is_open and self.settings.mneme_answer

    def use(self, mneme: Any, *, model: Any = None) -> None:
        """Use the host's own engine (and model) from the next startup on, instead of opening one (None:
        open one from the settings again)."""
        self._given = None if mneme is None else (mneme, model)

    # -- lifetime --------------------------------------------------------------------------------------

    async def open(self, settings: Config) -> None:
        """Open (or take) the engine, the model and the runner; all or nothing."""
        if self.is_open:
            raise MnemeError("the companion is open already; close it first")
        self.settings = settings.checked()
        try:
            await self._open(self.settings, self._opened)
        except BaseException:
            await self.close()
            raise

    async def _open(self, settings: Config, opened: contextlib.AsyncExitStack) -> None:
        mneme, model = self._given or (None, None)
        if mneme is None:
            where = settings.mneme_db
            made = await asyncio.to_thread(
                Mneme, where, space=settings.mneme_space, config=settings.mneme_config
            )
            # Entered as `async with` does: its plugins' startup now, their shutdown when it closes.
            mneme = await opened.enter_async_context(made)
            log.info("opened %s (space %s) for NoneBot", where, settings.mneme_space)
        self.mneme = mneme
        if model is None:
            model = model_from_config(mneme, settings.mneme_model)
            opened.push_async_callback(close_model, model)
        behaviour = BotSettings.from_config(mneme.config, persona=settings.mneme_persona)
        self.reader = Reader(mneme.config.table("adapters.onebot"))
        runner = Runner(mneme, model, settings=behaviour, plugins=mneme.plugins)
        opened.push_async_callback(runner.aclose)
        runner.turns.start()
        self.runner = runner

    async def close(self) -> None:
        """Finish the replies and observes under way (within `bot.shutdown_timeout`), then close what was
        opened, newest first (each of them, whatever the one before it raised)."""
        self.runner = None
        self._memories.clear()
        self._adapters.clear()
        opened, self._opened = self._opened, contextlib.AsyncExitStack()
        try:
            await opened.aclose()
        except Exception as err:  # closing is a boundary: logged; the exit stack let the others go
            log.warning("closing the NoneBot companion failed: %s: %s", type(err).__name__, err)
        self.mneme = None

    # -- a message's memory ----------------------------------------------------------------------------

    def adapter_for(self, name: str) -> NoneBotAdapter:
        found = self._adapters.get(name)
        if found is None:
            if name in ("OneBot V11", "OneBot V12") and self.reader is not None:
                config = self.reader.onebot.config
                found = NoneBotAdapter(name, limit=config.limit, quote=config.quote)
            else:
                found = NoneBotAdapter(name, limit=LIMITS.get(name, 2000))
            self._adapters[name] = found
        return found

    async def memory(self, bot: Bot, event: Event) -> Memory | None:
        """The memory of the person behind `event` (one per event), or None for an event that is nobody's
        or when the engine is not open."""
        if self.runner is None or self.reader is None:
            return None
        found = self._memories.get(id(event))
        if found is not None and found[0] is event:
            return found[1]
        incoming = self.reader.incoming(bot, event)
        if incoming is None:
            return None
        turns = self.runner.turns
        subject = await turns.subject(incoming.platform, incoming.user_id)
        made = Memory(
            turns=turns,
            adapter=self.adapter_for(bot.adapter.get_name()),
            incoming=incoming,
            subject=subject,
            turn=turns.turn(incoming, subject),
        )
        self._memories[id(event)] = (event, made)
        while len(self._memories) > REMEMBERED_EVENTS:
            self._memories.popitem(last=False)
        return made

    async def answer(self, memory: Memory) -> Outcome | None:
        """Hand the message to the runner and wait until it was answered (or left: a group message to
        others is kept as context, nothing more); None when that took longer than the runner's own bounds
        allow (`patience`: the message is still the runner's to answer)."""
        assert self.runner is not None
        done = await self.runner.submit(memory.adapter, memory.incoming)
        try:
            return await asyncio.wait_for(asyncio.shield(done), patience(self.runner.settings))
        except TimeoutError:
            log.warning(
                "no outcome for a message from %s in time; the runner goes on with it", memory.subject
            )
            return None

    async def erase(self, subject: str) -> int:
        """Forget everything about a person now, and again once the observes under way have finished (so an
        exchange observed a moment later cannot bring a note back)."""
        assert self.runner is not None
        turns, mneme = self.runner.turns, self.mneme
        count = await mneme.aerase(subject)
        self._memories = OrderedDict((k, v) for k, v in self._memories.items() if v[1].subject != subject)
        if running := turns.observing():

            async def again() -> None:
                await asyncio.wait(running, timeout=SETTLE_TIMEOUT)
                late = await mneme.aerase(subject)
                if late:
                    log.info("erased %d more notes about %s written while forgetting them", late, subject)

            turns.chore(again(), name=f"mneme erase {subject}")
        log.info("erased everything about %s (%d notes)", subject, count)
        return count


def patience(settings: BotSettings) -> float:
    """The longest a message can take in the runner: behind a full lane (`queue_size`), each message's
    line, block and history (`prompt_timeout`), model (`model_timeout`) and reply (`send_timeout`)."""
    one = 3 * settings.prompt_timeout + settings.model_timeout + settings.send_timeout
    return (settings.queue_size + 1) * one


companion = Companion()
"""The plugin's companion (one per NoneBot process)."""


async def memory_of(bot: Bot, event: Event, matcher: Matcher) -> Memory:
    """The dependency: `memory: Memory = Depends(memory_of)`. Skips the matcher for an event that is
    nobody's memory, or while the engine is not open."""
    found = await companion.memory(bot, event)
    if found is None:
        if not companion.is_open:
            log.warning("the companion is not open (the driver has not started?); %s skipped", matcher)
        matcher.skip()
    return found  # type: ignore[return-value]


Remembered = Annotated[Memory, Depends(memory_of)]
"""The same dependency as a type: `async def handle(memory: Remembered)`."""
