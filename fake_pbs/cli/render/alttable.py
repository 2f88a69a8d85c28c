"""The alternate job display: ``qstat -a`` and its relatives ``-u -n -s -1 -i -r -H -T -G -M -w``.

Blank columns print PBS's ``" -- "`` squeezed into the column width; ``-n`` lists the execution
hosts without their domain, ``-s`` adds the comment, ``-1`` keeps both on the job's line.
"""
from __future__ import annotations

import time

from fake_pbs.cli.render.values import atol, show_nonprint

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional

BLANK = " -- "
TRUNC = "*"
_LINE_LIMIT = 78
_COMMENT_SHORT, _COMMENT_WIDE = 74, 114

# Size display options (PBS's ALT_DISPLAY_Mw / ALT_DISPLAY_G).
SIZE_DEFAULT, SIZE_MW, SIZE_GB = 0, 1, 2

_SPACE_WIDTHS = (30, 15, 15, 15, 8, 4, 5)


def cnv_size(value: str, size_opt: int) -> str:
    """PBS's ``cnv_size``: a size in the unit that keeps it to 4 digits (or mw / gb)."""
    digits = ""
    rest = value.lstrip()
    if rest[:1] in ("+", "-"):
        digits, rest = rest[0], rest[1:]
    while rest[:1].isdigit():
        digits, rest = digits + rest[0], rest[1:]
    number = int(digits) if digits.strip("+-") else 0
    magnitudes = {"k": 1, "m": 2, "g": 3, "t": 4}
    unit_in = magnitudes.get(rest[:1], 0)
    suffix2 = "b"
    if rest[:1] == "w" or rest[1:2] == "w":
        number <<= 3
        suffix2 = "w"
    if size_opt == SIZE_MW:
        unit_out, suffix2 = 2, "w"
    elif size_opt == SIZE_GB:
        unit_out, suffix2 = 3, "b"
    else:
        unit_out = unit_in
    shift = (unit_in - unit_out) * 10
    if shift < 0:
        number = (number + (1 << -shift) - 1) >> -shift
    elif shift > 0:
        number <<= shift
    if suffix2 == "w":
        number = (number + 7) >> 3
    while number > 9999:
        number = (number + 1023) >> 10
        unit_out += 1
    letters = " kmgtp?"
    return "%d%s%s" % (number, letters[min(unit_out, len(letters) - 1)], suffix2)


# qstat copies cnv_size's text into a SIZEL (6) byte buffer with pbs_strncpy, which keeps 5
# characters: "1024kb" prints as "1024k" (extra case j11g).
SIZE_FIELD = 5


def size_field(value: str, size_opt: int) -> str:
    """A size as qstat's Memory columns hold it: :func:`cnv_size` cut to 5 characters."""
    return cnv_size(value, size_opt)[:SIZE_FIELD]


def _trunc(value: str, width: int) -> str:
    return value[:width - 1] + TRUNC if len(value) > width > 0 else value


def header(server_name: str, server_comment: Optional[str], wide: bool, est: bool,
           incr_width: bool) -> str:
    out = ["\n%s: " % server_name]
    if server_comment:
        out.append(show_nonprint(server_comment))
    if wide:
        out.append("\n")
        spaces = "".join(" " * w + " " for w in _SPACE_WIDTHS)
        if est:
            out.append(spaces + "               Est\n")
        out.append(spaces + ("Req'd  Req'd   Start\n" if est else "Req'd  Req'd   Elap\n"))
        titles = ("Job ID", "Username", "Queue", "Jobname", "SessID", "NDS", "TSK")
        out.append("".join("%-*s " % (w, t) for w, t in zip(_SPACE_WIDTHS, titles)))
        out.append("Memory Time  S Time\n")
        out.append("".join("-" * w + " " for w in _SPACE_WIDTHS))
        out.append("------ ----- - -----\n")
        return "".join(out)
    lead = 65 if incr_width else 60
    if est:
        out.append("\n%s%s\n%s%-7s%-8s%s\n" % (" " * (lead + 15), "Est", " " * lead,
                                               "Req'd", "Req'd", "Start"))
    else:
        out.append("\n%s%-7s%-8s%s\n" % (" " * lead, "Req'd", "Req'd", "Elap"))
    if incr_width:
        out.append("Job ID               Username Queue    Jobname    SessID NDS TSK Memory "
                   "Time  S Time\n"
                   "-------------------- -------- -------- ---------- ------ --- --- ------ "
                   "----- - -----\n")
    else:
        out.append("Job ID          Username Queue    Jobname    SessID NDS TSK Memory Time  "
                   "S Time\n"
                   "--------------- -------- -------- ---------- ------ --- --- ------ ----- "
                   "- -----\n")
    return "".join(out)


