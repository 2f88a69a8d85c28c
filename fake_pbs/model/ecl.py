"""Attribute value verification shared by the commands and the server (PBS's "ECL").

Every check either returns the value as PBS stores it (``"00:10:00"``, ``"1048576b"``,
``"True"``) or raises :class:`PbsError` with PBS's code: ``PBSE_BADATVAL`` for an illegal value,
``PBSE_JOBNBIG`` for a job name over 230 characters.  Callers decide how to show the error: qsub
prints ``illegal -N value`` and its usage for option values, but ``Illegal attribute or resource
value Resource_List.<name>`` for ``-l`` values.

Public API (stable; the server imports it):

- times: :func:`parse_time`, :func:`format_time`, :func:`normalize_time`
- sizes: :func:`parse_size`, :func:`format_size`, :func:`normalize_size`
- scalars: :func:`parse_long`, :func:`normalize_boolean`, :func:`parse_float`
- :func:`verify_resource` (any resource value, by its definition's type)
- job attributes: :func:`check_job_name`, :func:`select_chunks`, :func:`check_place`,
  :func:`parse_depend`, :func:`parse_array_range`, :func:`parse_exec_time`,
  :func:`check_mail_points`, :func:`check_join`, :func:`check_keep`, :func:`rerunable_value`,
  :func:`check_checkpoint`, :func:`check_priority`, :func:`check_hold_types`,
  :func:`check_sandbox`

No clock reads: :func:`parse_exec_time` takes ``now``.
"""
from __future__ import annotations

import time

from fake_pbs.model import resources as rdefs
from fake_pbs.model.errors import PBSE_BADATVAL, PBSE_JOBNBIG, PbsError

# Every qsub imports this module: no ``re``/``typing`` at import (they cost it ~10 ms;
# docs/performance.md, hotspot 7). Patterns compile on their first use.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Match, Optional, Pattern, Tuple

PBS_MAXJOBNAME = 230


class _Lazy:
    """A regular expression compiled (and ``re`` imported) on its first ``match``."""

    __slots__ = ("_source", "_flags", "_compiled")

    def __init__(self, source: str, ignore_case: bool = False) -> None:
        self._source = source
        self._flags = ignore_case
        self._compiled: Optional[Pattern[str]] = None

    def match(self, text: str) -> Optional[Match[str]]:
        compiled = self._compiled
        if compiled is None:
            import re
            compiled = re.compile(self._source, re.IGNORECASE if self._flags else 0)
            self._compiled = compiled
        return compiled.match(text)


def _bad() -> PbsError:
    return PbsError(PBSE_BADATVAL)


# --- time: [[HH:]MM:]SS[.fraction] ------------------------------------------------------------

def _time_fields(value: str) -> Optional[Tuple[str, str, str, str]]:
    r"""(hours, minutes, seconds, fraction) as ``^(?:(?:(\d+):)?(\d+):)?(\d+)(?:\.(\d*))?$``
    would match them ("" where absent), or None; by hand, as every psij job's ``-l walltime``
    goes through here and ``re`` costs a qsub ~5 ms (docs/performance.md)."""
    text = value[:-1] if value.endswith("\n") else value  # ``$`` allows one final newline
    whole, dot, fraction = text.partition(".")
    if dot and fraction and not fraction.isdecimal():  # \d is a Unicode decimal digit
        return None
    parts = whole.split(":")
    if len(parts) > 3 or not all(part.isdecimal() for part in parts):
        return None
    hours, minutes, seconds = [""] * (3 - len(parts)) + parts
    return hours, minutes, seconds, fraction


def parse_time(value: str) -> int:
    """Seconds in ``[[HH:]MM:]SS[.ms]``; a fraction of .5 or more rounds up (``90.5`` -> 91)."""
    fields = _time_fields(value)
    if fields is None:
        raise _bad()
    hours, minutes, seconds, fraction = fields
    total = int(hours or 0) * 3600 + int(minutes or 0) * 60 + int(seconds)
    if fraction and fraction[0] >= "5":
        total += 1
    return total


