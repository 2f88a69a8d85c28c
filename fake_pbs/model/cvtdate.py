"""PBS's ``cvtdate``: ``[[[[CC]YY]MM]DD]hhmm[.SS]`` to epoch seconds, as pbs_rsub and pbs_ralter
read ``-R``/``-E`` (OpenPBS ``src/lib/Libcmds/cvtdate.c``).

Pure: the caller passes ``now``; the local time zone is the process's (``TZ``), as in PBS.
A part left out comes from ``now``, and the roll-over rules are cvtdate's, which work on whole
minutes and whole fields:

- ``hhmm``: an hour:minute earlier than now's, *or equal to it*, is tomorrow (so ``0404.38`` typed
  at 04:04:25 is tomorrow: transcript R53);
- ``DDhhmm``: a day of month before today's is next month;
- ``MMDDhhmm``: a month before this month is next year;
- a full date is taken as given (a past one is the server's ``Bad time specification(s)``: R15).
"""
from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional

DAY = 24 * 60 * 60


def cvtdate(text: str, now: float) -> Optional[int]:
    """Epoch seconds for ``text``, or None where cvtdate returns -1 (the command's ``illegal -R
    time value``)."""
    digits, dot, secs_text = text.partition(".")
    if dot:
        if len(secs_text) != 2 or not secs_text.isdigit():
            return None
        secs = int(secs_text)
        if secs > 59:
            return None
    else:
        secs = 0
    if not all("0" <= c <= "9" for c in digits):  # isdigit() would take other scripts' digits
        return None
    cur = time.localtime(now)
    year, month, day = cur.tm_year, cur.tm_mon, cur.tm_mday
    size = len(digits)
    if size not in (4, 6, 8, 10, 12):
        return None
    fields = [int(digits[i:i + 2]) for i in range(0, size, 2)]
    month_given = day_given = False
    if size >= 10:
        century = fields.pop(0) * 100 if size == 12 else 0
        yy = fields.pop(0)
        # cvtdate: with no century (or century 00), 69-99 are 19xx and 00-68 20xx
        year = century + yy if century else (1900 + yy if yy > 68 else 2000 + yy)
    if size >= 8:
        mm = fields.pop(0)
        if not 1 <= mm <= 12:
            return None
        if size == 8 and mm < cur.tm_mon:
            year += 1
        month, month_given = mm, True
    if size >= 6:
        dd = fields.pop(0)
        if not 1 <= dd <= 31:
            return None
        if not month_given and dd < cur.tm_mday:
            month += 1
        day, day_given = dd, True
    hour, minute = fields
    if hour > 23 or minute > 59:
        return None
    if not day_given and (hour, minute) <= (cur.tm_hour, cur.tm_min):
        day += 1
    # mktime normalises day 32, month 13, ... as C's does for the roll-overs above
    return int(time.mktime((year, month, day, hour, minute, secs, 0, 0, -1)))


def is_hhmm(text: str) -> bool:
    """pbs_rsub's test for the ``hhmm[.SS]`` form: four characters before any ``.``."""
    return len(text.partition(".")[0]) == 4


def rsub_end(start: int, end: int, hhmm: bool) -> int:
    """pbs_rsub moves an end before an ``hhmm``-form start (``hhmm``) to the next day
    (transcript R14: ``-R 0457.51 -E 0427.51`` gives 84600 s)."""
    return end + DAY if hhmm and end < start else end