def _is_ipv4(text: str) -> bool:
    parts = text.split(".")
    return len(parts) == 4 and all(p.isdigit() and int(p) < 256 for p in parts)


def nodes_text(exec_host: str, one_line: bool) -> str:
    """PBS's ``prt_nodes``: hosts without domain, lines kept under 78 columns."""
    if not exec_host:
        return ""
    out: List[str] = []
    line = ""
    for token in [t for t in exec_host.split("+") if t]:
        host = next((p for p in token.split("/") if p), "")
        chunk = token[token.find(host) + len(host):] if host else ""
        if not _is_ipv4(host):
            host = next((p for p in host.split(".") if p), host)
        name = host + chunk
        if len(line) + len(name) < _LINE_LIMIT - 1:
            line += name + "+"
        else:
            out.append(show_nonprint(line) if one_line else "   %s\n" % show_nonprint(line))
            line = name + "+"
    if line:
        line = line[:-1]
        out.append("%s\n" % show_nonprint(line) if one_line else "   %s\n" % show_nonprint(line))
    elif one_line:
        out.append("\n")
    return "".join(out)


def est_start(est_time: Optional[str], now: float) -> str:
    """PBS's short form of ``estimated.start_time`` for ``-T``."""
    if est_time is None:
        return "--"
    start = atol(est_time)
    if start == 0:
        return "?"
    if start < now:
        return "--"
    now_tm, est_tm = time.localtime(now), time.localtime(start)
    if now_tm.tm_year == est_tm.tm_year and now_tm.tm_yday == est_tm.tm_yday:
        return time.strftime("%H:%M", est_tm)
    if start - now < 604800:
        return "%2.2s %s" % (time.strftime("%a", est_tm), time.strftime("%H", est_tm))
    if now_tm.tm_year == est_tm.tm_year:
        return time.strftime("%b", est_tm)
    if est_tm.tm_year - now_tm.tm_year < 5:
        return time.strftime("%Y", est_tm)
    return ">5yrs"


def sort_for_estimates(jobs: List[Dict[str, Any]], now: float) -> List[Dict[str, Any]]:
    """``-T`` order: running jobs by start time, then by estimated start (past ones last)."""
    def number(job: Dict[str, Any], key: str) -> int:
        for item in job.get("attrs", []):
            if item[0] == key:
                return atol(str(item[1]))
        return -1

    def before(a: Dict[str, Any], b: Dict[str, Any]) -> int:
        sa, sb = number(a, "stime"), number(b, "stime")
        if sa >= 0 or sb >= 0:
            if sa == -1:
                return 1
            if sb == -1:
                return -1
            return (sa > sb) - (sa < sb)
        ea, eb = number(a, "estimated.start_time"), number(b, "estimated.start_time")
        if ea == eb:
            return 0
        if ea == -1 or ea < now:
            return 1
        if eb == -1 or eb < now:
            return -1
        return (ea > eb) - (ea < eb)

    ordered: List[Dict[str, Any]] = []
    for job in jobs:  # insertion sort, stable like PBS's bs_isort
        index = len(ordered)
        while index > 0 and before(job, ordered[index - 1]) < 0:
            index -= 1
        ordered.insert(index, job)
    return ordered


