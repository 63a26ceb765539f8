import math
import time
from datetime import UTC, date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from mneme_core import dates

EAST8 = timezone(timedelta(hours=8))
NEW_YORK = ZoneInfo("America/New_York")


def at(*parts: int, zone=EAST8) -> float:
    """The timestamp of a wall-clock time in a zone."""
    return datetime(*parts, tzinfo=zone).timestamp()


NOW = at(2026, 11, 30, 10, 0)


@pytest.mark.parametrize(
    ("moment", "en", "zh"),
    [
        (at(2026, 11, 30, 0, 0), "today", "今天"),
        (at(2026, 11, 30, 23, 59), "today", "今天"),
        (at(2026, 11, 29, 8, 0), "yesterday", "昨天"),
        (at(2026, 11, 28, 12, 0), "2 days ago", "2天前"),
        (at(2026, 11, 27, 12, 0), "3 days ago", "3天前"),
        (at(2026, 11, 24, 12, 0), "6 days ago", "6天前"),
        (at(2026, 11, 23, 12, 0), "11-23", "11-23"),
        (at(2026, 1, 1, 0, 0), "01-01", "01-01"),
        (at(2025, 9, 17, 12, 0), "last year 09-17", "去年 09-17"),
        (at(2025, 1, 1, 12, 0), "last year 01-01", "去年 01-01"),
        (at(2024, 12, 31, 12, 0), "2024-12-31", "2024-12-31"),
        (at(2026, 12, 1, 12, 0), "tomorrow", "明天"),
        (at(2026, 12, 2, 12, 0), "the day after tomorrow", "后天"),
        (at(2026, 12, 3, 12, 0), "in 3 days", "3天后"),
        (at(2026, 12, 6, 12, 0), "in 6 days", "6天后"),
        (at(2026, 12, 7, 12, 0), "12-07", "12-07"),
        (at(2026, 12, 31, 23, 0), "12-31", "12-31"),
        (at(2027, 2, 1, 12, 0), "next year 02-01", "明年 02-01"),
        (at(2027, 12, 31, 12, 0), "next year 12-31", "明年 12-31"),
        (at(2028, 1, 1, 12, 0), "2028-01-01", "2028-01-01"),
    ],
)
def test_when_says_every_row_of_the_table(moment, en, zh):
    assert dates.when(moment, NOW, EAST8) == en
    assert dates.when(moment, NOW, EAST8, lang="zh") == zh


def test_when_counts_calendar_days_not_24_hours():
    just_before_midnight = at(2026, 11, 29, 23, 59)
    assert NOW - just_before_midnight < 24 * 3600
    assert dates.when(just_before_midnight, NOW, EAST8) == "yesterday"
    two_minutes_later = at(2026, 11, 30, 0, 1)
    assert dates.when(just_before_midnight, two_minutes_later, EAST8) == "yesterday"
    assert dates.when(at(2026, 11, 28, 0, 0), at(2026, 11, 30, 23, 59), EAST8) == "2 days ago"


def test_when_depends_on_the_zone():
    moment = at(2026, 11, 30, 1, 0)  # 2026-11-29 17:00 in UTC
    assert dates.when(moment, NOW, EAST8) == "today"
    assert dates.when(moment, NOW, UTC) == "yesterday"
    assert dates.when(moment, NOW, dates.zone_of("UTC")) == "yesterday"


