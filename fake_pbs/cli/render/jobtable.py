"""The default ``qstat`` job table (and its ``-p`` "% done" variant).

Widths, truncation marks (``*``) and trailing blanks are PBS's: the job id keeps its sequence
number and the first part of the server name, a name of 16 characters or more is cut to 15
plus ``*``, a missing column prints as glibc prints a NULL string, ``(null)``.
"""
from __future__ import annotations


from fake_pbs.cli.render.values import Pairs, show_nonprint

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional

TRUNC = "*"
_NULL = "(null)"
_MAXSEQNUM = 12


def _cut(value: str, limit: int) -> str:
    """Keep ``limit`` characters, the last one replaced by ``*`` when something was cut."""
    return value[:limit - 1] + TRUNC if len(value) > limit else value


def header(server_comment: Optional[str], wide: bool, incr_width: bool, percent: bool) -> str:
    """The two header lines, preceded by the server's comment when it has one."""
    out = show_nonprint(server_comment) + "\n" if server_comment is not None else ""
    if percent:
        if wide:
            return out + (
                "Job id                         Name            User              % done  S Queue\n"
                "-----------------------------  --------------- ---------------  -------- - "
                "---------------\n")
        if incr_width:
            return out + (
                "Job id                 Name             User               % done  S Queue\n"
                "---------------------  ---------------- ----------------  -------- - -----\n")
        return out + (
            "Job id            Name             User               % done  S Queue\n"
            "----------------  ---------------- ----------------  -------- - -----\n")
    if wide:
        return out + (
            "Job id                         Name            User             Time Use S Queue\n"
            "-----------------------------  --------------- ---------------  -------- - "
            "---------------\n")
    if incr_width:
        return out + (
            "Job id                 Name             User              Time Use S Queue\n"
            "---------------------  ---------------- ----------------  -------- - -----\n")
    return out + (
        "Job id            Name             User              Time Use S Queue\n"
        "----------------  ---------------- ----------------  -------- - -----\n")


def _seconds(text: str) -> int:
    total = 0
    for part in text.split(":"):
        digits = ""
        for ch in part.lstrip():
            if not ch.isdigit():
                break
            digits += ch
        total = total * 60 + (int(digits) if digits else 0)
    return total


def percent_done(state: Optional[str], cput_used: Optional[str], cput_req: Optional[str],
                 wall_used: Optional[str], wall_req: Optional[str],
                 array_counts: Optional[str]) -> str:
    """PBS's ``percent_cal`` for ``qstat -p``."""
    first = (state or "")[:1]
    if first in ("Q", "T", "W"):
        return "-- "
    if first == "X":
        return "100"
    if array_counts is not None:
        counts = {}
        for word in array_counts.split():
            key, _, number = word.partition(":")
            counts[key] = int(number) if number.isdigit() else 0
        total = sum(counts.get(k, 0) for k in ("Queued", "Running", "Exiting", "Expired"))
        if total:
            percent = counts.get("Expired", 0) * 100 // total
            if 0 <= percent < 1000:
                return "%3d " % percent
        return "-- "
    best = -1
    if cput_req is not None and cput_used is not None:
        bottom = _seconds(cput_req)
        if bottom:
            best = _seconds(cput_used) * 100 // bottom
    if wall_req is not None and wall_used is not None:
        bottom = _seconds(wall_req)
        if bottom:
            best = max(best, _seconds(wall_used) * 100 // bottom)
    return "%3d " % best if best != -1 else "-- "


def row(job_id: str, attrs: Pairs, wide: bool, incr_width: bool, percent: bool) -> str:
    """One job line of the default table."""
    parts = job_id.split(".")
    shown_id = ".".join(parts[:2])
    if wide:
        id_width, name_width, user_width, queue_width = 30, 15, 15, 15
    elif incr_width:
        id_width, name_width, user_width, queue_width = _MAXSEQNUM + 10, 16, 16, 16
    else:
        id_width, name_width, user_width, queue_width = _MAXSEQNUM + 5, 16, 16, 16
    shown_id = _cut(shown_id, id_width)
    name = owner = state = queue = None
    used: Optional[str] = None
    values = {}
    for item in attrs:
        key, value = str(item[0]), str(item[1])
        if key == "Job_Name":
            name = value[:name_width - 1] + TRUNC if len(value) >= name_width else value
        elif key == "Job_Owner":
            owner = _cut(value.split("@", 1)[0], user_width)
        elif key == "resources_used.cput":
            used = _cut(value, 8)
            values[key] = used
        elif key in ("resources_used.walltime", "Resource_List.cput", "Resource_List.walltime"):
            values[key] = _cut(value, 8)
        elif key == "job_state":
            state = _cut(value, 1)
        elif key == "queue":
            queue = _cut(value.split("@", 1)[0], queue_width)
        elif key == "array_state_count":
            values[key] = value
    if used is None:
        used = "0"
    column = used
    if percent:
        column = percent_done(state, used, values.get("Resource_List.cput"),
                              values.get("resources_used.walltime"),
                              values.get("Resource_List.walltime"),
                              values.get("array_state_count"))
    fmt = "%%-%ds %%-%ds %%-%ds  %%8s %%1s %%-%ds\n" % (
        id_width, name_width, user_width, queue_width)
    return fmt % (shown_id, name if name is not None else _NULL,
                  owner if owner is not None else _NULL, column,
                  state if state is not None else _NULL, queue if queue is not None else _NULL)


def table(jobs: List[Dict[str, Any]], wide: bool, incr_width: bool, percent: bool) -> str:
    """Rows for every record ``{"id":..., "attrs": [...]}`` (no header)."""
    return "".join(row(str(job["id"]), job.get("attrs", []), wide, incr_width, percent)
                   for job in jobs)
