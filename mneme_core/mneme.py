"""`Mneme`: one companion's memory, in one SQLite file.

The facade a bot talks to. Each product verb comes as a pair: `aprompt`, `arecall`, `aremember` ... run their
SQLite work on the store's threads and never block the event loop; `prompt`, `recall`, `remember` ... do the
same work on a connection of the calling thread, so they need no event loop and work whether or not one is
running in the thread. Both run the same transaction functions (`mneme_core.memory.notes`,
`mneme_core.memory.recall`), so the twins cannot drift apart; `prompt` and `recall` are written once as
plans that both run (`twins`), so the async twins do their scoring and text work off the loop too.

Validation happens here, before any work reaches the store: a wrong value raises `ValueError` or
`TypeError` (both also `MnemeError`) naming the value and what is allowed, and nothing is written.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import os
import time
import warnings
import weakref
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from . import dates, periods, relations, text, tools, transcript, transfer, twins
from .check import records as check_records
from .checking import CheckVerbs
from .companion import CompanionVerbs
from .config import Config, Settings, arguments
from .config import mneme_llm as mneme_llm_config
from .config.toml import database as database_in
from .decide import Chain, Prompt
from .errors import ClosedError, InvalidType, InvalidValue, describe
from .from_mneme_llm import STORED, switches
from .from_mneme_llm import database as mneme_llm_database
from .journal import JournalVerbs
from .journal import entries as journal_entries
from .journal import section as journal_section
from .meaning import Meaning, Placed
from .meaning.embeddings import choose_embedder
from .meaning.fallthrough import WORDS, WORDS_ONLY, Placing, Query, Tiers
from .memory import notes, overview, reindex
from .memory.lifecycle import Lifecycle
from .memory.note import KINDS, MAX_ID, Note, NoteFields, count_of, key_of, key_prefix_of, subject_of
from .memory.query import turns as query_turns
from .memory.recall import Ask, Recall, Trace, read_tables
from .memory.recall_log import RecallLog
from .messages import Words
from .mood import MoodSettings
from .mood import moods as mood_store
from .mood.told import Told
from .observe import Observer
from .plugins import Event, Manager, make_manager
from .prompting import join, notes_block, said_block, who
from .relations import RelationSettings, Relationship, Role
from .store import open_store
from .store.location import is_url
from .tending import TendVerbs
from .transcript import Transcript
from .transcript.recall import rank

log = logging.getLogger(__name__)

Complete = Callable[[str, str], "str | Awaitable[str]"]
VETOED = "vetoed"
LINES, LINE_BUDGET = 4, 600  # transcript lines a recall quotes by default, and within how many characters


def _query(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidType(f"a query must be a string, not {type(value).__name__}")
    return text.clean(value)


class Mneme(CompanionVerbs, CheckVerbs, TendVerbs, JournalVerbs):
    """Memory for one companion (a space) in one SQLite file, or on a PostgreSQL server.

    `Mneme("companion.db", space="dafeiyu")`, `Mneme("postgresql://mio@db.example/mneme", space=...)`; with
    no path, the config's `[storage] database`, else `mneme.db`. Arguments that are None take the config's
    value, then the built-in default; given ones win for this process only. mneme-llm's switches (`luna`,
    `micro`, `embed=True/False`, `meaning_micro`, `memory_language=None`) mean what mneme-llm documents
    (`from_mneme_llm.switches`).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        space: str = "default",
        *,
        config: Mapping[str, Any] | str | os.PathLike[str] | None = None,
        complete: Complete | None = None,
        clock: Callable[[], float] = time.time,
        companion_name: str | None = None,
        display_language: str | None = None,
        zone: Any = None,
        half_life_days: float | None = None,
        daily_quota: int | None = None,
        max_notes: int | None = None,
        memory_language: Any = STORED,
        mood: MoodSettings | None = None,
        roles: tuple[Role, ...] | None = None,
        durability: str | None = None,
        embed: Any = None,
        plugins: Manager | Iterable[object] | None = None,
        luna: Any = False,
        micro: Any = False,
        meaning_micro: bool = True,
    ) -> None:
        if not isinstance(space, str) or not space.strip() or text.clean(space) != space:
            raise InvalidValue(f"a space is a one-line name like 'dafeiyu', not {describe(space)}")
        if not callable(clock):
            raise InvalidType(f"clock must be a function returning seconds, not {type(clock).__name__}")
        if complete is not None and not callable(complete):
            raise InvalidType(
                f"complete must be a function (system, user) -> text, not {type(complete).__name__}"
            )
        # mneme-llm's switches, with its documented meanings (`from_mneme_llm.switches`).
        chosen = switches(
            luna=luna, micro=micro, embed=embed, meaning_micro=meaning_micro, memory_language=memory_language
        )
        given = arguments(
            {
                "companion_name": companion_name,
                "display_language": display_language,
                "zone": zone,
                "half_life_days": half_life_days,
                "daily_quota": daily_quota,
                "max_notes": max_notes,
                "memory_language": chosen.memory_language,
                "durability": durability,
            }
        )  # checked before the file is touched; they win for this process and are never stored
        if mood is not None and not isinstance(mood, MoodSettings):
            raise InvalidType(f"mood is a MoodSettings, not {type(mood).__name__}")
        self.space = space
        self.complete = complete
        self.clock = clock
        # One plugin manager per Mneme, never a global one: built-ins, then installed entry points.
        self.plugins = plugins if isinstance(plugins, Manager) else make_manager(plugins=plugins or ())
        # `embed=` wins over `memory.embed` for this process and is never stored; a name nothing
        # registered is refused here, before the file is opened.
        wanted = None if chosen.embed is None else choose_embedder(chosen.embed, self.plugins.embedders)
        steps = tuple(self.plugins.migrations.values())
        # A mneme-llm database is converted in place, after a backup copy beside it (`from_mneme_llm`).
        if path is None:  # the config's `[storage] database`, else the file beside the program
            path = (
                database_in(config if isinstance(config, Mapping | str | os.PathLike) else None) or "mneme.db"
            )
        url = is_url(path)  # a URL is never a path; another scheme is refused here
        self.mneme_llm_backup = None if url else mneme_llm_database.adopt(path, float(clock()))
        self.store = open_store(
            path, durability=given.get("durability", "normal"), clock=clock, migrations=steps
        )
        try:
            # What adapters and plugins declared for their tables is checked as theirs (`register_settings`).
            self.config = Config(self.store, space, declared=lambda: self.plugins.settings)
            # The first time the database meets this space the file is taken whole; after that its adapters'
            # and plugins' tables are, and the companion's own keys it differs in are named (config.meeting).
            self.config.meet(config)
            current = self.config.snapshot()
            self.settings: Settings = current.settings(given)
            stored_relations = current.relation_settings(self.settings.zone)
            self.relation_settings = (
                stored_relations if roles is None else replace(stored_relations, roles=tuple(roles))
            )
            if wanted is None:
                wanted = choose_embedder(current.embedder(), self.plugins.embedders, key="memory.embed")
            embedder = wanted.make(lambda name: self.config.table(f"plugins.{name}"))
        except BaseException:
            self.store.close()
            raise
        if self.settings.durability != self.store.durability:  # the stored config asks for another one
            self.store.close()
            self.store = open_store(path, durability=self.settings.durability, clock=clock, migrations=steps)
        self.words = Words(self.settings.display_language, own=current.messages())
        self.mood_settings = _with_emotions(
            mood if mood is not None else current.mood_settings(), self.plugins.emotions
        )
        self.relation_settings = _with_roles(self.relation_settings, self.plugins.roles)
        self.tools = _tools_with(self.plugins.tools)
        self.memory_language = self.settings.memory_language
        self.prompts = current.prompts()
        self.decision_tiers = chosen.decision_tiers
        judge = Prompt(complete, system=self.prompts["judge"])
        self.decider = Chain(*self.decision_tiers, judge, name="decisions", clock=clock)
        self.observer = Observer(self)
        self.check_counts: Counter[str] = Counter()
        self.recall_log = RecallLog(self.store)
        self.told = Told(self.store)  # the mood's news a prompt told, marked with the next write
        # Reinforcement, links, the archive, lessons and the journal (`memory.lifecycle`, `tending`).
        self.lifecycle = Lifecycle.of(current.values)
        self.recall_log.lifecycle = self.lifecycle
        self.recall_log.half_life_days = self.settings.half_life_days
        self.transcript = Transcript(self.store, space, clock)
        # The meaning tier (`mneme_core.meaning`): an `Embeddings`, a registered embedder's name or a
        # function texts -> vectors, else `memory.embed`; "" keeps recall to words. Notes are embedded
        # off the reply's path.
        self.meaning = Meaning(self.store, embedder, clock) if embedder is not None else None
        if self.meaning is not None:
            self.meaning.start()
        # The term index follows the terms' rules of this process, person by person (`memory.reindex`).
        self.reindexer = reindex.Reindexer(self.store)
        self._terms_version, waiting = self.store.read(reindex.state)
        self.reindexer.start(waiting)  # those a process stopped midway left waiting
        self._reindex_if_needed()
        self.left_out_tiers = chosen.left_out
        self.tiers = Tiers.build(self)  # the fall-through: embeddings, plugins' tiers, words
        read_tables()  # what widens a question, read before anyone asks one
        _OPEN.add(self)

    # -- lifecycle -------------------------------------------------------------------------------------

    def close(self) -> None:
        """Tell plugins (`shutdown`), write what waits (the recall log) and close the file.

        The file is closed whatever happens before: recall-log entries that cannot be written (a full disk,
        a file locked past the busy timeout) are counted in `recall_log.dropped` and logged, not raised; they
        hold no note, and every note acknowledged is already in the file."""
        if self.store.closed:
            return
        try:
            self.plugins.shutdown(self)
            self._stop_background()
            self._write_waiting()
        finally:
            self.store.close()

    async def aclose(self) -> None:
        """`close`, off the event loop: the background threads are waited for on a thread of their own, so
        other people's turns go on meanwhile, and a thread that needs the loop to finish (the unify tier's
        model call, made on the loop its async client lives on) can."""
        if self.store.closed:
            return
        try:
            await self.plugins.ashutdown(self)
            await asyncio.to_thread(self._stop_background)
            await self.recall_log.aflush_or_drop()
            await self.told.aflush_or_drop()
        finally:
            await self.store.aclose()

    def _close_at_exit(self) -> None:
        """What `close` does, for a program that exits without calling it (see `_close_left_open`):
        background threads stop, the waiting recall log is written, the file is closed. Plugins' `shutdown`
        is not called: at exit their own resources may already be gone."""
        if self.store.closed:
            return
        try:
            self._stop_background()
            self._write_waiting()
        finally:
            self.store.close_at_exit()

    def _stop_background(self) -> None:
        """The background threads stop: the plugin tiers', the reindexer's, the meaning tier's, the recall
        log's."""
        self.tiers.stop()
        self.reindexer.stop()
        if self.meaning is not None:
            self.meaning.stop()
        self.recall_log.stop()

    def _write_waiting(self) -> None:
        """What waits to be written (the recall log, the news marks); what cannot be is logged, not raised."""
        self.recall_log.flush_or_drop()
        self.told.flush_or_drop()

    def _drop_waiting(self, subject_id: int | None) -> None:
        """A person being erased: what waits for them in the background goes first."""
        if subject_id is None:
            return
        self.recall_log.drop(subject_id)
        self.told.drop(subject_id)
        if self.meaning is not None:
            self.meaning.drop(subject_id)

    def __enter__(self) -> Mneme:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Mneme:
        await self.plugins.astartup(self)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __del__(self) -> None:
        store = getattr(self, "store", None)
        if store is not None and not store.closed:
            warnings.warn(f"Mneme({store.path!r}) was not closed", ResourceWarning, stacklevel=1)

    def _now(self) -> float:
        if self.store.closed:
            raise ClosedError("this Mneme is closed")
        return float(self.clock())

    @property
    def _rules(self) -> notes.Rules:
        life = self.lifecycle
        return replace(
            notes.Rules.of(self.settings),
            lifecycle=life.enabled,
            link_half_life_days=life.link_half_life_days,
        )

    def _reindex_if_needed(self) -> None:
        twins.run(self.store, self._reindexed())

    # -- remembering -----------------------------------------------------------------------------------

    def _keep_work(self, subject: object, note_text: object, options: dict[str, Any]) -> tuple[Any, ...]:
        fields = NoteFields.strict(note_text, **options)
        return notes.keep, self.space, subject_of(subject), fields, self._now(), self._rules

    def keep(self, subject: str, note_text: str, **options: Any) -> tuple[str, Note | None]:
        """Like `remember`, and also says what happened: "kept", "replaced", "known", "over quota", or
        "vetoed" when a plugin's `filter_note` refused it."""
        work = self._keep_work(subject, note_text, options)
        if self._filtering:
            fields = self.plugins.filter_note(self, work[2], work[3])
            if fields is None:
                return VETOED, None
            work = (*work[:3], fields, *work[4:])
        self._reindex_if_needed()
        kept = self.store.write(*work)
        if self._tracking:
            self.plugins.track(self, self._remembered(work[2], kept))
        return kept

    async def akeep(self, subject: str, note_text: str, **options: Any) -> tuple[str, Note | None]:
        work = self._keep_work(subject, note_text, options)
        if self._filtering:
            fields = await self.plugins.afilter_note(self, work[2], work[3])
            if fields is None:
                return VETOED, None
            work = (*work[:3], fields, *work[4:])
        self._reindex_if_needed()
        kept = await self.store.awrite(*work)
        if self._tracking:
            await self.plugins.atrack(self, self._remembered(work[2], kept))
        return kept

    @property
    def _filtering(self) -> bool:
        return bool(self.plugins.hook.filter_note.get_hookimpls())

    @property
    def _tracking(self) -> bool:
        return bool(self.plugins.hook.track_event.get_hookimpls())

    def _remembered(self, subject: str, kept: tuple[str, Note | None]) -> Event:
        outcome, note = kept
        return Event(
            "remembered", subject, None, {"outcome": outcome, "id": note.id if note else None}, self.clock()
        )

    def _event(self, name: str, subject: str, count: int) -> Event:
        return Event(name, subject, None, {"count": count}, self.clock())

    def remember(
        self,
        subject: str,
        text: str,
        *,
        kind: str | None = None,
        key: str | None = None,
        importance: int = 2,
        feeling: float = 0.0,
        happened_at: float | None = None,
        source: str | None = None,
        gloss: str | None = None,
    ) -> Note | None:
        """Keep one note about a person; None only when the daily quota refused a model's note."""
        options = dict(
            kind=kind,
            key=key,
            importance=importance,
            feeling=feeling,
            happened_at=happened_at,
            source=source,
            gloss=gloss,
        )
        return self.keep(subject, text, **options)[1]

    async def aremember(
        self,
        subject: str,
        text: str,
        *,
        kind: str | None = None,
        key: str | None = None,
        importance: int = 2,
        feeling: float = 0.0,
        happened_at: float | None = None,
        source: str | None = None,
        gloss: str | None = None,
    ) -> Note | None:
        options = dict(
            kind=kind,
            key=key,
            importance=importance,
            feeling=feeling,
            happened_at=happened_at,
            source=source,
            gloss=gloss,
        )
        return (await self.akeep(subject, text, **options))[1]

    # -- recalling -------------------------------------------------------------------------------------

    def _ask(
        self,
        subject: object,
        query: object,
        o: Mapping[str, Any],
        within: bool = False,
        explained: bool = True,
    ) -> Ask:
        """A recall's question from a verb's arguments (`o`: a recall's or a prompt's), checked; `within`:
        with the filters only a recall takes; `explained`: see `Ask.explained`."""
        turns = query_turns(query) if isinstance(query, str) else ()
        query, now = _query(query), self._now()
        return Ask(
            space=self.space,
            subject=subject_of(subject),
            query=query,
            limit=count_of("limit", o["limit"]),
            budget=count_of("budget", o["budget"]),
            important=count_of("important", o["important"]),
            recent=count_of("recent", o["recent"]),
            now=now,
            half_life_days=self.settings.half_life_days,
            within=_within(**({name: o[name] for name in ("kinds", "since", "until")} if within else {})),
            period=periods.named_latest(query, turns, now, self.settings.zone),
            turns=turns,
            **_said(**{name: o[name] for name in SAID}),
            lifecycle=self.lifecycle if self.lifecycle.enabled else None,
            explained=explained,
        )

    def _logged(self, found: tuple[Recall, Trace | None], log: bool, now: float) -> Recall:
        recall, trace = found
        if log and trace is not None and recall.chosen:
            self.recall_log.add(recall, trace, now)
        return recall

    def recall(
        self,
        subject: str,
        query: str,
        *,
        limit: int = 6,
        budget: int = 800,
        important: int = 2,
        recent: int = 1,
        log: bool = True,
        kinds: tuple[str, ...] | list[str] | None = None,
        since: float | None = None,
        until: float | None = None,
        lines: int = LINES,
        line_budget: int = LINE_BUDGET,
        conversation: str | None = None,
        shown_lines: int = 0,
    ) -> Recall:
        """The notes to show for this query, by evidence, freshness and importance, within the budget; with
        no query (or a question about the person in general), what matters most about them.

        `kinds`, `since` and `until` (seconds; `since` included, `until` not) keep to notes of those kinds
        that happened in that time (lines: said in that time).

        With transcript lines kept (`transcript`), up to `lines` of the person's lines within `line_budget`
        characters come too (`Recall.lines`), apart from the newest `shown_lines` of `conversation`, which
        the model sees already. `arecall` takes the same arguments."""
        return twins.run(self.store, self._recall_plan(subject, query, RECALL.of(locals())))

    async def arecall(self, subject: str, query: str, **options: Any) -> Recall:
        return await twins.arun(self.store, self._recalling(subject, query, **options))

    def _recalling(
        self, subject: object, query: object, *, explained: bool = True, **options: Any
    ) -> twins.Plan[Recall]:
        """`arecall`'s plan, for another plan to take in (`yield from`); `explained=False` for one that uses
        the chosen notes alone (`Ask.explained`)."""
        return self._recall_plan(subject, query, RECALL.given(options), explained)

    def _recall_plan(
        self, subject: object, query: object, o: dict[str, Any], explained: bool = True
    ) -> twins.Plan[Recall]:
        ask = self._ask(subject, query, o, within=True, explained=explained)
        yield from self._reindexed(ask.subject)
        placing = yield from self._placed(ask)
        found = yield twins.Read(rank, placing.ask(ask), placing.placed)
        return self._logged(placing.told(found, ask.query), o["log"], ask.now)

    def _reindexed(self, subject: str | None = None) -> twins.Plan[None]:
        """The tokenizer changed (e.g. `text.use_jieba()`): everyone's index waits to be rebuilt with the
        new one, in the background (`memory.reindex`); and this `subject`'s is rebuilt now if it waits, so
        a recall for them answers as if the whole index had been rebuilt."""
        current = text.version()
        if self._terms_version != current:
            waiting = yield twins.Write(reindex.begin, current)
            self._terms_version = current
            self.reindexer.began(waiting)
        known = self.reindexer
        if subject is None or not known.waiting or subject in known.current:
            return
        if (yield twins.Read(reindex.stale, self.space, subject)):
            yield twins.Write(reindex.person, self.space, subject, current)
        known.current.add(subject)

    def _placed(self, ask: Ask) -> twins.Plan[Placing]:
        """The query as the first meaning tier that answered placed it (`meaning.fallthrough`), or words
        when every tier passed; counted either way. A query about the person in general is not placed:
        recall shows its overview then. A companion with no tier but words pays nothing for it."""
        if not ask.query or overview.general(ask.asked):
            return WORDS_ONLY
        if not self.tiers.tiers:
            self.tiers.counts[WORDS] += 1
            return WORDS_ONLY
        return (
            yield twins.Await(lambda: self.tiers.place(Query(ask.query, ask.space, ask.subject, ask.turns)))
        )

    def reindex_pending(self) -> int:
        """Do now, in this thread, what the background does after the terms' rules changed (`memory.reindex`):
        rebuild the term index of everyone who waits; returns how many people were rebuilt."""
        self._reindex_if_needed()
        return self.reindexer.pending()

    def embed_pending(self) -> int:
        """Do now, in this thread, what the meaning tiers do in the background: embed the notes still
        waiting for vectors, then let the other tiers catch up (word centroids learn, notes are glossed);
        returns how many notes got a vector."""
        return self.tiers.work()

    def _block(
        self,
        ask: Ask,
        recall: Recall,
        user_name: object,
        header: str | None,
        card: str | None,
        relation: Relationship | None,
        news: str | None,
        diary: str = "",
    ) -> str:
        words = self.words
        if header is not None:
            words = Words(words.language, {words.language: {"notes.header": str(header)}})
        name = who(user_name, ask.subject)
        line = relations.sentence(relation, name, self.relation_settings, self.words) if relation else ""
        zone = self.settings.zone
        block = notes_block(recall, name=name, words=words, now=ask.now, zone=zone, card=card)
        said = said_block(recall, name=name, words=self.words, now=ask.now, zone=zone)
        return join([line, block, said, diary, news or ""])

    def prompt(
        self,
        subject: str,
        query: str = "",
        *,
        user_name: str | None = None,
        mark: bool = True,
        log: bool = True,
        limit: int = 6,
        budget: int = 800,
        important: int = 2,
        recent: int = 1,
        header: str | None = None,
        lines: int = LINES,
        line_budget: int = LINE_BUDGET,
        conversation: str | None = None,
        shown_lines: int = 0,
    ) -> str:
        """The block for the system prompt: who the person is to the companion, what it remembers of them
        (as data, not instructions), what was said before that the query recalls (lines of the transcript,
        quoted as data; `recall` says which), and how it feels if that changed since it was last told
        (`mark=False` leaves that news untold; `log=False` keeps the recall out of the recall log, for a
        look by hand). `aprompt` takes the same arguments."""
        return twins.run(self.store, self._prompt_plan(subject, query, _PROMPT.of(locals())))

    async def aprompt(self, subject: str, query: str = "", **options: Any) -> str:
        return await twins.arun(self.store, self._prompt_plan(subject, query, _PROMPT.given(options)))

    def _prompt_plan(self, subject: object, query: object, o: dict[str, Any]) -> twins.Plan[str]:
        ask = self._ask(subject, query, o)
        yield from self._reindexed(ask.subject)
        placing = yield from self._placed(ask)
        found, card, relation, untold, diary = yield twins.Read(
            self._prompt_reads, placing.ask(ask), placing.placed
        )
        found = placing.told(found, ask.query)
        news = None
        if untold is not None:  # told by this prompt, unless another of this process told it already
            text, sid, last = untold
            news = text if not o["mark"] or self.told.tell(sid, last) else None
        logged = self._logged(found, o["log"], ask.now)
        return self._block(ask, logged, o["user_name"], o["header"], card, relation, news, diary)

    def _prompt_reads(
        self, conn: Any, ask: Ask, placed: Placed | None = None
    ) -> tuple[Any, str | None, Relationship | None, tuple[str, int, int] | None, str]:
        """Everything the block reads, in one snapshot, the mood's untold news included (its mark waits
        for the next write: `mood.told`). The journal's section only when the config asks for it
        (`journal.shown`)."""
        found = rank(conn, ask, placed)
        trace = found[1]  # the person's id, when recall read them
        if trace is not None:
            card = notes.profile_of(conn, trace.subject_id)
        else:
            card = notes.profile(conn, ask.space, ask.subject)
        relation = relations.get(conn, ask.space, ask.subject, ask.now, self.relation_settings)
        untold = mood_store.untold_news(conn, ask.space, ask.subject, ask.now, self.mood_settings, self.words)
        shown = self.lifecycle.journal_shown
        diary = ""
        if shown:
            diary = journal_section(
                journal_entries(conn, ask.space, shown), self.words, ask.now, self.settings.zone
            )
        return found, card[0] if card else None, relation, untold, diary

    # -- updating --------------------------------------------------------------------------------------

    def _revise_work(
        self, subject: object, id: object, note_text: object, changes: dict[str, Any]
    ) -> tuple[Any, ...]:
        count_of("id", id, low=1)
        given = {name: value for name, value in changes.items() if value is not None}
        fields = NoteFields.strict(note_text, **given)
        kept = frozenset(name for name in ("kind", "importance", "happened_at") if name not in given)
        return notes.revise, self.space, subject_of(subject), id, fields, kept, self._now()

    def revise(self, subject: str, id: int, text: str, **changes: Any) -> tuple[str, Note | None]:
        """Like `update`, and also says what happened: "updated", "unchanged", "known" (another live note
        already says it), "no such note", or "vetoed" when a plugin's `filter_note` refused it."""
        work = self._revise_work(subject, id, text, changes)
        if self._filtering:
            fields = self.plugins.filter_note(self, work[2], work[4])
            if fields is None:
                return VETOED, None
            work = (*work[:4], fields, *work[5:])
        self._reindex_if_needed()
        done = self.store.write(*work)
        if self._tracking:
            self.plugins.track(self, self._updated(work[2], id, done))
        return done

    async def arevise(self, subject: str, id: int, text: str, **changes: Any) -> tuple[str, Note | None]:
        work = self._revise_work(subject, id, text, changes)
        if self._filtering:
            fields = await self.plugins.afilter_note(self, work[2], work[4])
            if fields is None:
                return VETOED, None
            work = (*work[:4], fields, *work[5:])
        self._reindex_if_needed()
        done = await self.store.awrite(*work)
        if self._tracking:
            await self.plugins.atrack(self, self._updated(work[2], id, done))
        return done

    def _updated(self, subject: str, old: int, done: tuple[str, Note | None]) -> Event:
        outcome, note = done
        data = {"outcome": outcome, "old": old, "id": note.id if note else None}
        return Event("updated", subject, None, data, self.clock())

    def update(
        self,
        subject: str,
        id: int,
        text: str,
        *,
        kind: str | None = None,
        importance: int | None = None,
        happened_at: float | None = None,
        source: str | None = None,
    ) -> Note | None:
        """Correct a live note by id: a new version with this text (and kind, importance or time, if
        given; the rest as they were) takes its place, and the old one stays in the history until
        `purge` (`notes(..., history=True)`, and `history(key)` for a key). Returns the note that now
        says it, or None when the person has no live note of that id (or a plugin vetoed the text)."""
        changes = {"kind": kind, "importance": importance, "happened_at": happened_at, "source": source}
        return self.revise(subject, id, text, **changes)[1]

    async def aupdate(
        self,
        subject: str,
        id: int,
        text: str,
        *,
        kind: str | None = None,
        importance: int | None = None,
        happened_at: float | None = None,
        source: str | None = None,
    ) -> Note | None:
        changes = {"kind": kind, "importance": importance, "happened_at": happened_at, "source": source}
        return (await self.arevise(subject, id, text, **changes))[1]

    # -- forgetting ------------------------------------------------------------------------------------

    def _forget_work(self, subject: object, id: object, key: object) -> tuple[Any, ...]:
        if (id is None) == (key is None):
            raise InvalidValue("forget takes exactly one of id or key")
        if id is not None:
            count_of("id", id, low=1, high=MAX_ID)
        else:
            key = key_of(key)
        return notes.forget, self.space, subject_of(subject), id, key, self._now()

    def forget(self, subject: str, *, id: int | None = None, key: str | None = None) -> int:
        """Hide a note by id, or the live note of a key; it stays in the key's history until `purge`."""
        work = self._forget_work(subject, id, key)
        count = self.store.write(*work)
        if self._tracking:
            self.plugins.track(self, self._event("forgotten", work[2], count))
        return count

    async def aforget(self, subject: str, *, id: int | None = None, key: str | None = None) -> int:
        work = self._forget_work(subject, id, key)
        count = await self.store.awrite(*work)
        if self._tracking:
            await self.plugins.atrack(self, self._event("forgotten", work[2], count))
        return count

    def purge(self, subject: str | None = None) -> int:
        """Erase hidden and replaced notes for good (every person's when no subject is given), down to the
        bytes on disk as `erase` does (purging 50 notes: 0.8 ms before, 7-9 ms now)."""
        subject = None if subject is None else subject_of(subject)
        self.recall_log.flush()  # what waits is written first, so purge takes the notes out of it too
        return self.store.write_for_good(notes.purge, self.space, subject)

    def erase(self, subject: str) -> int:
        """ "Forget me": everything about a person, for good; returns how many notes were erased.

        For good means down to the bytes: when it returns, none of the person's text is left in the file,
        its `-wal` or its `-shm` (`Store.write_for_good`: `secure_delete`, then a truncating checkpoint).
        That costs about 8 ms more per call here (erase of one of 20 people after 4,000 notes, the file
        open: median 3.5-5.0 ms before, 11.7-12.4 ms now, at most 21 ms), and nothing measurable on other
        writes (`benchmarks/reliability.py`). `BusyError` means another connection read for longer than the
        busy timeout: the person is erased, their old pages wait in the `-wal`; erase again to wipe them."""
        subject = subject_of(subject)
        self._drop_waiting(self.store.read(notes.subject_id, self.space, subject))
        count = self.store.write_for_good(_erase, self.space, subject)
        if self._tracking:
            self.plugins.track(self, self._event("erased", subject, count))
        return count

    async def aerase(self, subject: str) -> int:
        subject = subject_of(subject)
        self._drop_waiting(await self.store.aread(notes.subject_id, self.space, subject))
        count = await self.store.awrite_for_good(_erase, self.space, subject)
        if self._tracking:
            await self.plugins.atrack(self, self._event("erased", subject, count))
        return count

    # -- reading ---------------------------------------------------------------------------------------

    def _notes_work(self, subject: object, limit: object, offset: object, **within: object) -> tuple:
        if limit is not None:
            count_of("limit", limit)
        count_of("offset", offset)
        return notes.notes, self.space, subject_of(subject), _within(**within), limit, offset

    def notes(
        self,
        subject: str,
        *,
        kinds: tuple[str, ...] | list[str] | None = None,
        key_prefix: str | None = None,
        since: float | None = None,
        until: float | None = None,
        history: bool = False,
        archived: bool | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Note]:
        """A person's live notes, newest first: only the given kinds, keys starting with `key_prefix`
        ('user.'), that happened at or after `since` and before `until` (seconds), if given; with
        `history`, replaced and forgotten notes too (`Note.live` tells them apart); `archived=True` only the
        archive (`Note.archived_at`), False only the awake notes, None both. `limit` and `offset` page
        through them."""
        work = self._notes_work(
            subject,
            limit,
            offset,
            kinds=kinds,
            key_prefix=key_prefix,
            since=since,
            until=until,
            history=history,
            archived=archived,
        )
        return self.store.read(*work)

    async def anotes(
        self,
        subject: str,
        *,
        kinds: tuple[str, ...] | list[str] | None = None,
        key_prefix: str | None = None,
        since: float | None = None,
        until: float | None = None,
        history: bool = False,
        archived: bool | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Note]:
        work = self._notes_work(
            subject,
            limit,
            offset,
            kinds=kinds,
            key_prefix=key_prefix,
            since=since,
            until=until,
            history=history,
            archived=archived,
        )
        return await self.store.aread(*work)

    def history(self, subject: str, key: str) -> list[Note]:
        """Every version of a key, replaced and forgotten ones included, oldest first."""
        normal = key_of(key)
        if normal is None:
            raise InvalidValue("history needs a key, like 'user.city'")
        return self.store.read(notes.history, self.space, subject_of(subject), normal)

    def get(self, id: int) -> Note | None:
        return self.store.read(notes.get, self.space, count_of("id", id, low=1, high=MAX_ID))

    def subjects(self) -> list[str]:
        """Everyone this companion has a live note about."""
        return self.store.read(notes.subjects, self.space)

    def recalls(self, subject: str, limit: int = 20) -> list[dict[str, Any]]:
        """What was recalled for a person lately, newest first, with what was chosen and skipped and why."""
        subject = subject_of(subject)
        count_of("limit", limit)
        self.recall_log.flush()
        return self.store.read(_recalls, self.space, subject, limit)

    def profile(self, subject: str) -> str | None:
        """The short profile card shown above the notes."""
        found = self.store.read(notes.profile, self.space, subject_of(subject))
        return found[0] if found else None

    def set_profile(self, subject: str, card: str | None) -> None:
        """Set (or, with None or blank, remove) the profile card."""
        if card is not None and not isinstance(card, str):
            raise InvalidType(f"a profile card is a string or None, not {type(card).__name__}")
        card = text.one_line(card, 1200) if card is not None else None
        self.store.write(notes.set_profile, self.space, subject_of(subject), card or None, self._now())

    # -- moving ----------------------------------------------------------------------------------------

    def export_data(self) -> dict[str, Any]:
        """This companion's memory as one JSON-ready object (every note, history included, and profiles)."""
        self.recall_log.flush()
        data = self.store.read(transfer.export, self.space, self._now())
        data["config"] = self.config.export_rows()
        return data

    def import_data(self, data: Mapping[str, Any], *, config: bool = False) -> int:
        """Bring in an export (Mneme's, or mneme-llm 0.1.0's); returns how many notes were added.

        Importing the same export twice adds nothing the second time.
        """
        rows = transfer.parse(data)
        rules = transfer.Rules(self._rules, self.mood_settings, self.relation_settings)
        added = self.store.write(transfer.bring_in, self.space, rows, self._now(), rules)
        if config:  # opt-in: prompts are instructions to models
            self.config.import_rows(mneme_llm_config.export_rows(data))
        return added


