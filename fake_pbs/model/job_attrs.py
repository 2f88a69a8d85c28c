"""Job attributes as OpenPBS defines them (``master_job_attr_def.xml``): one row per attribute.

Each row gives the value type, PBS's permission flags (who may read and write it, whether a client
may give it at submission only, whether it may change while the job runs, whether selection
takes only ``=``/``!=``) and the value check PBS's ECL applies.  Every path that takes job
attributes from a client -- qsub and qalter before sending, and the server's ``queuejob``,
``alterjob`` and ``selectjob`` for any request, raw socket ones included -- asks
:func:`check_submit`, :func:`check_alter` or :func:`check_select`, so that adding an attribute is
one row.  Names starting with ``_`` are the server's private fields: no client names them.
"""
from __future__ import annotations

from fake_pbs.model import ecl
from fake_pbs.model.errors import (PBSE_ATTRRO, PBSE_BADATVAL, PBSE_IVALREQ, PBSE_MODATRRUN,
                                   PBSE_NOATTR, PBSE_PERM, PbsError, message_for)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Dict, Iterable, Optional, Tuple

# PBS's ATR_DFLAG_* bits (attribute.h): read and write rights per privilege level.
USRD, OPRD, MGRD = 0x01, 0x02, 0x04
USWR, OPWR, MGWR = 0x08, 0x10, 0x20
CREAT = 0x40    # a client may give it when submitting (and never alter it)
ALTRUN = 0x80   # may be altered while the job runs
SELEQ = 0x100   # selection compares with = and != only

READ_ONLY = USRD | OPRD | MGRD
READ_WRITE = READ_ONLY | USWR | OPWR | MGWR
NO_USER_SET = READ_ONLY | OPWR | MGWR
MGR_ONLY_SET = READ_ONLY | MGWR
PRIV_READ = OPRD | MGRD

# Value types (ATR_TYPE_*): what a stored value looks like.
STR, LONG, BOOL, RESC, ARST, LIST, CHAR = "str", "long", "bool", "resc", "arst", "list", "char"
TIME = "time"  # a long the server decodes from [[HH:]MM:]SS (decode_time: eligible_time)

#: The privilege levels of a caller.
USER, OPERATOR, MANAGER = "user", "operator", "manager"
_READ = {USER: USRD, OPERATOR: OPRD, MANAGER: MGRD}
_WRITE = {USER: USWR, OPERATOR: OPWR, MANAGER: MGWR}


def _long(value: str) -> str:
    return str(ecl.parse_long(value))


def _checkpoint(value: str) -> str:
    # qsub's default "u" (unspecified) is a value the ECL takes; qsub/qalter -c refuse it
    return value if value == "u" else ecl.check_checkpoint(value)


def _zero_or_positive(value: str) -> str:
    number = ecl.parse_long(value)
    if number < 0:
        raise PbsError(PBSE_BADATVAL)
    return str(number)


def _bool(value: str) -> str:
    return ecl.normalize_boolean(value)


def _depend(value: str) -> str:
    ecl.parse_depend(value)
    return value


def _jrange(value: str) -> str:
    return ecl.parse_array_range(value).submitted


def _user_list(value: str) -> str:
    # verify_value_user_list: user[@host] items, each host at most once
    return ecl.check_at_list(value, unique_hosts=True)


def _shell_paths(value: str) -> str:
    # verify_value_shellpathlist: absolute paths [@host], each host at most once
    return ecl.check_at_list(value, unique_hosts=True, absolute=True)


def _time(value: str) -> str:
    return ecl.normalize_time(value)


