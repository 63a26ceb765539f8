"""Days the way people say them, in the companion's time zone.

The claim: a language model should never do date arithmetic. A note stamped 1732950000 or even 2026-11-29 asks
the model to work out how long ago that was, which it does badly; "yesterday" or "last year 09-17" does not.
So every date that reaches a prompt goes through `when`, which says the day of a moment as seen from now.

Glossary:
    zone       a `datetime.tzinfo`, or None for the machine's local time. The companion's zone, not the
               server's: "yesterday" is the user's yesterday. `zone_of` turns a config string into one.
    timestamp  float seconds since the epoch (never milliseconds: `seconds` checks values from callers).
    day        a calendar day in the zone. Differences are counted in calendar days, not 24-hour periods:
               a note from 23:59 last night is "yesterday" at 00:01, two minutes later.
    noon       a day given without a time (a plan, a birthday) is stored as noon of that day in the zone,
               the moment furthest from either midnight, so small zone changes do not move it to another day.

The policy for `when` (calendar-day difference, `d`):
    d = 0 today; 1 ago yesterday; 2-6 ago "N days ago"; 1 ahead tomorrow; 2 ahead the day after tomorrow;
    3-6 ahead "in N days". Further away the day is written as MM-DD in the same year, "last year MM-DD" /
    "next year MM-DD" for the neighbouring calendar years, and YYYY-MM-DD beyond. The near rules win over the
    year rules: Dec 30 seen from Jan 2 is "3 days ago". Chinese forms for any "zh" language tag, English for
    everything else.

`find` reads a day out of free text (a note writer's plan, a user's message): a full date with a year wins;
otherwise a month and day without a year means the nearest such day (or, for plans, the next one from today).
`day_start` gives local midnight for daily quotas and builds it from the zone's wall clock, so it stays right
on the days daylight saving time begins or ends.
"""

from __future__ import annotations

import math
import numbers
import re
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import InvalidType, InvalidValue

__all__ = [
    "LATEST",
    "WRITTEN",
    "DateError",
    "day_start",
    "day_written",
    "find",
    "local",
    "nearest_day",
    "noon",
    "seconds",
    "stamp",
    "when",
    "zone_of",
]

LATEST = 32503680000.0
"""3000-01-01T00:00:00Z: timestamps from callers must be in [0, LATEST)."""

MAX_OFFSET = timedelta(hours=14)

_WORDS = {
    "en": {
        "today": "today",
        "yesterday": "yesterday",
        "ago": "{n} days ago",
        "tomorrow": "tomorrow",
        "after": "the day after tomorrow",
        "ahead": "in {n} days",
        "last_year": "last year {md}",
        "next_year": "next year {md}",
    },
    "zh": {
        "today": "今天",
        "yesterday": "昨天",
        "ago": "{n}天前",
        "tomorrow": "明天",
        "after": "后天",
        "ahead": "{n}天后",
        "last_year": "去年 {md}",
        "next_year": "明年 {md}",
    },
}

_OFFSET = re.compile(r"UTC(?:([+-])(\d{1,2})(?::(\d{2}))?)?", re.IGNORECASE)

_MONTHS = {
    "jan": 1,
    "january": 1,
    "feb": 2,
    "february": 2,
    "mar": 3,
    "march": 3,
    "apr": 4,
    "april": 4,
    "may": 5,
    "jun": 6,
    "june": 6,
    "jul": 7,
    "july": 7,
    "aug": 8,
    "august": 8,
    "sep": 9,
    "sept": 9,
    "september": 9,
    "oct": 10,
    "october": 10,
    "nov": 11,
    "november": 11,
    "dec": 12,
    "december": 12,
}
_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_YEAR = r"(?:,?\s+(?P<year>\d{4})(?!\d))?"

# A date glued to more digits ("12345-01-01", "2025-01-011") is not a date, hence the digit look-arounds.
_NUMERIC = re.compile(
    r"(?<!\d)(?P<year>\d{4})(?:(?P<sep>[-/])(?P<month>\d{1,2})(?P=sep)(?P<day>\d{1,2})(?!\d)"
    r"|\s*年\s*(?P<zh_month>\d{1,2})\s*月\s*(?P<zh_day>\d{1,2})\s*[日号])"
)
_ZH_SHORT = re.compile(r"(?<!\d)(?<!\d年)(?P<month>\d{1,2})\s*月\s*(?P<day>\d{1,2})\s*[日号]")
_EN_MONTH_DAY = re.compile(
    rf"\b(?P<name>{_NAMES})\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b{_YEAR}", re.IGNORECASE
)
_EN_DAY_MONTH = re.compile(
    rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<name>{_NAMES})\b\.?{_YEAR}", re.IGNORECASE
)


WRITTEN = (_NUMERIC, _EN_MONTH_DAY, _EN_DAY_MONTH)
"""The ways of writing a day that read alike in any language's text (digits, English month names);
`day_written` reads a match."""


class DateError(InvalidValue):
    """A zone name, day or time that is not one: the message names the value and what is allowed."""


