"""``pbsnodes -S`` / ``-Sj`` / ``-SL``: one summary line per vnode (pbsnodes.c prt_node_summary).

``-S``: state, OS, hardware, host, queue, mem, ncpus, nmics, ngpus, comment; ``-Sj``: the jobs
view, free/total of mem, ncpus, nmics and ngpus (PBS's fixed column set, whether or not the
site defines nmics or ngpus: 0/0 when the vnode has none) and the job ids.  Without ``-L`` a
value is cut to its column and the state is its first word (extra cases n02g, n03-n03c).
"""
from __future__ import annotations

from fake_pbs.cli.render.pbsjson import JsonDoc
from fake_pbs.cli.render.values import show_nonprint

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional, Tuple

JOBS_HEADER = (
    "                                                        mem       ncpus   nmics   ngpus\n"
    "vnode           state           njobs   run   susp      f/t        f/t     f/t     f/t"
    "   jobs\n"
    "--------------- --------------- ------ ----- ------ ------------ ------- ------- ------- "
    "-------\n")
NODES_HEADER = (
    "vnode           state           OS       hardware host            queue        mem     ncpus"
    "   nmics   ngpus  comment\n"
    "--------------- --------------- -------- -------- --------------- ---------- -------- -------"
    " ------- ------- ---------\n")
_LETTERS = " kmgtp?"
_COUNTED = ("ncpus", "nmics", "ngpus")


def _size(text: str) -> Tuple[int, int]:
    """strtol's number and the magnitude of its first suffix letter (k=1 ... t=4)."""
    digits = ""
    for char in text.strip():
        if not char.isdigit():
            break
        digits += char
    rest = text.strip()[len(digits):]
    return int(digits or 0), {"k": 1, "m": 2, "g": 3, "t": 4}.get(rest[:1], 0)


def _shrink(value: int, prefix: int) -> Tuple[int, int]:
    """pbsnodes' scaling to at most 3 digits, with its own rounding."""
    while value > 999:
        value = ((value % 1024) + value) >> 10
        prefix += 1
    return value, prefix


def _mem_info(total_text: str, assigned_text: Optional[str], jobs_view: bool) -> str:
    total, prefix_total = _size(total_text)
    available, prefix_available = 0, prefix_total
    if jobs_view and assigned_text is not None:
        assigned, prefix_assigned = _size(assigned_text)
        while prefix_assigned != prefix_total:
            if prefix_assigned < prefix_total:
                assigned = ((assigned % 1024) + assigned) >> 10
                prefix_assigned += 1
            else:
                assigned <<= 10
                prefix_assigned -= 1
        available, prefix_available = _shrink(total - assigned, prefix_total)
    total, prefix_total = _shrink(total, prefix_total)
    if jobs_view:
        return "%d%sb/%d%sb" % (available, _LETTERS[prefix_available].strip(),
                                total, _LETTERS[prefix_total].strip())
    return "%d%sb" % (total, _LETTERS[prefix_total].strip())


def _atol(text: str) -> int:
    return _size(text)[0] if not text.strip().startswith("-") else -_size(text.strip()[1:])[0]


def _job_ids(value: str, server: Optional[str]) -> List[str]:
    """``413.vm/0, 413.vm/1`` -> ``['413']``: slots dropped, the default server's suffix too,
    a repeat of the previous id skipped."""
    ids: List[str] = []
    for word in value.replace(",", " ").split():
        jobid = word.split("/", 1)[0]
        if server is not None:
            head, dot, tail = jobid.partition(".")
            if dot and tail == server:
                jobid = head
        if not ids or ids[-1] != jobid:
            ids.append(jobid)
    return ids


