"""The term index rebuilt person by person when the terms' rules change (`text.version()`: an upgrade
that bumps `text.TERMS_VERSION`, or `text.use_jieba()`).

The whole index used to be rebuilt in one write transaction at open: on a file of 1,000 people x 300 notes
that was 63 s of CPU (83 s wall; 278 s on a busier machine) during which every writer of every process
waited and nothing was recalled (`benchmarks/reindex.py`). Now a change of rules only marks everyone as
waiting (`reindexing`, one row per person, migration `0017_reindexing`; one statement) and records the new
rules in `meta`; then:

- a recall (or prompt) for a person who waits rebuilds that person first, alone: their notes and their
  transcript lines (300 notes: the first recall took 33 ms, 32 ms of CPU), and answers from an index
  exactly as a full rebuild would have left it for them: every posting on the settled level, each term's
  `df` counted, the vocabulary in the order of first appearance (notes in id order);
- a background thread (`Reindexer`) rebuilds the others, at most `PEOPLE` people and `ITEMS` notes and
  lines per write transaction (a bigger person alone; two people of 300 notes: 86 ms of CPU), resting as
  long as each batch took, so the other writers get at least half of the write lock, until no one waits
  (101 s for those 1,000 people; a `remember()` meanwhile: median 2 ms, at most 154 ms).

What waits is in the file, so a process stopped midway leaves the rest waiting, and the next one to open
it resumes. Each rebuild reads who waits inside its write transaction, and writers take turns (SQLite's
lock; PostgreSQL's advisory write lock), so two processes never rebuild one person twice: the second finds
the row gone. A process whose own rules differ from the file's does not rebuild (the file's rules were
set by another process; the one that set them rebuilds).

While a person waits, writes go on as usual (a new note is indexed by the new rules, a forgotten one is
taken out by them), and may leave postings of the old rules behind; the person's rebuild starts from their
live notes and lines and replaces all of it, so what is left over is never read: a recall for them rebuilds
first. Erase takes their row with them (a trigger). The word centroids (`mneme_centroids`), which learn
by a person's term ids, start over for each person as that person is rebuilt (its `0002_reindexed`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from .. import text
from ..store.schema import LIVE
from ..transcript import index as line_index
from . import index
from .index import LINES, NOTES, Item, Postings
from .note import COLUMNS, note_of

log = logging.getLogger(__name__)

PEOPLE = 4  # people rebuilt per background write transaction, at most
ITEMS = 600  # notes and lines per background write transaction, at most (one bigger person alone)
KEYS = ("terms_version", line_index.LINES_VERSION)  # meta: the rules the notes and the lines follow
REST = 1.0  # the longest rest between two batches, seconds
DELAY = 1.0  # seconds from the open (or the change of rules) to the first background batch


def version_of(conn: Any) -> str | None:
    """The terms' rules the file's notes and lines follow (or will, once no one waits); None unless the two
    agree (a file from before the lines were indexed)."""
    found = {
        row[0] if row else None
        for key in KEYS
        for row in [conn.execute("select value from meta where key = ?", (key,)).fetchone()]
    }
    return found.pop() if len(found) == 1 else None


def waiting(conn: Any) -> int:
    """How many people wait for their index to be rebuilt."""
    return conn.execute("select count(*) from reindexing").fetchone()[0]


def state(conn: Any) -> tuple[str | None, int]:
    """The file's terms' rules (`version_of`) and how many people wait to be rebuilt by them."""
    return version_of(conn), waiting(conn)


def begin(conn: Any, version: str) -> int:
    """The terms' rules are `version` from now on: everyone waits to be rebuilt by them, unless the file
    follows them already (another process began first); returns how many wait."""
    if version_of(conn) != version:
        conn.execute("insert or ignore into reindexing(subject_id) select id from subjects")
        for key in KEYS:
            conn.execute(
                "insert into meta(key, value) values (?, ?) "
                "on conflict(key) do update set value = excluded.value",
                (key, version),
            )
    return waiting(conn)


def stale(conn: Any, space: str, subject: str) -> bool:
    """Whether this person waits for their index to be rebuilt."""
    return (
        conn.execute(
            "select 1 from reindexing r join subjects s on s.id = r.subject_id "
            "where s.space = ? and s.subject = ?",
            (space, subject),
        ).fetchone()
        is not None
    )


def person(conn: Any, space: str, subject: str, version: str) -> int:
    """Rebuild this person's index if they wait for it (by the file's rules, when they are `version`);
    returns how many notes and lines were indexed."""
    row = conn.execute(
        "select r.subject_id from reindexing r join subjects s on s.id = r.subject_id "
        "where s.space = ? and s.subject = ?",
        (space, subject),
    ).fetchone()
    if row is None or version_of(conn) != version:
        return 0
    return rebuild(conn, row[0])


def batch(conn: Any, version: str) -> list[int]:
    """Rebuild the next few people who wait: up to `PEOPLE`, stopping before their notes and lines pass
    `ITEMS` (the first is taken whatever its size); returns their subject ids (none when no one waits, or
    the file follows other rules)."""
    if version_of(conn) != version:
        return []
    people, items = PEOPLE, ITEMS
    rows = conn.execute(
        "select r.subject_id, s.live + s.lines from reindexing r join subjects s on s.id = r.subject_id "
        "order by r.subject_id limit ?",
        (people,),
    ).fetchall()
    done, size = [], 0
    for sid, count in rows:
        if done and size + count > items:
            break
        rebuild(conn, sid)
        done.append(sid)
        size += count
    return done


def rebuild(conn: Any, sid: int) -> int:
    """Index one person's live notes and their lines again by the current rules, replacing all their
    postings; returns how many notes and lines were indexed."""
    index.forget_vocabulary(conn, NOTES, sid)
    line_index.erase(conn, sid)
    notes = _notes(conn, sid)
    lines = _lines(conn, sid)
    _settled(conn, NOTES, sid, notes)
    _settled(conn, LINES, sid, lines)
    conn.execute("update subjects set lines = ? where id = ?", (len(lines), sid))
    conn.execute("delete from reindexing where subject_id = ?", (sid,))
    return len(notes) + len(lines)


def _notes(conn: Any, sid: int) -> list[Item]:
    """The person's live notes, in id order, as the index takes them (those with no terms left out)."""
    items = []
    for row in conn.execute(
        f"select {COLUMNS} from notes where subject_id = ? and {LIVE} order by id", (sid,)
    ):
        note = note_of("", row)
        terms = index.note_terms(note.text, note.key, note.gloss)
        if terms:
            carried = index.carried_of(
                note.kind, note.importance, note.feeling, note.happened_at, note.recalled_at
            )
            items.append(Item(sid, note.id, terms, carried))
    return items


