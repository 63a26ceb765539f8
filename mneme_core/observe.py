"""Observe: the one cheap judgement a bot asks for after each reply, and the note writer behind it.

`aobserve(subject, exchange)` frames the exchange (who started it: the person, the companion speaking up, a
scheduled duty), asks the decision chain three questions in one request (how the mood moved, -2..+2; the
strongest feeling; whether anything is worth keeping), moves the mood by the *expected* answers (an unsure
judge moves it little) weighted by how close the person is, and, when something is worth keeping, asks the
note writer for at most a few one-sentence notes, which are validated like any other note. What an observe
writes (the person seen, the mood moved, the notes under the daily quota) is one transaction, written once
the note writer has answered: one commit an observe instead of two (0.3 ms of its ~4 ms of CPU), and an
observe cut short while the writer works (the bot's `observe_timeout`, a shutdown) has moved nothing, so
trying it again moves the mood once. The note writer is shown the person's notes closest to the exchange
(recalled by words and, with an embedder, by meaning) with their ids, and says per fact ADD, UPDATE #id,
CONTRADICTS #id or SKIP #id in the same single call (`memory.consolidate`); an id it was never shown is
refused. Only an exchange the person started (`source="user"`) is asked
whether it is worth keeping: the companion's own outreach and its duties judge the mood alone.

An observe is a plan (`twins`) run on the store's threads: the loop runs only the judge's and the note
writer's model calls and the plugins' `filter_note`, while the framing, the judge's prompt and the checking
of its answers, the writer's recall, messages and parsing run off it. With 1,000 people at once
(`benchmarks/busy.py`, medians of 6 runs) the loop's thread spent 1.14 ms of CPU a turn with that work on
it, 0.73 ms now, and the loop woke at most 72 ms late instead of 333 ms. The counts are kept under a lock.

Faults never pass silently and never half-write: a judge that fails or talks nonsense leaves its questions
unanswered; a note writer that fails, times out or returns garbage writes nothing. Each fault is logged and
counted in `report()`; one that raised or timed out is also said in `Observation.error`. A wrong argument
(an exchange that is not one, an unknown source, a model that is not a function) raises before anything is
judged or written.
"""

from __future__ import annotations

import logging
import math
import threading
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from . import capture as writer
from . import relations, twins
from .decide import Chain, Prompt, Question, acomplete
from .errors import InvalidType, InvalidValue, describe
from .exchange import FEELING, MOOD_CHANGE, SOURCES, as_text, frame, judge_questions
from .memory import consolidate, notes
from .memory.consolidate import Action, Applied
from .memory.note import subject_of
from .mood import Judgement, MoodEvent
from .mood import moods as mood_store
from .mood.settings import number
from .steps import Plan

if TYPE_CHECKING:
    from .memory.note import Note
    from .mneme import Complete, Mneme

log = logging.getLogger(__name__)

Judged = tuple[dict[str, Any], str]  # the judge's answers, and what failed while it answered ("" or why)
Written = tuple[list[Applied], str]  # what became of each fact the note writer gave, and what failed

WRITER_TIMEOUT = 60.0
KNOWN_CHARS = 3000  # what the recall for the note writer may take, before `capture.offered` trims it


@dataclass(frozen=True)
class Observation:
    """What one observe did: the mood event (if the mood moved), the notes kept, the worth judged."""

    mood: MoodEvent | None = None
    notes: list[Note] = field(default_factory=list)
    worth: float | None = None
    error: str = ""
    skipped: bool = False
    actions: list[Applied] = field(default_factory=list)
    """What became of each fact the note writer gave (ADD, UPDATE, CONTRADICTS, SKIP)."""


