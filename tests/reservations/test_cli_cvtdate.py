"""pbs_rsub/pbs_ralter times (fake_pbs/model/cvtdate.py) as OpenPBS's ``cvtdate``
(src/lib/Libcmds/cvtdate.c) and pbs_rsub.c's end roll-over give them, with a fixed "now"."""
import calendar
import time
from typing import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_pbs.model.cvtdate import DAY, cvtdate, is_hhmm, rsub_end

from . import cli_support
from .cli_support import case_time

NOW = calendar.timegm((2026, 11, 27, 3, 58, 2))  # R14's clock: Fri Nov 27 03:58:02 2026 UTC


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield from cli_support.utc(monkeypatch)


def at(*fields: int) -> int:
    return calendar.timegm(fields + (0,) * (6 - len(fields)))


def test_hhmm_today_and_tomorrow() -> None:
    """R01 (0359.21 at 03:57:52: today), R15b (0347 at 03:58: tomorrow), R14's pair."""
    r01 = case_time("R01_rsub")
    assert cvtdate("0359.21", r01) == at(2026, 11, 27, 3, 59, 21)
    assert cvtdate("0347", case_time("R15b_rsub_start_past_hhmm")) == at(2026, 11, 28, 3, 47)
    assert cvtdate("0457.51", NOW) == at(2026, 11, 27, 4, 57, 51)
    assert cvtdate("0427.51", NOW) == at(2026, 11, 27, 4, 27, 51)


def test_same_minute_is_tomorrow() -> None:
    """R53/R53g: ``0404.38`` typed at 04:04:25 is Sat Nov 28 04:04:38 (cvtdate compares whole
    minutes, ``<=``)."""
    now = case_time("R53_rsub_same_minute_hhmm")
    assert time.strftime("%H:%M:%S", time.gmtime(now)) == "04:04:25"
    assert cvtdate("0404.38", now) == at(2026, 11, 28, 4, 4, 38)


def test_full_dates_are_taken_as_given() -> None:
    """R15: a full date in the past stays in the past (the server says Bad time
    specification(s)); R52: a full date a few seconds ahead."""
    assert cvtdate("202611270347.51", NOW) == at(2026, 11, 27, 3, 47, 51)
    assert cvtdate("2611270347", NOW) == at(2026, 11, 27, 3, 47)
    assert cvtdate("6911270347", NOW) == at(1969, 11, 27, 3, 47)


def test_partial_dates_roll_forward() -> None:
    """DDhhmm before today's day is next month; MMDDhhmm before this month is next year; this
    month's stays this year even when past."""
    assert cvtdate("010000", NOW) == at(2026, 12, 1)
    assert cvtdate("270100", NOW) == at(2026, 11, 27, 1, 0)  # today, earlier: not rolled
    assert cvtdate("10010000", NOW) == at(2027, 10, 1)
    assert cvtdate("11010000", NOW) == at(2026, 11, 1)
    assert cvtdate("12310000", NOW) == at(2026, 12, 31)


@pytest.mark.parametrize("bad", ["2561", "2562", "1260", "12", "123", "12345", "1200.6",
                                 "1200.60", "1200.a1", "12x0", "001200", "321200", "13011200",
                                 "", "1200.", "１２００"])
def test_illegal_values(bad: str) -> None:
    """R17b: ``-R 2561`` is ``illegal -R time value``; cvtdate's other -1 returns."""
    assert cvtdate(bad, NOW) is None


def test_end_roll_over() -> None:
    """R14: ``-R 0457.51 -E 0427.51`` -> end tomorrow, duration 84600; only for hhmm starts."""
    start, end = cvtdate("0457.51", NOW), cvtdate("0427.51", NOW)
    assert start is not None and end is not None
    assert rsub_end(start, end, is_hhmm("0457.51")) - start == 84600
    assert rsub_end(start, end, is_hhmm("270457.51")) == end
    assert rsub_end(end, start, True) == start
    assert is_hhmm("0457") and is_hhmm("0457.51") and not is_hhmm("20261127")


@settings(max_examples=300, deadline=None)
@given(now=st.integers(at(2000, 1, 1), at(2037, 12, 31)), hour=st.integers(0, 23),
       minute=st.integers(0, 59), second=st.integers(0, 59))
def test_hhmm_is_the_next_such_time_after_this_minute(now: int, hour: int, minute: int,
                                                      second: int) -> None:
    """Over the roll-over boundary: ``hhmm.SS`` is the first such time starting after the
    current minute (so never in the current minute, never more than a day and a minute on)."""
    got = cvtdate("%02d%02d.%02d" % (hour, minute, second), now)
    assert got is not None
    tm = time.gmtime(got)
    assert (tm.tm_hour, tm.tm_min, tm.tm_sec) == (hour, minute, second)
    minute_start = now - now % 60
    assert minute_start + 60 <= got < minute_start + 60 + DAY
