"""What a companion does beyond remembering: it observes each exchange, feels, and knows who people are.

`CompanionVerbs` is the part of the `Mneme` facade for these verbs, kept apart so each module stays small:
`aobserve`/`observe`, `acapture`/`capture`, `areflect`/`reflect`, `report`, the mood (`mood`, `news`,
`feel`, the timeline, a reset) and relationships (`relate`, `relationship`, `relationships`, `unrelate`).
It relies on the facade's store, space, settings, clock and observer (see `mneme_core.mneme.Mneme`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import relations
from .decide import run
from .memory.note import Note, NoteFields, count_of, subject_of
from .mood import Change, MoodEvent, MoodState
from .mood import moods as mood_store
from .observe import Observation
from .relations import Relationship

if TYPE_CHECKING:
    from .mneme import Complete


class CompanionVerbs:
    """Observing, the mood and relationships, for `Mneme` (which provides the attributes used here)."""

    store: Any
    space: str
    settings: Any
    mood_settings: Any
    relation_settings: Any
    words: Any
    observer: Any
    decider: Any
    meaning: Any
    tiers: Any
    plugins: Any
    check_counts: Any
    told: Any

    # -- observing ------------------------------------------------------------------------------------

    async def aobserve(
        self,
        subject: str,
        exchange: Any,
        *,
        source: str = "user",
        user_name: str = "the user",
        complete: Complete | None = None,
        mood: bool = True,
        capture: bool = True,
        gate: float = 0.5,
    ) -> Observation:
        """After a reply: one judgement of how the mood moved and whether anything is worth keeping;
        the note writer keeps what is (see `mneme_core.observe`)."""
        return await self.observer.observe(
            subject,
            exchange,
            source=source,
            user_name=user_name,
            complete=complete,
            mood=mood,
            capture=capture,
            gate=gate,
        )

    def observe(self, subject: str, exchange: Any, **options: Any) -> Observation:
        return run(lambda: self.aobserve(subject, exchange, **options))

    async def acapture(
        self, subject: str, exchange: Any, *, user_name: str = "the user", complete: Complete | None = None
    ) -> list[Note]:
        """Keep notes from an exchange without judging the mood."""
        return await self.observer.capture(subject, exchange, user_name=user_name, complete=complete)

    def capture(self, subject: str, exchange: Any, **options: Any) -> list[Note]:
        return run(lambda: self.acapture(subject, exchange, **options))

    async def areflect(
        self, subject: str, *, user_name: str = "the user", limit: int = 60, complete: Complete | None = None
    ) -> str | None:
        """Rewrite the short profile card shown above the notes (once a day is plenty)."""
        count_of("limit", limit, low=1)
        return await self.observer.reflect(subject, user_name=user_name, limit=limit, complete=complete)

    def reflect(self, subject: str, **options: Any) -> str | None:
        return run(lambda: self.areflect(subject, **options))

    async def _filtered(self, subject: str, written: list[NoteFields]) -> list[NoteFields]:
        """Model-written notes on their way in: plugins may veto or rewrite each (`filter_note`)."""
        if not self._filtering:
            return written
        kept = []
        for fields in written:
            passed = await self.plugins.afilter_note(self, subject, fields)
            if passed is not None:
                kept.append(passed)
        return kept

    def report(self) -> dict[str, Any]:
        """What each decision tier answered, abstained on or failed, what observe did, and (with any meaning
        tier) which tier placed each query (`meaning.fallthrough`), and what this process's health checks
        found (`check`)."""
        found = {"decisions": self.decider.report(), "observe": self.observer.report()}
        if self.check_counts:
            found["check"] = dict(self.check_counts)
        meaning = self.tiers.report()
        if meaning is not None:
            found["meaning"] = meaning
        return found

    # -- mood and relationships ---------------------------------------------------------------------

    def mood(self, subject: str) -> MoodState:
        """How the companion feels about a person now (decay computed on read)."""
        return self.store.read(
            mood_store.state, self.space, subject_of(subject), self._now(), self.mood_settings
        )

    def describe_mood(self, subject: str) -> str:
        """One line: "Mood 74/100 (good); feeling: aching for them 31"."""
        return self.store.read(
            mood_store.describe, self.space, subject_of(subject), self._now(), self.mood_settings, self.words
        )

    async def adescribe_mood(self, subject: str) -> str:
        return await self.store.aread(
            mood_store.describe, self.space, subject_of(subject), self._now(), self.mood_settings, self.words
        )

    def news(self, subject: str, *, mark: bool = True) -> str | None:
        """How the mood changed since the companion was last told, once; None when there is nothing new (or
        a prompt of this process told it already: `mood.told`). With `mark` the mark is in the file when it
        returns."""
        found = self.store.read(
            mood_store.untold_news,
            self.space,
            subject_of(subject),
            self._now(),
            self.mood_settings,
            self.words,
        )
        if found is None:
            return None
        text, sid, last = found
        if not mark:
            return None if self.told.already(sid, last) else text
        if not self.told.tell(sid, last):
            return None
        return text if self.store.write(self.told.mark_now, sid, last) else None

    def feel(
        self,
        subject: str,
        *,
        delta: float = 0.0,
        emotions: dict[str, float] | None = None,
        reason: str = "",
        confidence: float = 1.0,
        source: str = "manual",
        judge: str = "manual",
    ) -> MoodEvent | None:
        """Move the mood by hand, under the same guardrails as a judged exchange."""
        change = Change(
            delta=delta,
            emotions=emotions or {},
            reason=reason,
            confidence=confidence,
            source=source,
            judge=judge,
        )
        subject = subject_of(subject)
        return self.store.write(
            mood_store.apply, self.space, subject, change, self._now(), self.mood_settings
        )

    def mood_timeline(self, subject: str, limit: int = 40) -> list[MoodEvent]:
        """The mood's changes, newest first."""
        return self.store.read(mood_store.timeline, self.space, subject_of(subject), count_of("limit", limit))

    def reset_mood(self, subject: str) -> bool:
        """Back to the baseline, timeline cleared."""
        return self.store.write(mood_store.reset, self.space, subject_of(subject))

    def relate(self, subject: str, role: str, *, closeness: float | None = None) -> Relationship:
        """Say who a person is to the companion (your code decides this, never a model)."""
        relations.check(role, closeness, self.relation_settings)
        return self.store.write(
            relations.set,
            self.space,
            subject_of(subject),
            role,
            closeness,
            self._now(),
            self.relation_settings,
        )

    def relationship(self, subject: str) -> Relationship | None:
        return self.store.read(
            relations.get, self.space, subject_of(subject), self._now(), self.relation_settings
        )

    def relationships(self) -> list[Relationship]:
        """Everyone with a role, closest first."""
        return self.store.read(relations.all, self.space, self._now(), self.relation_settings)

    def unrelate(self, subject: str) -> bool:
        return self.store.write(relations.remove, self.space, subject_of(subject))
