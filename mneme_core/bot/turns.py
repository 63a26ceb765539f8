"""The turn: what every bot does with one message, written once.

The runner and every drop-in mode (the Discord cog's `prompt_for` / `observe` and its answering mode, the
Telegram middleware, the NoneBot2 plugin; a host of the OneBot adapter's `listen` mode calls it itself, as
`examples/onebot_bot.py` does) go through one `Turns` per companion:

1. `begin(incoming)`: the subject (`resolve_subject`), the conversation (a direct chat is the person,
   `dm:<subject>`; a group is the room, `group:<platform>:<chat id>`) and the person's line kept in the
   transcript. A group line the companion was not addressed in is kept as the room's context (the newest
   `room_lines` of them) and nothing more: it is not prompted for, judged or observed, and it spends none
   of the person's mood news.
2. `prompt(turn, persona)`: the memory block (`aprompt`, asked with the dialogue so far, `asked`; it tells
   the mood's news once, so it is asked only for a message the companion answers) and the plugins'
   sections (`extra_prompt_sections`), within `prompt_timeout`; a memory that fails or hangs costs the
   block, never the reply. With the conversation's earlier lines (`context_lines`, `context_chars`) it is
   what the model is given (`conversation.Prompted`).
3. `ask(model, prompted)`: the model, within `model_timeout` (`models.answer`).
4. `finish(turn, reply)`: the reply kept as the companion's line and, in the same transaction, the exchange
   waiting to be observed (`transcript.waiting`); then observed off the reply's path.

Observing. Each person's waiting exchanges are observed one at a time, oldest first, so the mood moves in
the order things were said; at most `max_observing` observes run at once, each within `observe_timeout`. An
observe that raised, timed out or whose judge gave no answer (a model that is down) is kept and tried again
later (after 10 s, 1 min, 5 min, 30 min, 2 h), up to `observe_tries` times, then given up (logged and
counted); one whose mood moved but whose notes failed is tried again for the notes only. A sweep every
`SWEEP` seconds (and once at start) picks up exchanges that are due, those left by an earlier run among them.
`aclose(timeout)` waits that long for running observes, then stops them; their exchanges stay in the
database for the next start. Every wait is bounded, and one person's slow memory or model holds up nobody
else: each step of a turn waits on that person's work only.

`report()` counts each step's outcomes: prompt timeouts and failures, observe timeouts, failures, retries
and give-ups, lines that could not be kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from .. import text
from ..memory import overview
from ..plugins import Event, Manager
from ..transcript import Line, Waiting
from . import hooks
from .conversation import Prompted, compose
from .incoming import Incoming
from .keeping import keeper_of
from .models import answer
from .settings import BotSettings

__all__ = ["RETRY_DELAYS", "SWEEP", "Turn", "Turns"]

log = logging.getLogger(__name__)

T = TypeVar("T")

RETRY_DELAYS = (10.0, 60.0, 300.0, 1800.0, 7200.0)
ASKED_LINES = 5  # the conversation's lines before a message that the memory is asked with (`asked`) ...
ASKED_SPAN = 1800.0  # ... said at most this many seconds before it
ASKED_CHARS = 1200  # ... and at most this many characters of them
SWEEP = 15.0
LEASE_MARGIN = 30.0


@dataclass(frozen=True)
class Turn:
    """One message on its way through the turn: who, which conversation, the line as kept."""

    incoming: Incoming
    subject: str
    conversation: str
    wanted: bool
    """Whether the companion answers it (a direct message, addressed, or groups = "all")."""
    line: Line | None = None
    """The person's line as kept (None when it could not be kept in time)."""

    @property
    def room(self) -> bool:
        return not self.incoming.is_direct


def conversation_of(incoming: Incoming, subject: str) -> str:
    """A direct chat is the person; a group or channel is the room."""
    if incoming.is_direct or incoming.chat_id is None:
        return f"dm:{subject}"
    return f"group:{incoming.platform}:{incoming.chat_id}"


