"""``qstat -Q``, ``qstat -q`` and ``qstat -B`` tables."""
from __future__ import annotations


from fake_pbs.cli.render.alttable import SIZE_DEFAULT, size_field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List

TRUNC = "*"
_NUML = 5

QUEUE_HEADER = (
    "Queue              Max   Tot Ena Str   Que   Run   Hld   Wat   Trn   Ext Type\n"
    "---------------- ----- ----- --- --- ----- ----- ----- ----- ----- ----- ----\n")
SERVER_HEADER = (
    "Server             Max   Tot   Que   Run   Hld   Wat   Trn   Ext Status\n"
    "---------------- ----- ----- ----- ----- ----- ----- ----- ----- -----------\n")


def _cut(value: str, limit: int) -> str:
    return value[:limit - 1] + TRUNC if len(value) > limit else value


def _istrue(value: str) -> bool:
    return value in ("TRUE", "True", "true", "1")


def state_counts(text: str) -> Dict[str, str]:
    """The numbers of ``state_count`` (``Transit:0 Queued:1 ...``), each cut to 5 columns."""
    counts: Dict[str, str] = {}
    for word in text.split():
        key, colon, number = word.partition(":")
        if colon:
            counts[key] = _cut(number, _NUML)
    return counts


def _counts_row(counts: Dict[str, str]) -> List[str]:
    order = ("Queued", "Running", "Held", "Waiting", "Transit", "Exiting")
    return [counts.get(k, "0") for k in order]


def queue_row(name: str, attrs: Any) -> str:
    max_run, total, enabled, started, qtype = "0", "0", "no", "no", "not defined"
    counts: Dict[str, str] = {}
    for item in attrs:
        key, value = str(item[0]), str(item[1])
        if key == "max_running":
            max_run = _cut(value, _NUML)
        elif key == "total_jobs":
            total = _cut(value, _NUML)
        elif key == "enabled":
            enabled = "yes" if _istrue(value) else "no"
        elif key == "started":
            started = "yes" if _istrue(value) else "no"
        elif key == "state_count":
            counts = state_counts(value)
        elif key == "queue_type":
            qtype = _cut(value, 4)
    return "%-16s %5s %5s %3s %3s %5s %5s %5s %5s %5s %5s %-4s\n" % tuple(
        [_cut(name, 16), max_run, total, enabled, started] + _counts_row(counts) + [qtype])


def server_row(name: str, attrs: Any) -> str:
    max_run, total, status = "0", "0", ""
    counts: Dict[str, str] = {}
    for item in attrs:
        key, value = str(item[0]), str(item[1])
        if key == "max_running":
            max_run = _cut(value, _NUML)
        elif key == "total_jobs":
            total = _cut(value, _NUML)
        elif key == "state_count":
            counts = state_counts(value)
        elif key == "server_state":
            status = _cut(value, 10)
    return "%-16s %5s %5s %5s %5s %5s %5s %5s %5s %-10s\n" % tuple(
        [_cut(name, 16), max_run, total] + _counts_row(counts) + [status])


def _queue_and_run(text: str) -> List[int]:
    """``get_ct``: queued (Queued + Held + Waiting) and running counts."""
    counts = {}
    for word in text.split():
        key, _, number = word.partition(":")
        digits = ""
        for ch in number:
            if not ch.isdigit():
                break
            digits += ch
        counts[key] = int(digits) if digits else 0
    return [counts.get("Queued", 0) + counts.get("Held", 0) + counts.get("Waiting", 0),
            counts.get("Running", 0)]


def queue_summary(server: str, queues: List[Dict[str, Any]], size_opt: int = SIZE_DEFAULT) -> str:
    """``qstat -q``: limits per queue and the totals line."""
    out = ["\nserver: %s\n\n" % server,
           "Queue            Memory CPU Time Walltime Node   Run   Que   Lm  State\n",
           "---------------- ------ -------- -------- ---- ----- ----- ----  -----\n"]
    total_run = total_que = 0
    for queue in queues:
        mem, cput, wall, nodect, jmax = "--  ", "  --   ", "  --   ", "-- ", "  --   "
        run = que = 0
        enabled, started = "D", "S"
        for item in queue.get("attrs", []):
            key, value = str(item[0]), str(item[1])
            if key == "max_running":
                jmax = value
            elif key == "enabled":
                enabled = "E" if value[:1] == "T" else enabled
            elif key == "started":
                started = "R" if value[:1] == "T" else started
            elif key == "state_count":
                que, run = _queue_and_run(value)
                total_que += que
                total_run += run
            elif key == "resources_max.mem":
                mem = size_field(value, size_opt)
            elif key == "resources_max.cput":
                cput = value
            elif key == "resources_max.walltime":
                wall = value
            elif key == "resources_max.nodect":
                nodect = value
        out.append("%-16.16s %6.6s %8.8s %8.8s %4.4s " % (str(queue["name"]), mem, cput, wall,
                                                          nodect))
        out.append("%5d %5d %4.4s   %s %s\n" % (run, que, jmax, enabled, started))
    out.append("                                               ----- -----\n")
    out.append("%s%5d %5d\n" % (" " * 47, total_run, total_que))
    return "".join(out)