# name: (type, flags, ecl) from master_job_attr_def.xml.  ``ecl`` is the commands' value check
# (PBS's client-side ECL, qsub_verify.py), returning the value as sent; the server decodes values
# by ``type`` only, as PBS's server does (a raw request skips the ECL there too).  Paths are
# completed by their handlers (they get the submit host).  ``block`` and ``interactive`` are
# longs in PBS; the fake keeps them as the True/False that qstat shows (b22e).
JOB_ATTRS: Dict[str, Tuple[str, int, Optional[Callable[[str], str]]]] = {
    "Job_Name": (STR, READ_WRITE | ALTRUN | SELEQ, ecl.check_job_name),
    "Job_Owner": (STR, READ_ONLY | SELEQ, None),
    "resources_used": (RESC, READ_ONLY, None),
    "job_state": (CHAR, READ_ONLY, None),
    "queue": (STR, READ_ONLY, None),
    "server": (STR, READ_ONLY, None),
    "Account_Name": (STR, READ_WRITE | SELEQ, None),
    "Checkpoint": (STR, READ_WRITE | ALTRUN, _checkpoint),
    "ctime": (LONG, READ_ONLY, None),
    "depend": (LIST, READ_WRITE, _depend),
    "Error_Path": (STR, READ_WRITE | ALTRUN | SELEQ, None),
    "exec_host": (STR, READ_ONLY, None),
    "exec_vnode": (STR, READ_ONLY, None),
    "Execution_Time": (LONG, READ_WRITE | ALTRUN, _long),
    "group_list": (ARST, READ_WRITE | SELEQ, _user_list),
    "Hold_Types": (STR, READ_WRITE | ALTRUN | SELEQ, ecl.check_hold_types),
    "interactive": (BOOL, READ_ONLY | CREAT | SELEQ, None),
    "Join_Path": (STR, READ_WRITE | SELEQ, ecl.check_join),
    "Keep_Files": (STR, READ_WRITE | SELEQ, ecl.check_keep),
    "Mail_Points": (STR, READ_WRITE | ALTRUN | SELEQ, ecl.check_mail_points),
    "Mail_Users": (ARST, READ_WRITE | ALTRUN | SELEQ, ecl.check_at_list),
    "mtime": (LONG, READ_ONLY, None),
    "no_stdio_sockets": (BOOL, READ_WRITE | SELEQ, _bool),
    "Output_Path": (STR, READ_WRITE | ALTRUN | SELEQ, None),
    "Priority": (LONG, READ_WRITE | ALTRUN, ecl.check_priority),
    "qtime": (LONG, READ_ONLY, None),
    "Remove_Files": (STR, READ_WRITE | SELEQ, ecl.check_remove_files),
    # verify_datatype_bool: -W Rerunable=true is as good as -r y (qsub/qalter check -r's y|n)
    "Rerunable": (BOOL, READ_WRITE | ALTRUN | SELEQ, _bool),
    "Resource_List": (RESC, READ_WRITE | ALTRUN, None),
    "schedselect": (STR, MGRD, None),
    "stime": (LONG, READ_ONLY, None),
    "obittime": (LONG, READ_ONLY, None),
    "session_id": (LONG, READ_ONLY, None),
    "Shell_Path_List": (ARST, READ_WRITE | ALTRUN | SELEQ, _shell_paths),
    "sandbox": (STR, READ_WRITE | SELEQ, ecl.check_sandbox),
    "jobdir": (STR, READ_ONLY, None),
    "stagein": (ARST, READ_WRITE, ecl.check_stage_list),
    "stageout": (ARST, READ_WRITE, ecl.check_stage_list),
    "substate": (LONG, READ_ONLY, None),
    "User_List": (ARST, READ_WRITE | SELEQ, _user_list),
    "Variable_List": (ARST, READ_WRITE | SELEQ, None),
    "euser": (STR, MGRD, None),
    "egroup": (STR, MGRD, None),
    "hashname": (STR, MGRD, None),
    # the server's own bookkeeping: a client may name them but never set them (15003)
    "hop_count": (LONG, 0, None),
    "queue_rank": (LONG, MGRD, None),
    "queue_type": (CHAR, MGRD | SELEQ, None),
    "sched_hint": (LONG, MGRD | MGWR, _long),
    "security": (STR, 0, None),
    "comment": (STR, NO_USER_SET | ALTRUN, None),
    "cookie": (STR, 0, None),
    "alt_id": (STR, READ_ONLY, None),
    "etime": (LONG, READ_ONLY, None),
    "reserve_ID": (STR, READ_ONLY | CREAT, None),
    "last_context_refresh": (LONG, 0, None),
    "gridname": (STR, READ_WRITE | SELEQ, None),
    "umask": (LONG, READ_WRITE, _long),  # decode_l: a decimal long ("022" is 22)
    "block": (BOOL, READ_ONLY | CREAT | SELEQ, None),
    # ALTRUN in PBS; not while running in the fake, whose server and moms tell a job's runs
    # apart by run_count (docs/differences.md)
    "run_count": (LONG, READ_WRITE, _zero_or_positive),
    "accounting_id": (STR, READ_ONLY, None),
    "eligible_time": (TIME, NO_USER_SET | ALTRUN, _time),
    "accrue_type": (LONG, MGRD | ALTRUN, _long),
    "sample_starttime": (LONG, 0, None),
    "job_kill_delay": (LONG, 0, None),
    "Stageout_status": (LONG, READ_ONLY, None),
    "Exit_status": (LONG, READ_ONLY, None),
    "Submit_arguments": (STR, READ_WRITE, None),
    "executable": (STR, READ_WRITE, None),
    "argument_list": (STR, READ_WRITE, None),
    "prov_vnode": (STR, 0, None),
    "array": (BOOL, READ_ONLY | CREAT, None),
    "array_id": (STR, READ_ONLY, None),
    "array_index": (STR, READ_ONLY, None),
    "array_state_count": (STR, READ_ONLY, None),
    "array_indices_submitted": (STR, READ_ONLY | CREAT, _jrange),
    "array_indices_remaining": (STR, READ_ONLY, None),
    "estimated": (RESC, MGR_ONLY_SET | ALTRUN, None),
    "node_set": (ARST, MGWR, None),
    "history_timestamp": (LONG, READ_ONLY, None),
    "project": (STR, READ_WRITE | SELEQ, None),
    "ptime": (LONG, MGWR | ALTRUN, _zero_or_positive),
    "run_version": (LONG, MGRD, None),
    "topjob_ineligible": (BOOL, MGRD | MGWR | ALTRUN, _bool),
    "resources_released": (STR, PRIV_READ | ALTRUN, None),
    "resource_released_list": (RESC, PRIV_READ, None),
    "release_nodes_on_stageout": (BOOL, READ_WRITE | CREAT | ALTRUN | SELEQ, _bool),
    "tolerate_node_failures": (STR, READ_WRITE | CREAT | ALTRUN | SELEQ, ecl.check_tolerate),
    "Submit_Host": (STR, READ_WRITE, None),
    "credential_id": (STR, READ_WRITE, None),
    "credential_validity": (LONG, READ_ONLY, None),
    "create_resv_from_job": (BOOL, READ_WRITE, _bool),
    "max_run_subjobs": (LONG, READ_WRITE | ALTRUN, _zero_or_positive),
}

