"""The time a question names: "last week", "in May", "two days ago", "去年夏天", "上个月", "国庆".

A question that names a time means what happened then: "what did she cook last week?" is not about the
cooking of a year ago. `named` finds the first such phrase in a question and gives the `Period` it means, in
the companion's zone, seen from now, and where the phrase stands so recall can match the rest of the
question by its words (the words "last" and "week" are not evidence of anything).

Recall then boosts what is dated in the period (a note by when it happened, a line by when it was said)
rather than dropping the rest: people tell of a weekend on the Monday after, a plan is said before it
happens, and a question's "in May" may be either May. So a period reaches a few days past its end
(`SLACK`), and what lies outside it keeps its evidence, only without the boost.

Forms read (case does not matter):
- English: today, yesterday, last night, the day before yesterday, this/last week, this/last weekend,
  this/last month, this/last year, N days/weeks/months/years ago (a/one/two/.../ten, "a few", "a couple
  of"), this/last spring/summer/autumn/fall/winter, (in) <month> [<year>], in <year>, at Christmas,
  on New Year's Eve/Day, the summer/winter of <year>.
- Chinese: 今天 昨天 前天 昨晚 大前天, 这周/本周/这个星期/这礼拜, 上周/上个星期/上个礼拜,
  这个月/本月, 上个月/上月, 今年 去年 前年, N天前/N个月前/N周前/N年前 (digits or 一 to 十,
  几 as three), 春天/夏天/秋天/冬天 (with 今年 去年 前年), N月 (with 今年 去年 前年, or the
  nearest), 国庆 五一 元旦 春节/过年 圣诞 寒假 暑假, 年初 年底 (with a year).
A time named by an event ("before she moved", "搬家之前") is dated by what the person said of the event,
which only a read can tell: `transcript.anchors`.
`asks_when` tells a question that asks when ("When did she move?", "什么时候来的？"), and `tells_when` a
line that says when ("Left last week.", "on the 8th", "三月二十二号"): transcript recall prefers such a line
for such a question (`transcript.recall.WHEN`).

Seasons are the northern meteorological ones (summer June to August; winter December to February, named by
the year of its December). A month or a season without a year is the latest one that has begun.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

from . import dates

__all__ = ["SLACK", "Period", "asks_when", "named", "tells_when"]

SLACK = 7 * 86400.0  # how far past its end a period reaches: what happened is told in the days after


@dataclass(frozen=True)
class Period:
    """A span of time a question named: from `start` (included) to `end` (not), seconds; `phrase` is
    where the words that named it stand in the question, as (start, end) character positions."""

    start: float
    end: float
    phrase: tuple[int, int] = (0, 0)
    # Whether it reaches past its end (`reach`): a named week is told of in the days after it; a time named
    # by an event ("before she moved", `anchors`) ends at the event.
    slack: bool = True

    def holds(self, ts: float) -> bool:
        """Whether a moment falls in the period, or in the days just after it (`SLACK`)."""
        return self.start <= ts < self.reach()

    def reach(self) -> float:
        """Where the period stops counting: its end, and a quarter of its length after it (two days at
        least, `SLACK` at most); its end alone without `slack`."""
        if not self.slack:
            return self.end
        return self.end + min(SLACK, max(2 * 86400.0, (self.end - self.start) / 4))

    def rest_of(self, query: str) -> str:
        """The question without the words that named the period."""
        a, b = self.phrase
        return (query[:a] + " " + query[b:]).strip()


_EN_MONTHS = [
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
_MONTH = (
    r"(?P<month>"
    + "|".join(sorted([*_EN_MONTHS, "sept", *(m[:3] for m in _EN_MONTHS)], key=len, reverse=True))
    + r")"
)
_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "a few": 3, "a couple of": 2, "couple of": 2, "few": 3, "several": 4,
}  # fmt: skip
_ZH_NUMBERS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
               "九": 9, "十": 10, "几": 3, "十一": 11, "十二": 12}  # fmt: skip
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
_UNITS = {"day": 1, "days": 1, "week": 7, "weeks": 7, "month": 30, "months": 30, "year": 365, "years": 365,
          "天": 1, "日": 1, "周": 7, "星期": 7, "个星期": 7, "礼拜": 7, "个礼拜": 7, "个月": 30, "月": 30,
          "年": 365}  # fmt: skip
_ZH_YEAR = {"今年": 0, "去年": -1, "前年": -2, "明年": 1}
_ZH_NUM = r"(?P<n>\d{1,2}|十[一二]?|[一两二三四五六七八九十几])"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        (
            "ago",
            r"\b(?P<n>\d{1,2}|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|"
            r"eight|nine|ten)\s+(?P<unit>days?|weeks?|months?|years?)\s+ago\b",
        ),
        ("day_before", r"\bthe day before yesterday\b"),
        ("yesterday", r"\b(?:yesterday|last night)\b"),
        ("today", r"\b(?:today|tonight|this morning)\b"),
        ("weekend", r"\b(?P<which>last|this|past)\s+weekend\b"),
        ("week", r"\b(?P<which>last|this|past)\s+week\b"),
        ("month", r"\b(?P<which>last|this|past)\s+month\b"),
        ("year", r"\b(?P<which>last|this|past)\s+year\b"),
        ("season", r"\b(?P<which>last|this|past)\s+(?P<season>spring|summer|autumn|fall|winter)\b"),
        ("season_of", r"\b(?:the\s+)?(?P<season>spring|summer|autumn|fall|winter)\s+of\s+(?P<year>\d{4})\b"),
        ("christmas", r"\b(?:at|over|for|on)\s+christmas\b|\bchristmas (?:day|eve)\b"),
        ("new_year", r"\bnew year'?s?(?: eve| day)?\b"),
        (
            "month_name",
            rf"\b(?:in|during|of|since|back in|early|late|mid)\s+{_MONTH}\b(?:\s+(?P<year>\d{{4}}))?",
        ),
        ("month_year", rf"\b{_MONTH}\s+(?P<year>\d{{4}})\b"),
        ("in_year", r"\b(?:in|during)\s+(?P<year>(?:19|20)\d\d)\b"),
        ("zh_ago", rf"{_ZH_NUM}(?P<unit>个月|个星期|个礼拜|星期|礼拜|天|周|年)前"),
        ("zh_day", r"(?P<word>大前天|前天|昨天|昨晚|今天|今晚)"),
        (
            "zh_week",
            r"(?P<word>上上周|上周|上个星期|上个礼拜|上星期|上礼拜|这周|本周|这个星期|这礼拜|这星期)",
        ),
        ("zh_month", r"(?P<word>上上个月|上个月|上月|这个月|本月)"),
        ("zh_season", r"(?P<year>今年|去年|前年)?(?P<season>[春夏秋冬])(?:天|季)"),
        (
            "zh_month_num",
            r"(?P<year>今年|去年|前年|明年)?(?P<m>\d{1,2}|十[一二]?|[一二三四五六七八九十])月份?(?!\d|[日号])",
        ),
        (
            "zh_holiday",
            r"(?P<year>今年|去年|前年)?(?:的)?(?P<holiday>国庆|五一|元旦|春节|过年|圣诞|寒假|暑假|中秋)",
        ),
        ("zh_part", r"(?P<year>今年|去年|前年)(?P<part>年初|年底|年末|上半年|下半年)"),
        ("zh_year", r"(?P<year>今年|去年|前年)"),
    )
)
# What every pattern above holds (a word, a character, four digits): most queries name no period, and
# looking for these tells in about 2 µs (the 25 patterns took 0.2 ms a query, the loop's largest share of a
# prompt). Case-folded, so whatever IGNORECASE matches is found here too.
_HINTS = (
    "ago", "yesterday", "night", "today", "morning", "week", "month", "year", "spring", "summer", "autumn",
    "fall", "winter", "christmas", "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
    "nov", "dec", "前", "天", "晚", "周", "星期", "礼拜", "月", "年", "春", "夏", "秋", "冬", "国庆", "五一",
    "元旦", "过年", "圣诞", "寒假", "暑假", "中秋",
)  # fmt: skip
_YEAR = re.compile(r"\d{4}")


def _may_name(query: str) -> bool:
    folded = query.casefold()
    return any(hint in folded for hint in _HINTS) or _YEAR.search(query) is not None


def named(query: str, now: float, zone: tzinfo | None = None) -> Period | None:
    """The first period `query` names (see the module docstring), or None."""
    if not query or not _may_name(query):
        return None
    today = dates.local(now, zone).date()
    best: tuple[int, Period] | None = None
    for name, pattern in _PATTERNS:
        for match in pattern.finditer(query):
            span = _span(name, match, today)
            if span is None:
                continue
            start, end = span
            period = Period(_start(start, zone), _start(end, zone), match.span())
            if best is None or match.start() < best[0]:
                best = (match.start(), period)
            break
    return best[1] if best else None


_WHEN_ASKED = re.compile(
    r"^\W*when\b|\bwhat (?:date|day|month|year|time)\b|\bhow long ago\b|\bsince when\b"
    r"|什么时候|哪天|哪一天|几月|几号|哪年|哪一年|哪个月|多久以前",
    re.IGNORECASE,
)
_ANY_MONTH = _MONTH.replace("(?P<month>", "(?:") + r"\b"
_WEEKDAYS = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_TELLS_WHEN = re.compile(
    rf"\b(?:on|last|next|this|since|by|until|from)\s+(?:{_WEEKDAYS})\b|\b(?:{_WEEKDAYS})s?\b"
    rf"|\b(?:next|last|this)\s+(?:week|weekend|month|year|night|morning|spring|summer|autumn|fall|winter)\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)\b|\b{_ANY_MONTH}\s+\d{{1,2}}\b|\b\d{{1,2}}\s+{_ANY_MONTH}\b"
    r"|\b(?:19|20)\d\d\b|\bago\b"
    r"|\b(?:yesterday|tomorrow|today|tonight|christmas|easter|new year'?s?)\b"
    rf"|\b(?:{'|'.join(m for m in _EN_MONTHS if m != 'may')})\b|\b(?:in|during|of|since|early|late|mid) may\b"
    r"|国庆|五一|元旦|春节|过年|圣诞|寒假|暑假|中秋|[春夏秋冬](?:天|季)"
    r"|[上下这本]个?(?:周|星期|礼拜)[一二三四五六日天末]?|[上下这本]个?月|[去今明前后]年|[昨前今明后]天|昨晚"
    r"|(?:\d{1,2}|十[一二]?|[一二三四五六七八九十])月(?:份|初|中|底)?"
    r"|(?:\d{1,2}|[一二三四五六七八九十]{1,3})[号日]|[一二两三四五六七八九十几\d]+(?:天|周|个月|年)(?:前|以前|后)",
    re.IGNORECASE,
)


def asks_when(question: str) -> bool:
    """Whether a question asks when something happened ("When did she move?", "什么时候来的？")."""
    return _WHEN_ASKED.search(question) is not None


def tells_when(said: str) -> bool:
    """Whether a line says when something happened or will ("Left last week.", "We finished on the 8th",
    "三月二十二号", "上周六"): the kind of line that answers `asks_when`."""
    return _TELLS_WHEN.search(said) is not None


def _start(day: date, zone: tzinfo | None) -> float:
    return dates.day_start(datetime(day.year, day.month, day.day, 12, tzinfo=zone).timestamp(), zone)


def _month(year: int, month: int) -> tuple[date, date]:
    start = date(year, month, 1)
    return start, date(year + (month == 12), month % 12 + 1, 1)


def _latest_month(month: int, today: date) -> int:
    """The year of the latest `month` that has begun."""
    return today.year if month <= today.month else today.year - 1


def _season(start_month: int, year: int) -> tuple[date, date]:
    start = date(year, start_month, 1)
    end_month = start_month + 3
    return start, date(year + (end_month > 12), (end_month - 1) % 12 + 1, 1)


def _latest_season(start_month: int, today: date, back: int = 0) -> tuple[date, date]:
    year = today.year if (today.month, 1) >= (start_month, 1) else today.year - 1
    if start_month == 12 and today.month <= 2:  # this winter began last December
        year = today.year - 1
    return _season(start_month, year - back)


def _number(word: str) -> int:
    word = word.lower()
    if word.isdigit():
        return int(word)
    return _NUMBER_WORDS.get(word) or _ZH_NUMBERS.get(word, 1)


def _span(name: str, m: re.Match[str], today: date) -> tuple[date, date] | None:
    day = timedelta(days=1)
    if name in ("ago", "zh_ago"):
        n, unit = _number(m["n"]), _UNITS[m["unit"].lower()]
        centre = today - timedelta(days=n * unit)
        width = max(1, unit // 2)
        return centre - timedelta(days=width), centre + timedelta(days=width + 1)
    if name == "day_before":
        return today - 2 * day, today - day
    if name == "yesterday":
        return today - day, today
    if name == "today":
        return today, today + day
    if name == "zh_day":
        back = {"大前天": 3, "前天": 2, "昨天": 1, "昨晚": 1, "今天": 0, "今晚": 0}[m["word"]]
        return today - back * day, today - (back - 1) * day
    monday = today - timedelta(days=today.weekday())
    if name == "weekend":
        saturday = monday - 2 * day if m["which"].lower() != "this" else monday + 5 * day
        return saturday, saturday + 2 * day
    if name in ("week", "zh_week"):
        which = m["which"].lower() if name == "week" else m["word"]
        back = (
            2
            if which == "上上周"
            else 0
            if which in ("this", "这周", "本周", "这个星期", "这礼拜", "这星期")
            else 1
        )
        start = monday - timedelta(days=7 * back)
        return start, start + 7 * day
    if name in ("month", "zh_month"):
        which = m["which"].lower() if name == "month" else m["word"]
        back = 2 if which == "上上个月" else 0 if which in ("this", "这个月", "本月") else 1
        year, month = today.year, today.month - back
        while month < 1:
            year, month = year - 1, month + 12
        return _month(year, month)
    if name == "year":
        year = today.year - (m["which"].lower() != "this")
        return date(year, 1, 1), date(year + 1, 1, 1)
    if name == "zh_year":
        year = today.year + _ZH_YEAR[m["year"]]
        return date(year, 1, 1), date(year + 1, 1, 1)
    if name == "season":
        back = 0 if m["which"].lower() == "this" else 1
        start_month = _SEASONS[m["season"].lower()]
        start, end = _latest_season(start_month, today)
        if back and start <= today < end:  # "last summer" in the summer: the one before
            start, end = _latest_season(start_month, today, back=1)
        return start, end
    if name == "season_of":
        return _season(_SEASONS[m["season"].lower()], int(m["year"]))
    if name == "zh_season":
        start_month = _SEASONS[m["season"]]
        if m["year"]:
            year = today.year + _ZH_YEAR[m["year"]]
            return _season(start_month, year)
        return _latest_season(start_month, today)
    if name == "christmas":
        year = today.year if today >= date(today.year, 12, 20) else today.year - 1
        return date(year, 12, 20), date(year + 1, 1, 1)
    if name == "new_year":
        year = today.year if today >= date(today.year, 1, 1) else today.year - 1
        return date(year - 1, 12, 30), date(year, 1, 3)
    if name in ("month_name", "month_year"):
        key = m["month"].lower()
        month = next(i for i, full in enumerate(_EN_MONTHS, 1) if full.startswith(key[:3]))
        year = int(m["year"]) if m["year"] else _latest_month(month, today)
        return _month(year, month)
    if name == "in_year":
        year = int(m["year"])
        return date(year, 1, 1), date(year + 1, 1, 1)
    if name == "zh_month_num":
        month = _number(m["m"]) if not m["m"].isdigit() else int(m["m"])
        if not 1 <= month <= 12:
            return None
        year = today.year + _ZH_YEAR[m["year"]] if m["year"] else _latest_month(month, today)
        return _month(year, month)
    if name == "zh_holiday":
        return _holiday(m["holiday"], m["year"], today)
    if name == "zh_part":
        year = today.year + _ZH_YEAR[m["year"]]
        part = m["part"]
        if part in ("年初", "上半年"):
            return date(year, 1, 1), date(year, 4 if part == "年初" else 7, 1)
        return date(year, 10 if part != "下半年" else 7, 1), date(year + 1, 1, 1)
    return None


# (month, day) the holiday starts and how many days it covers (春节 and 中秋 move with the moon: their
# usual span).
_HOLIDAYS = {
    "国庆": ((10, 1), 8),
    "五一": ((5, 1), 5),
    "元旦": ((12, 31), 3),
    "春节": ((1, 20), 30),
    "过年": ((1, 20), 30),
    "圣诞": ((12, 20), 12),
    "寒假": ((1, 10), 50),
    "暑假": ((7, 1), 62),
    "中秋": ((9, 10), 30),
}


def _holiday(holiday: str, year_word: str | None, today: date) -> tuple[date, date]:
    (month, first), length = _HOLIDAYS[holiday]
    if year_word:
        year = today.year + _ZH_YEAR[year_word] - (holiday == "元旦")
    else:
        year = today.year if (today.month, today.day) >= (month, first) else today.year - 1
    start = date(year, month, first)
    return start, start + timedelta(days=length)
