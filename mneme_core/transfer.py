"""Export to JSON and import back, from Mneme or from mneme-llm 0.1.0.

An export holds every note of the space, replaced and forgotten ones included (they are the keys'
history), with their original ids and links, and the profile cards.

Import is lenient row by row (a bad field falls back to its default, a row without text or subject is
skipped) but strict about the whole (an export is a JSON object of a known format). It is idempotent: a note
is the same note if the same person has one written at the same moment with the same text, so importing
one export twice adds nothing the second time. Links between versions of a key are remapped to the new ids,
and never cross people: a row whose `superseded_by` names another person's note (or an id two people's rows
both claim) is skipped, and the skipped rows are counted in a warning.
Among live notes the usual rules hold after an import: one live note per key (the newest wins) and no live
text twice.

A note's lifecycle travels with it (strength, stability, when it went into the archive, `memory.lifecycle`),
and so do the links between notes (`links`: by the export's note ids, remapped like `superseded_by`; a link
whose notes are not both brought in, live and one person's, is skipped).

The conversations' lines travel too (`transcript.lines`: lenient, and idempotent like the notes), and the
moods, their timelines, the relationships with their closeness over time, and the companion's journal with
whom each entry is about (see `mood.moods.import_rows`, `relations.import_rows` and `journal.import_rows`:
lenient, and idempotent like the notes). mneme-llm's export (`"mneme_llm": 1`, rows
under `memories`) is read the same way, so its users can move.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import dates, journal, relations, text
from .errors import InvalidType, InvalidValue
from .finite import finite
from .memory import index, links, notes
from .memory.note import COLUMNS, MAX_COUNT, Note, NoteFields, note_of, subject_or_none
from .mood import MoodSettings
from .mood import moods as mood_store
from .relations import RelationSettings
from .store.schema import LIVE
from .transcript import lines

log = logging.getLogger(__name__)

FORMAT = "mneme_bots"
VERSION = 1
INSERTED = (  # a new note's columns, as the importer writes them
    "subject_id, kind, key, text, importance, feeling, happened_at, created_at, recalled_at, recalls, "
    "superseded_by, deleted_at, source, gloss, fold, strength, stability"
)
WAITING = 20_000  # live notes indexed together (`_Importer.flush`): a few hundred MB at most
NOTE_FIELDS = (
    "id",
    "subject",
    "key",
    "kind",
    "text",
    "importance",
    "feeling",
    "happened_at",
    "created_at",
    "recalled_at",
    "recalls",
    "superseded_by",
    "deleted_at",
    "source",
    "gloss",
    "strength",
    "stability",
    "archived_at",
)


def export(conn: sqlite3.Connection, space: str, now: float) -> dict[str, Any]:
    """Every note and profile card of a space, JSON-ready."""
    rows = conn.execute(
        "select n.id, s.subject, n.key, n.kind, n.text, n.importance, n.feeling, n.happened_at, "
        "n.created_at, n.recalled_at, n.recalls, n.superseded_by, n.deleted_at, n.source, n.gloss, "
        "n.strength, n.stability, n.archived_at "
        "from notes n join subjects s on s.id = n.subject_id where s.space = ? order by n.id",
        (space,),
    ).fetchall()
    profiles = conn.execute(
        "select s.subject, p.text, p.updated_at from profiles p join subjects s on s.id = p.subject_id "
        "where s.space = ? order by s.id",
        (space,),
    ).fetchall()
    return {
        FORMAT: VERSION,
        "space": space,
        "exported_at": now,
        "notes": [dict(zip(NOTE_FIELDS, row, strict=True)) for row in rows],
        "profiles": [{"subject": s, "text": t, "updated_at": u} for s, t, u in profiles],
        **mood_store.export_rows(conn, space),
        "relationships": relations.export_rows(conn, space),
        "lines": lines.export_rows(conn, space),
        "links": links.export_rows(conn, space),
        "journal": journal.export_rows(conn, space),
    }


@dataclass
class Rows:
    """An export's rows, whatever format they came in."""

    notes: list[Mapping[str, Any]] = field(default_factory=list)
    profiles: list[Mapping[str, Any]] = field(default_factory=list)
    moods: list[Mapping[str, Any]] = field(default_factory=list)
    mood_events: list[Mapping[str, Any]] = field(default_factory=list)
    relationships: list[Mapping[str, Any]] = field(default_factory=list)
    lines: list[Mapping[str, Any]] = field(default_factory=list)
    links: list[Mapping[str, Any]] = field(default_factory=list)
    journal: list[Mapping[str, Any]] = field(default_factory=list)


