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
- English: today, yesterday, last night, the day before yesterday, this/last week, this/last/over the
  weekend, this/last month, this/last year, the week/month/year/summer before last, N days/weeks/fortnights/
  months/years ago (a/one/two/.../ten, "a few", "a couple of"), the past/last N days/weeks/months, the other
  day, last/this/on <weekday>, this/last/in/over the spring/summer/autumn/fall/winter, the summer of
  <year>, (in) <month> [<year>], <month> <day>[, <year>] and <day> <month> (`dates`), in <year>, early/
  mid/late <year>, this time last year, (last) Christmas, New Year's Eve/Day, Easter, Thanksgiving,
  Halloween, Valentine's Day.
- Chinese: 今天 昨天 前天 昨晚 大前天, 前几天 前两天 这两天, 这周/本周/这个星期/这礼拜, 上周/上个星期/上个
  礼拜, (上/这)周六 星期天 礼拜三, (上/这个)周末, 这个月/本月, 上个月/上月, 今年 去年 前年, N天前/N个月前/
  N周前/N年前 (digits or 一 to 十, 几 as three, 十几, 半), 春天/夏天/秋天/冬天 (with 今年 去年 前年), N月
  (with 今年 去年 前年 or 2023年, or the nearest), N月N日/号 (digits or 三月十五号), 国庆 五一 元旦 春节/
  过年 圣诞 寒假 暑假 中秋 端午 清明 元宵 七夕 情人节, 年初 年底 上半年 (with a year, or this one), 去年这
  个时候.
A time named by an event ("before she moved", "搬家之前") is dated by what the person said of the event,
which only a read can tell: `transcript.anchors`.
`asks_when` tells a question that asks when ("When did she move?", "什么时候来的？"), and `tells_when` a
line that says when ("Left last week.", "on the 8th", "三月二十二号"): transcript recall prefers such a line
for such a question (`transcript.recall.WHEN`).

Seasons are the northern meteorological ones (summer June to August; winter December to February, named by
the year of its December). A month, a season, a weekday, a weekend or a holiday without a year or a "this"
is the latest one that has begun (a weekday: the latest before today); a day of a month without a year is
the nearest such day, as `dates.find` reads it (a plan's day is ahead). What the days of a holiday are:
`holidays`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta, tzinfo

from . import dates, holidays

__all__ = ["SLACK", "Period", "asks_when", "named", "named_latest", "tells_when"]

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
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "a few": 3, "a couple of": 2, "couple of": 2, "few": 3, "several": 4,
}  # fmt: skip
_EN_N = (
    r"(?P<n>\d{1,2}|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine"
    r"|ten)"
)
_ZH_DIGITS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_ROUGH = {"几": 3, "十几": 15, "半": 0.5}  # a few; a dozen or so; half
_SEASON_NAMES = "spring|summer|autumn|fall|winter"
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
          "months": 30, "year": 365, "years": 365, "天": 1, "日": 1, "周": 7, "星期": 7, "个星期": 7,
          "礼拜": 7, "个礼拜": 7, "个月": 30, "月": 30, "年": 365}  # fmt: skip