def zone_of(name: str) -> tzinfo | None:
    """The zone a config string names: "" is the machine's, "UTC" or "UTC+8" / "UTC-5:30" a fixed offset
    (at most 14 hours), anything else an IANA name such as "Asia/Shanghai"."""
    if not isinstance(name, str):
        raise InvalidType(f"a time zone is given as a string, not {type(name).__name__} ({name!r})")
    if name == "":
        return None
    offset = _OFFSET.fullmatch(name)
    if offset:
        return _fixed(name, *offset.groups())
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as err:
        raise DateError(
            f'zone {name!r} is not a time zone: use "" for the machine\'s, "UTC+8" or an IANA name like '
            '"Asia/Shanghai"'
        ) from err


def _fixed(name: str, sign: str | None, hours: str | None, minutes: str | None) -> timezone:
    if sign is None:
        return UTC
    if minutes is not None and int(minutes) >= 60:
        raise DateError(f"zone {name!r} is not a time zone: the minutes of an offset go from 00 to 59")
    offset = timedelta(hours=int(hours), minutes=int(minutes or 0))
    if offset > MAX_OFFSET:
        raise DateError(f"zone {name!r} is not a time zone: offsets go from UTC-14 to UTC+14")
    return timezone(-offset if sign == "-" else offset)


def local(ts: float, zone: tzinfo | None = None) -> datetime:
    """The aware datetime of a timestamp in the zone (None: the machine's local time)."""
    if zone is None:
        return datetime.fromtimestamp(ts, UTC).astimezone()
    return datetime.fromtimestamp(ts, zone)


def when(ts: float, now: float, zone: tzinfo | None = None, lang: str = "en") -> str:
    """How people say the day of `ts` seen from `now`: "today", "3 days ago", "next year 02-01", "昨天"..."""
    words = _WORDS[_language(lang)]
    day = local(ts, zone).date()
    today = local(now, zone).date()
    diff = (day - today).days
    if diff == 0:
        return words["today"]
    if diff == -1:
        return words["yesterday"]
    if -6 <= diff <= -2:
        return words["ago"].format(n=-diff)
    if diff == 1:
        return words["tomorrow"]
    if diff == 2:
        return words["after"]
    if 3 <= diff <= 6:
        return words["ahead"].format(n=diff)
    month_day = f"{day.month:02d}-{day.day:02d}"
    if day.year == today.year:
        return month_day
    if day.year == today.year - 1:
        return words["last_year"].format(md=month_day)
    if day.year == today.year + 1:
        return words["next_year"].format(md=month_day)
    return f"{day.year:04d}-{month_day}"


def _language(lang: str | None) -> str:
    primary = re.split(r"[-_]", (lang or "").strip().lower(), maxsplit=1)[0]
    return primary if primary in _WORDS else "en"


def find(text: str, now: float, zone: tzinfo | None = None, *, ahead: bool = False) -> float | None:
    """Noon (in the zone) of the first day written in `text`, or None.

    A date with a year (2026-09-17, 2026/9/17, 2026年9月17日, September 17, 2026) wins over one without; among
    either kind the first in the text that is a real day counts. A day without a year (9月17日, 9月17号,
    Sept 17, 17 September) is the nearest such day to `now`, or with `ahead` the first one from today on.
    """
    if not text:
        return None
    for _, year, month, day in _dated(text):
        ts = _noon_of(year, month, day, zone)
        if ts is not None:
            return ts
    today = local(now, zone).date()
    for _, month, day in _undated(text):
        found = _next_day(month, day, today) if ahead else nearest_day(month, day, today)
        ts = _noon_of(found.year, found.month, found.day, zone) if found else None
        if ts is not None:
            return ts
    return None


def _parts(match: re.Match[str]) -> tuple[int | None, int, int]:
    """(year or None, month, day) of a match of one of `WRITTEN`."""
    groups = match.groupdict()
    if groups.get("name"):
        month = _MONTHS[groups["name"].lower()]
    else:
        month = int(groups.get("month") or groups["zh_month"])
    day = int(groups.get("day") or groups["zh_day"])
    return (int(groups["year"]) if groups["year"] else None), month, day


def _dated(text: str) -> list[tuple[int, int, int, int]]:
    """(position, year, month, day) of every date written with a year, in text order."""
    found = []
    for pattern in WRITTEN:
        for match in pattern.finditer(text):
            year, month, day = _parts(match)
            if year is not None:
                found.append((match.start(), year, month, day))
    return sorted(found)


def _undated(text: str) -> list[tuple[int, int, int]]:
    """(position, month, day) of every month and day written without a year, in text order."""
    found = [(m.start(), int(m["month"]), int(m["day"])) for m in _ZH_SHORT.finditer(text)]
    for pattern in (_EN_MONTH_DAY, _EN_DAY_MONTH):
        for match in pattern.finditer(text):
            year, month, day = _parts(match)
            if year is None:
                found.append((match.start(), month, day))
    return sorted(found)


def day_written(match: re.Match[str], today: date) -> date | None:
    """The day a match of one of `WRITTEN` names: with its year, that day (None if there is no such day);
    without, the nearest such day to `today` (`nearest_day`)."""
    year, month, day = _parts(match)
    return _day(year, month, day) if year is not None else nearest_day(month, day, today)