def parse(data: object) -> Rows:
    """Check an export's shape and take its rows; refuses what is not an export at all."""
    if not isinstance(data, Mapping):
        raise InvalidType(f"an export is a JSON object, not {type(data).__name__}")
    if FORMAT in data:
        found = Rows(data.get("notes") or [], data.get("profiles") or [])
    elif "mneme_llm" in data:
        found = Rows(data.get("memories") or [], data.get("profiles") or [])
    else:
        raise InvalidValue(
            f"not an export of Mneme ('{FORMAT}') or mneme-llm ('mneme_llm'); its keys are "
            f"{', '.join(map(str, list(data)[:8])) or 'none'}"
        )
    found.moods = data.get("moods") or []
    found.mood_events = data.get("mood_events") or []
    found.relationships = data.get("relationships") or []
    found.lines = data.get("lines") or []
    found.links = data.get("links") or []
    found.journal = data.get("journal") or []
    for name in ("notes", "profiles", "moods", "mood_events", "relationships", "lines", "links", "journal"):
        rows = getattr(found, name)
        if not isinstance(rows, list) or not all(isinstance(row, Mapping) for row in rows):
            raise InvalidValue(f"an export's {name} are a list of JSON objects")
    return found


def _export_id(value: object) -> int | str | None:
    """A row's id (or the id it names) as a key: a whole number or a string; anything else names nothing."""
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None


def _moment(value: object) -> float | None:
    """`dates.seconds_or_none(value)`, answered at once for what an export holds most (a float in range, or
    None): an import reads five of them a note."""
    if value is None:
        return None
    if type(value) is float and 0.0 <= value < dates.LATEST:
        return value
    return dates.seconds_or_none(value)


def _subject(value: object, known: dict[str, str | None]) -> str | None:
    """`subject_or_none(value)`, each distinct string checked once (`known` keeps the answers)."""
    if not isinstance(value, str):
        return None
    if value not in known:
        known[value] = subject_or_none(value)
    return known[value]


def _owners(rows: list[Mapping[str, Any]], known: dict[str, str | None]) -> dict[int | str, str | None]:
    """Whose note each export id is (None for an id two people's rows both claim)."""
    owners: dict[int | str, str | None] = {}
    for row in rows:
        note_id, subject = _export_id(row.get("id")), _subject(row.get("subject"), known)
        if note_id is not None:
            owners[note_id] = subject if owners.get(note_id, subject) == subject else None
    return owners