_ZH_YEAR = {"今年": 0, "去年": -1, "前年": -2, "明年": 1}
_ZH_NUM = r"(?P<n>\d{1,2}|十几|[一二三四五六七八九]?十[一二三四五六七八九]?|[一两二三四五六七八九十几半])"
_ZH_MONTH_NUM = r"(?P<m>\d{1,2}|十[一二]?|[一二三四五六七八九十])"
_ZH_DAY_NUM = r"(?P<d>\d{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])"
_ZH_YEAR_WORD = r"(?P<year>今年|去年|前年|明年)"
_ZH_WEEK = r"(?P<which>上上|上|这|本)?个?(?:周|星期|礼拜)"
# A month named alone, not the month of a day ("三月" but not "三月十五号").
_ZH_MONTH_ALONE = rf"{_ZH_MONTH_NUM}月份?(?!\d|[日号]|[一二三四五六七八九十]+\s*[日号])"
_ZH_HOLIDAYS = "国庆|五一|劳动节|元旦|春节|过年|圣诞|寒假|暑假|中秋|端午|清明|情人节|元宵|七夕|万圣节|感恩节"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        ("ago", rf"\b{_EN_N}\s+(?P<unit>days?|weeks?|fortnights?|months?|years?)\s+ago\b"),
        # A day written out ("March 5th", "5 March 2023", "2023-03-05", "2023年3月5日"): `dates` reads it.
        *(("written", p.pattern) for p in dates.WRITTEN),
        ("day_before", r"\bthe day before yesterday\b"),
        ("yesterday", r"\b(?:yesterday|last night)\b"),
        ("today", r"\b(?:today|tonight|this morning)\b"),
        ("same_time", r"\b(?:(?:around\s+)?this time|a year ago today)\s*(?P<back>last year)?\b"),
        ("before_last", rf"\bthe\s+(?P<unit>week|weekend|month|year|{_SEASON_NAMES})\s+before\s+last\b"),
        ("weekend", r"\b(?P<which>last|this|past)\s+weekend\b"),
        ("weekend", r"\b(?:over|at|on|during)\s+the\s+weekend\b"),
        # Not "on Thursday evenings" (every Thursday).
        (
            "weekday",
            rf"\b(?P<which>last|this|past|on)\s+(?P<day>{'|'.join(_WEEKDAYS)})\b"
            r"(?!\s+(?:mornings|afternoons|evenings|nights))",
        ),
        ("week", r"\b(?P<which>last|this|past)\s+week\b"),
        ("month", r"\b(?P<which>last|this|past)\s+month\b"),
        ("year", r"\b(?P<which>last|this|past)\s+year\b"),
        ("past_n", rf"\b(?:past|last)\s+{_EN_N}\s+(?P<unit>days|weeks|months|years)\b"),
        ("other_day", r"\bthe\s+other\s+(?:day|night)\b"),
        ("season", rf"\b(?P<which>last|this|past)\s+(?P<season>{_SEASON_NAMES})\b"),
        ("season_of", rf"\b(?:the\s+)?(?P<season>{_SEASON_NAMES})\s+of\s+(?P<year>\d{{4}})\b"),
        (
            "season",
            rf"\b(?:in|over|during)\s+(?:the\s+)?(?P<season>{_SEASON_NAMES})(?:time)?\b(?!\s+of\s+\d)",
        ),
        (
            "holiday",
            r"\b(?:at|over|for|on|last|this)\s+(?P<holiday>christmas)\b|\b(?P<eve>christmas) (?:day|eve)\b",
        ),
        ("holiday", r"\b(?P<holiday>new year)'?s?(?: eve| day)?\b"),
        ("holiday", r"\b(?P<holiday>easter|thanksgiving|halloween|valentine)(?:'?s)?(?: day)?\b"),
        (
            "month_name",
            rf"\b(?:in|during|of|since|back in|early|late|mid)\s+{_MONTH}\b(?:\s+(?P<year>\d{{4}}))?",
        ),
        ("month_year", rf"\b{_MONTH}\s+(?P<year>\d{{4}})\b"),
        ("in_year", r"\b(?:in|during)\s+(?P<year>(?:19|20)\d\d)\b"),
        (
            "part_of_year",
            r"\b(?P<part>early|mid|late|the start of|the beginning of|the middle of|the end of)[\s-]+"
            r"(?P<year>(?:19|20)\d\d)\b",
        ),
        ("zh_ago", rf"{_ZH_NUM}(?P<unit>个月|个星期|个礼拜|星期|礼拜|天|周|年)(?:前|以前|之前)"),
        ("zh_recent", r"(?P<word>前几天|前两天|前些天|前些日子|这几天|这两天|近几天|最近几天)"),
        ("zh_day", r"(?P<word>大前天|前天|昨天|昨晚|今天|今晚)"),
        ("zh_date", rf"{_ZH_YEAR_WORD}?{_ZH_MONTH_NUM}月{_ZH_DAY_NUM}\s*[日号]"),
        ("zh_year_num", rf"(?P<y>(?:19|20)\d\d)\s*年(?:{_ZH_MONTH_ALONE})?"),
        # Not "每周三" (every Wednesday), "下周三" (next week's), "一周一次" (once a week) nor "这周一直" (all
        # this week).
        (
            "zh_weekday",
            rf"(?<![每一两二三四五六七八九十几下])(?<![每下]个){_ZH_WEEK}(?P<d>[二三四五六日天]|一(?![直起样下些定般共切点会边]))",
        ),
        ("zh_weekend", r"(?<![每下])(?<![每下]个)(?P<which>上上|上|这|本)?个?周末"),
        (
            "zh_week",
            r"(?P<word>上上周|上周|上个星期|上个礼拜|上星期|上礼拜|这周|本周|这个星期|这礼拜|这星期)",
        ),
        ("zh_month", r"(?P<word>上上个月|上个月|上月|这个月|本月)"),
        ("zh_season", r"(?P<year>今年|去年|前年)?(?P<season>[春夏秋冬])(?:天|季)"),
        ("zh_month_num", rf"{_ZH_YEAR_WORD}?{_ZH_MONTH_ALONE}"),
        ("zh_holiday", rf"(?P<year>今年|去年|前年)?(?:的)?(?P<holiday>{_ZH_HOLIDAYS})"),
        ("zh_same_time", r"(?P<year>去年|前年)(?:的)?(?:这个时候|这时候|这会儿|此时|同期|今天)"),
        (
            "zh_part",
            r"(?P<year>今年|去年|前年)(?P<part>年初|年底|年末|上半年|下半年|初|底|末)"
            r"|(?P<bare>年初|年底|年末|上半年|下半年)",
        ),
        ("zh_year", r"(?P<year>今年|去年|前年)"),
    )
)
# What every pattern above holds (a word, a character, four digits): most queries name no period, and
# looking for these tells in about 2 µs (the 25 patterns took 0.2 ms a query, the loop's largest share of a
# prompt). Case-folded, so whatever IGNORECASE matches is found here too.
_HINTS = (
    "ago", "yesterday", "night", "today", "morning", "week", "month", "year", "spring", "summer", "autumn",
    "fall", "winter", "christmas", "easter", "thanksgiving", "halloween", "valentine", "other day",
    *_WEEKDAYS, "days", "fortnight", "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
    "nov", "dec", "前", "天", "晚", "周", "星期", "礼拜", "月", "年", "春", "夏", "秋", "冬",
    *_ZH_HOLIDAYS.split("|"),
)  # fmt: skip
_YEAR = re.compile(r"\d{4}")