def format_time(seconds: int) -> str:
    """``HH:MM:SS`` with at least two hour digits, as PBS displays durations."""
    return "%02d:%02d:%02d" % (seconds // 3600, seconds % 3600 // 60, seconds % 60)


def normalize_time(value: str) -> str:
    return format_time(parse_time(value))


# --- size: <integer>[k|m|g|t|p][b|w] ------------------------------------------------------------

_SIZE = _Lazy(r"^(\d+)([kmgtp]?)([bw]?)$", ignore_case=True)
_SHIFTS = {"": 0, "k": 10, "m": 20, "g": 30, "t": 40, "p": 50}
WORD_BYTES = 8


def _size_parts(value: str) -> Tuple[int, str, str]:
    match = _SIZE.match(value)
    if match is None:
        raise _bad()
    number, unit, kind = match.groups()
    return int(number), unit.lower(), (kind.lower() or "b")


def parse_size(value: str) -> int:
    """Bytes in a PBS size (``1gb``, ``1024kb``, ``1048576``, ``2w`` = two 8-byte words)."""
    number, unit, kind = _size_parts(value)
    return (number << _SHIFTS[unit]) * (WORD_BYTES if kind == "w" else 1)


def normalize_size(value: str) -> str:
    """The size as PBS stores it: units kept, lower case, bare bytes get ``b`` (``1048576b``)."""
    number, unit, kind = _size_parts(value)
    return "%d%s%s" % (number, unit, kind)


def format_size(nbytes: int) -> str:
    """Bytes in the largest unit that keeps the number whole (``4gb``, ``7416kb``, ``1000b``)."""
    for unit in ("p", "t", "g", "m", "k"):
        step = 1 << _SHIFTS[unit]
        if nbytes and nbytes % step == 0:
            return "%d%sb" % (nbytes // step, unit)
    return "%db" % nbytes


# --- scalars ------------------------------------------------------------------------------------

_LONG = _Lazy(r"^[+-]?\d+$")
_TRUE = ("true", "t", "y", "1")
_FALSE = ("false", "f", "n", "0")


def parse_long(value: str) -> int:
    if not _LONG.match(value):
        raise _bad()
    return int(value)


def normalize_boolean(value: str) -> str:
    """``"True"``/``"False"`` from PBS's spellings (true/True/TRUE/t/T/y/Y/1 and the opposites)."""
    folded = value.lower()
    if folded in _TRUE:
        return "True"
    if folded in _FALSE:
        return "False"
    raise _bad()


def parse_float(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise _bad() from None


def verify_resource(defn: rdefs.ResourceDef, value: str) -> str:
    """Check ``value`` against the resource's type and return it as PBS stores it."""
    if value == "":
        raise _bad()
    if defn.name == "select":
        select_chunks(value)
        return value
    if defn.name == "place":
        check_place(value)
        return value
    if defn.type == rdefs.TIME:
        return normalize_time(value)
    if defn.type == rdefs.SIZE:
        return normalize_size(value)
    if defn.type == rdefs.LONG:
        return str(parse_long(value))
    if defn.type == rdefs.BOOLEAN:
        return normalize_boolean(value)
    if defn.type == rdefs.FLOAT:
        parse_float(value)
    return value


# --- job name -----------------------------------------------------------------------------------

# Matched by hand, not by a pattern: every qsub checks its Job_Name, and ``re`` costs it ~10 ms.
_ASCII_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"  # string imports re
_NAME_CHARS = frozenset(_ASCII_LETTERS + "0123456789_+.-")


def _name_chars_ok(name: str) -> bool:
    """Same answer as ``re.match(r"^[A-Za-z0-9_+.-]+$", name)`` (``$`` allows one final newline)."""
    body = name[:-1] if name.endswith("\n") else name
    return bool(body) and _NAME_CHARS.issuperset(body)


def check_job_name(name: str, digit_first: bool = True) -> str:
    """Job_Name rules: at most 230 chars of ``[A-Za-z0-9_+.-]``.

    ``digit_first`` is True for submission (qsub allows ``1bad``); qalter passes False.
    """
    if len(name) > PBS_MAXJOBNAME:
        raise PbsError(PBSE_JOBNBIG)
    if not _name_chars_ok(name) or (not digit_first and not name[0].isalpha()):
        raise _bad()
    return name


# --- select and place ---------------------------------------------------------------------------

_NAME_START = frozenset(_ASCII_LETTERS + "_")
_NAME_REST = _NAME_START | frozenset("0123456789.-")


def _is_res_name(name: str) -> bool:
    """Same answer as ``re.match(r"^[A-Za-z_][A-Za-z0-9_.-]*$", name)``, without ``re``
    (every psij job's ``-l select`` comes here)."""
    body = name[:-1] if name.endswith("\n") else name
    return bool(body) and body[0] in _NAME_START and _NAME_REST.issuperset(body)


if TYPE_CHECKING:
    Chunk = Tuple[int, List[Tuple[str, str]]]


def select_chunks(value: str) -> List[Chunk]:
    """Parse ``[N:]res=val[:res=val...][+...]`` into ``[(count, [(res, val), ...]), ...]``.

    Only the syntax is checked here, as PBS's client does; resource names and values are the
    server's business (``Unknown resource: foo``).
    """
    chunks: List[Chunk] = []
    for text in value.split("+"):
        parts = text.split(":")
        count = 1
        if parts[0].isdigit():
            count = int(parts.pop(0))
            if count < 1:
                raise _bad()
        elif "=" not in parts[0]:
            raise _bad()
        pairs: List[Tuple[str, str]] = []
        for part in parts:
            name, sep, val = part.partition("=")
            if not sep or not val or not _is_res_name(name):
                raise _bad()
            pairs.append((name, val))
        chunks.append((count, pairs))
    return chunks


_ARRANGEMENTS = ("free", "pack", "scatter", "vscatter")
_SHARINGS = ("excl", "shared", "exclhost")


def check_place(value: str) -> str:
    """``place``: at most one of free/pack/scatter/vscatter, one of excl/shared/exclhost, and
    ``group=<resource>``, joined by ``:``."""
    seen_arrangement = seen_sharing = seen_group = False
    for word in value.split(":"):
        if word in _ARRANGEMENTS and not seen_arrangement:
            seen_arrangement = True
        elif word in _SHARINGS and not seen_sharing:
            seen_sharing = True
        elif word.startswith("group=") and _is_res_name(word[6:]) and not seen_group:
            seen_group = True
        else:
            raise _bad()
    return value


# --- depend -------------------------------------------------------------------------------------

DEPEND_JOB_TYPES = ("after", "afterok", "afternotok", "afterany", "before", "beforeok",
                    "beforenotok", "beforeany", "syncwith", "runone")
DEPEND_COUNT_TYPES = ("on", "synccount")
_JOB_REF = _Lazy(r"^\d+(\[\d*\])?(\.[A-Za-z0-9_.-]+)?(@[A-Za-z0-9_.-]+)?$")


def parse_depend(value: str) -> List[Tuple[str, List[str]]]:
    """``type:arg[:arg...][,type:...]`` -> ``[(type, [args])]``; job ids for after*/before*,
    a count for ``on``/``synccount``."""
    items: List[Tuple[str, List[str]]] = []
    for item in value.split(","):
        kind, sep, rest = item.partition(":")
        args = rest.split(":") if sep else []
        if not args or any(not a for a in args):
            raise _bad()
        if kind in DEPEND_COUNT_TYPES:
            if len(args) != 1 or not args[0].isdigit():
                raise _bad()
        elif kind in DEPEND_JOB_TYPES:
            if not all(_JOB_REF.match(a) for a in args):
                raise _bad()
        else:
            raise _bad()
        items.append((kind, args))
    return items


def qualify_depend(value: str, server_name: str) -> str:
    """The depend value as the server stores it: each job id ``<seq>.<server>@<server>``.

    ``afterok:343`` -> ``afterok:343.vm@vm`` (extra transcripts j05*).
    """
    out = []
    for kind, args in parse_depend(value):
        if kind not in DEPEND_COUNT_TYPES:
            args = [_qualify_job_ref(a, server_name) for a in args]
        out.append(":".join([kind] + args))
    return ",".join(out)


def _qualify_job_ref(ref: str, server_name: str) -> str:
    job, _, at = ref.partition("@")
    if "." not in job:
        job = "%s.%s" % (job, server_name)
    return "%s@%s" % (job, at or server_name)


# --- arrays (-J) --------------------------------------------------------------------------------

class ArrayRange:
    """``-J X-Y[:Z][%max]`` (a plain class: ``typing.NamedTuple`` would import ``typing``)."""

    __slots__ = ("start", "end", "step", "max_run")

    def __init__(self, start: int, end: int, step: int, max_run: Optional[int]) -> None:
        self.start = start
        self.end = end
        self.step = step
        self.max_run = max_run

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ArrayRange) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return "ArrayRange(start=%r, end=%r, step=%r, max_run=%r)" % self._key()

    def _key(self) -> Tuple[int, int, int, Optional[int]]:
        return (self.start, self.end, self.step, self.max_run)

    @property
    def submitted(self) -> str:
        """``array_indices_submitted`` as PBS shows it (without ``%max``)."""
        text = "%d-%d" % (self.start, self.end)
        return text + (":%d" % self.step if self.step != 1 else "")

    def indices(self) -> List[int]:
        return list(range(self.start, self.end + 1, self.step))


_RANGE = _Lazy(r"^(\d+)-(\d+)(?::(\d+))?(?:%(\d+))?$")


def parse_array_range(value: str) -> ArrayRange:
    """``X-Y[:Z][%max]`` with X < Y, Z >= 1, max >= 1 (``-J 3-1`` and ``-J 1`` are illegal)."""
    match = _RANGE.match(value)
    if match is None:
        raise _bad()
    start, end = int(match.group(1)), int(match.group(2))
    step = int(match.group(3)) if match.group(3) else 1
    max_run = int(match.group(4)) if match.group(4) else None
    if start >= end or step < 1 or (max_run is not None and max_run < 1):
        raise _bad()
    return ArrayRange(start, end, step, max_run)


# --- execution time (-a) ------------------------------------------------------------------------

_DATE = _Lazy(r"^(\d{4}|\d{6}|\d{8}|\d{10}|\d{12})(?:\.(\d{2}))?$")


def parse_exec_time(value: str, now: float) -> int:
    """Epoch seconds of ``[[[[CC]YY]MM]DD]hhmm[.SS]`` in local time, relative to ``now``.

    A time already past moves to the next day, month or year, whichever part was left out.
    """
    match = _DATE.match(value)
    if match is None:
        raise _bad()
    digits, secs = match.group(1), int(match.group(2) or 0)
    cur = time.localtime(now)
    fields = [int(digits[i:i + 2]) for i in range(0, len(digits), 2)]
    minute, hour = fields.pop(), fields.pop()
    day = fields.pop() if fields else cur.tm_mday
    month = fields.pop() if fields else cur.tm_mon
    if fields:
        year = fields.pop()
        year += fields.pop() * 100 if fields else 2000
    else:
        year = cur.tm_year
    if hour > 23 or minute > 59 or secs > 59 or not 1 <= month <= 12:
        raise _bad()
    if not 1 <= day <= _days_in_month(year, month):
        raise _bad()
    when = _mktime(year, month, day, hour, minute, secs)
    if when < now:
        given = len(digits)
        if given == 4:
            when = _mktime(year, month, day + 1, hour, minute, secs)
        elif given == 6:
            when = _mktime(year + (month == 12), month % 12 + 1, day, hour, minute, secs)
        elif given == 8:
            when = _mktime(year + 1, month, day, hour, minute, secs)
    return when


def _mktime(year: int, month: int, day: int, hour: int, minute: int, sec: int) -> int:
    # mktime normalizes overflows (day 32 -> next month), which the roll-forward relies on.
    return int(time.mktime((year, month, day, hour, minute, sec, 0, 0, -1)))


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


# --- small option values ------------------------------------------------------------------------

def _letters(value: str, allowed: str, alone: str) -> str:
    """``alone`` by itself, or distinct letters from ``allowed``."""
    if value == alone:
        return value
    if not value or any(c not in allowed for c in value) or len(set(value)) != len(value):
        raise _bad()
    return value


def check_mail_points(value: str) -> str:
    """Mail_Points: ``n`` alone, or letters from ``abej``."""
    return _letters(value, "abej", "n")


def check_join(value: str) -> str:
    """Join_Path: ``oe``, ``eo`` or ``n``."""
    if value not in ("oe", "eo", "n"):
        raise _bad()
    return value


def check_keep(value: str) -> str:
    """Keep_Files: ``n`` alone, or letters from ``oed``."""
    return _letters(value, "oed", "n")


def rerunable_value(value: str) -> str:
    """``-r y|n`` (exactly one letter) -> ``"True"``/``"False"``."""
    if value == "y":
        return "True"
    if value == "n":
        return "False"
    raise _bad()


_CHECKPOINT = _Lazy(r"^(n|s|c|w|[cw]=\d+)$")


def check_checkpoint(value: str) -> str:
    """Checkpoint: ``n``, ``s``, ``c``, ``w``, ``c=<minutes>`` or ``w=<minutes>``."""
    if not _CHECKPOINT.match(value):
        raise _bad()
    return value


def check_priority(value: str) -> str:
    """Priority: an integer in [-1024, 1023]."""
    number = parse_long(value)
    if not -1024 <= number <= 1023:
        raise _bad()
    return str(number)


def check_hold_types(value: str) -> str:
    """Hold_Types: ``n`` alone, or letters from ``uosp``."""
    return _letters(value, "uosp", "n")


def check_sandbox(value: str) -> str:
    if value.upper() not in ("HOME", "PRIVATE", "O_WORKDIR"):
        raise _bad()
    return value


# --- user, host and file lists (Libcmds parse_at.c, parse_stage.c) ----------------------------

def _visible(text: str) -> bool:
    """Non-empty, every character printable, not blank, not ``#`` or ``@`` (ISNAMECHAR)."""
    return bool(text) and all(c.isprintable() and not c.isspace() and c not in "#@"
                              for c in text)


def _at_item_ok(item: str) -> Tuple[bool, str]:
    """``name[@host]`` (parse_at_item): (ok, host)."""
    name, at, host = item.lstrip().partition("@")
    if not _visible(name) or (at and not _visible(host)):
        return False, ""
    return True, host


def check_at_list(value: str, unique_hosts: bool = False, absolute: bool = False) -> str:
    """``item[,item...]``, each ``name[@host]`` (Mail_Users, User_List, group_list and, with
    ``absolute``, Shell_Path_List's paths); ``unique_hosts``: a host (or none) named once."""
    if not value:
        raise _bad()
    hosts: List[str] = []
    for item in value.split(","):
        item = item.strip()
        if absolute and not item.startswith("/"):
            raise _bad()
        ok, host = _at_item_ok(item)
        if not ok or (unique_hosts and host in hosts):
            raise _bad()
        hosts.append(host)
    return value


def stage_items(value: str) -> List[str]:
    """The items of a stagein/stageout list: commas separate them, a comma after a backslash
    stays inside an item."""
    items: List[str] = []
    start = 0
    for pos, char in enumerate(value):
        if char == "," and pos > start and value[pos - 1] != "\\":
            items.append(value[start:pos])
            start = pos + 1
    items.append(value[start:])
    return items


def check_stage_list(value: str) -> str:
    """stagein/stageout: ``local@host:remote[,...]``, all three parts given."""
    if not value:
        raise _bad()
    for item in stage_items(value):
        local, at, rest = item.strip().partition("@")
        host, colon, remote = rest.partition(":")
        if (not local or not at or not host or not colon or not remote or "@" in remote
                or any(c.isspace() for c in host)):
            raise _bad()
    return value


def check_remove_files(value: str) -> str:
    """Remove_Files: letters ``o`` and ``e`` only (verify_removefiles_common)."""
    if not value or any(c not in "oe" for c in value):
        raise _bad()
    return value


TOLERATE_NODE_FAILURES = ("all", "job_start", "none")


def check_tolerate(value: str) -> str:
    """tolerate_node_failures: ``all``, ``job_start`` or ``none``, exactly."""
    if value not in TOLERATE_NODE_FAILURES:
        raise _bad()
    return value
