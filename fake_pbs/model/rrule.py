"""Standing reservations' recurrence rules, as PBS reads them (OpenPBS
``src/lib/Libutil/pbs_ical.c`` over libical's ``icalrecurrencetype_from_string`` and iterator).

Pure: no clock, no files but the system's time zone database (``zoneinfo``, standing in for
libical's built-in zones).  Public API (the server calls it):

- :func:`check_rrule` -- pbs_ical.c ``check_rrule``: the number of occurrences, or
  :class:`PbsError` with PBS's code (:func:`checked_starts`: the occurrences themselves);
- :func:`within_horizon` -- the leading starts within PBS's 3-year horizon;
- :func:`occurrence_starts` -- the start times within PBS's 3-year horizon
  (``get_num_occurrences`` + ``get_occurrence``);
- :func:`occurrence` -- ``get_occurrence``: the ``idx``-th start (1-based), -1 past the end.

What PBS accepts: ``FREQ`` (SECONDLY to YEARLY), ``INTERVAL``, ``COUNT`` or ``UNTIL`` (exactly one),
``BYDAY`` (positive or no ordinal), ``BYHOUR``, ``BYMONTH``, ``WKST``.  ``BYSECOND``, ``BYMINUTE``,
``BYYEARDAY``, ``BYMONTHDAY``, ``BYWEEKNO`` and ``BYSETPOS`` are refused (check_rrule; it lets
``BYMONTHDAY=31`` and ``BYWEEKNO=52/53`` through by an off-by-one, which are refused here too:
docs/differences.md).  A rule libical cannot parse (``FREQ=BOGUS``, an unknown part, a bad
number) is ``Undefined iCalendar syntax`` (transcript R41, rc 29).
"""
from __future__ import annotations

import calendar
import datetime
import zoneinfo

from fake_pbs.model.errors import (PBSE_BAD_ICAL_TZ, PBSE_BAD_RRULE_DAILY, PBSE_BAD_RRULE_HOURLY,
                                   PBSE_BAD_RRULE_MINUTELY, PBSE_BAD_RRULE_MONTHLY,
                                   PBSE_BAD_RRULE_SECONDLY, PBSE_BAD_RRULE_SYNTAX,
                                   PBSE_BAD_RRULE_SYNTAX2, PBSE_BAD_RRULE_WEEKLY,
                                   PBSE_BAD_RRULE_YEARLY, PBSE_BADTSPEC, PbsError)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, Iterable, Iterator, List, Optional, Tuple

FREQS = ("SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY")
DAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")  # Python's weekday() order
#: check_rrule's longest duration per frequency and the error beyond it (pbs_ical.c).
_MAX_DURATION: Dict[str, Tuple[int, int]] = {
    "SECONDLY": (1, PBSE_BAD_RRULE_SECONDLY),
    "MINUTELY": (60, PBSE_BAD_RRULE_MINUTELY),
    "HOURLY": (3600, PBSE_BAD_RRULE_HOURLY),
    "DAILY": (86400, PBSE_BAD_RRULE_DAILY),
    "WEEKLY": (7 * 86400, PBSE_BAD_RRULE_WEEKLY),
    "MONTHLY": (30 * 86400, PBSE_BAD_RRULE_MONTHLY),
    "YEARLY": (30 * 365 * 86400, PBSE_BAD_RRULE_YEARLY),  # sic: 30 * 365 days in pbs_ical.c
}
DATE_LIMIT = 3 * 365 * 86400  # get_num_occurrences: occurrences within 3 years from now
#: Bounds on the iteration (libical stops at its own year limit; a rule like
#: ``FREQ=SECONDLY;UNTIL=29991231T000000Z`` must not loop for hours here).
MAX_OCCURRENCES = 100000
MAX_PERIODS = 400000
_UNSUPPORTED = ("BYSECOND", "BYMINUTE", "BYYEARDAY", "BYMONTHDAY", "BYWEEKNO", "BYSETPOS")


