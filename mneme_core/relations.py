"""Relationships: who each person is to the companion, and how close they are.

The host's code sets a role, never a model (a model talked into "I am your creator" must not make it so).
Each role keeps closeness (0-100) inside its band:

    role          band     starts at
    creator       80-100   100        one per space; never fades
    family        60-100   80
    friend        20-90    50
    acquaintance  0-60     20

Closeness grows by `growth` (1) on the first contact of each new local day (`seen`, after a person talks)
and fades by a point for every `fade_days` (30) without them, continuously, computed on read like the mood,
so nothing ticks. It never leaves the band as the role is configured now: a friend can grow close over the
years, but family stays family, and an acquaintance stays one until the host calls them a friend. Each
change leaves a point in the person's history (`history`: a role or closeness set, the first contact of a
day, an import), so a page can draw closeness over time; between points it fades as above.

Closeness weighs the person's words in the mood: 0.5x at 0, 1x at 50, 1.5x at 100 (1x without a role), and
the prompt opens by saying who they are: "(Leo is your creator; you are very close.)".

These are transaction functions over a `sqlite3.Connection`, like `memory.notes`. `set` and `all` follow the
product's verbs and shadow the builtins inside this module, which therefore uses neither builtin.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any

from . import dates, text
from .errors import InvalidType, InvalidValue, describe
from .memory.note import subject_of
from .memory.notes import subject_id, subject_id_made
from .messages import Words, base
from .mood.settings import number, number_or

DAY = 86400.0
KEY = re.compile(r"[a-z][a-z0-9_-]{0,39}")
NEAR = ((80, "very_close"), (60, "close"), (40, "friendly"), (20, "not_close"))
FARTHEST = "barely"
NAME_LIMIT = 80
POINTS = 400
"""How many points of a person's closeness history are kept (the newest): over a year of daily contact."""