#: Resources that may change while the job runs (``ATR_DFLAG_ALTRUN`` in
#: master_resc_def_all.xml); any other ``Resource_List`` member (``select``, ``ncpus``) may not.
RUNNING_RESOURCES = frozenset(("cput", "walltime", "soft_walltime", "min_walltime",
                               "max_walltime"))

#: What a subjob takes from its array parent when it is made (array_func.c's copy list): no
#: Checkpoint, Hold_Types, depend, Execution_Time, Submit_arguments, max_run_subjobs or array
#: bookkeeping (j02g).  ``schedselect`` is derived from Resource_List on enqueue, as in PBS.
SUBJOB_COPIED = frozenset((
    "Job_Name", "Job_Owner", "resources_used", "job_state", "queue", "server", "Account_Name",
    "ctime", "Error_Path", "group_list", "Join_Path", "Keep_Files", "mtime", "Mail_Points",
    "Mail_Users", "no_stdio_sockets", "Output_Path", "Priority", "qtime", "Remove_Files",
    "Rerunable", "Resource_List", "session_id", "Shell_Path_List", "sandbox", "jobdir",
    "stagein", "stageout", "substate", "User_List", "Variable_List", "euser", "egroup",
    "hashname", "etime", "umask", "run_count", "eligible_time", "executable", "argument_list",
    "reserve_ID", "project", "tolerate_node_failures", "Submit_Host", "schedselect",
))


