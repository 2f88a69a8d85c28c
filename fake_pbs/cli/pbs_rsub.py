"""pbs_rsub: submit a reservation (OpenPBS 23.06 ``src/cmds/pbs_rsub.c``; transcripts R01,
R14-R19, R25, R40-R43, R50, R53).

The client checks only what pbs_rsub.c checks: option syntax, ``-R``/``-E`` through cvtdate
(``illegal -R time value`` + usage, rc 2: R17b), the hhmm end roll-over (R14), ``-r`` length,
PBS_TZID present for ``-r`` (R19), option combinations.  Past starts, ``-D`` without ``-R``,
inconsistent times, recurrence rules, PBS_TZID validity and unknown resources are the server's
(R15, R18, R17d, R41*, R17c): it answers with PBS's error, printed as ``pbs_rsub: <text>`` with
the code modulo 256.  The wire: /work/wt/resv-interface.md, docs/internals.md "Reservations".
"""
from __future__ import annotations

import sys

from fake_pbs import leanos
from fake_pbs.cli import common, jobctl, resvcmd
from fake_pbs.cli.posix_getopt import getopt
from fake_pbs.cli.qsub_options import parse_equal_list, parse_resource_list
from fake_pbs.cli.render.values import atol
from fake_pbs.model.cvtdate import cvtdate, is_hhmm, rsub_end
from fake_pbs.model.errors import PBSE_BADHOST, PbsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional, Tuple

USAGE = ("usage: pbs_rsub [-I seconds] [-m mail_points] [-M mail_list]\n"
         "                [-N reservation_name] [-u user_list] [-g group_list]\n"
         "                [-U auth_user_list] [-G auth_group_list] [-H auth_host_list]\n"
         "                [-R start_time] [-E end_time] [-D duration] [-q destination]\n"
         "                [-r rrule_expression] [-W otherattributes=value...]\n"
         "                -l resource_list | --hosts host1 [... hostn]\n"
         "       pbs_rsub --version\n")
SPEC = "D:E:I:l:m:M:N:q:r:R:u:U:g:G:H:W:-:"
RRULE_MAX = 66  # pbs_rsub.c: rrule[67], so that pbs_rstat's line stays within 80 columns
FUTURE_START = "1893488460"  # PBS_RESV_FUTURE_SCH: an ASAP reservation's start, for the server
_PLAIN = {"M": "Mail_Users", "N": "Reserve_Name", "u": "User_List", "U": "Authorized_Users",
          "g": "group_list", "G": "Authorized_Groups", "H": "Authorized_Hosts"}


class Request:
    """What the options ask for: the attributes and the flags pbs_rsub.c keeps."""

    def __init__(self) -> None:
        self.attrs: Dict[str, str] = {}
        self.messages: List[str] = []
        self.errors = 0
        self.start: Optional[int] = None
        self.end: Optional[int] = None
        self.hhmm = False
        self.times = self.interactive = self.resources = False
        self.qmove = self.standing = self.maintenance = False
        self.job: Optional[str] = None
        self.dest: Optional[str] = None
        self.hosts: List[str] = []

    def bad(self, message: str) -> None:
        self.messages.append(message)
        self.errors += 1


def _take_job(argv: List[str]) -> Tuple[List[str], Optional[str]]:
    """``--job <id>``: pbs_rsub takes the word after it as the job (glibc: ``-`` with argument
    ``job``, then ``argv[optind]``)."""
    for i, word in enumerate(argv):
        if word == "--":
            break
        if word == "--job" and i + 1 < len(argv):
            return argv[:i] + argv[i + 2:], argv[i + 1]
    return argv, None


def parse(argv: List[str], now: float) -> Request:
    """pbs_rsub.c ``process_opts``."""
    req = Request()
    argv, req.job = _take_job(argv)
    if req.job is not None:
        req.attrs["reserve_job"] = req.job
    result = getopt("pbs_rsub", argv, SPEC)
    for letter, value, message in resvcmd.options_in_order(result):
        if message is not None:
            req.bad(message)
        else:
            _option(req, letter, value, now)
    _combinations(req, result.operands)
    if req.end is not None and req.start is not None:
        rolled = rsub_end(req.start, req.end, req.hhmm)
        if rolled != req.end:
            req.end = rolled
            req.attrs["reserve_end"] = str(rolled)
    if not req.errors and result.operands and not req.maintenance:
        req.bad("pbs_rsub: directive error: " + "".join(a + " " for a in argv))
    return req


