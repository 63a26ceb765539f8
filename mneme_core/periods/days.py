"""What each time a question names means, as days: the first, and the day after the last, seen from today.

`periods` finds the phrase ("last Friday", "三月十五号", "the summer before last"); the function here that
its pattern names works out the days, in the companion's calendar (`today` is its date). The words and
numbers the phrases are made of are here too, since their meaning is what the days are computed from.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta

from .. import dates
from . import holidays

__all__ = ["EN_MONTHS", "SPANS", "WEEKDAYS", "Span"]

EN_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "a few": 3, "a couple of": 2, "couple of": 2, "few": 3, "several": 4,
}  # fmt: skip
_ZH_DIGITS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_ROUGH = {"几": 3, "十几": 15, "半": 0.5}  # a few; a dozen or so; half
_SEASONS = {
    "spring": 3,
    "summer": 6,
    "autumn": 9,
    "fall": 9,
    "winter": 12,
    "春": 3,
    "夏": 6,
    "秋": 9,
    "冬": 12,
}
_UNITS = {"day": 1, "days": 1, "week": 7, "weeks": 7, "fortnight": 14, "fortnights": 14, "month": 30,
          "months": 30, "year": 365, "years": 365, "天": 1, "周": 7, "星期": 7, "个星期": 7, "礼拜": 7,
          "个礼拜": 7, "个月": 30, "年": 365}  # fmt: skip
_ZH_YEAR = {"今年": 0, "去年": -1, "前年": -2, "明年": 1}

_DAY = timedelta(days=1)
Span = tuple[date, date]


def _group(m: re.Match[str], name: str) -> str:
    """A group of the match, lower-cased, or "" when this pattern has no such group or it matched nothing."""
    return (m.groupdict().get(name) or "").lower()


def _month(year: int, month: int) -> Span:
    start = date(year, month, 1)
    return start, date(year + (month == 12), month % 12 + 1, 1)


def _latest_month(month: int, today: date) -> int:
    """The year of the latest `month` that has begun."""
    return today.year if month <= today.month else today.year - 1


def _season(start_month: int, year: int) -> Span:
    start = date(year, start_month, 1)
    end_month = start_month + 3
    return start, date(year + (end_month > 12), (end_month - 1) % 12 + 1, 1)


def _latest_season(start_month: int, today: date, back: int = 0) -> Span:
    year = today.year if (today.month, 1) >= (start_month, 1) else today.year - 1
    if start_month == 12 and today.month <= 2:  # this winter began last December
        year = today.year - 1
    return _season(start_month, year - back)


def _number(word: str) -> float:
    """A count said in words or digits: "two", "a few", "12", "十一", "几", "半"."""
    word = word.lower()
    if word.isdigit():
        return int(word)
    if word in _NUMBER_WORDS:
        return _NUMBER_WORDS[word]
    return _ZH_ROUGH.get(word) or _zh_int(word) or 1


def _zh_int(word: str) -> int:
    """A number from 1 to 99 in digits or Chinese numerals ("十五", "二十一", "三十"), or 0."""
    if word.isdigit():
        return int(word)
    tens, ten, ones = word.partition("十")
    if not ten:
        return _ZH_DIGITS.get(word, 0)
    return (_ZH_DIGITS.get(tens, 0) if tens else 1) * 10 + _ZH_DIGITS.get(ones, 0)


def _day(year: int, month: int, day: int) -> Span | None:
    try:
        start = date(year, month, day)
    except ValueError:
        return None
    return start, start + _DAY


def _around(centre: date, width: int) -> Span:
    return centre - timedelta(days=width), centre + timedelta(days=width + 1)


def _ago(m: re.Match[str], today: date) -> Span:
    """ "two weeks ago", "三个月前": the day that far back, and half a unit either side."""
    n, unit = _number(m["n"]), _UNITS[m["unit"].lower()]
    return _around(today - timedelta(days=int(n * unit)), max(1, int(min(n, 1) * unit) // 2))


def _written(m: re.Match[str], today: date) -> Span | None:
    day = dates.day_written(m, today)
    return (day, day + _DAY) if day else None


def _days_back(back: int) -> Callable[[re.Match[str], date], Span]:
    def span(m: re.Match[str], today: date) -> Span:
        return today - timedelta(days=back), today - timedelta(days=back - 1)

    return span


def _same_time(m: re.Match[str], today: date) -> Span | None:
    """ "this time last year", "a year ago today", "去年这个时候": a fortnight either side of the day."""
    if m.group(0).lower().startswith(("this", "around")) and not _group(m, "back"):
        return None  # "this time" alone is now
    back = 2 if _group(m, "year") == "前年" else 1
    return _around(today - timedelta(days=365 * back), 14)


def _monday(today: date, back_weeks: int = 0) -> date:
    return today - timedelta(days=today.weekday() + 7 * back_weeks)


def _weekend(saturday: date) -> Span:
    return saturday, saturday + 2 * _DAY


def _latest_weekend(today: date) -> Span:
    """The latest weekend that has begun: this one on a Saturday or Sunday, else the last."""
    return _weekend(_monday(today, 0 if today.weekday() >= 5 else 1) + 5 * _DAY)


def _weekend_of(m: re.Match[str], today: date) -> Span:
    which = _group(m, "which")
    if not which:
        return _latest_weekend(today)
    return _weekend(_monday(today, 0 if which == "this" else 1) + 5 * _DAY)


def _weekday(m: re.Match[str], today: date) -> Span:
    """ "last Friday", "on Friday": the latest Friday before today; "this Friday": this week's."""
    index = WEEKDAYS.index(m["day"].lower())
    if m["which"].lower() == "this":
        day = _monday(today) + timedelta(days=index)
    else:
        day = today - timedelta(days=(today.weekday() - index - 1) % 7 + 1)
    return day, day + _DAY