# Every Mneme not closed yet, to close at exit: the store's threads are daemons (see `store.workers`), so
# a program that never called close() exits, and this writes what it left waiting first.
_OPEN: weakref.WeakSet[Mneme] = weakref.WeakSet()


@atexit.register
def _close_left_open() -> None:
    for m in list(_OPEN):
        try:
            m._close_at_exit()
        except Exception as err:  # the exit's boundary: one file that fails must not keep the others open
            log.warning("closing %s at exit failed: %s", m.store.path, err)


RECALL = twins.Keywords(Mneme.recall)
_PROMPT = twins.Keywords(Mneme.prompt)
SAID = ("lines", "line_budget", "conversation", "shown_lines")


def _kinds(kinds: object) -> tuple[str, ...] | None:
    if kinds is None:
        return None
    if isinstance(kinds, str) or not isinstance(kinds, tuple | list):
        raise InvalidType(f"kinds are a list of kinds like ['fact', 'plan'], not {describe(kinds)}")
    wrong = [k for k in kinds if k not in KINDS]
    if wrong:
        raise InvalidValue(f"kinds are among {', '.join(KINDS)}, not {describe(wrong)}")
    return tuple(kinds)


def _erase(conn: Any, space: str, subject: str) -> int:
    """A person's lines, waiting exchanges and health-check records, then everything else about them
    (`notes.erase`)."""
    transcript.erase(conn, space, subject)
    check_records.erase(conn, space, subject)
    return notes.erase(conn, space, subject)