def _option(req: Request, letter: str, value: str, now: float) -> None:
    if letter == "D":
        pairs = parse_resource_list("walltime=" + value)
        if pairs is None:
            req.bad("pbs_rsub: illegal -D value")
        else:
            req.attrs["Resource_List.walltime"] = pairs[0][1]
    elif letter in "RE":
        req.times = True
        when = cvtdate(value, now)
        if when is None:
            req.bad("pbs_rsub: illegal -%s time value" % letter)
        elif letter == "R":
            req.start = when
            req.attrs["reserve_start"] = str(when)
        else:
            req.end = when
            req.attrs["reserve_end"] = str(when)
        if letter == "R" and is_hhmm(value):
            req.hhmm = True
    elif letter == "I":
        req.interactive = True
        if value and resvcmd.strtol(value) is None:
            req.bad("pbs_rsub: illegal -I time value")
        else:
            req.attrs["interactive"] = value or "0"
    elif letter == "l":
        req.resources = True
        pairs = parse_resource_list(value)
        if pairs is None:
            req.bad("pbs_rsub: illegal -l value")
        else:
            for name, val in pairs:
                req.attrs["Resource_List." + name] = val
    elif letter == "m":
        req.attrs["Mail_Points"] = value.lstrip()
    elif letter == "q":
        if not value.startswith("@"):
            req.bad('pbs_rsub: illegal -q value: format "@server"')
        else:
            req.dest = value[1:]
    elif letter == "r":
        req.standing = True
        req.attrs["reserve_rrule"] = value
        req.attrs["reserve_standing"] = "1"
        if len(value) > RRULE_MAX:
            req.bad("pbs_rsub: illegal -r value (expression too long)")
    elif letter == "W":
        _w_option(req, value.lstrip())
    elif letter == "-":
        if value == "hosts":
            req.maintenance = True
        else:
            req.errors += 1
    else:
        req.attrs[_PLAIN[letter]] = value


def _w_option(req: Request, value: str) -> None:
    pairs = parse_equal_list(value) if value else None
    if pairs is None:
        req.bad("pbs_rsub: illegal -W value")
        return
    for key, val in pairs:
        if key == "qmove":
            req.qmove = True
        req.attrs[key] = val


def _combinations(req: Request, operands: List[str]) -> None:
    """The checks after the option loop, in pbs_rsub.c's order."""
    if req.times and req.qmove:
        req.bad("pbs_rsub: -Wqmove is not compatible with -R or -E option")
    if req.interactive and req.maintenance:
        req.bad("pbs_rsub: can't use -I with --hosts")
    if req.resources and req.maintenance:
        req.bad("pbs_rsub: can't use -l with --hosts")
    if req.maintenance:
        for host in operands:
            if host in req.hosts:
                req.bad("pbs_rsub: Duplicate host: %s" % host)
                return
            if host:
                req.hosts.append(host)
        if not req.hosts:
            req.bad("pbs_rsub: missing host(s)")
            return
    if req.job is not None and (req.start or req.end):
        req.bad("pbs_rsub: Start/End time cannot be used with --job option")


def environment(req: Request) -> Optional[str]:
    """pbs_rsub.c ``set_resv_env``: Variable_List and reserve_timezone; the error for ``-r``
    without PBS_TZID (R19)."""
    from fake_pbs.cli.qsub_verify import submit_host

    parts: List[str] = []
    logname = leanos.getenv("LOGNAME")
    if logname is not None:
        parts.append("PBS_O_LOGNAME=" + logname)
    parts.append("PBS_O_HOST=" + submit_host())
    mail = leanos.getenv("MAIL")
    if mail is not None:
        parts.append("PBS_O_MAIL=" + mail)
    tzid = leanos.getenv("PBS_TZID")
    if tzid is not None:
        parts.append("PBS_TZID=" + tzid)
        req.attrs["reserve_timezone"] = tzid
    elif req.standing:
        return "pbs_rsub error: a valid PBS_TZID timezone environment variable is required.\n"
    req.attrs["Variable_List"] = ",".join(parts)
    return None