def _day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def nearest_day(month: int, day: int, today: date) -> date | None:
    """The day of this month and day nearest to `today` (a tie goes to the coming one), or None if none is."""
    # Nine years around today so that 2月29日 still finds a leap year; a tie goes to the coming day.
    days = [d for year in range(today.year - 4, today.year + 5) if (d := _day(year, month, day))]
    if not days:
        return None
    return min(days, key=lambda d: (abs((d - today).days), d < today))


def _next_day(month: int, day: int, today: date) -> date | None:
    for year in range(today.year, today.year + 9):
        found = _day(year, month, day)
        if found and found >= today:
            return found
    return None


def noon(day: str, zone: tzinfo | None = None) -> float | None:
    """Noon of a "YYYY-MM-DD" day in the zone, or None when `day` is not such a day (or its noon falls
    outside 1970 to the year 3000)."""
    if not isinstance(day, str):
        return None
    match = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", day.strip())
    if not match:
        return None
    return _noon_of(*map(int, match.groups()), zone)


def _noon_of(year: int, month: int, day: int, zone: tzinfo | None) -> float | None:
    # 1969-12-31 is kept: its noon west of UTC-12 is already 1970 in UTC.
    if not 1969 <= year <= 2999 or _day(year, month, day) is None:
        return None
    try:
        ts = datetime(year, month, day, 12, tzinfo=zone).timestamp()
    except (OverflowError, OSError, ValueError):  # the platform's mktime may refuse far-off local times
        return None
    return ts if 0 <= ts < LATEST else None


def seconds(value: object, what: str = "happened_at") -> float:
    """`value` as a float timestamp, refusing what is not seconds between 1970 and the year 3000."""
    allowed = f"{what} is a time in seconds between 1970 and the year 3000"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidType(f"{allowed}, not {type(value).__name__} ({value!r})")
    try:
        ts = float(value)
    except OverflowError:
        ts = math.inf
    if math.isfinite(ts) and 0 <= ts < LATEST:
        return ts
    hint = " (was it milliseconds?)" if math.isfinite(ts) and 0 <= ts / 1000 < LATEST else ""
    raise DateError(f"{allowed}, not {value!r}{hint}")


def seconds_or_none(value: object) -> float | None:
    """A time read leniently (from an import): `seconds(value)`, or None when it is not one."""
    try:
        return seconds(value)
    except (TypeError, ValueError):
        return None


def day_start(now: float, zone: tzinfo | None = None) -> float:
    """The timestamp of the local midnight that starts the day of `now`.

    Midnight is built on the zone's wall clock and converted, never `now` minus the hours since midnight, so
    the day a clock springs forward is 23 hours long and the day it falls back 25. Where midnight is skipped
    (clocks jump from 00:00 to 01:00), the day starts at the jump; where it happens twice, at the first one.
    """
    today = local(now, zone).date()
    starts = []
    for fold in (0, 1):
        midnight = datetime(today.year, today.month, today.day, fold=fold, tzinfo=zone)
        ts = midnight.timestamp()
        if local(ts, zone).date() == today:
            starts.append(ts)
    return min(starts) if starts else now


def stamp(ts: float, zone: tzinfo | None = None) -> str:
    """The local time of `ts` as "YYYY-MM-DD HH:MM", for listings."""
    moment = local(ts, zone)
    return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d} {moment.hour:02d}:{moment.minute:02d}"


_DAILY = re.compile(r"([01]?\d|2[0-3]):([0-5]\d)")
_EVERY = re.compile(r"(\d+(?:\.\d+)?)\s*([hm])")
SCHEDULE_RULE = '"HH:MM" (daily, in the companion\'s zone), "6h" or "30m" (between runs), or "off"'


def schedule(value: object, what: str = "a schedule") -> tuple[float | None, tuple[int, int] | None] | None:
    """A schedule as written in a config: (seconds between runs, None), (None, (hour, minute)) for a time
    each day, or None for "off"; anything else is refused naming what is allowed."""
    if not isinstance(value, str):
        raise InvalidType(f"{what} is a string, {SCHEDULE_RULE}, not {type(value).__name__}")
    said = value.strip().lower()
    if said == "off":
        return None
    if daily := _DAILY.fullmatch(said):
        return None, (int(daily[1]), int(daily[2]))
    every = _EVERY.fullmatch(said)
    if every is None or float(every[1]) <= 0:
        raise InvalidValue(f"{what} is {SCHEDULE_RULE}, not {value!r}")
    return float(every[1]) * (3600.0 if every[2] == "h" else 60.0), None


def next_daily(now: float, hour: int, minute: int, zone: tzinfo | None = None) -> float:
    """The next moment after `now` whose wall clock in the zone reads hour:minute."""
    today = local(now, zone)
    at = today.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if at.timestamp() <= now:
        at = (today + timedelta(days=1)).replace(hour=hour, minute=minute, second=0, microsecond=0)
    return at.timestamp()