@pytest.mark.parametrize(
    ("moment", "now", "en", "zh"),
    [
        (at(2026, 12, 30, 12, 0), at(2027, 1, 2, 9, 0), "3 days ago", "3天前"),
        (at(2026, 12, 27, 12, 0), at(2027, 1, 2, 9, 0), "6 days ago", "6天前"),
        (at(2026, 12, 26, 12, 0), at(2027, 1, 2, 9, 0), "last year 12-26", "去年 12-26"),
        (at(2026, 12, 31, 23, 59), at(2027, 1, 1, 0, 0), "yesterday", "昨天"),
        (at(2027, 1, 2, 12, 0), at(2026, 12, 30, 9, 0), "in 3 days", "3天后"),
        (at(2027, 1, 1, 0, 0), at(2026, 12, 31, 23, 59), "tomorrow", "明天"),
        (at(2027, 1, 6, 12, 0), at(2026, 12, 30, 9, 0), "next year 01-06", "明年 01-06"),
        (at(2025, 12, 31, 12, 0), at(2027, 1, 1, 9, 0), "2025-12-31", "2025-12-31"),
    ],
)
def test_when_near_days_win_over_year_boundaries(moment, now, en, zh):
    assert dates.when(moment, now, EAST8) == en
    assert dates.when(moment, now, EAST8, "zh") == zh


@pytest.mark.parametrize("lang", ["zh", "zh-CN", "zh-TW", "zh-Hant", "ZH", "zh_CN"])
def test_when_speaks_chinese_for_every_zh_tag(lang):
    assert dates.when(at(2026, 11, 29, 12, 0), NOW, EAST8, lang) == "昨天"
    assert dates.when(at(2026, 12, 2, 12, 0), NOW, EAST8, lang) == "后天"


@pytest.mark.parametrize("lang", ["en", "en-GB", "fr", "ja", "", "zhx"])
def test_when_falls_back_to_english(lang):
    assert dates.when(at(2026, 11, 29, 12, 0), NOW, EAST8, lang) == "yesterday"
    assert dates.when(at(2026, 12, 4, 12, 0), NOW, EAST8, lang) == "in 4 days"


@pytest.mark.parametrize(
    ("name", "offset"),
    [
        ("UTC", timedelta(0)),
        ("UTC+0", timedelta(0)),
        ("UTC+8", timedelta(hours=8)),
        ("UTC-5", timedelta(hours=-5)),
        ("UTC-5:30", timedelta(hours=-5, minutes=-30)),
        ("UTC+05:45", timedelta(hours=5, minutes=45)),
        ("UTC+14", timedelta(hours=14)),
        ("UTC-14:00", timedelta(hours=-14)),
    ],
)
def test_zone_of_reads_fixed_offsets(name, offset):
    zone = dates.zone_of(name)
    assert isinstance(zone, timezone)
    assert zone.utcoffset(None) == offset


def test_zone_of_reads_iana_names_and_the_machines():
    shanghai = dates.zone_of("Asia/Shanghai")
    assert isinstance(shanghai, ZoneInfo)
    assert shanghai.key == "Asia/Shanghai"
    assert dates.zone_of("America/New_York").utcoffset(datetime(2026, 7, 1)) == timedelta(hours=-4)
    assert dates.zone_of("") is None


@pytest.mark.parametrize(
    "name", ["Mars/Base", "UTC+15", "UTC-14:30", "UTC+8:60", "UTC+", "GMT+8:0", "Asia", "../etc/passwd", " "]
)
def test_zone_of_refuses_what_is_not_a_zone_naming_it(name):
    with pytest.raises(dates.DateError, match="is not a time zone") as caught:
        dates.zone_of(name)
    assert repr(name) in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_zone_of_says_what_is_allowed():
    with pytest.raises(ValueError) as caught:
        dates.zone_of("Mars/Base")
    assert '"UTC+8"' in str(caught.value)
    assert "Asia/Shanghai" in str(caught.value)
    with pytest.raises(ValueError, match="UTC-14 to UTC\\+14"):
        dates.zone_of("UTC+15")


def test_zone_of_refuses_a_non_string():
    with pytest.raises(TypeError, match="int"):
        dates.zone_of(8)


def test_local_is_aware_and_in_the_zone():
    moment = dates.local(NOW, EAST8)
    assert moment.utcoffset() == timedelta(hours=8)
    assert (moment.year, moment.month, moment.day, moment.hour) == (2026, 11, 30, 10)
    assert dates.local(NOW, None).tzinfo is not None
    assert dates.local(NOW, None).timestamp() == NOW