def _asap(req: Request) -> Optional[Tuple[str, int]]:
    """``-W qmove=<job>`` (pbs_rsub.c ``cnvrt_proc_attrib``): the job's resources the user did
    not give, the start left to the scheduler.  An error text and exit status, or None."""
    interactive = req.attrs.get("interactive")
    if interactive is None:
        req.attrs["interactive"] = "-10"
    elif atol(interactive) > -1:  # pbs_rsub.c: atoi
        return ("pbs_rsub: -I <timeout> value must be negative when used with -Wqmove "
                "option.\n", 2)
    raw = req.attrs["qmove"]
    job = resvcmd.qualify(raw)
    if job is None:
        return "pbs_rsub: illegally formed job identifier: %s\n" % raw, 255
    req.attrs["qmove"] = job
    try:
        records = list(common.request("statjob", id=job, extend=""))
    except PbsError:
        records = []
    if not records:
        return "Job %s does not exist\n" % job, 2
    for name, value in resvcmd.pairs(records[0]):
        if name == "job_state" and value in ("R", "T", "E"):
            return "Job not in qmove state\n", 2
        if name.startswith("Resource_List.") and name not in (
                "Resource_List.nodect", "Resource_List.neednodes") and name not in req.attrs:
            req.attrs[name] = value
    req.attrs.pop("reserve_end", None)
    req.attrs["reserve_start"] = FUTURE_START
    return None


def _maintenance(req: Request) -> Tuple[Dict[str, Any], Optional[Tuple[str, int]]]:
    """``--hosts``: the select and execvnodes pbs_rsub.c builds from the hosts' vnodes."""
    vnodes = list(common.request("statnode", name=None, vnodes=True))
    chunks: List[str] = []
    execvnodes: List[str] = []
    for host in req.hosts:
        total = 0
        for record in vnodes:
            attrs = dict(resvcmd.pairs(record))
            ncpus_text = attrs.get("resources_available.ncpus", "0")
            ncpus = resvcmd.strtol(ncpus_text)
            if ncpus is None:
                return {}, ("pbs_rsub: Attribute value error\n", 2)
            if attrs.get("resources_available.host") == host and ncpus > 0:
                total += ncpus
                execvnodes.append("(%s:ncpus=%d)" % (record.get("name", ""), ncpus))
        if total == 0:
            return {}, ("pbs_rsub: Host with resources not found: %s\n" % host, 2)
        chunks.append("host=%s:ncpus=%d" % (host, total))
    req.attrs["Resource_List.select"] = "+".join(chunks)
    req.attrs["Resource_List.place"] = "exclhost"
    return {"extend": "m", "execvnodes": "+".join(execvnodes)}, None


#: handle_attribute_errors' option letters
LETTERS = {"reserve_end": "E", "group_list": "g", "Authorized_Groups": "G",
           "Authorized_Hosts": "H", "interactive": "I", "Mail_Points": "m", "Mail_Users": "M",
           "Reserve_Name": "N", "reserve_start": "R", "reserve_rrule": "r", "User_List": "u",
           "Authorized_Users": "U", "qmove": "W"}


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    import time

    req = parse(argv, time.time())
    if req.errors or not argv:
        return jobctl.usage(USAGE, 2, req.messages)
    problem = environment(req)
    if problem is not None:
        sys.stderr.write(problem)
        return 2
    elsewhere = resvcmd.other_server("pbs_rsub", req.dest)
    if elsewhere is not None:
        sys.stderr.write(elsewhere)
        return PBSE_BADHOST % 256
    extra: Dict[str, Any] = {}
    failure: Optional[Tuple[str, int]] = None
    if req.qmove:
        failure = _asap(req)
    if failure is None and req.maintenance:
        extra, failure = _maintenance(req)
    if failure is None:
        from fake_pbs.cli.resv_verify import report

        failure = report("pbs_rsub", req.attrs, LETTERS, USAGE, long_name=True)
    if failure is not None:
        sys.stderr.write(failure[0])
        return failure[1]
    reply = common.request("resv_submit", attrs=req.attrs, **extra)
    sys.stdout.write("%s %s\n" % (reply.get("id", ""), reply.get("state", "")))
    return 0


def main() -> None:
    common.run_main("pbs_rsub", body)