def _week(m: re.Match[str], today: date) -> Span:
    back = 0 if _group(m, "which") == "this" else 1
    start = _monday(today, back)
    return start, start + 7 * _DAY


def _month_back(back: int, today: date) -> Span:
    year, month = today.year, today.month - back
    while month < 1:
        year, month = year - 1, month + 12
    return _month(year, month)


def _month_of(m: re.Match[str], today: date) -> Span:
    return _month_back(0 if _group(m, "which") == "this" else 1, today)


def _year_of(m: re.Match[str], today: date) -> Span:
    year = today.year - (_group(m, "which") != "this")
    return date(year, 1, 1), date(year + 1, 1, 1)


def _before_last(m: re.Match[str], today: date) -> Span:
    """ "the week before last", "the summer before last": two back."""
    unit = m["unit"].lower()
    if unit == "week":
        start = _monday(today, 2)
        return start, start + 7 * _DAY
    if unit == "weekend":
        return _weekend(_monday(today, 2) + 5 * _DAY)
    if unit == "month":
        return _month_back(2, today)
    if unit == "year":
        return date(today.year - 2, 1, 1), date(today.year - 1, 1, 1)
    return _last_season(_SEASONS[unit], today, back=1)


def _past_n(m: re.Match[str], today: date) -> Span:
    """ "the past few weeks", "the last two days": from that far back up to today."""
    n, unit = _number(m["n"]), _UNITS[m["unit"].lower()]
    return today - timedelta(days=int(n * unit)), today + _DAY


def _other_day(m: re.Match[str], today: date) -> Span:
    return today - timedelta(days=10), today


def _last_season(start_month: int, today: date, back: int = 0) -> Span:
    """The latest such season before the current one, and `back` more."""
    start, end = _latest_season(start_month, today)
    if start <= today < end:  # "last summer" in the summer: the one before
        back += 1
    return _latest_season(start_month, today, back=back) if back else (start, end)


def _season_named(m: re.Match[str], today: date) -> Span:
    start_month = _SEASONS[m["season"].lower()]
    if _group(m, "which") in ("last", "past"):
        return _last_season(start_month, today)
    return _latest_season(start_month, today)


def _season_of(m: re.Match[str], today: date) -> Span:
    return _season(_SEASONS[m["season"].lower()], int(m["year"]))


def _holiday(m: re.Match[str], today: date) -> Span:
    return holidays.latest(_group(m, "holiday") or _group(m, "singles"), today)


def _month_which(m: re.Match[str], today: date) -> Span:
    """ "this October": this year's; "last October": the latest before this month."""
    month = _month_number(m["month"])
    if m["which"].lower() == "this":
        return _month(today.year, month)
    return _month(today.year if month < today.month else today.year - 1, month)


def _month_number(name: str) -> int:
    key = name.lower()[:3]
    return next(i for i, full in enumerate(EN_MONTHS, 1) if full.startswith(key))


def _month_name(m: re.Match[str], today: date) -> Span:
    month = _month_number(m["month"])
    year = int(m["year"]) if m["year"] else _latest_month(month, today)
    return _month(year, month)


def _in_year(m: re.Match[str], today: date) -> Span:
    year = int(m["year"])
    return date(year, 1, 1), date(year + 1, 1, 1)


def _part_of_year(m: re.Match[str], today: date) -> Span:
    """ "early 2023" January to April, "mid 2023" May to August, "late 2023" September to December."""
    year, part = int(m["year"]), m["part"].lower()
    first = 1 if part in ("early", "the start of", "the beginning of") else 5
    if part in ("late", "the end of"):
        first = 9
    return date(year, first, 1), date(year + (first == 9), (first + 3) % 12 + 1, 1)


def _zh_recent(m: re.Match[str], today: date) -> Span:
    """前几天 / 前些天: the ten days before today; 前两天: the three; 这两天 / 这几天: the last three and
    today."""
    word = m["word"]
    if word.startswith("前"):
        return today - timedelta(days=3 if word == "前两天" else 10), today
    return today - timedelta(days=3), today + _DAY


def _zh_day(m: re.Match[str], today: date) -> Span:
    back = {"大前天": 3, "前天": 2, "昨天": 1, "昨晚": 1, "今天": 0, "今晚": 0}[m["word"]]
    return today - back * _DAY, today - (back - 1) * _DAY