class Rule:
    """A parsed rule (libical's ``icalrecurrencetype``, the parts PBS uses)."""

    def __init__(self) -> None:
        self.freq = ""
        self.interval = 1
        self.count = 0
        self.until: Optional[Tuple[datetime.datetime, str]] = None  # value, "Z"/"local"/"date"
        self.by_day: List[Tuple[int, int]] = []  # (ordinal or 0, weekday 0=MO)
        self.by_hour: List[int] = []
        self.by_month: List[int] = []
        self.wkst = 0
        self.unsupported = False


def _syntax() -> PbsError:
    return PbsError(PBSE_BAD_RRULE_SYNTAX)


def _int(text: str, low: int, high: int) -> int:
    body = text[1:] if text[:1] in "+-" else text
    if not body.isdigit() or not body.isascii():
        raise _syntax()
    value = int(text)
    if not low <= value <= high:
        raise _syntax()
    return value


def _until(text: str) -> Tuple[datetime.datetime, str]:
    try:
        if len(text) == 8:
            return datetime.datetime.strptime(text, "%Y%m%d"), "date"
        if text.endswith("Z"):
            return datetime.datetime.strptime(text[:-1], "%Y%m%dT%H%M%S"), "Z"
        return datetime.datetime.strptime(text, "%Y%m%dT%H%M%S"), "local"
    except ValueError:
        raise _syntax() from None


def parse(text: str) -> Rule:
    """Parse ``text`` as libical does; :class:`PbsError` (syntax) for what it cannot read."""
    rule = Rule()
    for part in text.split(";"):
        name, eq, value = part.partition("=")
        name = name.strip().upper()
        if not eq or not value:
            raise _syntax()
        if name == "FREQ":
            if value.upper() not in FREQS:
                raise _syntax()
            rule.freq = value.upper()
        elif name == "INTERVAL":
            rule.interval = _int(value, 1, 1 << 30)
        elif name == "COUNT":
            rule.count = _int(value, 0, 1 << 30)  # libical's atoi: COUNT=0 is no COUNT
        elif name == "UNTIL":
            rule.until = _until(value)
        elif name == "WKST":
            if value.upper() not in DAYS:
                raise _syntax()
            rule.wkst = DAYS.index(value.upper())
        elif name == "BYDAY":
            for item in value.split(","):
                day = item[-2:].upper()
                if day not in DAYS:
                    raise _syntax()
                ordinal = _int(item[:-2], -53, 53) if item[:-2] else 0
                if ordinal < 0:  # check_rrule: a non-positive by_day code
                    raise _syntax()
                rule.by_day.append((ordinal, DAYS.index(day)))
        elif name == "BYHOUR":
            rule.by_hour = sorted({_int(v, 0, 23) for v in value.split(",")})
        elif name == "BYMONTH":
            rule.by_month = sorted({_int(v, 1, 12) for v in value.split(",")})
        elif name in _UNSUPPORTED:
            rule.unsupported = True
        else:
            raise _syntax()
    return rule


def zone(tzid: str) -> datetime.tzinfo:
    """The zone PBS_TZID names; ``Unrecognized PBS_TZID environment variable`` (R41c)."""
    if not tzid or tzid.startswith("/") or ".." in tzid.split("/"):
        raise PbsError(PBSE_BAD_ICAL_TZ)
    try:
        return zoneinfo.ZoneInfo(tzid)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        raise PbsError(PBSE_BAD_ICAL_TZ) from None


def _local(epoch: int, tz: datetime.tzinfo) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(epoch, tz).replace(tzinfo=None)


def _add_months(year: int, month: int, months: int) -> Tuple[int, int]:
    index = year * 12 + (month - 1) + months
    return index // 12, index % 12 + 1


def _month_days(year: int, month: int, rule: Rule, start: datetime.datetime) -> List[int]:
    """Days of one month a MONTHLY/YEARLY rule picks (BYDAY with ordinals, else start's day)."""
    size = calendar.monthrange(year, month)[1]
    if not rule.by_day:
        return [start.day] if start.day <= size else []  # RFC 5545: an invalid date is skipped
    span = [datetime.date(year, month, d) for d in range(1, size + 1)]
    return [d.day for d in _by_day(span, rule)]