@dataclass(frozen=True)
class Role:
    """A role with its closeness band: `Role("teacher", 40, 95, 70, names={"en": "your teacher"})`."""

    key: str
    floor: float = 0.0
    ceiling: float = 100.0
    start: float = 50.0
    fades: bool = True
    unique: bool = False
    names: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not KEY.fullmatch(self.key):
            raise InvalidValue(
                "a role's key is a lowercase word of up to 40 letters, digits, _ or -, "
                f"not {describe(self.key)}"
            )
        put = object.__setattr__
        for name in ("floor", "ceiling", "start"):
            put(self, name, number(f"{name} (of the role {self.key})", getattr(self, name), 0.0, 100.0))
        if not self.floor <= self.start <= self.ceiling:
            raise InvalidValue(
                "a role's band is 0 <= floor <= start <= ceiling <= 100; "
                f"{self.key} has floor {self.floor:g}, start {self.start:g} and ceiling {self.ceiling:g}"
            )
        for name in ("fades", "unique"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidType(f"{name} (of the role {self.key}) is True or False")
        names = self.names
        if not isinstance(names, Mapping) or any(
            not isinstance(v, str) or not text.clean(v) or "\n" in v for v in names.values()
        ):
            raise InvalidValue(
                f"names (of the role {self.key}) map a language to a one-line label, like "
                f"{{'en': 'your teacher'}}, not {describe(names)}"
            )
        put(self, "names", dict(names))

    def label(self, lang: str = "en") -> str:
        """How the role is said in a display language, then its base language, then English, then the key."""
        for name in (lang, base(lang), "en"):
            if name in self.names:
                return self.names[name]
        return self.key


ROLES: tuple[Role, ...] = (
    Role("creator", 80, 100, 100, fades=False, unique=True, names={"en": "your creator", "zh": "创造你的人"}),
    Role("family", 60, 100, 80, names={"en": "family", "zh": "你的家人"}),
    Role("friend", 20, 90, 50, names={"en": "your friend", "zh": "你的朋友"}),
    Role("acquaintance", 0, 60, 20, names={"en": "an acquaintance", "zh": "你认识的人"}),
)


@dataclass(frozen=True)
class Relationship:
    """Who a person is: their role and closeness now (fade applied), since when, last written when."""

    subject: str
    role: str
    closeness: float
    since: float
    updated_at: float


@dataclass(frozen=True)
class Closeness:
    """A point of a person's closeness over time: when, in which role, how close (as written then)."""

    at: float
    role: str
    closeness: float


@dataclass(frozen=True, kw_only=True)
class RelationSettings:
    """The roles (configured roles replace the built-in ones), growth per day, fade, and the local zone."""

    roles: tuple[Role, ...] = ROLES
    growth: float = 1.0
    fade_days: float = 30.0
    zone: tzinfo | None = None

    def __post_init__(self) -> None:
        roles = self.roles
        if isinstance(roles, str | Mapping) or not isinstance(roles, Iterable):
            raise InvalidType(f"roles is a list of Role, not {describe(roles)}")
        roles = tuple(roles)
        keys = [r.key for r in roles if isinstance(r, Role)]
        if not roles or len(keys) != len(roles):
            raise InvalidValue(f"roles is a list of at least one Role, not {describe(roles)}")
        if len(dict.fromkeys(keys)) != len(keys):
            raise InvalidValue(f"roles name each role once, not {', '.join(keys)}")
        object.__setattr__(self, "roles", roles)
        object.__setattr__(self, "growth", number("growth", self.growth, 0.0, 100.0))
        object.__setattr__(self, "fade_days", number("fade_days", self.fade_days, 0.01, 36500.0))
        if self.zone is not None and not isinstance(self.zone, tzinfo):
            raise InvalidType(f"zone is a tzinfo or None, not {describe(self.zone)}")

    def role(self, key: str) -> Role | None:
        for role in self.roles:
            if role.key == key:
                return role
        return None

    def role_of(self, key: str) -> Role:
        """The role as configured now; a stored role no longer configured gets the widest band."""
        found = self.role(key)
        if found is not None:
            return found
        return Role(key if KEY.fullmatch(key) else "unknown", 0.0, 100.0, 50.0)


def check(role: object, closeness: object, settings: RelationSettings) -> tuple[Role, float | None]:
    """The role and closeness a caller gave, or `InvalidValue` naming what is allowed (no database needed)."""
    found = settings.role(role) if isinstance(role, str) else None
    if found is None:
        keys = ", ".join(r.key for r in settings.roles)
        raise InvalidValue(f"no role {describe(role)}; the roles are {keys}")
    if closeness is None:
        return found, None
    return found, number(f"closeness for {found.key}", closeness, found.floor, found.ceiling)


def faded(role: Role, closeness: float, updated_at: float, now: float, fade_days: float) -> float:
    """Closeness `now`: a point less per `fade_days` since it was written (unless the role never fades),
    kept in the role's band. A clock that went back fades nothing."""
    if role.fades:
        closeness -= max(0.0, now - updated_at) / (fade_days * DAY)
    return min(role.ceiling, max(role.floor, closeness))


def _row(conn: sqlite3.Connection, sid: int | None) -> tuple[str, float, float, float, float | None] | None:
    if sid is None:
        return None
    return conn.execute(
        "select role, closeness, since, updated_at, last_seen from relationships where subject_id = ?", (sid,)
    ).fetchone()


def _now(subject: str, row: tuple[Any, ...], now: float, settings: RelationSettings) -> Relationship:
    role, closeness, since, updated_at, _ = row
    value = faded(settings.role_of(role), closeness, updated_at, now, settings.fade_days)
    return Relationship(subject, role, round(value, 2), since, updated_at)


def get(
    conn: sqlite3.Connection, space: str, subject: str, now: float, settings: RelationSettings
) -> Relationship | None:
    """Who a person is now, or None for someone without a role."""
    row = _row(conn, subject_id(conn, space, subject))
    return None if row is None else _now(subject, row, now, settings)


def all(conn: sqlite3.Connection, space: str, now: float, settings: RelationSettings) -> list[Relationship]:
    """Everyone with a role, closest first."""
    rows = conn.execute(
        "select s.subject, r.role, r.closeness, r.since, r.updated_at, r.last_seen from relationships r "
        "join subjects s on s.id = r.subject_id where s.space = ?",
        (space,),
    ).fetchall()
    found = [_now(row[0], row[1:], now, settings) for row in rows]
    return sorted(found, key=lambda r: (-r.closeness, r.since, r.subject))


def set(
    conn: sqlite3.Connection,
    space: str,
    subject: str,
    role: str,
    closeness: float | None,
    now: float,
    settings: RelationSettings,
) -> Relationship:
    """Give a person a role, at `closeness` or the role's start; the same role again without closeness
    changes nothing. A unique role (creator) held by someone else is refused, naming who holds it."""
    chosen, closeness = check(role, closeness, settings)
    current = _row(conn, subject_id(conn, space, subject))
    if current is not None and current[0] == chosen.key and closeness is None:
        return _now(subject, current, now, settings)
    if chosen.unique:
        holder = _holder(conn, space, chosen.key, subject)
        if holder is not None:
            raise InvalidValue(f"{holder} is already the {chosen.key}; give them another role first")
    value = chosen.start if closeness is None else closeness
    since = current[2] if current is not None else now
    sid = subject_id_made(conn, space, subject)
    conn.execute(
        "insert into relationships(subject_id, role, closeness, since, updated_at) values (?, ?, ?, ?, ?) "
        "on conflict(subject_id) do update set role = excluded.role, closeness = excluded.closeness, "
        "updated_at = excluded.updated_at",
        (sid, chosen.key, value, since, now),
    )
    _point(conn, sid, Closeness(now, chosen.key, value))
    return Relationship(subject, chosen.key, value, since, now)


def _holder(conn: sqlite3.Connection, space: str, role: str, other_than: str) -> str | None:
    row = conn.execute(
        "select s.subject from relationships r join subjects s on s.id = r.subject_id "
        "where s.space = ? and r.role = ? and s.subject != ? limit 1",
        (space, role, other_than),
    ).fetchone()
    return row[0] if row else None


def remove(conn: sqlite3.Connection, space: str, subject: str) -> bool:
    """The person no longer has a role (nor a closeness history); True if they had one."""
    sid = subject_id(conn, space, subject)
    if sid is None:
        return False
    conn.execute("delete from closeness where subject_id = ?", (sid,))
    return conn.execute("delete from relationships where subject_id = ?", (sid,)).rowcount > 0


def seen(
    conn: sqlite3.Connection, space: str, subject: str, now: float, settings: RelationSettings
) -> Relationship | None:
    """The person just talked: write the faded closeness, and grow it on their first contact of a new local
    day. A clock that went back changes nothing; a person without a role gets none."""
    sid = subject_id(conn, space, subject)
    row = _row(conn, sid)
    if row is None:
        return None
    key, closeness, since, updated_at, last_seen = row
    last = since if last_seen is None else last_seen  # the day a role is given counts as a day together
    if now < updated_at or now < last:
        return _now(subject, row, now, settings)
    role = settings.role_of(key)
    value = faded(role, closeness, updated_at, now, settings.fade_days)
    new_day = dates.day_start(now, settings.zone) > last
    if new_day:
        value = min(role.ceiling, value + settings.growth)
    conn.execute(
        "update relationships set closeness = ?, updated_at = ?, last_seen = ? where subject_id = ?",
        (value, now, now, sid),
    )
    if new_day:
        _point(conn, sid, Closeness(now, key, value))
    return Relationship(subject, key, round(value, 2), since, now)


def _point(conn: sqlite3.Connection, sid: int, point: Closeness) -> None:
    """Add a point to the person's closeness history, keeping the newest `POINTS`."""
    conn.execute(
        "insert into closeness(subject_id, at, role, closeness) values (?, ?, ?, ?)",
        (sid, point.at, point.role, point.closeness),
    )
    conn.execute(
        "delete from closeness where subject_id = ? and id <= "
        "(select id from closeness where subject_id = ? order by id desc limit 1 offset ?)",
        (sid, sid, POINTS),
    )


def history(conn: sqlite3.Connection, space: str, subject: str, limit: int = POINTS) -> list[Closeness]:
    """The person's closeness over time, oldest first: the newest `limit` points as they were written (the
    closeness now, faded, is `get`'s)."""
    sid = subject_id(conn, space, subject)
    if sid is None:
        return []
    rows = conn.execute(
        "select at, role, closeness from closeness where subject_id = ? order by id desc limit ?",
        (sid, limit),
    ).fetchall()
    return [Closeness(at, role, round(value, 2)) for at, role, value in reversed(rows)]


def weight_of(relationship: Relationship | None) -> float:
    """How much a person's words move the mood: 0.5 + closeness / 100, and 1 without a role."""
    return 1.0 if relationship is None else 0.5 + relationship.closeness / 100.0


def weight(
    conn: sqlite3.Connection, space: str, subject: str, now: float, settings: RelationSettings
) -> float:
    return weight_of(get(conn, space, subject, now, settings))


def sentence(relationship: Relationship, who: str, settings: RelationSettings, words: Words) -> str:
    """ "(Leo is your creator; you are very close.)" in the display language."""
    rounded = round(relationship.closeness)
    near = next((name for low, name in NEAR if rounded >= low), FARTHEST)
    return words.say(
        "relation.line",
        who=text.one_line(who, NAME_LIMIT),
        role=settings.role_of(relationship.role).label(words.language),
        near=words.say(f"relation.{near}"),
    )


def line(
    conn: sqlite3.Connection,
    space: str,
    subject: str,
    who: str,
    now: float,
    settings: RelationSettings,
    words: Words,
) -> str:
    """The prompt's opening line about the person, or "" for someone without a role."""
    found = get(conn, space, subject, now, settings)
    return "" if found is None else sentence(found, who, settings, words)


# -- moving ----------------------------------------------------------------------------------------------

FIELDS = ("subject", "role", "closeness", "since", "updated_at", "last_seen")


def export_rows(conn: sqlite3.Connection, space: str) -> list[dict[str, Any]]:
    """Every relationship of a space as stored (fade is applied on read, so it resumes after an import)."""
    rows = conn.execute(
        "select s.subject, r.role, r.closeness, r.since, r.updated_at, r.last_seen from relationships r "
        "join subjects s on s.id = r.subject_id where s.space = ? order by s.id",
        (space,),
    ).fetchall()
    found = [dict(zip(FIELDS, row, strict=True)) for row in rows]
    for row in found:
        row["history"] = [
            {"at": p.at, "role": p.role, "closeness": p.closeness}
            for p in history(conn, space, row["subject"])
        ]
    return found


def import_rows(
    conn: sqlite3.Connection,
    space: str,
    rows: Iterable[Mapping[str, Any]],
    now: float,
    settings: RelationSettings,
) -> int:
    """Bring in exported relationships, leniently; an imported one replaces the person's current one.

    A row without a usable subject or role is skipped, and so is a second holder of a unique role. A role
    not configured here is kept (it gets the widest band until it is). Returns how many were brought in.
    """
    count = 0
    for row in rows:
        try:
            subject = subject_of(row.get("subject"))
        except (TypeError, ValueError):
            continue
        key = row.get("role")
        if not isinstance(key, str) or not KEY.fullmatch(key):
            continue
        role = settings.role_of(key)
        closeness = number_or(row.get("closeness"), role.floor, role.ceiling, role.start)
        if role.unique and _holder(conn, space, key, subject) is not None:
            continue
        since = dates.seconds_or_none(row.get("since")) or now
        updated_at = dates.seconds_or_none(row.get("updated_at")) or since
        sid = subject_id_made(conn, space, subject)
        conn.execute(
            "insert into relationships(subject_id, role, closeness, since, updated_at, last_seen) "
            "values (?, ?, ?, ?, ?, ?) on conflict(subject_id) do update set role = excluded.role, "
            "closeness = excluded.closeness, since = excluded.since, updated_at = excluded.updated_at, "
            "last_seen = excluded.last_seen",
            (sid, key, closeness, since, updated_at, dates.seconds_or_none(row.get("last_seen"))),
        )
        for point in [*_points(row.get("history"), settings), Closeness(updated_at, key, closeness)]:
            _point_once(conn, sid, point)
        count += 1
    return count


def _points(rows: object, settings: RelationSettings) -> list[Closeness]:
    """An exported closeness history read leniently, oldest first (a point without a time or role is
    skipped; a closeness outside its role's band is brought inside it)."""
    points = []
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, Mapping):
            continue
        at, key = dates.seconds_or_none(row.get("at")), row.get("role")
        if at is None or not isinstance(key, str) or not KEY.fullmatch(key):
            continue
        role = settings.role_of(key)
        points.append(
            Closeness(at, key, number_or(row.get("closeness"), role.floor, role.ceiling, role.start))
        )
    return sorted(points, key=lambda p: p.at)


def _point_once(conn: sqlite3.Connection, sid: int, point: Closeness) -> None:
    """`_point`, unless the person's history has that point already (an import made twice adds nothing)."""
    known = conn.execute(
        "select 1 from closeness where subject_id = ? and at = ? and role = ? and abs(closeness - ?) < 0.005",
        (sid, point.at, point.role, point.closeness),
    ).fetchone()
    if known is None:
        _point(conn, sid, point)
