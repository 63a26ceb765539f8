"""`Config`: a companion's own copy of its config, kept in its database.

The policy:
- Meeting. The first time a database meets a space with no config rows, it writes every default of this
  version (origin "default") with the file's keys over them (origin "file"), in one transaction. A space
  whose copy holds only defaults (opened before without a file, e.g. by `mneme notes`) takes the first file
  it is given the same way. Otherwise the database's copy of the companion's own keys wins, so the setup
  travels with the memory, and the file gives only its adapters' and plugins' tables; where it differs in
  the rest, one line says so (`meeting`). A file given that is gone or wrong is refused, never skipped.
- Changing. `set` (origin "set"), `apply` (a file or mapping, origin "file"), `import_rows` (origin
  "import") and `load_defaults` (origin "default"). A file is checked whole, key by key and then across keys
  with the values it would leave in effect; one bad key refuses it all and nothing is written.
- Reading. Every read takes the rows as they are now and checks them again: a stored value that no longer
  passes (a newer version tightened a rule) is not used, its default is, and `check()` lists it; a key this
  version does not know is kept and unused. A running companion reads its config when it opens the file.
- Upgrades never change a stored value by themselves: a newer default reaches a companion only through
  `load_defaults`, after `check()` has listed it.

Rows are `(space, key, value, origin, updated_at)` in the `config` table, the value JSON. Secrets are stored
as their references (`secrets.py`) and resolved only for their owner.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any

from .. import dates
from ..errors import InvalidType, InvalidValue, describe
from ..mood.feelings import Emotion
from ..mood.settings import MoodSettings
from ..relations import RelationSettings, Role
from ..store import Store
from . import keys as catalogue
from . import secrets, toml
from .keys import CROSS, KEYS, MISSING, ConfigError
from .meeting import Difference, Met, command, differences
from .views import Settings, Snapshot

log = logging.getLogger(__name__)

ORIGINS = ("default", "file", "set", "import")


@dataclass(frozen=True)
class Row:
    """A key, its value, where the value came from and when it was written (None: not stored)."""

    key: str
    value: Any
    origin: str
    updated_at: float | None


@dataclass(frozen=True)
class Report:
    """What `config check` says."""

    newer: tuple[str, ...] = ()
    """Stored defaults that this version has improved (`load_defaults()` takes them)."""
    added: tuple[str, ...] = ()
    """Keys this version added, not stored yet: the built-in default is used (`load_defaults()` stores it)."""
    invalid: dict[str, str] = field(default_factory=dict)
    """Stored values that no longer pass, with why; the default is used instead."""
    unknown: tuple[str, ...] = ()
    """Stored keys this version does not know; kept as they are, unused."""
    refused: dict[str, str] = field(default_factory=dict)
    """Stored settings of an adapter's or plugin's table that their owner refuses (its declared check, or a
    key it does not read), with why: the owner will not start with them."""

    @property
    def ok(self) -> bool:
        return not (self.newer or self.added or self.invalid or self.unknown or self.refused)


@dataclass(frozen=True)
class Imported:
    """What `import_rows` did: how many keys it wrote, and each key it skipped with why."""

    written: int
    skipped: dict[str, str]


@dataclass
class _Copy:
    """The stored rows of a space, and what they amount to."""

    rows: dict[str, tuple[Any, str, float]]
    values: dict[str, Any]
    invalid: dict[str, str]
    unknown: list[str]

    @property
    def met(self) -> bool:
        return bool(self.rows)


_BAD = object()
_warned: set[tuple[str, str]] = set()


def _load_rows(conn: sqlite3.Connection, space: str) -> dict[str, tuple[Any, str, float]]:
    found = {}
    for key, raw, origin, updated_at in conn.execute(
        "select key, value, origin, updated_at from config where space = ?", (space,)
    ):
        try:
            value = json.loads(raw)
        except (TypeError, ValueError):
            value = _BAD
        found[key] = (value, origin, updated_at)
    return found


def _copy(rows: dict[str, tuple[Any, str, float]]) -> _Copy:
    """The values in effect: defaults, under each stored value that still passes its checks."""
    values = catalogue.defaults()
    invalid: dict[str, str] = {}
    unknown: list[str] = []
    for key, (value, _, _) in rows.items():
        try:
            found = catalogue.lookup(key)
        except (InvalidValue, InvalidType):
            unknown.append(key)
            continue
        if value is _BAD:
            invalid[key] = f"{key}: the stored value is not JSON"
            continue
        try:
            values[key] = found.check(key, value)
        except (InvalidValue, InvalidType) as err:
            invalid[key] = str(err)
    defaults = catalogue.defaults()
    for cross in CROSS:
        try:
            cross.check(values)
        except (InvalidValue, InvalidType) as err:
            for key in cross.keys:
                if key in rows and values[key] != defaults[key]:
                    invalid.setdefault(key, str(err))
                values[key] = defaults[key]
    for key, why in invalid.items():
        if (key, why) not in _warned:  # once per process, not on every read
            _warned.add((key, why))
            log.warning("config %s is not used (the default is): %s", key, why)
    return _Copy(rows, values, invalid, sorted(unknown))


def _cross(values: Mapping[str, Any], changed: Iterable[str]) -> dict[str, str]:
    """The checks across keys that a change fails, with the values it would leave in effect."""
    changed = set(changed)
    for cross in CROSS:
        if changed.intersection(cross.keys):
            try:
                cross.check(values)
            except (InvalidValue, InvalidType) as err:
                return {cross.keys[0]: str(err)}  # later checks would say the same thing less clearly
    return {}


UPSERT = (
    "insert into config(space, key, value, origin, updated_at) values (?, ?, ?, ?, ?) "
    "on conflict(space, key) do update set value = excluded.value, origin = excluded.origin, "
    "updated_at = excluded.updated_at"
)


def _upsert(conn: sqlite3.Connection, space: str, key: str, value: Any, origin: str, now: float) -> None:
    conn.execute(UPSERT, (space, key, json.dumps(value, ensure_ascii=False), origin, now))


def _write(
    conn: sqlite3.Connection,
    space: str,
    changes: Mapping[str, Any],
    origin: str,
    now: float,
    name: str,
    seeding: bool = False,
) -> int:
    """Write checked values (a transaction function). A space met for the first time gets every default
    too. With `seeding`, only a space whose copy is all defaults takes the changes."""
    rows = _load_rows(conn, space)
    if seeding and any(row_origin != "default" for _, row_origin, _ in rows.values()):
        return 0
    problems = _cross({**_copy(rows).values, **changes}, changes)
    if problems:
        raise toml.refusal(name, problems) if name else ConfigError(next(iter(problems.values())), problems)
    if not rows:  # some 230 keys in one go: on PostgreSQL one pipelined round trip instead of one each
        conn.executemany(
            UPSERT,
            [
                (space, key, json.dumps(value, ensure_ascii=False), "default", now)
                for key, value in catalogue.defaults().items()
                if key not in changes
            ],
        )
    for key, value in changes.items():
        if value is MISSING:
            conn.execute("delete from config where space = ? and key = ?", (space, key))
        else:
            _upsert(conn, space, key, value, origin, now)
    return len(changes)


class Config:
    """One companion's config, over its database (`Config(store, space)`).

    `declared` (a mapping, or a function giving one when asked) holds the keys installed adapters and
    plugins read from their own tables (`register_settings`): what is written there is checked by their
    owners' checks, and `check()` lists stored values they refuse. Reading hands a table over as stored;
    its owner checks it with the same checks when it is made."""

    def __init__(
        self,
        store: Store,
        space: str,
        declared: catalogue.Declared | Callable[[], catalogue.Declared] | None = None,
    ) -> None:
        self.store = store
        self.space = space
        self._declared = declared
        self.left_out: dict[str, str] = {}
        """Keys of the last file taken that Mneme has no equivalent for (a mneme-llm config), with why."""

    @property
    def declared(self) -> catalogue.Declared:
        found = self._declared() if callable(self._declared) else self._declared
        return found if found is not None else {}

    def _now(self) -> float:
        return float(self.store.clock())

    def _copy(self) -> _Copy:
        return _copy(self.store.read(_load_rows, self.space))

    # -- meeting and changing ------------------------------------------------------------------------------

    def seed(self, source: toml.Source | None = None) -> bool:
        """`meet(source)`; True if anything was written."""
        return bool(self.meet(source))

    def meet(self, source: toml.Source | None = None) -> Met:
        """Meet a config (a TOML file's path or a mapping), given at a start. A space with no copy of its own
        yet (or only defaults) takes it whole, with the defaults under it. Otherwise (`meeting`): its
        `[adapters.*]` and `[plugins.*]` keys are taken from it, and the companion's own keys it differs in
        are named in one line, the database's copy kept. A file that is not there or not valid is refused."""
        rows = self.store.read(_load_rows, self.space)
        met = bool(rows) and any(origin != "default" for _, origin, _ in rows.values())
        if source is None:  # opened without a file: a space met for the first time stores the defaults
            if rows:
                return Met()
            self.store.write(_write, self.space, {}, "file", self._now(), "", True)
            return Met(first=True, written=True)
        self.left_out = {}
        given = toml.load(source, self.left_out, self.declared)
        name = toml.name_of(source)
        if not met:
            written = self.store.write(_write, self.space, given, "file", self._now(), name, True)
            return Met(name, first=True, written=bool(written) or not rows)
        found = differences(given, _copy(rows).values, rows)
        taken = tuple(d for d in found if d.deployment)
        kept = tuple(d for d in found if not d.deployment)
        if taken:
            changes = {d.key: d.file for d in taken}
            self.store.write(_write, self.space, changes, "file", self._now(), name)
        outcome = Met(name, taken=taken, kept=kept, written=bool(taken))
        if taken:
            log.info("%s", outcome.took())
        if kept:  # never silently unread: one line, naming the keys and what to run
            log.warning("%s", outcome.unread(command(self.store.path, self.space)))
        return outcome

    def compare(self, source: toml.Source) -> list[Difference]:
        """Where a file parts from the stored copy (`mneme config check FILE`), without writing anything."""
        rows = self.store.read(_load_rows, self.space)
        return differences(toml.load(source, {}, self.declared), _copy(rows).values, rows)

    def set(self, key: str, value: Any) -> Any:
        """Change one key (origin "set"); returns the value as stored."""
        value = catalogue.lookup(key, self.declared).check(key, value)
        self.store.write(_write, self.space, {key: value}, "set", self._now(), "")
        return value

    def apply(self, source: toml.Source, *, origin: str = "file") -> int:
        """Apply a file or mapping whole, or nothing of it; returns how many keys were written."""
        if origin not in ORIGINS:
            raise InvalidValue(f"origin is one of {', '.join(ORIGINS)}, not {describe(origin)}")
        self.left_out = {}
        changes = toml.load(source, self.left_out, self.declared)
        return self.store.write(_write, self.space, changes, origin, self._now(), toml.name_of(source))

    def load_defaults(self, keys: Iterable[str] | None = None) -> list[str]:
        """Store this version's defaults: for the keys (or sections, like `prompts`) named, else for every key
        `check()` lists as newer or added. A key without a built-in default is removed; returns the keys."""
        current = self._copy()
        if keys is None:
            report = self._report(current)
            chosen = [*report.newer, *report.added]
        else:
            chosen = self._expand(list(keys), current)
        defaults = catalogue.defaults()
        changes = {key: defaults.get(key, MISSING) for key in chosen}
        self.store.write(_write, self.space, changes, "default", self._now(), "")
        return chosen

    def _expand(self, wanted: list[str], current: _Copy) -> list[str]:
        every = [*KEYS, *(k for k in current.rows if k not in KEYS)]
        chosen: list[str] = []
        for name in wanted:
            found = [k for k in every if k == name or k.startswith(name + ".")]
            if not found:
                catalogue.lookup(name)  # names what is allowed
                raise ConfigError(f"{name}: nothing stored there to reset")
            chosen.extend(k for k in found if k not in chosen)
        return chosen

    # -- reading -------------------------------------------------------------------------------------------

    def values(self) -> dict[str, Any]:
        """Every key in effect (the built-in defaults under the stored copy), secrets as their references."""
        return self._copy().values

    def get(self, key: str, default: Any = None) -> Any:
        """One key in effect (`default` for a setting nobody gave); an unknown key is refused."""
        catalogue.lookup(key, self.declared)
        return self.values().get(key, default)

    def rows(self) -> list[Row]:
        """Every key with its origin: the stored ones, and the built-in defaults of keys not stored yet."""
        stored = self.store.read(_load_rows, self.space)
        found = [Row(k, None if v is _BAD else v, o, at) for k, (v, o, at) in stored.items()]
        found += [Row(k, v, "default", None) for k, v in catalogue.defaults().items() if k not in stored]
        return sorted(found, key=lambda row: toml.order(row.key))

    def check(self) -> Report:
        """Defaults a newer version improved, keys it added, values that no longer pass, unknown keys, and
        stored settings their adapter or plugin refuses."""
        return self._report(self._copy(), self.declared)

    @staticmethod
    def _report(current: _Copy, declared: catalogue.Declared | None = None) -> Report:
        if not current.met:
            return Report()
        defaults = catalogue.defaults()
        newer = tuple(
            key
            for key, (value, origin, _) in current.rows.items()
            if origin == "default"
            and key in defaults
            and key not in current.invalid
            and value != defaults[key]
        )
        added = tuple(key for key in defaults if key not in current.rows)
        refused = {}
        for key, (value, _, _) in current.rows.items() if declared else ():
            if key.partition(".")[0] in catalogue.FREE and value is not _BAD:
                try:
                    catalogue.lookup(key, declared).check(key, value)
                except (InvalidValue, InvalidType) as err:
                    refused[key] = str(err)
        return Report(newer, added, dict(current.invalid), tuple(current.unknown), refused)

    def to_toml(self, prefix: str = "") -> str:
        """The keys in effect under `prefix` (`mood`, `messages.zh`, `prompts.reflect`, or all) as TOML."""
        values = self.values()
        if prefix:
            values = {k: v for k, v in values.items() if k == prefix or k.startswith(prefix + ".")}
            if not values:
                catalogue.lookup(prefix)  # refuses a key that does not exist, naming what does
        return toml.dumps(values)

    # -- typed views ---------------------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """Every typed view below from one read of the stored copy (what `Mneme.__init__` wants)."""
        return Snapshot(self.values())

    def settings(self, overrides: Mapping[str, Any] | None = None) -> Settings:
        """The facade's settings; `overrides` (arguments to `Mneme`, None meaning not given) win, unstored."""
        return self.snapshot().settings(overrides)

    def mood_settings(self) -> MoodSettings:
        return self.snapshot().mood_settings()

    def relation_settings(self, zone: tzinfo | None = None) -> RelationSettings:
        """Roles, growth and fade as configured; `zone` is the companion's (`settings().zone`)."""
        return self.snapshot().relation_settings(zone)

    def roles(self) -> tuple[Role, ...]:
        return self.snapshot().roles()

    def emotions(self) -> tuple[Emotion, ...]:
        return self.snapshot().emotions()

    def prompts(self) -> dict[str, str]:
        return self.snapshot().prompts()

    def messages(self) -> dict[str, dict[str, str]]:
        """The companion's sentences by language, for `Words(language, own=config.messages())`."""
        return self.snapshot().messages()

    def zone(self) -> tzinfo | None:
        return dates.zone_of(self.values()["companion.zone"])

    def table(self, name: str, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
        """An adapter's or plugin's settings (`adapters.discord`); secrets as references unless `environ`
        (e.g. `os.environ`) is given to resolve them from. A resolved secret is the caller's alone."""
        section, _, owner = name.partition(".")
        if section not in catalogue.FREE or not catalogue.NAME.fullmatch(owner):
            raise InvalidValue(f"a settings table is adapters.<name> or plugins.<name>, not {describe(name)}")
        found = self.snapshot().table(name)
        return found if environ is None else secrets.resolve(found, environ, key=name)

    # -- moving --------------------------------------------------------------------------------------------

    def export_rows(self) -> list[dict[str, Any]]:
        """The stored copy, JSON-ready (secrets as their references), for an export."""
        stored = self.store.read(_load_rows, self.space)
        return [
            {"key": k, "value": v, "origin": o, "updated_at": at}
            for k, (v, o, at) in sorted(stored.items())
            if v is not _BAD
        ]

    def import_rows(self, rows: Iterable[Mapping[str, Any]]) -> Imported:
        """Apply an export's config (origin "import"), key by key: a key that is unknown or fails its check is
        skipped, as are keys that do not go with the rest (the mood's band); all the others are written in
        one transaction. Only when asked: prompts are instructions to the models."""
        if isinstance(rows, str | bytes | Mapping) or not isinstance(rows, Iterable):
            raise InvalidType(f"an export's config is a list of {{key, value}} objects, not {describe(rows)}")
        changes, skipped = settled(rows, self._copy().values, self.declared)
        written = self.store.write(_write, self.space, changes, "import", self._now(), "the export's config")
        for key, why in skipped.items():
            log.warning("config import skipped %s: %s", key, why)
        return Imported(written, skipped)


def settled(
    rows: Iterable[Mapping[str, Any]],
    current: Mapping[str, Any],
    declared: catalogue.Declared | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """The `{key, value}` rows that pass, key by key and then across keys with the `current` values under
    them, and each key skipped with why."""
    changes, skipped = _checked_rows(rows, declared)
    for _ in CROSS:  # each round drops the keys of one check they fail together
        problems = _cross({**current, **changes}, changes)
        for cross in CROSS:
            for key in cross.keys if cross.keys[0] in problems else ():
                if key in changes:
                    skipped[key] = problems[cross.keys[0]]
                    del changes[key]
    return changes, skipped


def write_imported(conn: sqlite3.Connection, space: str, changes: Mapping[str, Any], now: float) -> int:
    """Write `settled` changes with origin "import" (a transaction function); a space met for the first
    time gets every default too."""
    return _write(conn, space, changes, "import", now, "the imported config")


def values_of(conn: sqlite3.Connection, space: str) -> dict[str, Any]:
    """The values in effect for a space, read inside the caller's transaction."""
    return _copy(_load_rows(conn, space)).values


def _checked_rows(
    rows: Iterable[Mapping[str, Any]], declared: catalogue.Declared | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    changes: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for row in rows:
        if not isinstance(row, Mapping) or not isinstance(row.get("key"), str) or "value" not in row:
            skipped[describe(row)] = "not a {key, value} object"
            continue
        key = row["key"]
        try:
            changes[key] = catalogue.lookup(key, declared).check(key, row["value"])
        except (InvalidValue, InvalidType) as err:
            skipped[key] = str(err)
    return changes, skipped