class Summary:
    """One vnode's summary fields."""

    def __init__(self, name: str, attrs: Any, jobs_view: bool, long_view: bool,
                 server: Optional[str]) -> None:
        pairs = [(str(item[0]), str(item[1])) for item in attrs]
        values: Dict[str, str] = {}
        for key, value in pairs:
            values.setdefault(key, value)
        self.name = name
        state = values.get("state", "--")
        self.state = state if long_view else state.split(",")[0]
        self.os = values.get("resources_available.OS", "--")
        self.hardware = values.get("resources_available.hardware", "--")
        self.host = values.get("resources_available.host", "--")
        self.queue = values.get("queue", "--")
        self.comment = values.get("comment", "--")
        zero = "0/0" if jobs_view else "0"
        self.counts = {res: zero for res in _COUNTED}
        self.mem = "0kb/0kb" if jobs_view else "0kb"
        if "resources_available.mem" in values:
            self.mem = _mem_info(values["resources_available.mem"],
                                 values.get("resources_assigned.mem"), jobs_view)
        for res in _COUNTED:
            if "resources_available." + res in values:
                total = _atol(values["resources_available." + res])
                used = _atol(values.get("resources_assigned." + res, "0"))
                self.counts[res] = "%d/%d" % (total - used, total) if jobs_view else str(total)
        self.job_ids = _job_ids(values["jobs"], server) if jobs_view and "jobs" in values \
            else []
        self.jobs = ",".join(self.job_ids) if self.job_ids else "--"
        self.running = len(self.job_ids)


def text_line(row: Summary, jobs_view: bool, long_view: bool) -> str:
    def cut(value: str, width: int) -> str:
        return value if long_view else value[:width]

    if jobs_view:
        return "%-15s %-15s %6d %5d %6d %12s %7s %7s %7s %s\n" % (
            cut(row.name, 15), cut(row.state, 15), row.running, row.running, 0,
            cut(row.mem, 12), cut(row.counts["ncpus"], 7), cut(row.counts["nmics"], 7),
            cut(row.counts["ngpus"], 7), row.jobs)
    return "%-15s %-15s %-8s %-8s %-15s %-10s %8s %7s %7s %7s %s\n" % (
        cut(row.name, 15), cut(row.state, 15), cut(row.os, 8), cut(row.hardware, 8),
        cut(row.host, 15), cut(row.queue, 10), cut(row.mem, 8), cut(row.counts["ncpus"], 7),
        cut(row.counts["nmics"], 7), cut(row.counts["ngpus"], 7), show_nonprint(row.comment))


def dsv_line(row: Summary, jobs_view: bool, delim: str) -> str:
    if jobs_view:
        fields = [("vnode", row.name), ("state", row.state), ("njobs", str(row.running)),
                  ("run", str(row.running)), ("susp", "0"), ("mem(f/t)", row.mem),
                  ("ncpus(f/t)", row.counts["ncpus"]), ("nmics(f/t)", row.counts["nmics"]),
                  ("ngpus(f/t)", row.counts["ngpus"]), ("jobs", row.jobs)]
    else:
        fields = [("vnode", row.name), ("state", row.state), ("OS", row.os),
                  ("hardware", row.hardware), ("host", row.host), ("queue", row.queue),
                  ("mem", row.mem), ("ncpus", row.counts["ncpus"]),
                  ("nmics", row.counts["nmics"]), ("ngpus", row.counts["ngpus"]),
                  ("comment", show_nonprint(row.comment))]
    return delim.join("%s=%s" % pair for pair in fields) + "\n"


def json_entry(doc: JsonDoc, row: Summary, jobs_view: bool) -> None:
    doc.open_object(row.name)
    doc.string("State", row.state)
    if jobs_view:
        doc.integer("Total Jobs", row.running)
        doc.integer("Running Jobs", row.running)
        doc.integer("Suspended Jobs", 0)
        doc.string("mem f/t", row.mem)
        for res in _COUNTED:
            doc.string("%s f/t" % res, row.counts[res])
        doc.open_array("jobs")
        for jobid in row.job_ids:
            doc.string(None, jobid)
        doc.close_array()
    else:
        doc.string("OS", row.os)
        doc.string("hardware", row.hardware)
        doc.string("host", row.host)
        doc.string("queue", row.queue)
        doc.string("Memory", row.mem)
        for res in _COUNTED:
            doc.integer(res, _atol(row.counts[res]))
        doc.string("comment", row.comment)
    doc.close()