def _zh_year_of(m: re.Match[str], today: date) -> int | None:
    word = _group(m, "year")
    return today.year + _ZH_YEAR[word] if word else None


def _zh_date(m: re.Match[str], today: date) -> Span | None:
    """ "三月十五号", "去年12月25日": one day; without a year, the nearest such day (`dates`)."""
    month, day = _zh_int(m["m"]), _zh_int(m["d"])
    year = _zh_year_of(m, today)
    if year is None:
        found = dates.nearest_day(month, day, today)
        return (found, found + _DAY) if found else None
    return _day(year, month, day)


def _zh_year_num(m: re.Match[str], today: date) -> Span | None:
    """ "2023年" the year; "2023年3月" its March."""
    year = int(m["y"])
    if not m["m"]:
        return date(year, 1, 1), date(year + 1, 1, 1)
    month = _zh_int(m["m"])
    return _month(year, month) if 1 <= month <= 12 else None


def _zh_weekday(m: re.Match[str], today: date) -> Span:
    """ "上周六" last week's Saturday, "这周三" this week's Wednesday, "星期天" the latest Sunday before
    today."""
    index = "一二三四五六".find(m["d"]) if m["d"] not in "日天" else 6
    which = m["which"]
    if which:
        day = _monday(today, {"上上": 2, "上": 1}.get(which, 0)) + timedelta(days=index)
    else:
        day = today - timedelta(days=(today.weekday() - index - 1) % 7 + 1)
    return day, day + _DAY


def _zh_weekend(m: re.Match[str], today: date) -> Span:
    which = m["which"]
    if not which:
        return _latest_weekend(today)
    return _weekend(_monday(today, {"上上": 2, "上": 1}.get(which, 0)) + 5 * _DAY)


def _zh_week(m: re.Match[str], today: date) -> Span:
    word = m["word"]
    back = 2 if word == "上上周" else 0 if word in ("这周", "本周", "这个星期", "这礼拜", "这星期") else 1
    start = _monday(today, back)
    return start, start + 7 * _DAY


def _zh_month(m: re.Match[str], today: date) -> Span:
    word = m["word"]
    return _month_back(2 if word == "上上个月" else 0 if word in ("这个月", "本月") else 1, today)


def _zh_season(m: re.Match[str], today: date) -> Span:
    start_month = _SEASONS[m["season"]]
    year = _zh_year_of(m, today)
    return _season(start_month, year) if year is not None else _latest_season(start_month, today)


def _zh_month_num(m: re.Match[str], today: date) -> Span | None:
    month = _zh_int(m["m"])
    if not 1 <= month <= 12:
        return None
    year = _zh_year_of(m, today)
    return _month(year if year is not None else _latest_month(month, today), month)


def _zh_holiday(m: re.Match[str], today: date) -> Span:
    name, year = m["holiday"], _zh_year_of(m, today)
    return holidays.span(name, year) if year is not None else holidays.latest(name, today)


def _zh_part(m: re.Match[str], today: date) -> Span:
    """ "去年年底" October to December, "今年上半年" January to June; "年初" alone is this year's."""
    year = _zh_year_of(m, today)
    part = m["part"] or m["bare"]
    if year is None:
        year = today.year
    if part in ("年初", "初", "上半年"):
        return date(year, 1, 1), date(year, 4 if part != "上半年" else 7, 1)
    return date(year, 10 if part != "下半年" else 7, 1), date(year + 1, 1, 1)


def _zh_year(m: re.Match[str], today: date) -> Span:
    year = today.year + _ZH_YEAR[m["year"]]
    return date(year, 1, 1), date(year + 1, 1, 1)


# What each pattern's match means, as days (the first, and the day after the last), from today.
SPANS: dict[str, Callable[[re.Match[str], date], Span | None]] = {
    "ago": _ago,
    "written": _written,
    "day_before": _days_back(2),
    "yesterday": _days_back(1),
    "today": _days_back(0),
    "same_time": _same_time,
    "before_last": _before_last,
    "weekend": _weekend_of,
    "weekday": _weekday,
    "week": _week,
    "month": _month_of,
    "year": _year_of,
    "past_n": _past_n,
    "other_day": _other_day,
    "season": _season_named,
    "season_of": _season_of,
    "holiday": _holiday,
    "month_name": _month_name,
    "month_which": _month_which,
    "month_year": _month_name,
    "in_year": _in_year,
    "part_of_year": _part_of_year,
    "zh_ago": _ago,
    "zh_recent": _zh_recent,
    "zh_day": _zh_day,
    "zh_date": _zh_date,
    "zh_year_num": _zh_year_num,
    "zh_weekday": _zh_weekday,
    "zh_weekend": _zh_weekend,
    "zh_week": _zh_week,
    "zh_month": _zh_month,
    "zh_season": _zh_season,
    "zh_month_num": _zh_month_num,
    "zh_holiday": _zh_holiday,
    "zh_same_time": _same_time,
    "zh_part": _zh_part,
    "zh_year": _zh_year,
}
