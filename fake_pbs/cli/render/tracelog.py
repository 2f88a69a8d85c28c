"""tracejob's core: pick a job's lines out of PBS log files, order them, print them.

Ordering reproduces tracejob 23.06 on glibc: with excess filtering on (the default) the lines are
first sorted by message, then by date; both sorts are glibc's merge sort, and the date
comparison only orders lines of the same file by line number, so lines of different files within
one second keep the order the message sort gave them.  ``msort`` below is that merge sort.
"""
from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, List, Optional

ACCT, SERVER, MOM, SCHED = 0, 1, 2, 3
SOURCE_LETTER = {ACCT: "A", SERVER: "S", MOM: "M", SCHED: "L"}
EXCESSIVE_COUNT = 15
EVENT_NAMES = {
    "error": 0x0001, "system": 0x0002, "admin": 0x0004, "job": 0x0008, "job_usage": 0x0010,
    "security": 0x0020, "sched": 0x0040, "debug": 0x0080, "debug2": 0x0100, "resv": 0x0200,
    "debug3": 0x0400, "debug4": 0x0800, "force": 0x8000}


class Entry:
    """One matching log line."""

    def __init__(self, date: str, event: str, name: str, msg: str, source: str,
                 lineno: int) -> None:
        self.date = date
        self.event = event
        self.name = name
        self.msg = msg
        self.source = source
        self.lineno = lineno
        self.when = _parse_date(date)
        self.no_print = False


def _parse_date(date: str) -> float:
    try:
        return time.mktime(time.strptime(date.split(".")[0], "%m/%d/%Y %H:%M:%S"))
    except (ValueError, OverflowError):
        return -1.0


def _fields(line: str) -> List[str]:
    """``strtok(line, ";")``: empty fields vanish."""
    return [field for field in line.split(";") if field]


def parse_line(line: str, index: int, lineno: int, job: str) -> Optional[Entry]:
    """The entry for ``line`` when it is about ``job`` (tracejob's matching rule: the object
    field equals the id, or its part before the first dot when ``job`` has no dot)."""
    fields = _fields(line)
    if index == ACCT:
        # date;type;id;message: the record type takes the place of the class field.
        if len(fields) < 3:
            return None
        event, name = "", fields[2]
        msg = fields[3] if len(fields) > 3 else ""
    else:
        if len(fields) < 5:
            return None
        event, name = fields[1], fields[4]
        msg = fields[5] if len(fields) > 5 else ""
    if "." not in job:
        width = max(len(job), len(name.split(".", 1)[0]))
    else:
        width = len(job)
    if job[:width] != name[:width]:
        return None
    return Entry(fields[0], event, name, msg, SOURCE_LETTER[index], lineno)


def msort(items: List[Entry], cmp: Callable[[Entry, Entry], int]) -> List[Entry]:
    """glibc's ``msort_with_tmp``: top-down merge sort, left half first, ties to the left."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = msort(items[:half], cmp), msort(items[half:], cmp)
    merged: List[Entry] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged


def by_message(a: Entry, b: Entry) -> int:
    ka, kb = a.msg.encode("utf-8", "surrogateescape"), b.msg.encode("utf-8", "surrogateescape")
    return (ka > kb) - (ka < kb)


def by_date(a: Entry, b: Entry) -> int:
    if a.when != b.when:
        return -1 if a.when < b.when else 1
    if a.source == b.source:
        return (a.lineno > b.lineno) - (a.lineno < b.lineno)
    return 0


def filter_excess(entries: List[Entry], threshold: int) -> List[Entry]:
    """Sort by message and keep one of each message seen ``threshold`` times or more."""
    ordered = msort(entries, by_message)
    start = 0
    for i in range(1, len(ordered) + 1):
        if i == len(ordered) or ordered[i].msg != ordered[start].msg:
            if i - start >= threshold:
                for entry in ordered[start:i - 1] if i < len(ordered) else ordered[start + 1:i]:
                    entry.no_print = True
            start = i
    return ordered


def line_wrap(line: str, start: int, end: int) -> str:
    """tracejob's ``line_wrap``: break at blanks so lines fit ``end`` columns (0 = never)."""
    from fake_pbs.cli.render.values import show_nonprint

    if end == 0:
        return show_nonprint(line) + "\n"
    wrap_at = end - start if end > start else 0
    out: List[str] = []
    pos = 0
    total = len(line)
    first = True
    while pos < total:
        if pos + wrap_at < total:
            cut = pos + wrap_at
            while cut > pos and line[cut] != " ":
                cut -= 1
            if cut == pos:
                cut = pos + wrap_at
                while cut < total and line[cut] != " ":
                    cut += 1
        else:
            cut = total
        piece = line[pos:cut]
        out.append(show_nonprint(piece) + "\n" if first else
                   " " * start + show_nonprint(piece) + "\n")
        first = False
        pos = cut + 1
    return "".join(out)


def render(entries: List[Entry], filter_mask: int, wrap: int) -> str:
    """The report for one job: ``\\nJob: <id>\\n\\n`` then one line per entry."""
    if not entries:
        return ""
    out = ["\nJob: %s\n\n" % entries[0].name]
    for entry in entries:
        event = 0 if entry.source == "A" else _hex(entry.event)
        if filter_mask & event or entry.no_print:
            continue
        out.append("%-20s %-5s" % (entry.date, entry.source))
        out.append(line_wrap(entry.msg, 26, wrap))
    return "".join(out)


def _hex(text: str) -> int:
    digits = ""
    for ch in text.strip():
        if ch.lower() not in "0123456789abcdef":
            break
        digits += ch
    return int(digits, 16) if digits else 0


def order(entries: List[Entry], filter_excessive: bool, threshold: int) -> List[Entry]:
    """tracejob's two sorts (see the module doc)."""
    if filter_excessive:
        entries = filter_excess(entries, threshold)
    return msort(entries, by_date)
