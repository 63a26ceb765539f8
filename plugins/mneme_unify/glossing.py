"""Glossing: each note in another script than the memory language's is written once more in it, by the
companion's own model, in the background, into `notes.gloss`, which the term index finds as words.

Notes are taken in id order above a mark kept per memory language (`unify_marks`); notes already in the
memory language's script, or glossed by whoever wrote them, are passed over without a model call. The others
go to the model `batch` at a time, one numbered line each, as data. What comes back numbered is kept; a
batch the model fails on (no usable answer for some of its notes) is halved and tried again, so one note the
model chokes on does not cost its neighbours their glosses; a note that fails alone `TRIES` times keeps its
own text (no gloss) and the mark moves past it. A model that raises or times out ends the pass: the mark
stays where it was and the next pass (after the rest) starts there.

Each function taking a `conn` is a transaction function (see `mneme_core.store`).
"""

from __future__ import annotations

import logging
import re
import sqlite3
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from mneme_core import text
from mneme_core.memory import index
from mneme_core.memory.note import COLUMNS, note_of
from mneme_core.store.schema import LIVE

from .scripts import needs_translating
from .settings import BATCH

log = logging.getLogger(__name__)

TRIES = 3
SCAN = 256  # notes looked at in one pass
CALLS = 8  # model calls in one pass at most
GLOSS_LIMIT = 600
NOTE_LIMIT = 600
_NUMBERED = re.compile(r"^\s*(\d+)\s*[.):]\s*(.+?)\s*$")


def mark(conn: sqlite3.Connection, language: str) -> int:
    row = conn.execute("select upto from unify_marks where language = ?", (language,)).fetchone()
    return row[0] if row else 0


def candidates(conn: sqlite3.Connection, language: str, limit: int) -> tuple[int, list[tuple[int, str]]]:
    """The mark, and the live notes above it without a gloss, oldest first."""
    upto = mark(conn, language)
    rows = conn.execute(
        f"select id, text from notes where id > ? and {LIVE} and gloss is null order by id limit ?",
        (upto, limit),
    ).fetchall()
    return upto, rows


def write_glosses(conn: sqlite3.Connection, language: str, glosses: dict[int, str], upto: int) -> int:
    """Write each gloss to its note if it is still live and unglossed, indexed again as words (as a merged
    note is); move the mark to `upto`. Returns how many notes took a gloss."""
    written = 0
    for note_id, gloss in glosses.items():
        row = conn.execute(
            f"select subject_id, {COLUMNS} from notes where id = ? and {LIVE} and gloss is null", (note_id,)
        ).fetchone()
        if row is None:
            continue
        sid, note = row[0], note_of("", row[1:])
        conn.execute("update notes set gloss = ? where id = ?", (gloss, note_id))
        index.remove(conn, sid, note.id, note.text, note.key, None)
        index.add(conn, sid, replace(note, gloss=gloss))
        written += 1
    conn.execute(
        "insert into unify_marks(language, upto) values (?, ?) "
        "on conflict(language) do update set upto = max(unify_marks.upto, excluded.upto)",
        (language, upto),
    )
    return written


def numbered(notes: list[tuple[int, str]]) -> str:
    """The user message: one note per numbered line, each cleaned to one line (data, not instructions)."""
    return "\n".join(f"{i}. {text.one_line(body, NOTE_LIMIT)}" for i, (_id, body) in enumerate(notes, 1))


def answers(reply: str, count: int) -> dict[int, str]:
    """The numbered lines of a reply, by number (1 to `count`), each one clean line; the rest ignored."""
    found: dict[int, str] = {}
    for line in reply.splitlines():
        match = _NUMBERED.match(line)
        if match and 1 <= int(match.group(1)) <= count:
            said = text.one_line(match.group(2), GLOSS_LIMIT)
            if said and not text.is_blank(said):
                found.setdefault(int(match.group(1)), said)
    return found


@dataclass
class Pass:
    """What one pass settled: glosses by note id, notes given up on, and whether the model failed."""

    glosses: dict[int, str]
    given_up: set[int]
    stopped: bool = False


class Glosser:
    """Passes over the notes waiting for a gloss; `ask(system, user) -> reply` is the model (may raise)."""

    def __init__(self, scripts: frozenset[str], system: str, *, batch: int = BATCH) -> None:
        self.scripts = scripts
        self.system = system
        self.batch = batch
        self.failures: Counter[int] = Counter()
        self.counts: Counter[str] = Counter()

    def needs(self, body: str) -> bool:
        return needs_translating(body, self.scripts)

    def settle(self, notes: list[tuple[int, str]], ask: Callable[[str, str], str]) -> Pass:
        """Gloss `notes` (those that need it), halving batches the model fails on (see the docstring)."""
        done = Pass({}, set())
        waiting = [notes[i : i + self.batch] for i in range(0, len(notes), self.batch)]
        calls = 0
        while waiting and calls < CALLS:
            batch = waiting.pop(0)
            calls += 1
            try:
                got = answers(ask(self.system, numbered(batch)), len(batch))
            except Exception as err:  # the model's own failure: end the pass, try again after the rest
                log.warning("glossing %d notes failed: %s: %s", len(batch), type(err).__name__, err)
                self.counts["failed"] += 1
                done.stopped = True
                return done
            for i, (note_id, _body) in enumerate(batch, 1):
                if i in got:
                    done.glosses[note_id] = got[i]
                    self.failures.pop(note_id, None)
            missed = [note for i, note in enumerate(batch, 1) if i not in got]
            if len(missed) > 1:
                half = (len(missed) + 1) // 2
                waiting[:0] = [missed[:half], missed[half:]]
            elif missed:
                self._missed(missed[0][0], done)
        self.counts["glossed"] += len(done.glosses)
        done.stopped = done.stopped or bool(waiting)
        return done

    def _missed(self, note_id: int, done: Pass) -> None:
        self.failures[note_id] += 1
        if self.failures[note_id] >= TRIES:
            log.info("note %d could not be glossed %d times; it keeps its own text", note_id, TRIES)
            del self.failures[note_id]
            done.given_up.add(note_id)
            self.counts["kept own text"] += 1


def new_mark(upto: int, looked_at: list[int], settled: set[int]) -> int:
    """The highest id such that every note looked at up to it is settled (the mark never skips a note that
    is still to be tried)."""
    for note_id in looked_at:
        if note_id not in settled:
            return upto
        upto = note_id
    return upto
