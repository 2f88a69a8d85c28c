"""pbs_rstat's three listings (OpenPBS ``src/cmds/pbs_rstat.c`` ``display``,
``display_single_reservation``; ``convert_time`` in ``src/lib/Libcmds/cvtdate.c``).

Pure functions of the server's ``resv_status`` reply (wire values: ``reserve_state`` as its number,
times as epoch seconds) and of ``now``; dates in the caller's local time (``TZ``), as PBS prints.
"""
from __future__ import annotations

import time

from fake_pbs.cli.render.values import atol, show_nonprint

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Mapping, Sequence

SHORT_STATES = ("NO", "UN", "CO", "WT", "TR", "RN", "FN", "BD", "DE", "DJ", "DG", "AL", "IC")
LONG_STATES = ("RESV_NONE", "RESV_UNCONFIRMED", "RESV_CONFIRMED", "RESV_WAIT",
               "RESV_TIME_TO_RUN", "RESV_RUNNING", "RESV_FINISHED", "RESV_BEING_DELETED",
               "RESV_DELETED", "RESV_DELETING_JOBS", "RESV_DEGRADED", "RESV_BEING_ALTERED",
               "RESV_IN_CONFLICT")
#: Attributes the full listing prints as dates, and those it leaves out.
DATE_ATTRS = ("reserve_start", "reserve_end", "ctime", "mtime", "reserve_retry")
HIDDEN_ATTRS = ("reserve_execvnodes", "reserve_standing", "reserve_timezone")


def state_name(code: str, long: bool) -> str:
    """``convert_resv_state``: ``"2"`` -> ``CO`` / ``RESV_CONFIRMED``; other text unchanged."""
    number = atol(code)
    if 0 <= number < len(SHORT_STATES):
        return (LONG_STATES if long else SHORT_STATES)[number]
    return code


def table_header(wide: bool) -> str:
    """The table's two header lines (wide: ``max_job_sequence_id`` over 7 digits)."""
    if wide:
        return ("%-15.15s %-13.13s %-8.8s %-5.5s %17.17s / Duration / %-17.17s\n"
                % ("Resv ID", "Queue", "User", "State", "Start", "End")) + "-" * 79 + "\n"
    return ("%-10.10s %-8.8s %-8.8s %-5.5s %17.17s / Duration / %-17.17s\n"
            % ("Resv ID", "Queue", "User", "State", "Start", "End")) + "-" * 69 + "\n"


def short_time(epoch: int, now: float) -> str:
    """``convert_time``: ``Today 03:59``, ``Sat 03:47`` (this week, Sunday first), ``Mon Dec 07
    10:00`` (this year), ``Fri Jan 01 2027 04:27`` (another year)."""
    then = time.localtime(epoch)
    cur = time.localtime(now)
    if then.tm_year != cur.tm_year:
        return time.strftime("%a %b %d %Y %H:%M", then)
    wday = (cur.tm_wday + 1) % 7  # C's tm_wday counts from Sunday
    if then.tm_yday == cur.tm_yday:
        return time.strftime("Today %H:%M", then)
    if cur.tm_yday - wday <= then.tm_yday <= cur.tm_yday + 6 - wday:
        return time.strftime("%a %H:%M", then)
    return time.strftime("%a %b %d %H:%M", then)


def table_row(name: str, attrs: Mapping[str, str], now: float, wide: bool) -> str:
    """One line of the default (``-S``) listing; the User column is ``Authorized_Users``."""
    fmt = "%-15.15s %-13.13s %-8.8s %-5.5s " if wide else "%-10.10s %-8.8s %-8.8s %-5.5s "
    state = attrs.get("reserve_state")
    head = fmt % (name, attrs.get("queue", "(null)"), attrs.get("Authorized_Users", "(null)"),
                  "(null)" if state is None else state_name(state, False))
    start = short_time(atol(attrs.get("reserve_start", "0")), now)
    end = short_time(atol(attrs.get("reserve_end", "0")), now)
    duration = atol(attrs.get("reserve_duration", "0"))
    return head + "%17.17s / %d / %-17.17s\n" % (start, duration, end)


def full_block(name: str, attrs: Mapping[str, str]) -> str:
    """``-f``/``-F``: ``Resv ID: <id>``, ``name = value`` lines in the server's order, a blank
    line (transcript R04)."""
    lines: List[str] = ["Resv ID: %s\n" % name]
    for key, value in attrs.items():
        if key in HIDDEN_ATTRS:
            continue
        if key == "reserve_state":
            value = state_name(value, True)
        elif key in DATE_ATTRS:
            value = time.strftime("%a %b %d %H:%M:%S %Y", time.localtime(atol(value)))
        lines.append("%s = %s\n" % (key, show_nonprint(value)))
    return "".join(lines) + "\n"


def listing(reservations: Sequence[Mapping[str, object]], how: str, now: float, wide: bool,
            header: bool) -> str:
    """The text for one status reply: ``how`` is ``S`` (table), ``F`` (full) or ``B`` (ids).
    ``header``: print the table's header (pbs_rstat prints it once, before the first reply that
    has reservations)."""
    out: List[str] = []
    if how == "S" and header and reservations:
        out.append(table_header(wide))
    for resv in reservations:
        name = str(resv.get("name", ""))
        raw = resv.get("attrs")
        items = raw.items() if isinstance(raw, dict) else raw if isinstance(raw, list) else []
        attrs: Dict[str, str] = {str(k): str(v) for k, v in items}
        if how == "B":
            out.append("Resv ID: %s\n" % name)
        elif how == "S":
            out.append(table_row(name, attrs, now, wide))
        else:
            out.append(full_block(name, attrs))
    return "".join(out)