def _day_ok(day: datetime.date, rule: Rule) -> bool:
    """BYMONTH and BYDAY as limits (DAILY and shorter frequencies)."""
    if rule.by_month and day.month not in rule.by_month:
        return False
    return not rule.by_day or any(w == day.weekday() for _, w in rule.by_day)


def _period(rule: Rule, start: datetime.datetime, k: int) -> List[datetime.datetime]:
    """The candidate local times of the ``k``-th period, sorted."""
    step = k * rule.interval
    freq = rule.freq
    if freq in ("SECONDLY", "MINUTELY", "HOURLY"):
        unit = {"SECONDLY": 1, "MINUTELY": 60, "HOURLY": 3600}[freq]
        when = start + datetime.timedelta(seconds=step * unit)
        if not _day_ok(when.date(), rule) or (rule.by_hour and when.hour not in rule.by_hour):
            return []
        return [when]
    hours = rule.by_hour or [start.hour]
    if freq == "DAILY":
        days = [start.date() + datetime.timedelta(days=step)]
        days = [d for d in days if _day_ok(d, rule)]
    elif freq == "WEEKLY":
        week0 = start.date() - datetime.timedelta(days=(start.weekday() - rule.wkst) % 7)
        week = week0 + datetime.timedelta(weeks=step)
        weekdays = sorted({w for _, w in rule.by_day}) if rule.by_day else [start.weekday()]
        days = sorted(week + datetime.timedelta(days=(w - rule.wkst) % 7) for w in weekdays)
        days = [d for d in days if not rule.by_month or d.month in rule.by_month]
    elif freq == "MONTHLY":
        year, month = _add_months(start.year, start.month, step)
        if rule.by_month and month not in rule.by_month:
            return []
        days = [datetime.date(year, month, d) for d in _month_days(year, month, rule, start)]
    else:  # YEARLY
        year = start.year + step
        if datetime.MINYEAR > year or year > datetime.MAXYEAR - 1:
            return []
        months = rule.by_month or [start.month]
        if rule.by_day and not rule.by_month:  # BYDAY alone: every matching day of the year
            days = [datetime.date(year, 1, 1) + datetime.timedelta(days=i)
                    for i in range(366 if calendar.isleap(year) else 365)]
            days = _by_day(days, rule)
        else:
            days = [datetime.date(year, m, d) for m in months
                    for d in _month_days(year, m, rule, start)]
    return [datetime.datetime.combine(d, datetime.time(h, start.minute, start.second))
            for d in days for h in hours]


def _by_day(days: List[datetime.date], rule: Rule) -> List[datetime.date]:
    """The dates of ``days`` (a month or a year) BYDAY picks: each weekday it names, or that
    weekday's n-th in the span."""
    picked = set()
    for ordinal, weekday in rule.by_day:
        matching = [d for d in days if d.weekday() == weekday]
        if ordinal == 0:
            picked.update(matching)
        elif ordinal <= len(matching):
            picked.add(matching[ordinal - 1])
    return sorted(picked)


class _Clock:
    """Local wall times of one zone to epoch seconds, the zone's offset looked up once an hour
    (the iteration's cost is this conversion: ``FREQ=HOURLY`` over 3 years is 26,000 times)."""

    def __init__(self, tz: datetime.tzinfo) -> None:
        self.tz = tz
        self.offsets: Dict[Tuple[int, int, int, int], int] = {}

    def epoch(self, local: datetime.datetime) -> int:
        key = (local.year, local.month, local.day, local.hour)
        offset = self.offsets.get(key)
        if offset is None:
            delta = self.tz.utcoffset(local)
            offset = int(delta.total_seconds()) if delta is not None else 0
            self.offsets[key] = offset
        return (local - _EPOCH) // _SECOND - offset


_EPOCH = datetime.datetime(1970, 1, 1)
_SECOND = datetime.timedelta(seconds=1)