# What a pattern's text needs before it is worth a scan: Chinese patterns a Chinese character, a day written
# out a digit, the English ones a Latin letter (a line of one script skips half the patterns).
_SCRIPTS = {"zh": re.compile(r"[\u4e00-\u9fff]"), "written": re.compile(r"\d"), "en": re.compile(r"[A-Za-z]")}


def _script(name: str) -> str:
    return "zh" if name.startswith("zh_") else "written" if name == "written" else "en"


def _may_name(query: str) -> bool:
    folded = query.casefold()
    return any(hint in folded for hint in _HINTS) or _YEAR.search(query) is not None


def named(query: str, now: float, zone: tzinfo | None = None) -> Period | None:
    """The first period `query` names (see the module docstring), or None."""
    if not query or not _may_name(query):
        return None
    today = dates.local(now, zone).date()
    best: tuple[int, Period] | None = None
    script = {kind for kind, tell in _SCRIPTS.items() if tell.search(query)}
    for name, pattern in _PATTERNS:
        if _script(name) not in script:
            continue
        for match in pattern.finditer(query):
            if best is not None and match.start() >= best[0]:
                break
            span = _SPANS[name](match, today)
            if span is None:
                continue
            start, end = span
            best = (match.start(), Period(_start(start, zone), _start(end, zone), match.span()))
            break
    return best[1] if best else None


def named_latest(query: str, lines: tuple[str, ...], now: float, zone: tzinfo | None = None) -> Period | None:
    """The period a query names; for a dialogue so far (its clean `lines`), the one its latest line names:
    a time an earlier line named was that moment's talk ("see you on Monday"), not what is asked now."""
    if not lines:
        return named(query, now, zone)
    found = named(lines[-1], now, zone)
    at = query.rfind(lines[-1])
    if found is None or at < 0:
        return found
    a, b = found.phrase
    return replace(found, phrase=(a + at, b + at))


_WHEN_ASKED = re.compile(
    r"^\W*when\b|\bwhat (?:date|day|month|year|time)\b|\bhow long ago\b|\bsince when\b"
    r"|什么时候|哪天|哪一天|几月|几号|哪年|哪一年|哪个月|多久以前",
    re.IGNORECASE,
)
_ANY_MONTH = _MONTH.replace("(?P<month>", "(?:") + r"\b"
_ANY_WEEKDAY = "|".join(_WEEKDAYS)
_TELLS_WHEN = re.compile(
    rf"\b(?:on|last|next|this|since|by|until|from)\s+(?:{_ANY_WEEKDAY})\b|\b(?:{_ANY_WEEKDAY})s?\b"
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
    index = _WEEKDAYS.index(m["day"].lower())
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
    return holidays.latest(_group(m, "holiday") or _group(m, "eve"), today)


def _month_name(m: re.Match[str], today: date) -> Span:
    key = m["month"].lower()
    month = next(i for i, full in enumerate(_EN_MONTHS, 1) if full.startswith(key[:3]))
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
    name = "五一" if m["holiday"] == "劳动节" else m["holiday"]
    year = _zh_year_of(m, today)
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
_SPANS: dict[str, Callable[[re.Match[str], date], Span | None]] = {
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