def _said(
    lines: object = LINES,
    line_budget: object = LINE_BUDGET,
    conversation: object = None,
    shown_lines: object = 0,
) -> dict[str, Any]:
    """A caller's limits on the transcript lines a recall quotes, checked."""
    return {
        "lines": count_of("lines", lines),
        "line_budget": count_of("line_budget", line_budget),
        "conversation": None if conversation is None else transcript.conversation_of(conversation),
        "shown_lines": count_of("shown_lines", shown_lines),
    }


def _within(
    kinds: object = None,
    since: object = None,
    until: object = None,
    key_prefix: object = None,
    history: object = False,
    archived: object = None,
) -> notes.Within:
    """A caller's filters, checked: the kinds, the times (seconds) a note happened at or after and before,
    the start of its key, and whether replaced and forgotten notes count."""
    start = None if since is None else dates.seconds(since, "since")
    end = None if until is None else dates.seconds(until, "until")
    if start is not None and end is not None and end <= start:
        raise InvalidValue(f"until ({end!r}) must come after since ({start!r})")
    if not isinstance(history, bool):
        raise InvalidType(f"history is true or false, not {describe(history)}")
    if archived is not None and not isinstance(archived, bool):
        raise InvalidType(f"archived is true, false or None, not {describe(archived)}")
    return notes.Within(
        kinds=_kinds(kinds),
        since=start,
        until=end,
        key_prefix=key_prefix_of(key_prefix),
        history=history,
        archived=archived,
    )