def _lines(conn: Any, sid: int) -> list[Item]:
    """The person's lines (theirs addressed to the companion, and the companion's replies to those), in id
    order, as `transcript.index` takes them."""
    rows = conn.execute(
        "select l.id, l.name, l.text, l.at from lines l where l.subject_id = ? and l.addressed = 1 "
        "union all select l.id, l.name, l.text, l.at from lines r join lines l on l.reply_to = r.id "
        "where r.subject_id = ? and r.addressed = 1 and l.subject_id is null and l.addressed = 1 "
        "order by 1",
        (sid, sid),
    ).fetchall()
    items = []
    for line_id, name, said, at in rows:
        terms = line_index.line_terms(name, said)
        if terms:
            items.append(Item(sid, line_id, terms, (at, line_index.WEIGHT)))
    return items


def _settled(conn: Any, p: Postings, sid: int, items: list[Item]) -> None:
    """Write one person's items straight to the settled level of index `p`, as an import writes its own
    (`index.add_many`): the vocabulary (empty here) in order of first appearance, in one statement (one
    row at a time cost 18 ms of a 35 ms rebuild of 300 notes), then the postings in key order, each
    term's `df` counted."""
    if not items:
        return
    terms = list(dict.fromkeys(term for item in items for term in item.terms))
    made = index.added(conn, p, [(sid, term) for term in terms])
    ids = {(p.terms, sid, term): term_id for term, term_id in zip(terms, made, strict=True)}
    index._write_level(conn, p, p.settled, {item.id: item for item in items}, ids)


class Reindexer:
    """The background rebuild for one store: a daemon thread that starts `DELAY` seconds after it is asked
    (a bot's first recalls after its start rebuild their own people without waiting for a batch), then
    writes `batch` after `batch` until no one waits, resting between two as long as the last took (at
    most `REST`), so the other writers get at least half the write lock."""

    def __init__(self, store: Any, version: Callable[[], str] = text.version) -> None:
        self.store = store
        self.version = version
        self.current: set[str] = set()  # subjects this process knows are rebuilt, while some wait
        self.waiting = 0  # how many waited when last counted; 0: a recall need not ask
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._again = False  # asked to start while the thread was finding no one: it looks once more

    def start(self, waiting: int) -> None:
        """`waiting` people wait: rebuild them in the background (nothing when none does)."""
        self.waiting = waiting
        if not waiting:
            return
        with self._lock:
            self._again = True
            if self._thread is None and not self._stopped.is_set():
                self._thread = threading.Thread(target=self._run, name="mneme-reindex", daemon=True)
                self._thread.start()

    def began(self, waiting: int) -> None:
        """The rules changed in this process (`begin` was written): everyone may wait again."""
        self.current.clear()
        self.start(waiting)

    def pending(self) -> int:
        """Rebuild, now, in this thread, everyone who waits; returns how many people."""
        done = 0
        while found := self.store.write(batch, self.version()):
            done += len(found)
        self.waiting = self.store.read(waiting)
        return done

    def _run(self) -> None:
        try:
            self._stopped.wait(DELAY)
            while not self._stopped.is_set():
                with self._lock:
                    self._again = False
                began = time.monotonic()
                if self.store.write(batch, self.version()):
                    self._stopped.wait(min(REST, time.monotonic() - began))
                    continue
                self.waiting = self.store.read(waiting)
                if not self.waiting:
                    self.current.clear()  # a recall no longer asks: whom it found current is not needed
                with self._lock:
                    if not self._again:
                        self._thread = None
                        return
        except Exception:  # the background's boundary (the file closing under it, a busy file): a recall
            if not (self._stopped.is_set() or self.store.closed):  # rebuilds its own person meanwhile
                log.exception("rebuilding the term index of %s in the background failed", self.store.path)
        with self._lock:
            self._thread = None

    def stop(self) -> None:
        """End the background thread (after the batch under way: each is short)."""
        with self._lock:
            self._stopped.set()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=10.0)