class AltOptions:
    """What the alternate display shows (built from qstat's options)."""

    def __init__(self, wide: bool = False, nodes: bool = False, comment: bool = False,
                 one_line: bool = False, est: bool = False, size_opt: int = SIZE_DEFAULT,
                 incr_width: bool = False, now: float = 0.0) -> None:
        self.wide = wide
        self.nodes = nodes
        self.comment = comment
        self.one_line = one_line
        self.est = est
        self.size_opt = size_opt
        self.incr_width = incr_width
        self.now = now


def row(job_id: str, attrs: Any, opts: AltOptions) -> str:
    """One job (and its node and comment lines) of the alternate display."""
    wide = opts.wide
    col: Dict[str, str] = {}
    mem = BLANK
    usecput = False
    exec_host = BLANK
    comment = BLANK
    est_time: Optional[str] = None
    state_value: Optional[str] = None
    for item in attrs:
        key, value = str(item[0]), str(item[1])
        if key == "Job_Name":
            col["jobn"] = _trunc(value, 15 if wide else 10)
        elif key == "Job_Owner":
            col["user"] = _trunc(value.split("@", 1)[0], 15 if wide else 8)
        elif key == "job_state":
            col["state"] = value
            state_value = value
        elif key == "queue":
            col["queue"] = _trunc(value, 15 if wide else 8)
        elif key == "session_id":
            col["sess"] = _trunc(value, 8 if wide else 6)
        elif key == "Resource_List.nodect":
            col["nodect"] = _trunc(value, 4 if wide else 3)
        elif key in ("Resource_List.ncpus", "Resource_List.mppe"):
            if value != "0":
                col["tasks"] = _trunc(value, 5 if wide else 3)
        elif key == "Resource_List.mem":
            mem = size_field(value, opts.size_opt)
        elif key == "Resource_List.walltime":
            col["rqwall"] = value
        elif key == "Resource_List.cput":
            col["rqcpu"] = value
            usecput = True
        elif key == "exec_host":
            exec_host = value
        elif key == "estimated.start_time":
            est_time = value
        elif key == "resources_used.walltime":
            col["elwall"] = value
        elif key == "resources_used.cput":
            col["elcpu"] = value
        elif key == "comment":
            comment = value
            # pbs_strncpy keeps n - 1 characters of the 71 / 111 it is given.
            if len(value) > _COMMENT_SHORT and not wide:
                comment = value[:70] + "..."
            elif len(value) > _COMMENT_WIDE and wide:
                comment = value[:110] + "..."
    if opts.est:
        if state_value is not None and state_value[:1] in ("Q", "S", "B"):
            timeval = est_start(est_time, opts.now)
        else:
            timeval = "--"
    else:
        timeval = col.get("elcpu", BLANK) if usecput else col.get("elwall", BLANK)
    rqtime = col.get("rqcpu", BLANK) if usecput else col.get("rqwall", BLANK)
    id_len = 20 if opts.incr_width else 15
    shown_id = _trunc(job_id, 30 if wide else id_len)

    def g(key: str) -> str:
        return col.get(key, BLANK)

    if wide:
        line = "%-30.30s %-15.15s %-15.15s %-15.15s %8.8s %4.4s %5.5s " % (
            shown_id, g("user"), g("queue"), g("jobn"), g("sess"), g("nodect"), g("tasks"))
        line += "%6.6s %5.5s %1s %5.5s" % (mem, rqtime, g("state"), timeval)
    else:
        line = "%-*.*s %-8.8s %-8.8s " % (id_len, id_len, shown_id, g("user"), g("queue"))
        line += "%-10.10s %6.6s %3.3s %3.3s " % (g("jobn"), g("sess"), g("nodect"), g("tasks"))
        line += "%6.6s %5.5s %1.1s %5.5s" % (mem, rqtime, g("state"), timeval)
    line += " " if opts.one_line else "\n"
    if opts.nodes:
        line += nodes_text(exec_host, opts.one_line)
    if opts.comment and comment:
        line += "   %s\n" % show_nonprint(comment)
    return line


def table(jobs: List[Dict[str, Any]], opts: AltOptions) -> str:
    """Rows for every record (no header)."""
    if opts.est:
        jobs = sort_for_estimates(jobs, opts.now)
    return "".join(row(str(job["id"]), job.get("attrs", []), opts) for job in jobs)