class Observer:
    """Runs observe, capture and reflect for one `Mneme`, and counts what each step did."""

    def __init__(self, mneme: Mneme) -> None:
        self.m = mneme
        self.counts: Counter[str] = Counter()
        self._counting = threading.Lock()
        self._asked: dict[bool, tuple[Any, tuple[Any, ...], tuple[Question, ...]]] = {}

    def _chain(self, complete: Complete | None) -> Chain:
        if complete is None:
            return self.m.decider
        prompt = Prompt(complete, system=self.m.prompts["judge"])
        return Chain(*self.m.decision_tiers, prompt, name="this call", clock=self.m.clock)

    def _judging(self, chain: Chain, framed: str, questions: tuple[Question, ...]) -> Plan[Judged]:
        """The chain's answers, and what failed while it answered ("" when nothing did)."""
        before = chain.failures()
        try:
            answers = yield from chain.decision_plan(framed, questions)
        except Exception as err:  # a tier the chain could not contain: the exchange is judged by nobody
            log.warning("judging an exchange failed: %s", err)
            self._tally("judge failed")
            return {}, f"judge: {err}"
        failed = {
            tier: error
            for tier, (count, error) in chain.failures().items()
            if count > before.get(tier, (0,))[0]
        }
        if not failed:
            return answers, ""
        self._tally("judge failed", len(failed))
        return answers, "; ".join(f"judge {tier}: {error}" for tier, error in failed.items())

    def _questions(self, worth: bool) -> tuple[Question, ...]:
        """The judge's questions (`exchange.judge_questions`), made again only when the feelings or the
        prompts changed: making them checks and cleans every label, 0.3 ms an observe."""
        emotions, prompts = self.m.mood_settings.emotions, tuple(self.m.prompts.items())
        made = self._asked.get(worth)
        if made is None or made[0] is not emotions or made[1] != prompts:
            made = (emotions, prompts, tuple(judge_questions(emotions, self.m.prompts, worth=worth)))
            self._asked[worth] = made
        return made[2]

    def report(self) -> dict[str, Any]:
        return dict(self.counts)

    async def observe(
        self,
        subject: object,
        exchange: object,
        *,
        source: str = "user",
        user_name: str = "the user",
        complete: Complete | None = None,
        mood: bool = True,
        capture: bool = True,
        gate: float = 0.5,
    ) -> Observation:
        """One observe, as a plan on the store's threads (`twins.arun`): the loop runs only the
        judge's and the note writer's model calls and the plugins' `filter_note` (see `_observing`)."""
        observing = self._observing(subject, exchange, source, user_name, complete, mood, capture, gate)
        return await twins.arun(self.m.store, observing, later=True)

    def _observing(
        self,
        subject: object,
        exchange: object,
        source: str,
        user_name: str,
        complete: Complete | None,
        mood: bool,
        capture: bool,
        gate: float,
    ) -> Plan[Observation]:
        """The observe's plan: its text work, the judge's prompt and parsing and the note writer's run
        between the model calls (`Await`), its one write is a `Write`; off the reply's path (`later`)."""
        m = self.m
        subject = subject_of(subject)
        _callable_or_none(complete)
        settings = m.mood_settings
        if source in settings.skip:
            self._tally("skipped")
            return Observation(skipped=True)
        if source not in SOURCES:
            raise InvalidValue(
                f"source is one of {', '.join(SOURCES)} (or a skipped one), not {describe(source)}"
            )
        if isinstance(gate, bool) or not isinstance(gate, int | float) or not 0 <= gate <= 1:
            raise InvalidValue(f"gate is a probability from 0 to 1, not {describe(gate)}")
        said = as_text(exchange, user_name, m.settings.companion_name)
        now = m._now()
        # Notes are about what the person said: the companion's own outreach ("speak-up") and its
        # scheduled duties move the mood but are never worth a note about the person.
        capture = capture and source == "user"
        questions = self._questions(capture)
        framed = frame(
            said,
            source=source,
            user_name=user_name,
            companion_name=m.settings.companion_name,
            prompts=m.prompts,
        )
        chain = self._chain(complete)
        answers, error = yield from self._judging(chain, framed, questions)
        if chain is not m.decider:
            m.decider.absorb(chain)  # a per-call model's decisions count in `report()` too
        self._tally("observed")
        moving = mood and (MOOD_CHANGE in answers or FEELING in answers)
        judged = _judgement(said, answers, source, user_name) if moving else None
        worth = answers.get(writer.WORTH)
        actions: list[Action] = []
        if capture and (worth is None or worth.probability >= gate):
            actions, writer_error = yield from self._acting(subject, said, user_name, complete)
            error = "; ".join(e for e in (error, writer_error) if e)
        event, applied = None, []
        seen = source == "user"
        if judged is not None or seen or actions:
            # The person seen, the mood and the notes: one write, so one commit (and one hop to the
            # writer's thread) an observe, and an observe that times out or fails while the note writer
            # works has moved nothing yet, so trying it again moves nothing twice.
            event, applied = yield twins.Write(_observed, m, subject, judged, seen, now, actions, m._now())
        if judged is not None:
            self._tally("mood moved" if event else "mood unmoved")
        if actions:
            self._count(applied)
        probability = None if worth is None else worth.probability
        return Observation(event, _written(applied), probability, error, actions=applied)

    def _writing(self, subject: str, said: str, user_name: str, complete: Complete | None) -> Plan[Written]:
        """The note writer's answer for an exchange, applied against the notes it was shown; (what became
        of each fact, what went wrong or "")."""
        m = self.m
        actions, error = yield from self._acting(subject, said, user_name, complete)
        if not actions:
            return [], error
        applied = yield twins.Write(consolidate.apply, m.space, subject, actions, m._now(), m._rules)
        self._count(applied)
        return applied, error

    def _acting(
        self, subject: str, said: str, user_name: str, complete: Complete | None
    ) -> Plan[tuple[list[Action], str]]:
        """The note writer's answer for an exchange, checked against the notes it was shown and passed
        through the plugins: (the actions to apply, what went wrong or "")."""
        m = self.m
        complete = complete or m.complete
        if complete is None:
            self._tally("no note writer")
            return [], ""
        now = m._now()
        shown, (system, user) = yield from self._offer(subject, said, user_name, now)
        try:
            reply = yield twins.Await(lambda: acomplete(complete, system, user, timeout=WRITER_TIMEOUT))
        except Exception as err:  # the host's model: anything can go wrong there, and nothing is written
            log.warning("the note writer failed for %s: %s", subject, err)
            self._tally("writer failed")
            return [], f"note writer: {err}"
        parsed = writer.parse_actions(reply, offered={n.id for n in shown}, now=now, zone=m.settings.zone)
        if parsed.refused:
            refused = "; ".join(parsed.refused)
            log.info("the note writer's answer for %s had refused parts: %s", subject, refused)
            self._tally("writer refused", len(parsed.refused))
        actions = parsed.actions
        if m._filtering and any(action.fields is not None for action in actions):
            actions = yield twins.Await(lambda: self._vetted(subject, parsed.actions))
        if not actions:
            self._tally("writer wrote nothing")
        return actions, ""

    def _offer(self, subject: str, said: str, user_name: str, now: float) -> Plan[tuple[Any, Any]]:
        """The notes the note writer is shown (the person's closest to the exchange) and its messages: one
        plan, so the recall and the messages' text are made off the loop (see `twins`)."""
        m = self.m
        shown: list[Note] = []
        if (yield twins.Read(_has_notes, m.space, subject)):  # a new person's recall would find nothing
            # The writer is shown notes alone: the transcript's lines a recall would rank too are not asked.
            # It is shown the chosen notes alone: those skipped are not read (`Ask.explained`).
            recalled = yield from m._recalling(
                subject,
                said,
                explained=False,
                limit=writer.OFFERED_LIMIT,
                budget=KNOWN_CHARS,
                log=False,
                lines=0,
            )
            shown = writer.offered([r.note for r in recalled.chosen])
        return shown, writer.writer_messages(
            said,
            user_name=user_name,
            companion_name=m.settings.companion_name,
            language=m.memory_language,
            known=shown,
            prompts=m.prompts,
            now=now,
            zone=m.settings.zone,
        )

    async def _vetted(self, subject: str, actions: list[Action]) -> list[Action]:
        """Plugins may veto or rewrite each fact on its way in (`filter_note`); a SKIP writes nothing. Async
        plugin code: an `Await` of the observe's plan, on the loop, only when a plugin filters notes."""
        vetted = []
        for action in actions:
            if action.fields is None:
                vetted.append(action)
            elif passed := await self.m._filtered(subject, [action.fields]):
                vetted.append(replace(action, fields=passed[0]))
        return vetted

    def _tally(self, what: str, count: int = 1) -> None:
        """Count `what` in `report()`: under a lock, as observes may run on two store threads at once."""
        with self._counting:
            self.counts[what] += count

    def _count(self, applied: list[Applied]) -> None:
        for done in applied:
            if done.outcome in (notes.KEPT, notes.REPLACED):
                self._tally("notes written")
            elif done.outcome == notes.UPDATED:
                self._tally("notes updated")
            elif done.outcome == consolidate.CONTRADICTED:
                self._tally("notes contradicted")
            elif done.outcome == notes.OVER_QUOTA:
                self._tally("notes over quota")
            elif done.outcome == notes.NO_SUCH_NOTE:
                self._tally("writer target gone")
            else:
                self._tally("notes known")

    async def capture(
        self,
        subject: object,
        exchange: object,
        *,
        user_name: str = "the user",
        complete: Complete | None = None,
    ) -> list[Note]:
        subject = subject_of(subject)
        _callable_or_none(complete)
        said = as_text(exchange, user_name, self.m.settings.companion_name)
        applied, _error = await twins.arun(
            self.m.store, self._writing(subject, said, user_name, complete), later=True
        )
        return _written(applied)

    async def reflect(
        self,
        subject: object,
        *,
        user_name: str = "the user",
        limit: int = 60,
        complete: Complete | None = None,
    ) -> str | None:
        m = self.m
        subject = subject_of(subject)
        complete = _callable_or_none(complete) or m.complete
        if complete is None:
            return None
        leading = await m.store.aread(notes.leading, m.space, subject, limit)
        if not leading:
            return None
        previous = await m.store.aread(notes.profile, m.space, subject)
        system, user = writer.reflect_messages(
            [n.text for n in leading],
            user_name=user_name,
            companion_name=m.settings.companion_name,
            language=m.memory_language,
            prompts=m.prompts,
            previous=previous[0] if previous else None,
        )
        try:
            card = writer.parse_card(await acomplete(complete, system, user, timeout=WRITER_TIMEOUT))
        except Exception as err:  # the host's model failed: the old card stays
            log.warning("reflecting on %s failed: %s", subject, err)
            self._tally("reflect failed")
            return None
        if card is None:
            return None
        await m.store.awrite(notes.set_profile, m.space, subject, card, m._now())
        self._tally("reflected")
        return card