class _Importer:
    """Brings rows into one space inside the caller's write transaction."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        space: str,
        now: float,
        owners: dict[Any, str | None],
        subjects: dict[str, str | None],
    ) -> None:
        self.conn, self.space, self.now = conn, space, now
        self.owners, self.subjects = owners, subjects
        self.crossed = 0  # rows skipped for naming another person's note as their newer version
        self.sids: dict[str, int] = {}
        self.seen: dict[int, dict[tuple[float, int], int]] = {}
        self.ids: dict[object, int] = {}
        self.links: list[tuple[int, object]] = []
        self.added = 0
        self.waiting: list[index.Item | int] = []  # live notes not indexed yet, and those replaced since
        self.indexing: set[int] = set()  # the ids of those waiting (see `flush`)
        self.folds: dict[int, set[int]] = {}  # the folds of each person's live notes (and of some others)
        self.live: dict[int, int] = {}  # live notes not counted yet, by subject id
        # In a SQLite file the new notes' ids are known before they are written (AUTOINCREMENT counts on
        # from `sqlite_sequence`), so rows wait in `unwritten` and go in together (`_write`), before any
        # statement reads the notes table: some 4x less time per note than one insert ... returning each.
        self.next_id: int | None = None
        if isinstance(conn, sqlite3.Connection):
            found = conn.execute("select seq from sqlite_sequence where name = 'notes'").fetchone()
            self.next_id = (found[0] if found else 0) + 1
        self.unwritten: list[tuple[Any, ...]] = []

    def sid(self, subject: str) -> int:
        if subject not in self.sids:
            sid = notes.subject_id_made(self.conn, self.space, subject)
            self.sids[subject] = sid
            rows = self.conn.execute(
                f"select id, created_at, fold, key, {LIVE} from notes where subject_id = ?", (sid,)
            )
            self.seen[sid], self.folds[sid] = {}, set()
            for note_id, created, fold, key, live in rows.fetchall():
                self.seen[sid][(created, fold)] = note_id
                self.seen[sid].setdefault((None, fold, key), note_id)
                if live:
                    self.folds[sid].add(fold)
        return self.sids[subject]

    def note(self, row: Mapping[str, Any]) -> None:
        subject = _subject(row.get("subject"), self.subjects)
        fields = NoteFields.lenient(dict(row))
        if subject is None or fields is None:
            return
        newer = _export_id(row.get("superseded_by"))
        if newer is not None and self.owners.get(newer, subject) != subject:
            self.crossed += 1  # one person's note is never replaced by another's
            return
        sid = self.sid(subject)
        stamped = _moment(row.get("created_at"))
        fold = notes.fold_hash(fields.text)
        if stamped is None:  # no creation time: the same text under the same key is the same note
            same = self.seen[sid].get((None, fold, fields.key))
            created = fields.happened_at if fields.happened_at is not None else self.now
        else:
            same = self.seen[sid].get((stamped, fold))
            created = stamped
        if same is not None:  # imported before, or written here at the same moment
            self._write()
            found = notes.get(self.conn, self.space, same)
            if found is not None and found.live and found.key is None:
                self._merged(sid, found, fields, created)
            self._remember_id(row, same)
            return
        deleted = _moment(row.get("deleted_at"))
        replaced = row.get("superseded_by") is not None
        live = deleted is None and not replaced
        twin = self._live_twin(subject, sid, fields, fold) if live else None
        if twin is not None and self._merged(sid, twin, fields, created):
            self._remember_id(row, twin.id)
            return
        recalled = _moment(row.get("recalled_at"))
        recalls = row.get("recalls")
        recalls = recalls if isinstance(recalls, int) and 0 <= recalls <= MAX_COUNT else 0
        note_id = self._insert(
            (
                sid,
                fields.kind or "episode",
                fields.key,
                fields.text,
                fields.importance,
                fields.feeling,
                fields.happened_at if fields.happened_at is not None else created,
                created,
                recalled,
                recalls,
                -1 if replaced else None,
                deleted,
                fields.source,
                fields.gloss,
                fold,
                *_measures(row),
            )
        )
        self._remember_id(row, note_id)
        archived = _moment(row.get("archived_at")) if live else None
        if archived is not None:  # an update, so the archive's count (a trigger) counts it
            self._write()
            self.conn.execute("update notes set archived_at = ? where id = ?", (archived, note_id))
        self.seen[sid][(created, fold)] = note_id
        self.seen[sid].setdefault((None, fold, fields.key), note_id)
        self.folds[sid].add(fold)
        self.added += 1
        if replaced:
            self.links.append((note_id, _export_id(row.get("superseded_by"))))
        if live:
            self._make_live(sid, note_id, fields, created, recalled)

    def _insert(self, values: tuple[Any, ...]) -> int:
        """A new note's row (`INSERTED`'s columns): written now, or kept in `unwritten` with its id."""
        if self.next_id is None:
            marks = ", ".join("?" * len(values))
            sql = f"insert into notes({INSERTED}) values ({marks}) returning id"
            return self.conn.execute(sql, values).fetchone()[0]
        self.unwritten.append((self.next_id, *values))
        self.next_id += 1
        return self.next_id - 1

    def _write(self) -> None:
        """Write the rows waiting in `unwritten`, before a statement reads the notes table."""
        if self.unwritten:
            marks = ", ".join("?" * len(self.unwritten[0]))
            self.conn.executemany(f"insert into notes(id, {INSERTED}) values ({marks})", self.unwritten)
            self.unwritten = []

    def _remember_id(self, row: Mapping[str, Any], note_id: int) -> None:
        """What the export's id of a row is here now; a row whose id is no id is imported, unlinkable."""
        reference = _export_id(row.get("id"))
        if reference is not None:
            self.ids[reference] = note_id

    def _live_twin(self, subject: str, sid: int, fields: NoteFields, fold: int) -> Note | None:
        """The person's live note with the same text (under a key, one with that key or none), as
        `notes.keep` would find it."""
        if fold not in self.folds[sid]:  # no live note of theirs has this fold: no statement to ask
            return None
        self._write()
        same_text = f"select {COLUMNS} from notes where subject_id = ? and fold = ? and {LIVE} order by id"
        for row in self.conn.execute(same_text, (sid, fold)).fetchall():
            found = note_of(subject, row)
            if text.fold(found.text) == text.fold(fields.text) and (
                fields.key is None or found.key in (None, fields.key)
            ):
                return found
        return None

    def _merged(self, sid: int, twin: Note, fields: NoteFields, created: float) -> bool:
        """The row is the twin's text again: True when the twin stands for it, taking the row's key if it
        had none (as `notes.keep` merges). A key whose live note is newer than the row keeps that note;
        then the row is not merged (False) and goes into the key's history instead."""
        if fields.key is None or twin.key == fields.key:
            return True
        newer = self.conn.execute(
            f"select 1 from notes where subject_id = ? and key = ? and {LIVE} and created_at > ?",
            (sid, fields.key, created),
        ).fetchone()
        if newer:
            return False
        self.flush()  # the twin's postings change: they are written first
        notes.merge(self.conn, sid, twin, fields)
        return True

    def _make_live(
        self, sid: int, note_id: int, fields: NoteFields, created: float, recalled: float | None
    ) -> None:
        if fields.key is not None:
            self._write()
            newer = self.conn.execute(
                f"select id from notes where subject_id = ? and key = ? and id != ? and {LIVE} "
                "and created_at > ?",
                (sid, fields.key, note_id, created),
            ).fetchone()
            if newer:
                self.conn.execute("update notes set superseded_by = ? where id = ?", (newer[0], note_id))
                return
        kind = fields.kind or "episode"
        happened = fields.happened_at if fields.happened_at is not None else created
        carried = index.carried_of(kind, fields.importance, fields.feeling, happened, recalled)
        terms = index.note_terms(fields.text, fields.key, fields.gloss)
        self.waiting.append(index.Item(sid, note_id, terms, carried))
        self.indexing.add(note_id)
        self.live[sid] = self.live.get(sid, 0) + 1
        if fields.key is not None:
            replaced = notes.supersede(self.conn, sid, fields.key, note_id, self._unindex)
            self.live[sid] = self.live.get(sid, 0) - replaced
        if len(self.waiting) >= WAITING:
            self.flush()

    def _unindex(
        self,
        conn: sqlite3.Connection,
        sid: int,
        note_id: int,
        note_text: str,
        key: str | None,
        gloss: str | None,
    ) -> None:
        """A live note is replaced: out of the index it goes (the waiting list's or the file's)."""
        if note_id in self.indexing:
            self.waiting.append(note_id)
        else:
            self.flush()
            index.remove(conn, sid, note_id, note_text, key, gloss)

    def flush(self) -> None:
        """Index the notes made live since the last flush (`index.add_many`), and count them live."""
        self._write()
        index.add_many(self.conn, self.waiting)
        self.waiting, self.indexing = [], set()
        self.conn.executemany(
            "update subjects set live = live + ? where id = ?", [(n, sid) for sid, n in self.live.items()]
        )
        self.live = {}

    def link(self) -> None:
        self._write()
        for note_id, old in self.links:
            self.conn.execute(
                "update notes set superseded_by = ? where id = ?", (self.ids.get(old, -1), note_id)
            )

    def profile(self, row: Mapping[str, Any]) -> None:
        subject = subject_or_none(row.get("subject"))
        card = row.get("text")
        if subject is None or not isinstance(card, str) or text.is_blank(card):
            return
        updated = dates.seconds_or_none(row.get("updated_at"))
        updated = self.now if updated is None else updated
        self.conn.execute(
            "insert into profiles(subject_id, text, updated_at) values (?, ?, ?) on conflict(subject_id) "
            "do update set text = excluded.text, updated_at = excluded.updated_at "
            "where excluded.updated_at > profiles.updated_at",
            (self.sid(subject), text.one_line(card, 1200), updated),
        )