def noon_of(year: int, month: int, day: int, zone=EAST8) -> float:
    return at(year, month, day, 12, 0, zone=zone)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("dentist on 2027-03-05 at nine", (2027, 3, 5)),
        ("dentist on 2027/3/5", (2027, 3, 5)),
        ("牙医 2027年3月5日 上午", (2027, 3, 5)),
        ("牙医 2027年3月5号", (2027, 3, 5)),
        ("she was born on September 17, 1999", (1999, 9, 17)),
        ("she was born on 17 September 1999", (1999, 9, 17)),
        ("2024-01-01T08:00", (2024, 1, 1)),
    ],
)
def test_find_reads_dates_with_a_year(text, day):
    assert dates.find(text, NOW, EAST8) == noon_of(*day)
    assert dates.find(text, NOW, EAST8, ahead=True) == noon_of(*day)


def test_find_prefers_a_full_date_and_takes_the_first():
    assert dates.find("3月5日, then 2027-04-01", NOW, EAST8) == noon_of(2027, 4, 1)
    assert dates.find("2027-04-01 or 2027-05-01", NOW, EAST8) == noon_of(2027, 4, 1)


@pytest.mark.parametrize(
    "text",
    [
        "12345-01-01",
        "2025-01-011",
        "2025-13-01",
        "2025-02-30",
        "2025-03/05",
        "12345年3月5日",
        "nothing here",
        "",
    ],
)
def test_find_skips_what_is_not_a_day(text):
    assert dates.find(text, NOW, EAST8) is None


def test_find_skips_an_invalid_day_and_reads_the_next():
    assert dates.find("2025-02-30, no, 2025-02-28", NOW, EAST8) == noon_of(2025, 2, 28)
    assert dates.find("2月30日 or 3月1日", NOW, EAST8) == noon_of(2027, 3, 1)


@pytest.mark.parametrize(
    ("text", "nearest", "ahead"),
    [
        ("生日是9月17日", (2026, 9, 17), (2027, 9, 17)),
        ("生日是9月17号", (2026, 9, 17), (2027, 9, 17)),
        ("birthday Sept 17", (2026, 9, 17), (2027, 9, 17)),
        ("birthday sep. 17th", (2026, 9, 17), (2027, 9, 17)),
        ("birthday September 17", (2026, 9, 17), (2027, 9, 17)),
        ("birthday 17 September", (2026, 9, 17), (2027, 9, 17)),
        ("birthday the 17th of September", (2026, 9, 17), (2027, 9, 17)),
        ("12月25日聚会", (2026, 12, 25), (2026, 12, 25)),
        ("今天11月30日", (2026, 11, 30), (2026, 11, 30)),
        ("11月29日", (2026, 11, 29), (2027, 11, 29)),
    ],
)
def test_find_reads_a_day_without_a_year(text, nearest, ahead):
    assert dates.find(text, NOW, EAST8) == noon_of(*nearest)
    assert dates.find(text, NOW, EAST8, ahead=True) == noon_of(*ahead)


def test_find_takes_the_nearest_day_across_a_year_boundary():
    december = at(2026, 12, 20, 10, 0)
    assert dates.find("1月5日", december, EAST8) == noon_of(2027, 1, 5)
    assert dates.find("1月5日", december, EAST8, ahead=True) == noon_of(2027, 1, 5)
    assert dates.find("Jan 5", december, EAST8, ahead=True) == noon_of(2027, 1, 5)
    january = at(2027, 1, 3, 10, 0)
    assert dates.find("12月28日", january, EAST8) == noon_of(2026, 12, 28)
    assert dates.find("12月28日", january, EAST8, ahead=True) == noon_of(2027, 12, 28)


def test_find_breaks_a_tie_towards_the_coming_day():
    halfway = at(2027, 8, 31, 10, 0)  # 183 days after 2027-03-01 and before 2028-03-01
    assert dates.find("3月1日", halfway, EAST8) == noon_of(2028, 3, 1)


