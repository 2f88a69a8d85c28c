"""Value helpers shared by the renderers: PBS's ctime dates, atol, control-character display."""
from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Sequence, Tuple

    Pair = Tuple[str, str]
    Pairs = Sequence[Sequence[str]]
else:  # run time: the names exist, typing is not imported
    Pair = object
    Pairs = object


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def atol(text: str) -> int:
    """C ``atol``: leading blanks, a sign and digits; anything else ends the number (0 if none)."""
    if text.isdigit() and text.isascii():  # most values: an epoch, a count
        return int(text)
    return atol_walk(text)


def atol_walk(text: str) -> int:
    """:func:`atol` character by character (the general case, no fast path)."""
    s = text.lstrip(" \t\n\v\f\r")
    sign = 1
    if s[:1] in ("+", "-"):
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    digits = ""
    for ch in s:
        if not ch.isdigit() or not ch.isascii():
            break
        digits += ch
    return sign * int(digits) if digits else 0


def ctime_text(epoch: int) -> str:
    """``ctime(3)`` without its newline, in local time: ``Sat Nov 21 19:52:14 2026``."""
    zone = (time.timezone, time.altzone, time.tzname)
    if zone != _CTIMES_ZONE[0]:  # TZ changed (tzset): the cached texts are of another zone
        _CTIMES.clear()
        _CTIMES_ZONE[0] = zone
    known = _CTIMES.get(epoch)
    if known is not None:
        return known
    try:
        tm = time.localtime(epoch)
    except (OverflowError, ValueError, OSError):  # beyond time_t: the number, not a traceback
        return str(epoch)
    text = "%s %s %2d %02d:%02d:%02d %d" % (
        _DAYS[tm.tm_wday], _MONTHS[tm.tm_mon - 1], tm.tm_mday,
        tm.tm_hour, tm.tm_min, tm.tm_sec, tm.tm_year)
    if len(_CTIMES) < 100_000:
        _CTIMES[epoch] = text
    return text


# Many jobs of one reply share their times (jobs run to the second), so each is formatted once;
# the cache restarts when the time zone changes.
_CTIMES: Dict[int, str] = {}
_CTIMES_ZONE: List[object] = [None]


def show_nonprint(text: str) -> str:
    """PBS's ``show_nonprint_chars``: control characters other than newline and tab as ``^X``.

    (PBS also mangles bytes >= 0x80 because its ``char`` is signed; the fake leaves non-ASCII
    text alone on purpose.)
    """
    if text.isprintable() or not any(ord(ch) < 32 for ch in text):  # printable: no controls
        return text
    out: List[str] = []
    for ch in text:
        code = ord(ch)
        if code < 32 and ch not in "\n\t":
            out.append("^" + chr(code + 64))
        else:
            out.append(ch)
    return "".join(out)


def split_name(key: str) -> Tuple[str, Optional[str]]:
    """``"Resource_List.ncpus"`` -> ``("Resource_List", "ncpus")``; plain names get ``None``."""
    name, dot, resource = key.partition(".")
    return (name, resource) if dot else (key, None)
