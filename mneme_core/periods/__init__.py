"""The time a question names: "last week", "in May", "two days ago", "去年夏天", "上个月", "国庆".

A question that names a time means what happened then: "what did she cook last week?" is not about the
cooking of a year ago. `named` finds the first such phrase in a question and gives the `Period` it means, in
the companion's zone, seen from now, and where the phrase stands, so recall can weigh the phrase's words
less than the rest of the question (`recall.Ask.naming`: "last" and "week" are little evidence, though a
line may name a time as the question does: "for the past few days").

Recall then boosts what is dated in the period (a note by when it happened, a line by when it was said)
rather than dropping the rest: people tell of a weekend on the Monday after, a plan is said before it
happens, and a question's "in May" may be either May. So a period reaches a few days past its end
(`SLACK`), and what lies outside it keeps its evidence, only without the boost.

Forms read (case does not matter):
- English: today, yesterday, last night, the day before yesterday, this/last week, this/last/over the
  weekend, this/last month, this/last year, the week/month/year/summer before last, N days/weeks/
  fortnights/months/years ago (a/one/two/.../ten, "a few", "a couple of"), the past/last N days/weeks/
  months, the other day, last/this/on <weekday>, this/last/in/over the spring/summer/autumn/fall/winter,
  the summer of <year>, (in) <month> [<year>], last/this <month>, <month> <day>[, <year>] and <day>
  <month> (`dates`), in <year>, early/mid/late <year>, this time last year, Christmas, New Year's Eve/Day,
  Easter, Thanksgiving, Halloween, Valentine's Day, Singles' Day.
- Chinese: 今天 昨天 前天 昨晚 大前天, 前几天 前两天 这两天, 这周/本周/这个星期/这礼拜, 上周/上个星期/上个
  礼拜, (上/这)周六 星期天 礼拜三, (上/这个)周末, 这个月/本月, 上个月/上月, 今年 去年 前年, N天前/N个月前/
  N周前/N年前 (digits or 一 to 十, 几 as three, 十几, 半), 春天/夏天/秋天/冬天 (with 今年 去年 前年), N月
  (with 今年 去年 前年 or 2023年, or the nearest), N月N日/号 (digits or 三月十五号), 国庆 五一 元旦 春节/
  过年 圣诞 寒假 暑假 中秋 端午 清明 元宵 七夕 情人节 双十一, 年初 年底 上半年 (with a year, or this
  one), 去年这个时候.
A time named by an event ("before she moved", "搬家之前") is dated by what the person said of the event,
which only a read can tell: `transcript.anchors`.
`asks_when` tells a question that asks when ("When did she move?", "什么时候来的？"), and `tells_when` a
line that says when ("Left last week.", "on the 8th", "三月二十二号"): transcript recall prefers such a line
for such a question (`transcript.recall.WHEN`).

Seasons are the northern meteorological ones (summer June to August; winter December to February, named by
the year of its December). A month, a season, a weekday, a weekend or a holiday without a year or a "this"
is the latest one that has begun (a weekday: the latest before today); a day of a month without a year is
the nearest such day, as `dates.find` reads it (a plan's day is ahead). The days each form means are worked
out in `days`, a holiday's in `holidays`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime, tzinfo

from .. import dates
from .days import EN_MONTHS, SPANS, WEEKDAYS

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


_MONTH = (
    r"(?P<month>"
    + "|".join(sorted([*EN_MONTHS, "sept", *(m[:3] for m in EN_MONTHS)], key=len, reverse=True))
    + r")"
)
_EN_N = (
    r"(?P<n>\d{1,2}|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine"
    r"|ten)"
)
_SEASON_NAMES = "spring|summer|autumn|fall|winter"
_ZH_NUM = r"(?P<n>\d{1,2}|十几|[一二三四五六七八九]?十[一二三四五六七八九]?|[一两二三四五六七八九十几半])"
_ZH_MONTH_NUM = r"(?P<m>\d{1,2}|十[一二]?|[一二三四五六七八九十])"
_ZH_DAY_NUM = r"(?P<d>\d{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])"
_ZH_YEAR_WORD = r"(?P<year>今年|去年|前年|明年)"
_ZH_WEEK = r"(?P<which>上上|上|这|本)?个?(?:周|星期|礼拜)"
# A month named alone, not the month of a day ("三月" but not "三月十五号").
_ZH_MONTH_ALONE = rf"{_ZH_MONTH_NUM}月份?(?!\d|[日号]|[一二三四五六七八九十]+\s*[日号])"
_ZH_HOLIDAYS = (
    "双十一|双11|国庆|五一|劳动节|元旦|春节|过年|圣诞|寒假|暑假|中秋|端午|清明|情人节|元宵|七夕|万圣节|感恩节"
)

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        # Before "ago": "a year ago today" is the day, not the year around it.
        ("same_time", r"\b(?:(?:around\s+)?this time|a year ago today)\s*(?P<back>last year)?\b"),
        ("ago", rf"\b{_EN_N}\s+(?P<unit>days?|weeks?|fortnights?|months?|years?)\s+ago\b"),
        # A day written out ("March 5th", "5 March 2023", "2023-03-05", "2023年3月5日"): `dates` reads it.
        *(("written", p.pattern) for p in dates.WRITTEN),
        ("day_before", r"\bthe day before yesterday\b"),
        ("yesterday", r"\b(?:yesterday|last night)\b"),
        ("today", r"\b(?:today|tonight|this morning)\b"),
        ("before_last", rf"\bthe\s+(?P<unit>week|weekend|month|year|{_SEASON_NAMES})\s+before\s+last\b"),
        ("weekend", r"\b(?P<which>last|this|past)\s+weekend\b"),
        ("weekend", r"\b(?:over|at|on|during)\s+the\s+weekend\b"),
        # Not "on Thursday evenings" (every Thursday).
        (
            "weekday",
            rf"\b(?P<which>last|this|past|on)\s+(?P<day>{'|'.join(WEEKDAYS)})\b"
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
            r"\b(?:(?:last|this|past)\s+)?(?:(?P<holiday>new year|christmas|easter|thanksgiving|halloween"
            r"|valentine)'?s?(?: eve| day)?|(?P<singles>singles)'? day)\b",
        ),
        # "last October", "this October"; not "this May" ("this may be" is no month).
        ("month_which", rf"\b(?P<which>last|past)\s+{_MONTH}\b"),
        ("month_which", rf"\b(?P<which>this)\s+(?!may\b){_MONTH}\b"),
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
    "fall", "winter", "christmas", "singles", "easter", "thanksgiving", "halloween", "valentine", "other day",
    *WEEKDAYS, "days", "fortnight", "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
    "nov", "dec", "前", "天", "晚", "周", "星期", "礼拜", "月", "年", "春", "夏", "秋", "冬",
    *_ZH_HOLIDAYS.split("|"),
)  # fmt: skip
_YEAR = re.compile(r"\d{4}")


# What a pattern's text needs before it is worth a scan: Chinese patterns a Chinese character, a day written
# out a digit, the English ones a Latin letter (a line of one script skips half the patterns).
_SCRIPTS = {"zh": re.compile(r"[\u4e00-\u9fff]"), "written": re.compile(r"\d"), "en": re.compile(r"[A-Za-z]")}


def _script(name: str) -> str:
    return "zh" if name.startswith("zh_") else "written" if name == "written" else "en"


_SCRIPTED = tuple((name, _script(name), pattern) for name, pattern in _PATTERNS)


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
    for name, needs, pattern in _SCRIPTED:
        if needs not in script:
            continue
        for match in pattern.finditer(query):
            if best is not None and match.start() >= best[0]:
                break
            span = SPANS[name](match, today)
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
    if found is None:
        return None
    at = query.rfind(lines[-1])
    if at < 0:  # the line is not in the query as it was cleaned: its words stay in the question
        return replace(found, phrase=(0, 0))
    a, b = found.phrase
    return replace(found, phrase=(a + at, b + at))


_WHEN_ASKED = re.compile(
    r"^\W*when\b|\bwhen (?:did|was|were|is|are|does|do|had|has|will|would)\b"
    r"|\bwhat (?:date|day|month|year|time)\b|\bhow long ago\b|\bsince when\b"
    r"|什么时候|啥时候|啥时|几时|哪天|哪一天|几月|几号|哪年|哪一年|哪个月|多久以前",
    re.IGNORECASE,
)
_ANY_MONTH = _MONTH.replace("(?P<month>", "(?:") + r"\b"
_ANY_WEEKDAY = "|".join(WEEKDAYS)
_TELLS_WHEN = re.compile(
    rf"\b(?:on|last|next|this|since|by|until|from)\s+(?:{_ANY_WEEKDAY})\b|\b(?:{_ANY_WEEKDAY})s?\b"
    rf"|\b(?:next|last|this)\s+(?:week|weekend|month|year|night|morning|spring|summer|autumn|fall|winter)\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)\b|\b{_ANY_MONTH}\s+\d{{1,2}}\b|\b\d{{1,2}}\s+{_ANY_MONTH}\b"
    r"|\b(?:19|20)\d\d\b|\bago\b"
    r"|\b(?:yesterday|tomorrow|today|tonight|christmas|easter|thanksgiving|halloween|new year'?s?)\b"
    r"|\b(?:the other day|(?:over|at|on) the weekend)\b"
    rf"|\b(?:{'|'.join(m for m in EN_MONTHS if m != 'may')})\b|\b(?:in|during|of|since|early|late|mid) may\b"
    rf"|{_ZH_HOLIDAYS}|[春夏秋冬](?:天|季)|前几天|前两天|前些天|周末|(?:周|星期|礼拜)[一二三四五六日天]"
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
