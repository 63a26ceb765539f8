"""The embeddings tier: placing a query among a person's notes by what it means, not only by its words.

Tiers fall through (see `fallthrough`): embeddings, then the tiers plugins add (word centroids, the
companion's own model), then words. This module is the first of them and the vectors it keeps: one that has
no embedder, cannot be reached, is too slow or answers with unusable vectors passes the query on.
`Recall.tier` names the tier that placed the query, and `report()` counts what each did.

A provider that fails (an error, a timeout, wrong dimensions) is rested for `REST` seconds: queries go
straight to the next tier meanwhile instead of waiting on it each time.

Writing vectors is off the reply's path. Every write transaction of the file tells this tier which notes
became live (one indexed lookup, see `Meaning.spot`); a background thread embeds them in batches and writes
their vectors in a transaction of its own, after the write that made them. A file opened with notes that
have no vector of this embedder yet (written before it was configured, or by another process) is caught up
by the same thread. `embed_pending()` does that work now, in the caller's thread (for tests, benchmarks and
scripts that want every note placed before they ask).

What is embedded. A recall embeds its query once (`QUERY_CACHE` keeps the vector for the next recall of
the same text; the follow-up query of `memory.hops` and the transcript's lines are matched by words and the
same vector). A transformer's time grows with the tokens (E5: some 15 ms for a 16-token question, 170 ms
for a six-line dialogue on 2 idle cores), and a dialogue so far grows with the conversation, so only its
latest `LATEST` lines are embedded, one a line (`embedded`; E5 also drops the oldest of them past its
`QUERY_TOKENS`). Measured with e5 on the retrieval benchmark's dialogue sets (recall@6 / @10; "drift 2":
each dialogue asked after the two before it, 15 lines, 191 tokens median):

| what is embedded | en | zh | en, drift 2 | zh, drift 2 |
|---|---|---|---|---|
| the whole dialogue (before) | 0.743 / 0.775 | 0.849 / 0.864 | 0.537 / 0.585 | 0.688 / 0.754 |
| the latest 6 lines, at most 80 tokens | 0.755 / 0.783 | 0.845 / 0.860 | 0.739 / 0.763 | 0.810 / 0.845 |
| the latest 4 lines (weighed whole) | 0.759 / 0.787 | 0.833 / 0.864 | 0.751 / 0.783 | 0.818 / 0.853 |
| the latest 5 lines | 0.739 / 0.771 | 0.845 / 0.860 | 0.704 / 0.743 | 0.818 / 0.849 |
| the latest 6 lines | 0.743 / 0.775 | 0.849 / 0.864 | 0.624 / 0.660 | 0.772 / 0.818 |
| the latest 6 lines, at most 96 tokens | 0.735 / 0.767 | 0.845 / 0.864 | 0.696 / 0.724 | 0.779 / 0.829 |
| the latest 4 lines, at most 64 tokens | 0.708 / 0.724 | 0.822 / 0.856 | 0.704 / 0.720 | 0.810 / 0.853 |

The tokens placed went from 70 median (111 p95) to 70 (80) on the dialogues as written, and from 191 (313)
to about 75 (80) with drift 2. The 4 lines words weigh whole gained most in English but lost Chinese a
memory in sixty at 6 (dialogue zh 4: 0.794 -> 0.761); 6 lines within 80 tokens lose 0.004 there (the same
set) and gain the rest. The questions of the conversation sets are one line: they are embedded whole, as
before. E5 keeps the last two lines whole however long (`E5Embeddings.KEPT_LINES`): a voice-to-text run-on
is often past 80 tokens alone (blind 35: 0.775 -> 0.850 @6; all the dialogue sets 0.735 -> 0.738 in
Chinese, 0.653 -> 0.656 in English, and with drift 2 0.652 -> 0.657 and 0.584 -> 0.586).

A Chinese line being answered is placed apart too (`placed_texts`), and a note is as near as it is to the
nearer of the two vectors (`Placed.similar`): a chat's latest lines mix the topic with its chatter, and the
one vector of all of them points between, where a memory the last line alone calls up ("明年五一我们去三亚
潜水吧" for "不会游泳") is not. Measured with e5 on 2026-12-04, each set's words + e5 @6 / @10, the latest
lines alone -> and the last line apart, whatever its language (the blind sets were written before any
engine ran on them):

| set | Chinese | English |
|---|---|---|
| dialogues (dev) | 0.834 / 0.846 -> 0.830 / 0.854 | 0.729 / 0.764 -> 0.715 / 0.773 |
| fresh dialogues | 0.757 / 0.814 -> 0.814 / 0.829 | |
| blind | 0.502 / 0.583 -> 0.533 / 0.590 | 0.406 / 0.504 -> 0.419 / 0.479 |
| blind 2 | 0.513 / 0.611 -> 0.558 / 0.657 | 0.600 / 0.658 -> 0.588 / 0.658 |
| blind 4 | 0.546 / 0.583 -> 0.571 / 0.608 | 0.487 / 0.537 -> 0.500 / 0.512 |
| blind 5 | 0.473 / 0.565 -> 0.498 / 0.579 | 0.500 / 0.600 -> 0.512 / 0.588 |
| blind 6 (written after) | 0.535 / 0.598 -> 0.504 / 0.604 | 0.550 / 0.637 -> 0.525 / 0.613 |

Chinese gained on every set at 10 (by 0.017 over the 625 questions) and on five of seven at 6 (by 0.015;
the sixth round, written afterwards to check the first six, lost two questions and a half at 6); English
lost at 10 on four sets of six (0.008 over 391 questions) and was level at 6. A Chinese line is dense with
what it is about; an English chat line is often chatter ("lol same"), and placed on its own it found
whatever was near chatter. So only a line mostly of an unspaced script is placed apart (more such
characters than two for each spaced word: a few English words in a Chinese line still count as Chinese,
an emoji's Chinese name does not), and English is placed as before. With `--drift 2` Chinese went
0.808 / 0.483 / 0.444 -> 0.806 / 0.542 / 0.475 @6 (dev, blind 2, blind 5), English 0.712 / 0.537 / 0.450
-> 0.715 / 0.512 / 0.463. Tried: the last two lines apart, or three (Chinese about as much, English lower:
blind 0.406 -> 0.388 @6, blind 5 0.500 -> 0.475), the nearer of the two blended half and half with the
latest lines' (lower than this in both languages), the lines before the last instead of all the latest
beside it (lower), the latest lines cut to 56 tokens beside it (English lower). It costs a Chinese dialogue a
second embedding: E5 placed blind 5's dialogues in 55 ms median (85 p95) instead of 35 (50), each text on
its own (a batch pads the short one to the long one's tokens).
A question, one line, is placed by itself alone, as before.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from .. import text
from ..store import Store
from . import calibrate, speakers
from . import vectors as store_vectors
from .embeddings import EmbeddingError, Embeddings, numpy
from .vectors import LINES, NOTES, Shelf, VectorIndex

log = logging.getLogger(__name__)

REST = 60.0
WAIT = 0.05  # gather the notes of a burst of writes into one batch
QUERY_CACHE = 256
SPEAKERS_WAIT = 0.5  # seconds a query's placing waits for its person's speakers' names (see `speakers`)
SPEAKERS_FRESH = 60.0  # seconds a person's speakers, once read, are taken as they were
LATEST = 6  # a dialogue so far's latest lines are embedded, at most this many (see `embedded`)
EMBEDDINGS, WORDS = "embeddings", "words"


def embedded(query: str, turns: tuple[str, ...] = ()) -> str:
    """What of a query is embedded: of a dialogue so far (`turns`, its lines, oldest first) its latest
    `LATEST` lines, one a line; else the whole query."""
    return "\n".join(turns[-LATEST:]) if turns else query


_WORDS = re.compile(r"[^\W\d_]+")


def placed_texts(query: str, turns: tuple[str, ...] = ()) -> list[str]:
    """The texts a query is placed by (see `embedded`), and of a dialogue so far of two lines or more whose
    latest line is mostly of an unspaced script (Chinese) that line apart too: a note is as near as it is
    to the nearer of the two (see the module docstring)."""
    texts = [embedded(query, turns)]
    if len(turns) > 1 and _unspaced_line(turns[-1]):
        texts.append(turns[-1])
    return texts


def _unspaced_line(line: str) -> bool:
    """Whether a line is mostly of an unspaced script: more of its own characters of such a script
    (`text.unspaced`) than two for each word of a spaced one (an emoji's names do not count)."""
    words = _WORDS.findall(line)
    unspaced = sum(1 for word in words for ch in word if text.unspaced(ch))
    spaced = sum(1 for word in words if not text.unspaced(word[0]))
    return unspaced > 2 * spaced


@dataclass(frozen=True)
class Placed:
    """A query placed by the embeddings tier: its vector, and where to look for the notes near it."""

    embedder_id: int
    # One vector; or a row each of the texts a dialogue so far is placed by (`placed_texts`). Not in the
    # repr: hundreds of floats took 1.5 ms to print, for a log line or a task's repr nobody reads (asyncio.run
    # made two of each sync recall's, see `decide.run`).
    vector: Any = field(repr=False)
    floor: float
    index: VectorIndex
    weight: float | None = None  # the embedder's stated weight (see `embeddings`); None: the cautious rule

    def similar(self, conn: Any, subject_id: int, shelf: Shelf = NOTES) -> tuple[Any, Any, float]:
        """(note ids, similarities, floor) of every vector the person has of this embedder (of their
        transcript lines with `shelf=LINES`); placed by several texts, each note's nearer similarity."""
        if self.vector.ndim == 1:
            return self.index.similar(conn, self.embedder_id, subject_id, self.vector, self.floor, shelf)
        ids, sims, floor = self.index.similar(
            conn, self.embedder_id, subject_id, self.vector[0], self.floor, shelf
        )
        for row in self.vector[1:]:
            sims = numpy().maximum(
                sims, self.index.similar(conn, self.embedder_id, subject_id, row, self.floor, shelf)[1]
            )
        return ids, sims, floor


def _keep(kept: OrderedDict[Any, Any], key: Any, value: Any, most: int) -> None:
    """`value` kept under `key` as the newest of `kept`, which keeps the newest `most`."""
    kept[key] = value
    kept.move_to_end(key)
    if len(kept) > most:
        kept.popitem(last=False)


def _with_top(conn: Any, texts_of: Callable[..., Any], ids: list[int], table: str) -> tuple[Any, int]:
    """`texts_of(conn, ids)` and the highest id of `table`, in one snapshot."""
    (top,) = conn.execute(f"select coalesce(max(id), 0) from {table}").fetchone()
    return texts_of(conn, ids), top


class Meaning:
    """The meaning tiers of one `Mneme`: its embedder, the vectors it keeps, and the background writer."""

    def __init__(self, store: Store, embedder: Embeddings, clock: Callable[[], float] = time.time) -> None:
        numpy()  # fail now, not on the first note, if numpy is missing
        self.store = store
        self.embedder = embedder
        self.clock = clock
        self.counts: Counter[str] = Counter()
        self._pending: set[int] = set()
        self._pending_lines: set[int] = set()  # the transcript's lines (see `vectors.LINES`)
        self._lock = threading.Lock()
        self._work_lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._seen: int = store.read(store_vectors.live_since, 1 << 62)[0]
        self._seen_line: int = store.read(store_vectors.lines_since, 1 << 62)[0]
        self._caught_up = False
        self._rested_until = 0.0
        self._index: VectorIndex | None = None
        self._eid: int | None = None
        self._floor: float | None = embedder.floor
        self._queries: OrderedDict[str, Any] = OrderedDict()
        self._names: OrderedDict[str, Any] = OrderedDict()  # speakers' names placed as queries (`speakers`)
        self._speakers: OrderedDict[tuple[str, str], tuple[float, list[str]]] = OrderedDict()
        self.loop: asyncio.AbstractEventLoop | None = None
        store.piggyback.append(self.spot)

    @property
    def name(self) -> str:
        return self.embedder.name

    @property
    def floor(self) -> float | None:
        return self._floor

    # -- the writer ---------------------------------------------------------------------------------------

    def spot(self, conn: Any) -> None:
        """Inside each write transaction: note which notes became live since the last one (cheap).

        What was in the file before this process opened it is found by the catch-up scan."""
        top, ids = store_vectors.live_since(conn, self._seen)
        self._seen = max(self._seen, top)
        last, lines = store_vectors.lines_since(conn, self._seen_line)
        self._seen_line = max(self._seen_line, last)
        if ids or lines:
            with self._lock:
                self._pending.update(ids)
                self._pending_lines.update(lines)
            self._start()

    def _start(self) -> None:
        with self._lock:
            if self._thread is None and not self._stopping:
                self._thread = threading.Thread(target=self._run, name="mneme-embed", daemon=True)
                self._thread.start()
        self._wake.set()

    def start(self) -> None:
        """Begin catching up in the background (notes without vectors of this embedder)."""
        self._start()

    def _run(self) -> None:
        while not self._stopping:
            self._wake.wait(1.0)
            self._wake.clear()
            if self._stopping:
                break
            if self.rested:
                continue
            time.sleep(WAIT)
            try:
                self.embed_pending()
            except EmbeddingError as err:
                log.warning("embedding notes with %s failed: %s", self.name, err)
            except Exception:  # a provider's own error, or the file closing under us: logged, never raised
                if self._stopping or self.store.closed:
                    break
                log.exception("embedding notes with %s failed", self.name)

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5.0)

    def embed_pending(self, limit: int | None = None) -> int:
        """Embed the notes waiting for vectors, now, in this thread; returns how many got one."""
        done = 0
        with self._work_lock:
            if not self._caught_up:
                self._catch_up()
            if self._floor is None:
                self._eid_and_dims()  # the floor the file keeps, when it has one: not measured at every start
            if self._floor is None:
                self._measure_bundled()
            for pending, shelf in ((self._pending, NOTES), (self._pending_lines, LINES)):
                while not self._stopping and (limit is None or done < limit):
                    with self._lock:
                        batch = sorted(pending)[: self.embedder.batch]
                    if not batch:
                        break
                    try:
                        written, later = self._embed(batch, shelf)
                    except EmbeddingError:
                        self._failed("wrong")
                        raise
                    except Exception:
                        self._failed("failed")
                        raise
                    done += written
                    with self._lock:
                        pending.difference_update(set(batch) - set(later))
                    if later:
                        break  # their writes are not committed yet: a later round takes them
            self._refine_floor()
        return done

    def again(self, ids: list[int]) -> None:
        """Notes live again (a health-check fix undone) lost their vectors when they left: embed them anew."""
        with self._lock:
            self._pending.update(ids)
        self._start()

    @property
    def pending(self) -> int:
        return len(self._pending) + len(self._pending_lines)

    def _catch_up(self) -> None:
        for find, pending in (
            (store_vectors.unembedded, self._pending),
            (store_vectors.unembedded_lines, self._pending_lines),
        ):
            after = 0
            while True:
                ids = self.store.read(find, self.name, after, 5000)
                if not ids:
                    break
                with self._lock:
                    pending.update(ids)
                after = ids[-1]
        self._caught_up = True

    def _embed(self, batch: list[int], shelf: Shelf = NOTES) -> tuple[int, list[int]]:
        """Embed and store a batch; returns how many were written, and the ids above the highest this
        read could see: `spot` names them inside the write that made them, so the thread may read before
        that write commits (ids grow in commit order, so those are exactly the ones not there yet)."""
        texts_of = store_vectors.texts_of if shelf is NOTES else store_vectors.line_texts_of
        table = "notes" if shelf is NOTES else "lines"
        rows, top = self.store.read(_with_top, texts_of, batch, table)
        later = [item for item in batch if item > top]
        if not rows:
            return 0, later
        vectors = self.embedder.embed_sync([text for _id, _sid, text in rows], self.loop)
        blobs = [
            (note_id, sid, vector.astype("<f4").tobytes())
            for (note_id, sid, _text), vector in zip(rows, vectors, strict=True)
        ]
        written = self.store.write(
            store_vectors.store_vectors, self.name, blobs, int(vectors.shape[1]), self.clock(), shelf
        )
        self.counts["embedded"] += written
        return written, later

    def _measure_bundled(self) -> None:
        vectors = self.embedder.embed_sync(calibrate.texts(), self.loop)
        self._floor = calibrate.bundled_floor(vectors)
        self.counts["calibrated"] += 1
        log.info("floor of %s measured on the bundled set: %.3f", self.name, self._floor)

    def _refine_floor(self) -> None:
        """Measure the floor from the file's own notes at FILE_MIN vectors and at each doubling."""
        if self.embedder.floor is not None:
            return
        found = self.store.read(store_vectors.embedder_id, self.name)
        if found is None:
            return
        eid, _dims, stored, measured_at = found
        total = self.store.read(store_vectors.count, eid)
        if stored is not None and total < max(calibrate.FILE_MIN, 2 * measured_at):
            self._floor = stored if measured_at else (self._floor or stored)
            return
        around = self._floor if self._floor is not None else calibrate.DEFAULT
        if total >= calibrate.FILE_MIN:
            np = numpy()
            blobs = self.store.read(store_vectors.sample, eid, calibrate.SAMPLE)
            matrix = np.stack([np.frombuffer(b, dtype="<f4") for b in blobs])
            self._floor = calibrate.file_floor(matrix, around)
            self.store.write(store_vectors.set_floor, eid, self._floor, total)
            log.info(
                "floor of %s measured on %d of the file's notes: %.3f", self.name, len(blobs), self._floor
            )
        elif stored is None:
            self.store.write(store_vectors.set_floor, eid, around, 0)

    def _failed(self, what: str) -> None:
        self.counts[what] += 1
        self._rested_until = time.monotonic() + REST

    # -- placing a query ---------------------------------------------------------------------------------

    @property
    def rested(self) -> bool:
        return time.monotonic() < self._rested_until

    async def place(
        self, query: str, turns: tuple[str, ...] = (), space: str | None = None, subject: str | None = None
    ) -> Placed | None:
        """The query's vector and where to look, or None when this tier passes the query on; of a dialogue
        so far (`turns`, its lines) only the latest lines are embedded (see `embedded`). Whose query it is
        (`space`, `subject`) says whose speakers' names it may name (see `speakers`)."""
        if not query.strip():
            return None
        texts = placed_texts(query, turns)
        query = texts[0]
        if self.rested:
            self.counts["rested"] += 1
            return None
        try:
            self.loop = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None
        placed = await self._placed(query, texts)
        if placed is None or space is None or subject is None:
            return placed
        return await self._unnamed(placed, texts, space, subject)

    async def _unnamed(self, placed: Placed, texts: list[str], space: str, subject: str) -> Placed:
        """The query placed with the direction of the speakers' names it names partly taken out (see
        `speakers`); as it was when none is named, or when their names or vectors cannot be had in time."""
        try:
            said = speakers.named("\n".join(texts), await self._speakers_of(space, subject))
            missing = [name for name in said if name not in self._names]
            if missing:  # a name is placed as a query of its own
                for name, vector in zip(missing, await self.embedder.embed(missing), strict=True):
                    _keep(self._names, name, vector, speakers.CACHE)
        except Exception as err:  # a slow read, a closing file, a failed embedder: placed as it was
            log.debug("the speakers' names of a query were left in: %s", err)
            return placed
        vectors = [self._names[name] for name in said if name in self._names]
        return (
            replace(placed, vector=speakers.unnamed(placed.vector, vectors, speakers.SHARE))
            if vectors
            else placed
        )

    async def _speakers_of(self, space: str, subject: str) -> list[str]:
        """A person's speakers (`speakers.of_person`), read at most once in `SPEAKERS_FRESH` seconds.

        A read is a hop to a reader thread while E5's threads work, or just after, when they still spin on
        both cores: reading for every query added 0.2-0.4 ms to a recall's median and 1.6-2.8 ms to its
        p95 (blind 18 and 22, each question with and without the lean in turn, the query's vector not
        kept); read once a minute, -0.9 to +0.8 ms, as much as between two runs. A person's speakers seldom
        change."""
        key, now = (space, subject), time.monotonic()
        kept = self._speakers.get(key)
        if kept is not None and now - kept[0] < SPEAKERS_FRESH:
            return kept[1]
        names = await asyncio.wait_for(self.store.aread(speakers.of_person, space, subject), SPEAKERS_WAIT)
        _keep(self._speakers, key, (now, names), speakers.CACHE)
        return names

    async def _placed(self, query: str, texts: list[str]) -> Placed | None:
        vector = self._queries.get(query)
        if vector is None:
            try:
                vectors = await self.embedder.embed(texts)
                vector = vectors[0] if len(texts) == 1 else vectors
            except EmbeddingError as err:
                kind = "slow" if "longer than" in str(err) else "wrong"
                log.warning("placing a query with %s: %s", self.name, err)
                self._failed(kind)
                return None
            except Exception as err:  # the provider's own failure (network, model): fall through to words
                log.warning("placing a query with %s failed: %s", self.name, err)
                self._failed("failed")
                return None
            _keep(self._queries, query, vector, QUERY_CACHE)
        else:
            self._queries.move_to_end(query)
        found = self._eid_and_dims()
        if found is None:
            return None  # nothing embedded yet: words place it
        eid, dims = found
        if dims != vector.shape[-1]:
            log.warning("%s gives %d dimensions; the file holds %d for it", self.name, vector.shape[-1], dims)
            self._failed("wrong")
            return None
        floor = self._floor if self._floor is not None else calibrate.DEFAULT
        return Placed(eid, vector, floor, self._index_of(dims), self.embedder.weight)

    def _index_of(self, dims: int) -> VectorIndex:
        """Where the vectors are searched: in memory, or by a server that searches its own (a store with
        `vector_index`: PostgreSQL with pgvector)."""
        if self._index is None or self._index.dimensions != dims:
            made = getattr(self.store, "vector_index", VectorIndex)
            self._index = made(dims)
        return self._index

    def _eid_and_dims(self) -> tuple[int, int] | None:
        if self._eid is None:
            found = self.store.read(store_vectors.embedder_id, self.name)
            if found is None:
                return None
            self._eid, self._dims = found[0], found[1]
            if self._floor is None and found[2] is not None:
                self._floor = found[2]
        return self._eid, self._dims

    def drop(self, subject_id: int) -> None:
        """A person is being erased: their vectors leave memory too (the file's go with their notes), and
        so do the speakers kept (`_speakers_of`), their names' vectors and the queries' vectors: kept by
        text, not by person, so all of them (each costs one read or one embedding again)."""
        if self._index is not None:
            self._index.drop(subject_id)
        for kept in (self._speakers, self._names, self._queries):
            kept.clear()

    def embedder_in_file(self) -> tuple[int, int] | None:
        """(id, dimensions) of this embedder in the file, once the file has vectors of it."""
        return self._eid_and_dims()

    def placed_at(self, vector: Any) -> Placed | None:
        """`vector` placed among this embedder's vectors (None before the file has any, or when its
        dimensions differ): how another vector tier, such as word centroids, searches the same notes."""
        found = self._eid_and_dims()
        if found is None or found[1] != numpy().shape(vector)[-1]:  # a vector, or a row each (`Placed`)
            return None
        eid, dims = found
        floor = self._floor if self._floor is not None else calibrate.DEFAULT
        return Placed(eid, vector, floor, self._index_of(dims))

    def report(self) -> dict[str, Any]:
        """What failed, and the state of the vectors (the fall-through adds what each tier placed)."""
        c = self.counts
        return {
            "embedder": self.name,
            "failed": c["failed"],
            "slow": c["slow"],
            "wrong": c["wrong"],
            "rested": c["rested"],
            "embedded": c["embedded"],
            "pending": self.pending,
            "floor": self._floor,
        }