@dataclass(frozen=True)
class Rules:
    """What an import must respect: the write rules, the mood's and the relationships' settings."""

    notes: notes.Rules
    mood: MoodSettings
    relations: RelationSettings


def bring_in(conn: sqlite3.Connection, space: str, rows: Rows, now: float, rules: Rules) -> int:
    """Import rows into a space (a write transaction function); returns how many notes were added."""
    subjects: dict[str, str | None] = {}
    importer = _Importer(conn, space, now, _owners(rows.notes, subjects), subjects)
    for row in sorted(rows.notes, key=lambda r: (_order(r.get("id")), _moment(r.get("created_at")) or 0.0)):
        importer.note(row)
    importer.flush()
    importer.link()
    links.import_rows(conn, rows.links, importer.ids)
    if importer.crossed:
        log.warning(
            "the import into %s skipped %d note(s) replaced by another person's note", space, importer.crossed
        )
    for row in rows.profiles:
        importer.profile(row)
    for sid in importer.sids.values():
        (live,) = conn.execute("select live from subjects where id = ?", (sid,)).fetchone()
        if live > rules.notes.max_notes:
            newest = conn.execute("select max(id) from notes where subject_id = ?", (sid,)).fetchone()[0]
            notes.prune(conn, sid, newest, live, now, rules.notes)
    mood_store.import_rows(conn, space, rows.moods, rows.mood_events, now, rules.mood)
    relations.import_rows(conn, space, rows.relationships, now, rules.relations)
    lines.import_rows(conn, space, rows.lines)
    journal.import_rows(conn, space, rows.journal)
    return importer.added


def _measures(row: Mapping[str, Any]) -> tuple[float, float]:
    """A new note's lifecycle from its row (`memory.lifecycle`): strength 1 to 100, stability above 0 up to
    64; anything else gets the defaults."""
    strength, stability = finite(row.get("strength")), finite(row.get("stability"))
    return (
        min(100.0, max(1.0, strength)) if strength is not None else 1.0,
        min(64.0, stability) if stability is not None and stability > 0 else 1.0,
    )


def _order(value: object) -> float:
    found = finite(value)
    return float("inf") if found is None else found