def subjob_copies(name: str) -> bool:
    """Whether a subjob starts with its parent's ``name`` (private fields: always)."""
    return name.startswith("_") or name.partition(".")[0] in SUBJOB_COPIED


#: Request parameters that travel among a submission's attributes: the destination queue.
DESTINATION = ("queue", "destination")


def find(name: str) -> Optional[Tuple[str, int, Optional[Callable[[str], str]]]]:
    """The row of ``name`` (``Resource_List.ncpus`` finds ``Resource_List``); None if unknown."""
    if name.startswith("_"):
        return None  # a private field of the server's record is no attribute
    base, dot, resource = name.partition(".")
    row = JOB_ATTRS.get(base)
    if row is None or (row[0] == RESC) != bool(dot and resource):
        return None
    return row


def known(name: str) -> bool:
    """Whether a client may name ``name`` at all (qsub's ECL: PBSE_NOATTR otherwise)."""
    return find(name) is not None


def readable(name: str, level: str) -> bool:
    row = find(name)
    return row is not None and bool(row[1] & _READ[level])


def _error(code: int, name: str) -> PbsError:
    """PBS's ``reply_badattr``: the message, a space, the attribute's name."""
    return PbsError(code, "%s %s" % (message_for(code), name))


def ecl_check(name: str, value: str) -> str:
    """``value`` as the commands' ECL check of ``name`` returns it; raises its PbsError."""
    row = find(name)
    check = row[2] if row is not None else None
    return value if check is None else check(value)


def _decoded(name: str, row: Tuple[str, int, Optional[Callable[[str], str]]],
             value: str) -> str:
    """The server's decode by type: a long must be one, a boolean becomes True/False."""
    try:
        if row[0] == LONG:
            return str(ecl.parse_long(value))
        elif row[0] == TIME:
            return ecl.normalize_time(value)
        elif row[0] == BOOL:
            return ecl.normalize_boolean(value)
    except PbsError as err:
        raise _error(err.code, name) from None
    return value


def check_submit(attrs: Dict[str, str], level: str) -> Dict[str, str]:
    """``attrs`` of a submission with checked values; PBSE_NOATTR for a name no job has,
    PBSE_ATTRRO for one the caller may not set (req_quejob: write right or ``Creat``)."""
    allowed = _WRITE[level] | CREAT
    out: Dict[str, str] = {}
    for name, value in attrs.items():
        row = find(name)
        if row is None:
            raise _error(PBSE_NOATTR, name)
        if not row[1] & allowed:
            raise _error(PBSE_ATTRRO, name)
        out[name] = _decoded(name, row, value)
    return out


def check_alter(attrs: Dict[str, str], level: str, running: bool) -> Dict[str, str]:
    """``attrs`` of a qalter with checked values (req_modifyjob: unknown names, names the caller
    may not write, names that may not change while the job runs, then values)."""
    out: Dict[str, str] = {}
    for name, value in attrs.items():
        row = find(name)
        if row is None:
            raise _error(PBSE_NOATTR, name)
        base, _, resource = name.partition(".")
        if running and (not row[1] & ALTRUN or resource and resource not in RUNNING_RESOURCES):
            raise _error(PBSE_MODATRRUN, name)
        if not row[1] & _WRITE[level]:
            raise _error(PBSE_ATTRRO, name)
        out[name] = _decoded(name, row, value)
    return out


_SELECT_OPS = ("eq", "ne", "ge", "gt", "le", "lt")


def check_select(criteria: Iterable[Tuple[str, str, str]], level: str) -> None:
    """Selection criteria (req_selectjob): known names the caller may read; ``=``/``!=`` only
    for SELEQ attributes."""
    for name, op, _ in criteria:
        row = find(name)
        if row is None:
            raise _error(PBSE_NOATTR, name)
        if not row[1] & _READ[level]:
            raise PbsError(PBSE_PERM)
        if op not in _SELECT_OPS or (row[1] & SELEQ and op not in ("eq", "ne")):
            raise PbsError(PBSE_IVALREQ)