def _recalls(conn: Any, space: str, subject: str, limit: int) -> list[dict[str, Any]]:
    sid = notes.subject_id(conn, space, subject)
    if sid is None:
        return []
    rows = conn.execute(
        "select at, query, chosen, skipped from recalls where subject_id = ? order by id desc limit ?",
        (sid, limit),
    ).fetchall()
    return [
        {"at": at, "query": query, "chosen": json.loads(chosen), "skipped": json.loads(skipped)}
        for at, query, chosen, skipped in rows
    ]


def _with_emotions(settings: MoodSettings, registered: Mapping[str, Any]) -> MoodSettings:
    """The configured feelings, then the ones plugins registered (the config wins on a shared key)."""
    have = {e.key for e in settings.emotions}
    extra = tuple(e for key, e in registered.items() if key not in have)
    return replace(settings, emotions=(*settings.emotions, *extra)) if extra else settings


def _with_roles(settings: RelationSettings, registered: Mapping[str, Any]) -> RelationSettings:
    """The configured roles, then the ones plugins registered (the config wins on a shared key)."""
    have = {r.key for r in settings.roles}
    extra = tuple(r for key, r in registered.items() if key not in have)
    return replace(settings, roles=(*settings.roles, *extra)) if extra else settings


def _tools_with(registered: Mapping[str, Any]) -> tools.Registry:
    """The built-in tools and the ones plugins registered (`register_tools`)."""
    if not registered:
        return tools.BUILTIN
    found = tools.BUILTIN.copy()
    for tool in registered.values():
        spec = {
            "description": tool.description,
            "parameters": tool.parameters,
            "annotations": tool.annotations,
        }
        found.register(tool.name, spec, tool.handler, plugin=tool.plugin)
    return found