class Turns:
    """The turn service of one companion (see the module docstring)."""

    def __init__(
        self,
        mneme: Any,
        *,
        judge: Any = None,
        settings: BotSettings | None = None,
        plugins: Manager | None = None,
        track: Callable[[Event], Awaitable[None]] | None = None,
    ) -> None:
        self.mneme = mneme
        self.judge = judge
        if settings is None:
            config = getattr(mneme, "config", None)
            settings = BotSettings.from_config(config) if config is not None else BotSettings()
        self.settings = settings
        if not isinstance(self.settings, BotSettings):
            raise TypeError(f"settings are a BotSettings, not {type(self.settings).__name__}")
        self.plugins = hooks.ready(plugins if plugins is not None else hooks.plugins_of(mneme))
        self.keeper = keeper_of(mneme)
        self.counts: Counter[str] = Counter()
        self._track_event = track
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._keeping: dict[str, asyncio.Future[None]] = {}
        self._slots: asyncio.Semaphore | None = None
        self._sweeper: asyncio.TimerHandle | None = None
        self._started = False
        self._chores: set[asyncio.Task[Any]] = set()
        self._closing = False

    # -- the steps -------------------------------------------------------------------------------------

    def wants_reply(self, incoming: Incoming) -> bool:
        return incoming.is_direct or incoming.addressed or self.settings.groups == "all"

    async def subject(self, platform: str, user_id: str) -> str:
        """Whose memory a platform user's is (`resolve_subject`, else `platform:user_id`); a plugin that
        does not answer within `prompt_timeout` is passed over, as one that fails."""
        return await hooks.resolve_subject(self.plugins, platform, user_id, self.settings.prompt_timeout)

    def turn(self, incoming: Incoming, subject: str) -> Turn:
        """The message's turn, its line not kept yet (`keep`)."""
        return Turn(incoming, subject, conversation_of(incoming, subject), self.wants_reply(incoming))

    async def keep(self, turn: Turn) -> Turn:
        """The turn with the person's line kept (within `prompt_timeout`; as it was when that failed).
        Lines of one conversation are kept in the order they were handed over, whoever hands them over
        (a context line in the background, an answered one in a lane): each waits for the one before it
        in its conversation, at most `prompt_timeout`."""
        self.start()
        if not turn.incoming.text.strip():
            return turn
        previous = self._keeping.get(turn.conversation)
        mine: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._keeping[turn.conversation] = mine
        try:
            if previous is not None:
                await asyncio.wait([previous], timeout=self.settings.prompt_timeout)
            return await self._keep(turn)
        finally:
            mine.set_result(None)
            if self._keeping.get(turn.conversation) is mine:
                del self._keeping[turn.conversation]

    async def _keep(self, turn: Turn) -> Turn:
        incoming = turn.incoming
        line = await self._bounded(
            "line",
            turn.subject,
            self.keeper.aadd_line(
                turn.conversation,
                subject=turn.subject,
                text=incoming.text,
                name=incoming.user_name,
                addressed=turn.wanted,
                keep=None if turn.wanted else self.settings.room_lines,
            ),
            None,
        )
        return turn if line is None else replace(turn, line=line)

    async def begin(self, incoming: Incoming, *, subject: str | None = None) -> Turn:
        """Resolve the subject and keep the person's line (`turn`, then `keep`)."""
        if subject is None:
            subject = await self.subject(incoming.platform, incoming.user_id)
        return await self.keep(self.turn(incoming, subject))

    async def block(self, turn: Turn) -> str:
        """The memory block and the plugins' sections for this message, within `prompt_timeout`; "" when
        the memory fails or is too slow. The mood's news is told (marked) only for a message answered."""
        incoming, subject = turn.incoming, turn.subject
        # The transcript's lines the model is given anyway (the context, and this message's own line) are not
        # quoted again (`Mneme.aprompt`); an engine that keeps no transcript is not told.
        seen = {}
        if self.keeper is getattr(self.mneme, "transcript", None):
            seen = {"conversation": turn.conversation, "shown_lines": self.settings.context_lines + 1}

        async def both() -> str:
            query = await self.asked(turn)
            found = await self.mneme.aprompt(
                subject, query=query, user_name=incoming.user_name, mark=turn.wanted, **seen
            )
            sections = await hooks.extra_sections(self.plugins, self.mneme, subject, incoming.text)
            return compose("", found, sections)

        return await self._bounded("prompt", subject, both(), "")

    async def asked(self, turn: Turn) -> str:
        """What the memory is asked with: the dialogue so far, this message after the conversation's lines
        before it (at most `ASKED_LINES`, said within `ASKED_SPAN` of it; both speakers, one a line).

        A message alone often says too little: "那你最近上下楼还行吗" is about a bad knee only after
        "青岛这几天一直在下雨", and "want some?" about an allergy only after "I got a box of mangoes".
        Recall weighs a dialogue so far's latest lines most (`mneme_core.memory.query`) and, in a chat,
        what the reply must not get wrong (`mneme_core.memory.caution`); the retrieval benchmark's
        dialogue sets are asked so.
        A message that asks about the person in general ("what do you remember about me?") is asked alone:
        the overview answers it."""
        said = turn.incoming.text
        if turn.line is None or overview.general(text.terms(said)):
            return said
        earlier = await self.keeper.arecent(
            turn.conversation, before=turn.line.id, lines=ASKED_LINES, chars=ASKED_CHARS
        )
        lines = [text.clean(x.text) for x in earlier if turn.line.at - x.at <= ASKED_SPAN]
        return "\n".join([*[line for line in lines if line], said])

    async def prompt(self, turn: Turn, persona: str | None = None) -> Prompted:
        """What the model is given: the persona, the block and sections, the earlier lines."""
        persona = self.settings.persona if persona is None else persona
        block, history = await asyncio.gather(self.block(turn), self.history(turn))
        return Prompted(compose(persona, block, ()), turn.incoming.text, history, room=turn.room)

    async def history(self, turn: Turn) -> tuple[Line, ...]:
        """The conversation's newest lines before this one, within the settings' budget."""
        s = self.settings
        if not s.context_lines or not s.context_chars:
            return ()
        before = turn.line.id if turn.line is not None else None
        found = await self._bounded(
            "history",
            turn.subject,
            self.keeper.arecent(
                turn.conversation, before=before, lines=s.context_lines, chars=s.context_chars
            ),
            [],
        )
        return tuple(found)

    async def ask(self, model: Any, prompted: Prompted) -> str:
        """The model's reply within `model_timeout` (raises what the model raised, or `TimeoutError`)."""
        return await answer(model, prompted, timeout=self.settings.model_timeout)

    async def finish(self, turn: Turn, reply: str, *, source: str = "user") -> None:
        """Keep the reply and the exchange waiting to be observed, then observe it off the reply's path."""
        if not reply.strip() or turn.line is None:
            if turn.line is None and reply.strip():
                self.counts["exchange_unkept"] += 1
            return
        kept = await self._bounded(
            "reply",
            turn.subject,
            self.keeper.aadd_reply(
                turn.conversation,
                text=reply,
                reply_to=turn.line.id,
                name=self._companion(),
                observe=turn.subject,
                user_name=turn.incoming.user_name,
                source=source,
                platform=turn.incoming.platform,
            ),
            None,
        )
        if kept is None:
            self.counts["exchange_unkept"] += 1
            return
        self.wake(turn.subject)

    # -- observing -------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start sweeping (once, from inside the event loop): waiting exchanges left by an earlier run are
        picked up at once, and retries when they are due. A sweep is a short task every `SWEEP` seconds,
        never a task left pending when the loop ends."""
        if self._started or self._closing:
            return
        self._started = True
        self._slots = asyncio.Semaphore(self.settings.max_observing)
        self._sweep_soon(0.0)

    def _sweep_soon(self, delay: float) -> None:
        def run() -> None:
            if not self._closing:
                self.chore(self._sweep_then_again(), name="mneme sweep")

        self._sweeper = asyncio.get_running_loop().call_later(delay, run)

    async def _sweep_then_again(self) -> None:
        try:
            await self.sweep()
        finally:
            if not self._closing:
                self._sweep_soon(SWEEP)

    def wake(self, subject: str) -> None:
        """Observe the person's waiting exchanges now (their worker runs them in order)."""
        if self._closing:
            return
        self.start()
        self._again.add(subject)
        worker = self._workers.get(subject)
        if worker is None or worker.done():
            self._workers[subject] = asyncio.create_task(self._work(subject), name=f"mneme observe {subject}")

    async def sweep(self) -> int:
        """Wake everyone whose waiting exchange is due now; returns how many."""
        due = await self._bounded("sweep", None, self.keeper.adue(limit=1000), [])
        for subject in due:
            self.wake(subject)
        return len(due)

    async def _work(self, subject: str) -> None:
        """One person's waiting exchanges, oldest first, until none is due."""
        lease = self.settings.observe_timeout + LEASE_MARGIN
        try:
            while not self._closing:
                self._again.discard(subject)
                claimed = await self._bounded(
                    "claim", subject, self.keeper.aclaim(subject, lease=lease), None
                )
                if claimed is None:
                    if subject in self._again:
                        continue
                    return
                if not await self._observe(claimed):
                    return  # tried again later: a person's later exchanges wait behind it
        finally:
            if self._workers.get(subject) is asyncio.current_task():
                del self._workers[subject]

    async def _observe(self, claimed: Waiting) -> bool:
        """Observe one exchange; True when it is done (observed, or given up)."""
        assert self._slots is not None
        subject = claimed.subject
        exchange = [
            {
                "role": "user",
                "content": claimed.said,
                **({"name": claimed.user_name} if claimed.user_name else {}),
            },
            {"role": "assistant", "content": claimed.reply},
        ]
        options: dict[str, Any] = {"source": claimed.source, "user_name": claimed.user_name or "the user"}
        if self.judge is not None:
            options["complete"] = self.judge
        if claimed.moved:
            options["mood"] = False
        error, moved, kept = "", claimed.moved, 0
        try:
            async with self._slots, asyncio.timeout(self.settings.observe_timeout):
                observation = await self.mneme.aobserve(subject, exchange, **options)
        except asyncio.CancelledError:
            await self._release(claimed)
            raise
        except TimeoutError:
            self.counts["observe_timeout"] += 1
            error = f"no answer within {self.settings.observe_timeout:g} s"
        except Exception as err:  # memory writing is off the reply's path: logged and counted, never shown
            self.counts["observe_failed"] += 1
            error = f"{type(err).__name__}: {err}"
        else:
            # An engine of our own says what happened (`Observation`); anything else that returned is done.
            said_error = getattr(observation, "error", "") or ""
            kept = len(getattr(observation, "notes", None) or ())
            moved = moved or getattr(observation, "mood", None) is not None
            judged = (
                moved
                or getattr(observation, "worth", None) is not None
                or getattr(observation, "notes", None)
            )
            if said_error and (not judged or moved):
                self.counts["observe_failed"] += 1
                error = said_error
        if not error:
            await self._bounded("done", subject, self.keeper.adone(claimed), None)
            self.counts["observed"] += 1
            await self._track("observed", claimed, notes=kept, mood=moved, attempt=claimed.attempts + 1)
            return True
        return await self._failed(claimed, error, moved)

    async def _failed(self, claimed: Waiting, error: str, moved: bool) -> bool:
        subject = claimed.subject
        delay = RETRY_DELAYS[min(claimed.attempts, len(RETRY_DELAYS) - 1)]
        gave_up = await self._bounded(
            "retry",
            subject,
            self.keeper.afailed(
                claimed, error, retry_in=delay, tries=self.settings.observe_tries, moved=moved
            ),
            False,
        )
        await self._track("observe_failed", claimed, error=error, attempt=claimed.attempts + 1)
        if gave_up:
            self.counts["observe_given_up"] += 1
            log.error(
                "observing an exchange with %s failed %d times; given up: %s",
                subject,
                claimed.attempts + 1,
                error,
            )
            return True
        self.counts["observe_retried"] += 1
        log.warning("observing the exchange with %s failed: %s (tried again in %g s)", subject, error, delay)
        return False

    async def _release(self, claimed: Waiting) -> None:
        """Hand a claimed exchange back untried (a shutdown came first): it waits for the next start."""
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self.keeper.arelease(claimed)), 2.0)

    # -- lifetime --------------------------------------------------------------------------------------

    def chore(self, work: Awaitable[Any], *, name: str = "mneme chore") -> asyncio.Task[Any]:
        """Run `work` in the background, kept until it ends (and waited for by `drain`). A chore named
        `mneme observe ...` counts among the observes under way (`observing`)."""
        task = asyncio.ensure_future(work)
        task.set_name(name)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)
        return task

    def pending(self) -> list[asyncio.Task[Any]]:
        """Every task of the turn service still running: lines being kept, observes, sweeps."""
        return [task for task in (*self._workers.values(), *self._chores) if not task.done()]

    def observing(self) -> list[asyncio.Task[Any]]:
        """The observes under way: exchanges being kept to be observed, and people's observe workers."""
        return [task for task in self.pending() if task.get_name().startswith("mneme observe")]

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait until every observe under way finished, or `timeout` seconds passed; True when none is
        left. Waiting never cancels anything."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while pending := self.pending():
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return False
            await asyncio.wait(pending, timeout=left)
        return True

    async def aclose(self, timeout: float | None = None) -> int:
        """Stop observing: wait up to `timeout` seconds (`shutdown_timeout`) for the observes under way,
        then stop the rest, whose exchanges stay where they are kept for the next start; returns how many
        were stopped."""
        timeout = self.settings.shutdown_timeout if timeout is None else timeout
        self._closing = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        if await self.drain(timeout):
            return 0
        left = self.pending()
        self.counts["observes_kept_for_next_start"] += len(left)
        for task in left:
            task.cancel()
        await asyncio.gather(*left, return_exceptions=True)
        return len(left)

    def report(self) -> dict[str, int]:
        return dict(self.counts)

    # -- helpers ---------------------------------------------------------------------------------------

    async def _bounded(self, step: str, subject: str | None, work: Awaitable[T], fallback: T) -> T:
        """`work` within `prompt_timeout` (the engine is expected to answer in milliseconds); on a timeout
        or an error, `fallback`, logged and counted as `<step>_timeout` / `<step>_failed`."""
        try:
            async with asyncio.timeout(self.settings.prompt_timeout):  # no task of its own, as wait_for makes
                return await work
        except TimeoutError:
            self.counts[f"{step}_timeout"] += 1
            log.warning(
                "%s for %s took over %g s; going on without it", step, subject, self.settings.prompt_timeout
            )
        except Exception as err:  # the memory is a boundary here: the turn goes on without this step
            self.counts[f"{step}_failed"] += 1
            log.warning(
                "%s for %s failed; going on without it: %s: %s", step, subject, type(err).__name__, err
            )
        return fallback

    async def _track(self, name: str, about: Waiting, **data: Any) -> None:
        if self._track_event is not None:
            clock = getattr(self.mneme, "clock", None)
            at = clock() if callable(clock) else time.time()
            await self._track_event(Event(name, about.subject, about.platform, data, at))

    def _companion(self) -> str:
        settings = getattr(self.mneme, "settings", None)
        return getattr(settings, "companion_name", None) or "the assistant"