def _judgement(said: str, answers: dict[str, Any], source: str, user_name: str) -> Judgement:
    """The judge's answers about the mood, as the mood store takes them (its weight comes at the write)."""
    level, feeling = answers.get(MOOD_CHANGE), answers.get(FEELING)
    return Judgement(
        level=level.mean() if level else 0.0,
        feelings=feeling.probabilities if feeling else {},
        level_confidence=level.confidence if level else 0.0,
        feeling_confidence=feeling.confidence if feeling else None,
        judge="+".join(dict.fromkeys(a.by for a in (level, feeling) if a)),
        reason=(level.reason if level else "") or (feeling.reason if feeling else ""),
        source=source,
        exchange=said,
        user_name=user_name,
    )


def _observed(
    conn: Any,
    m: Mneme,
    subject: str,
    judged: Judgement | None,
    seen: bool,
    now: float,
    actions: list[Action],
    at: float,
) -> tuple[MoodEvent | None, list[Applied]]:
    """What an observe writes, in one transaction: the person seen (if they spoke), the mood moved by how
    close they are now (if the judge said how it moved), then the note writer's actions (dated `at`)."""
    # `seen` gives who the person is now, as `relations.get` would read it back (one look, not two)
    relation = relations.seen(conn, m.space, subject, now, m.relation_settings) if seen else None
    event = None
    if judged is not None:
        if not seen:
            relation = relations.get(conn, m.space, subject, now, m.relation_settings)
        judged = _weighed(judged, relations.weight_of(relation))
        event = mood_store.apply_answers(conn, m.space, subject, judged, now, m.mood_settings, m.words)
    applied = consolidate.apply(conn, m.space, subject, actions, at, m._rules) if actions else []
    return event, applied


