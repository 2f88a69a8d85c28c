"""Recurrence rules (fake_pbs/model/rrule.py) as PBS's pbs_ical.c reads them through libical:
check_rrule's codes and counts, the occurrence start times."""
import calendar
from typing import List

import pytest

from fake_pbs.model import rrule
from fake_pbs.model.errors import (PBSE_BAD_ICAL_TZ, PBSE_BAD_RRULE_DAILY,
                                   PBSE_BAD_RRULE_MINUTELY, PBSE_BAD_RRULE_SYNTAX,
                                   PBSE_BAD_RRULE_SYNTAX2, PBSE_BAD_RRULE_WEEKLY, PBSE_BADTSPEC,
                                   PbsError)

START = calendar.timegm((2026, 11, 27, 7, 1, 59, 0))  # R40: -R 0701.59, Fri Nov 27 2026 UTC
H, D = 3600, 86400


def at(*fields: int) -> int:
    return calendar.timegm(fields + (0,) * (6 - len(fields)))


def code_of(text: str, start: int = START, end: int = START + 600, tz: str = "UTC") -> int:
    with pytest.raises(PbsError) as err:
        rrule.check_rrule(text, start, end, tz)
    return err.value.code


def test_transcript_counts() -> None:
    """R40b ``FREQ=DAILY;COUNT=2`` -> reserve_count 2; R42b ``FREQ=HOURLY;INTERVAL=2;COUNT=3``
    -> 3 occurrences two hours apart from 08:01:59."""
    assert rrule.check_rrule("FREQ=DAILY;COUNT=2", START, START + 600, "UTC") == 2
    s42 = at(2026, 11, 27, 8, 1, 59)
    assert rrule.check_rrule("FREQ=HOURLY;INTERVAL=2;COUNT=3", s42, s42 + 300, "UTC") == 3
    assert rrule.occurrence_starts("FREQ=HOURLY;INTERVAL=2;COUNT=3", s42, "UTC", s42) \
        == [s42, s42 + 2 * H, s42 + 4 * H]


def test_transcript_errors() -> None:
    """R41 ``FREQ=BOGUS`` rc 29, R41b MINUTELY with 10 minutes rc 27, R41c ``Bogus/Zone`` rc 31
    (message texts: pbs_messages.c)."""
    assert code_of("FREQ=BOGUS;COUNT=2") == PBSE_BAD_RRULE_SYNTAX
    assert code_of("FREQ=MINUTELY;COUNT=3") == PBSE_BAD_RRULE_MINUTELY
    assert code_of("FREQ=DAILY;COUNT=2", tz="Bogus/Zone") == PBSE_BAD_ICAL_TZ
    assert [PbsError(c).exit_code for c in (PBSE_BAD_RRULE_SYNTAX, PBSE_BAD_RRULE_MINUTELY,
                                            PBSE_BAD_ICAL_TZ)] == [29, 27, 31]
    assert PbsError(PBSE_BAD_RRULE_MINUTELY).text \
        == "MINUTELY recurrence duration cannot exceed 1 minute"


@pytest.mark.parametrize("text, code", [
    ("FREQ=DAILY", PBSE_BAD_RRULE_SYNTAX2),  # neither COUNT nor UNTIL
    ("FREQ=DAILY;COUNT=2;UNTIL=20261231T000000Z", PBSE_BAD_RRULE_SYNTAX2),  # both
    ("FREQ=DAILY;COUNT=0", PBSE_BAD_RRULE_SYNTAX2),  # libical: COUNT=0 is no COUNT
    ("COUNT=2", PBSE_BAD_RRULE_SYNTAX),  # no FREQ
    ("FREQ=DAILY;COUNT=2;FOO=1", PBSE_BAD_RRULE_SYNTAX),  # an unknown part
    ("FREQ=DAILY;COUNT=x", PBSE_BAD_RRULE_SYNTAX),
    ("FREQ=WEEKLY;BYDAY=-1FR;COUNT=2", PBSE_BAD_RRULE_SYNTAX),  # check_rrule: by_day <= 0
    ("FREQ=WEEKLY;BYDAY=XX;COUNT=2", PBSE_BAD_RRULE_SYNTAX),
    ("FREQ=DAILY;BYHOUR=24;COUNT=2", PBSE_BAD_RRULE_SYNTAX),
    ("FREQ=MONTHLY;BYMONTHDAY=1;COUNT=2", PBSE_BAD_RRULE_SYNTAX),  # unsupported BY* parts
    ("FREQ=DAILY;BYMINUTE=5;COUNT=2", PBSE_BAD_RRULE_SYNTAX),
    ("FREQ=YEARLY;BYSETPOS=1;COUNT=2", PBSE_BAD_RRULE_SYNTAX),
    ("FREQ=DAILY;COUNT=", PBSE_BAD_RRULE_SYNTAX),
])
def test_syntax_errors(text: str, code: int) -> None:
    """pbs_ical.c check_rrule, in its order: zone, by_day, by_hour, FREQ, unsupported BY*
    parts, COUNT xor UNTIL."""
    assert code_of(text) == code


def test_zone_checked_first() -> None:
    """check_rrule looks the zone up before it parses the rule."""
    assert code_of("FREQ=BOGUS", tz="Nowhere/Land") == PBSE_BAD_ICAL_TZ
    assert code_of("FREQ=DAILY;COUNT=2", tz="../etc/passwd") == PBSE_BAD_ICAL_TZ


