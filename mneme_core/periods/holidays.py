"""The days a holiday covers in a given year, for a question that names one ("at Easter", "去年端午").

A question names a holiday to mean the time around it: the trip of the Easter weekend, what was eaten over
春节. So a holiday here is a span of days, not its one day: Christmas runs from the 20th to the new year,
Thanksgiving from its Thursday over the long weekend, Easter from Good Friday to Easter Monday.

Holidays that move with the moon (春节, 中秋, 端午, 元宵, 七夕) are given as the span their day falls in over
the years (春节 between January 21 and February 20, ...): a lunar calendar would be exact, and the period
only boosts what is dated in it, so a few weeks around the day lose little. Easter is worked out (the
Gregorian computus) and Thanksgiving is the fourth Thursday of November.

Names are as `periods` reads them: lower-case English words and Chinese ones.
"""

from __future__ import annotations

from datetime import date, timedelta

__all__ = ["NAMES", "latest", "span"]

# (month, day) a holiday's span starts, and how many days it covers.
_FIXED = {
    "christmas": ((12, 20), 12),
    "new year": ((12, 30), 4),
    "halloween": ((10, 24), 9),
    "valentine": ((2, 13), 3),
    "singles": ((11, 10), 3),  # Singles' Day, 双十一: the shopping day of November 11
    "国庆": ((10, 1), 8),
    "五一": ((5, 1), 5),
    "劳动节": ((5, 1), 5),
    "元旦": ((12, 31), 3),
    "春节": ((1, 20), 30),
    "过年": ((1, 20), 30),
    "圣诞": ((12, 20), 12),
    "寒假": ((1, 10), 50),
    "暑假": ((7, 1), 62),
    "中秋": ((9, 10), 30),
    "端午": ((5, 28), 30),
    "清明": ((4, 3), 5),
    "情人节": ((2, 13), 3),
    "元宵": ((2, 4), 30),
    "七夕": ((7, 31), 30),
    "万圣节": ((10, 24), 9),
    "感恩节": ((11, 22), 10),
    "双十一": ((11, 10), 3),
    "双11": ((11, 10), 3),
}
NAMES = (*_FIXED, "easter", "thanksgiving")


def span(name: str, year: int) -> tuple[date, date]:
    """The days (first, and the day after the last) holiday `name` covers in `year`; the new year's and
    元旦's span starts in the December before."""
    if name == "easter":
        sunday = _easter(year)
        return sunday - timedelta(days=2), sunday + timedelta(days=2)
    if name == "thanksgiving":
        first = date(year, 11, 1)
        thursday = first + timedelta(days=(3 - first.weekday()) % 7 + 21)
        return thursday, thursday + timedelta(days=4)
    (month, day), length = _FIXED[name]
    start = date(year - (name in ("new year", "元旦")), month, day)
    return start, start + timedelta(days=length)


def latest(name: str, today: date) -> tuple[date, date]:
    """The latest span of holiday `name` that has begun by `today`."""
    for year in (today.year + 1, today.year, today.year - 1):
        start, end = span(name, year)
        if start <= today:
            return start, end
    return span(name, today.year - 2)


def _easter(year: int) -> date:
    """Easter Sunday in the Gregorian calendar (the anonymous computus, Meeus/Jones/Butcher)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = b // 4, b % 4
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = c // 4, c % 4
    l = (32 + 2 * e + 2 * i - h - k) % 7  # noqa: E741 (the algorithm's own name)
    m = (a + 11 * h + 22 * l) // 451
    month, day = divmod(h + l - 7 * m + 114, 31)
    return date(year, month, day + 1)