def _weighed(judged: Judgement, weight: float) -> Judgement:
    """`replace(judged, weight=weight)`, checking the weight alone: the other fields were checked when
    `_judgement` made it, and the checks give back what they were given then (19 µs -> 3, on the writer's
    thread, once an observe)."""
    made = object.__new__(Judgement)
    made.__dict__.update(judged.__dict__, feelings=dict(judged.feelings))
    made.__dict__["weight"] = number("weight", weight, 0.0, math.inf)
    return made


def _has_notes(conn: Any, space: str, subject: str) -> bool:
    """Whether the person has a live note (archived ones count: recall may bring them back)."""
    found = "select live from subjects where space = ? and subject = ?"
    row = conn.execute(found, (space, subject)).fetchone()
    return bool(row and row[0])


def _written(applied: list[Applied]) -> list[Note]:
    """The notes an answer wrote: new ones, new versions and the facts that replaced contradicted ones."""
    wrote = (notes.KEPT, notes.REPLACED, notes.UPDATED, consolidate.CONTRADICTED)
    return [done.note for done in applied if done.note is not None and done.outcome in wrote]


def _callable_or_none(complete: object) -> Any:
    if complete is not None and not callable(complete):
        raise InvalidType(
            f"complete must be a function (system, user) -> text, not {type(complete).__name__}"
        )
    return complete