def test_find_finds_the_next_leap_day():
    assert dates.find("2月29日", NOW, EAST8, ahead=True) == noon_of(2028, 2, 29)
    assert dates.find("2月29日", NOW, EAST8) == noon_of(2028, 2, 29)


def test_find_ignores_words_that_only_look_like_months():
    assert dates.find("mayday 5", NOW, EAST8) is None
    assert dates.find("Sept 123", NOW, EAST8) is None


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("on 2023-03-05", date(2023, 3, 5)),
        ("2023年3月5日", date(2023, 3, 5)),
        ("May 7, 2023", date(2023, 5, 7)),
        ("the 5th of March 2021", date(2021, 3, 5)),
        ("March 5th", date(2024, 3, 5)),  # no year: the nearest to 2024-06-16
        ("Dec 25", date(2023, 12, 25)),
        ("Feb 30 2023", None),  # no such day
    ],
)
def test_day_written_reads_a_match_of_any_written_form(text: str, day: date | None) -> None:
    """`periods` finds days with `WRITTEN` and reads them with `day_written`, as `find` does."""
    today = date(2024, 6, 16)
    found = [m for pattern in dates.WRITTEN for m in pattern.finditer(text)]
    assert len(found) == 1, text
    assert dates.day_written(found[0], today) == day


def test_find_returns_noon_in_the_zone():
    found = dates.find("2026-06-01", NOW, NEW_YORK)
    assert found == datetime(2026, 6, 1, 12, tzinfo=NEW_YORK).timestamp()
    assert dates.local(found, NEW_YORK).hour == 12


def test_noon_reads_a_day():
    assert dates.noon("2026-03-05", EAST8) == noon_of(2026, 3, 5)
    assert dates.noon("2026-03-05", UTC) == datetime(2026, 3, 5, 12, tzinfo=UTC).timestamp()
    assert dates.noon(" 2026-03-05 ", EAST8) == noon_of(2026, 3, 5)


@pytest.mark.parametrize(
    "day", ["2025-02-30", "2026-3-5", "2026/03/05", "tomorrow", "", "3000-01-01", "1960-01-01"]
)
def test_noon_refuses_what_is_not_a_day(day):
    assert dates.noon(day, EAST8) is None


def test_noon_refuses_a_non_string():
    assert dates.noon(20260305, EAST8) is None


@pytest.mark.parametrize("value", [0, 1_700_000_000, 1_700_000_000.5, 32503679999])
def test_seconds_accepts_times_in_range(value):
    assert dates.seconds(value) == float(value)
    assert isinstance(dates.seconds(value), float)


def test_seconds_refuses_milliseconds_with_a_hint():
    with pytest.raises(dates.DateError) as caught:
        dates.seconds(1_700_000_000_000)
    assert str(caught.value) == (
        "happened_at is a time in seconds between 1970 and the year 3000, "
        "not 1700000000000 (was it milliseconds?)"
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [(-1, "-1"), (math.nan, "nan"), (math.inf, "inf"), (-math.inf, "-inf"), (10**14, "100000000000000")],
)
def test_seconds_refuses_values_out_of_range(value, shown):
    with pytest.raises(ValueError) as caught:
        dates.seconds(value, "due")
    message = str(caught.value)
    assert message.startswith("due is a time in seconds between 1970 and the year 3000")
    assert message.endswith(f"not {shown}")
    assert "milliseconds" not in message


def test_seconds_refuses_the_year_3000_itself():
    with pytest.raises(ValueError, match="not 32503680000"):
        dates.seconds(32503680000)


def test_seconds_refuses_a_huge_integer():
    with pytest.raises(ValueError, match="not 1000"):
        dates.seconds(10**400)


@pytest.mark.parametrize(("value", "kind"), [(True, "bool"), ("1700000000", "str"), (None, "NoneType")])
def test_seconds_refuses_what_is_not_a_number(value, kind):
    with pytest.raises(TypeError) as caught:
        dates.seconds(value)
    assert f"not {kind}" in str(caught.value)
    assert repr(value) in str(caught.value)