def _until_test(rule: Rule, clock: _Clock) -> Tuple[Optional[datetime.datetime], Optional[int]]:
    """UNTIL as a local-time bound (floating and DATE forms) or an epoch bound (``Z``)."""
    if rule.until is None:
        return None, None
    value, kind = rule.until
    if kind == "date":
        return value.replace(hour=23, minute=59, second=59), None
    if kind == "Z":
        return None, int(value.replace(tzinfo=datetime.timezone.utc).timestamp())
    return value, None


def _iterate(rule: Rule, start_epoch: int, tz: datetime.tzinfo) -> Iterator[int]:
    """libical's iterator from DTSTART: occurrence starts in order, COUNT and UNTIL applied."""
    clock = _Clock(tz)
    start = _local(start_epoch, tz)
    local_until, epoch_until = _until_test(rule, clock)
    produced = 0
    for k in range(MAX_PERIODS):
        try:
            candidates = _period(rule, start, k)
        except (OverflowError, ValueError):
            return
        for when in candidates:
            if when < start:
                continue
            if local_until is not None and when > local_until:
                return
            epoch = clock.epoch(when)
            if epoch_until is not None and epoch > epoch_until:
                return
            yield epoch
            produced += 1
            if produced == rule.count or produced >= MAX_OCCURRENCES:
                return


def _usable(rrule: str, tzid: str) -> Tuple[Rule, datetime.tzinfo]:
    """check_rrule's checks before iterating, in its order."""
    tz = zone(tzid)
    rule = parse(rrule)
    if not rule.freq or rule.unsupported:
        raise _syntax()
    if (rule.count == 0) == (rule.until is None):  # exactly one of COUNT and UNTIL
        raise PbsError(PBSE_BAD_RRULE_SYNTAX2)
    return rule, tz


def check_rrule(rrule: str, start: int, end: int, tzid: str) -> int:
    """pbs_ical.c ``check_rrule``: how many occurrences ``rrule`` gives from ``start``, or
    :class:`PbsError`: a rule or zone PBS refuses, no occurrence at all (``Bad time
    specification(s)``), a duration (``end - start``) longer than the frequency allows
    (``MINUTELY recurrence duration cannot exceed 1 minute``, R41b) or than the shortest gap
    between two occurrences (``Bad time specification(s)``)."""
    return len(checked_starts(rrule, start, end, tzid))


def checked_starts(rrule: str, start: int, end: int, tzid: str) -> List[int]:
    """Every occurrence start of a rule :func:`check_rrule` accepts (as many as it counts);
    its :class:`PbsError` otherwise."""
    rule, tz = _usable(rrule, tzid)
    starts = list(_iterate(rule, start, tz))
    if not starts:
        raise PbsError(PBSE_BADTSPEC)
    duration = end - start
    limit, code = _MAX_DURATION[rule.freq]
    if duration > limit:
        raise PbsError(code)
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    positive = [g for g in gaps if g > 0]
    # check_rrule's minimum: the first gap, then any smaller positive one
    shortest = min([gaps[0]] + positive) if gaps else None
    if shortest is not None and duration > shortest:
        raise PbsError(PBSE_BADTSPEC)
    return starts


def occurrence_starts(rrule: str, start: int, tzid: str, now: int) -> List[int]:
    """The occurrence start times before ``now`` + 3 years (get_num_occurrences counts these;
    get_occurrence(idx) is the idx-th).  :class:`PbsError` for a rule or zone PBS refuses."""
    rule, tz = _usable(rrule, tzid)
    return within_horizon(_iterate(rule, start, tz), now)


def within_horizon(starts: Iterable[int], now: int) -> List[int]:
    """The leading ``starts`` before ``now`` + 3 years (PBS's horizon, DATE_LIMIT)."""
    limit = now + DATE_LIMIT
    kept: List[int] = []
    for when in starts:
        if when >= limit:
            break
        kept.append(when)
    return kept


def occurrence(rrule: str, start: int, tzid: str, idx: int) -> int:
    """pbs_ical.c ``get_occurrence``: idx 0 is ``start``; idx 1 the rule's first start, ...;
    -1 past the rule's end."""
    if idx <= 0:
        return start
    rule, tz = _usable(rrule, tzid)
    for number, when in enumerate(_iterate(rule, start, tz), 1):
        if number == idx:
            return when
    return -1