def test_durations() -> None:
    """A duration beyond the frequency's (DAILY: 24 h, WEEKLY: a week) is its own error; one
    longer than the shortest gap between occurrences is Bad time specification(s)."""
    assert code_of("FREQ=DAILY;COUNT=2", end=START + D + 1) == PBSE_BAD_RRULE_DAILY
    assert rrule.check_rrule("FREQ=DAILY;COUNT=2", START, START + D, "UTC") == 2
    assert code_of("FREQ=WEEKLY;COUNT=2", end=START + 8 * D) == PBSE_BAD_RRULE_WEEKLY
    # MO,TU,WE: one day apart; a 2-day reservation overlaps the next occurrence
    assert code_of("FREQ=WEEKLY;BYDAY=MO,TU,WE;COUNT=4", end=START + 2 * D) == PBSE_BADTSPEC
    # one occurrence: no gap to compare with
    assert rrule.check_rrule("FREQ=HOURLY;COUNT=1", START, START + 600, "UTC") == 1


def test_no_occurrence_is_bad_time() -> None:
    """check_rrule: no first occurrence (UNTIL before the start) -> Bad time specification(s)."""
    assert code_of("FREQ=DAILY;UNTIL=20261101T000000Z") == PBSE_BADTSPEC


def starts(text: str, start: int = START, tz: str = "UTC") -> List[int]:
    return rrule.occurrence_starts(text, start, tz, start)


def test_weekly_byday() -> None:
    """WEEKLY;BYDAY from a Friday: the start's week first (FR, then next MO, WE), as libical
    iterates; the start itself counts when it matches."""
    got = starts("FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=4")
    assert got == [START, START + 3 * D, START + 5 * D, START + 7 * D]
    # a start that does not match the rule is not an occurrence (libical, not RFC 5545)
    assert starts("FREQ=WEEKLY;BYDAY=MO;COUNT=2") == [START + 3 * D, START + 10 * D]


def test_until_inclusive_and_date_form() -> None:
    """UNTIL includes an occurrence at that very time; a DATE UNTIL includes its whole day."""
    assert len(starts("FREQ=DAILY;UNTIL=20261129T070159Z")) == 3
    assert len(starts("FREQ=DAILY;UNTIL=20261129T070158Z")) == 2
    assert len(starts("FREQ=DAILY;UNTIL=20261129")) == 3


def test_daily_byhour_and_interval() -> None:
    """DAILY;BYHOUR expands within a day (minute and second from the start); earlier hours of
    the first day are before the start and skipped."""
    got = starts("FREQ=DAILY;BYHOUR=6,9;COUNT=3")
    assert got == [at(2026, 11, 27, 9, 1, 59), at(2026, 11, 28, 6, 1, 59),
                   at(2026, 11, 28, 9, 1, 59)]
    assert starts("FREQ=DAILY;INTERVAL=3;COUNT=2") == [START, START + 3 * D]


def test_monthly_and_yearly() -> None:
    """MONTHLY;BYDAY=1MO: the first Monday of each month; YEARLY;BYMONTH; a day-31 start skips
    shorter months (RFC 5545)."""
    assert starts("FREQ=MONTHLY;BYDAY=1MO;COUNT=2") == [
        at(2026, 12, 7, 7, 1, 59), at(2027, 1, 4, 7, 1, 59)]
    assert starts("FREQ=YEARLY;BYMONTH=1,6;COUNT=3") == [
        at(2027, 1, 27, 7, 1, 59), at(2027, 6, 27, 7, 1, 59), at(2028, 1, 27, 7, 1, 59)]
    s31 = at(2027, 1, 31, 10)
    assert starts("FREQ=MONTHLY;COUNT=3", s31) == [s31, at(2027, 3, 31, 10), at(2027, 5, 31, 10)]


def test_wall_clock_across_dst() -> None:
    """In PBS_TZID's zone an occurrence keeps its wall-clock time across a DST change
    (America/New_York, 2026-11-01): 09:00 local is 13:00 UTC, then 14:00 UTC."""
    start = at(2026, 10, 31, 13)  # 09:00 EDT
    assert rrule.occurrence_starts("FREQ=DAILY;COUNT=2", start, "America/New_York", start) \
        == [start, at(2026, 11, 1, 14)]


def test_three_year_horizon_and_occurrence() -> None:
    """get_num_occurrences counts starts before now + 3 years; get_occurrence(idx)."""
    got = rrule.occurrence_starts("FREQ=YEARLY;COUNT=10", START, "UTC", START)
    assert got == [START, at(2027, 11, 27, 7, 1, 59), at(2028, 11, 27, 7, 1, 59)]
    assert rrule.check_rrule("FREQ=YEARLY;COUNT=10", START, START + 600, "UTC") == 10
    assert rrule.occurrence("FREQ=DAILY;COUNT=2", START, "UTC", 0) == START
    assert rrule.occurrence("FREQ=DAILY;COUNT=2", START, "UTC", 2) == START + D
    assert rrule.occurrence("FREQ=DAILY;COUNT=2", START, "UTC", 3) == -1


def test_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule without end in sight stops at the module's bound instead of looping."""
    monkeypatch.setattr(rrule, "MAX_OCCURRENCES", 1000)
    count = rrule.check_rrule("FREQ=SECONDLY;UNTIL=29991231T000000Z", START, START + 1, "UTC")
    assert count == 1000