def test_day_start_is_local_midnight():
    assert dates.day_start(NOW, EAST8) == at(2026, 11, 30, 0, 0)
    assert dates.day_start(at(2026, 11, 30, 0, 0), EAST8) == at(2026, 11, 30, 0, 0)
    assert dates.day_start(at(2026, 11, 29, 23, 59), EAST8) == at(2026, 11, 29, 0, 0)


def test_day_start_across_spring_forward_in_new_york():
    # 2026-03-08: clocks jump from 02:00 EST to 03:00 EDT, so 15:00 is 14 hours after midnight.
    afternoon = datetime(2026, 3, 8, 15, tzinfo=NEW_YORK).timestamp()
    start = dates.day_start(afternoon, NEW_YORK)
    assert start == datetime(2026, 3, 8, 5, tzinfo=UTC).timestamp()
    assert afternoon - start == 14 * 3600
    assert dates.stamp(start, NEW_YORK) == "2026-03-08 00:00"
    next_day = datetime(2026, 3, 9, 1, tzinfo=NEW_YORK).timestamp()
    assert dates.day_start(next_day, NEW_YORK) - start == 23 * 3600


def test_day_start_across_fall_back_in_new_york():
    # 2026-11-01: clocks fall back from 02:00 EDT to 01:00 EST, so 15:00 is 16 hours after midnight.
    afternoon = datetime(2026, 11, 1, 15, tzinfo=NEW_YORK).timestamp()
    start = dates.day_start(afternoon, NEW_YORK)
    assert start == datetime(2026, 11, 1, 4, tzinfo=UTC).timestamp()
    assert afternoon - start == 16 * 3600
    second_one_oclock = datetime(2026, 11, 1, 1, 30, fold=1, tzinfo=NEW_YORK).timestamp()
    assert dates.day_start(second_one_oclock, NEW_YORK) == start


def test_day_start_when_midnight_is_skipped():
    # Chile springs forward at midnight: 2026-09-06 begins at 01:00, the moment of the jump.
    santiago = ZoneInfo("America/Santiago")
    noon = datetime(2026, 9, 6, 12, tzinfo=santiago).timestamp()
    start = dates.day_start(noon, santiago)
    assert dates.stamp(start, santiago) == "2026-09-06 01:00"
    assert dates.stamp(start - 1, santiago) == "2026-09-05 23:59"


def test_day_start_when_midnight_happens_twice():
    # Cuba falls back at 01:00 to 00:00: 2026-11-01 starts at the first midnight,
    # 25 hours before the next day.
    havana = ZoneInfo("America/Havana")
    afternoon = datetime(2026, 11, 1, 15, tzinfo=havana).timestamp()
    start = dates.day_start(afternoon, havana)
    assert start == datetime(2026, 11, 1, 4, tzinfo=UTC).timestamp()
    assert dates.stamp(start - 1, havana) == "2026-10-31 23:59"
    assert afternoon - start == 16 * 3600


@pytest.fixture
def new_york_machine(monkeypatch):
    if not hasattr(time, "tzset"):
        pytest.skip("time.tzset is not available on this platform")
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_machine_zone_is_used_when_zone_is_none(new_york_machine):
    afternoon = datetime(2026, 3, 8, 15, tzinfo=NEW_YORK).timestamp()
    assert dates.day_start(afternoon, None) == dates.day_start(afternoon, NEW_YORK)
    assert dates.stamp(afternoon) == "2026-03-08 15:00"
    assert dates.noon("2026-03-08") == datetime(2026, 3, 8, 12, tzinfo=NEW_YORK).timestamp()
    late = datetime(2026, 3, 7, 23, 30, tzinfo=NEW_YORK).timestamp()
    assert dates.when(late, afternoon) == "yesterday"


def test_stamp_formats_local_minutes():
    assert dates.stamp(NOW, EAST8) == "2026-11-30 10:00"
    assert dates.stamp(NOW, UTC) == "2026-11-30 02:00"
    assert dates.stamp(at(2026, 1, 2, 3, 4, 59), EAST8) == "2026-01-02 03:04"
