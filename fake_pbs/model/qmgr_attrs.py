"""Attribute definitions of the objects qmgr manages: server, queue, node, sched, resource.

For each attribute: its value kind (how a value typed in qmgr is checked and stored), whether
managers may set it, and whether ``print`` writes it back (read-only and status attributes are
listed but never printed, as in golden cases d11, d12, d12d, k10a).  Names are in PBS's display
order; ``resources_*`` and ``default_chunk`` take ``.<resource>`` suffixes.
"""
from typing import Dict, List, Optional, Tuple

from fake_pbs.model import node_states
from fake_pbs.model.errors import PBSE_ATTRRO, PBSE_BADATVAL, PBSE_NOATTR, PbsError
from fake_pbs.model.preempt import check_sched_value

BOOL = "bool"
INT = "int"
TIME = "time"
STR = "str"
LIST = "list"  # comma list of names (acl/managers): print writes one "+=" line per item
RESC = "resc"  # a resource container: name.<resource>
ENUM = "enum"  # one of ENUMS[name], given as a case-insensitive prefix (verify_value_queue_type)
NSTATE = "nstate"  # a vnode's state names, kept in PBS's order (model/node_states.py)
ENTITY = "entity"  # entity limits ``[u:name=N],[g:PBS_GENERIC=N]`` (decode_entlim), N a long

RO = "ro"          # read only: set/unset refused
NOPRINT = "np"     # shown by list, never written by print (status or default-valued)

AttrDef = Tuple[str, str, str]  # name, kind, flags

SERVER: Tuple[AttrDef, ...] = (
    ("server_state", STR, RO + NOPRINT), ("server_host", STR, RO + NOPRINT),
    ("scheduling", BOOL, ""), ("total_jobs", INT, RO + NOPRINT),
    ("state_count", STR, RO + NOPRINT), ("acl_host_enable", BOOL, ""), ("acl_hosts", LIST, ""),
    ("acl_user_enable", BOOL, ""), ("acl_users", LIST, ""), ("acl_roots", LIST, ""),
    ("managers", LIST, ""), ("operators", LIST, ""), ("default_queue", STR, ""),
    ("log_events", INT, ""), ("mailer", STR, ""), ("mail_from", STR, ""),
    ("query_other_jobs", BOOL, ""), ("resources_default", RESC, ""),
    ("default_chunk", RESC, ""), ("resources_max", RESC, ""),
    ("resources_available", RESC, ""), ("resources_assigned", RESC, RO + NOPRINT),
    ("max_run", ENTITY, ""), ("max_run_res", STR, ""), ("max_queued", ENTITY, ""),
    ("max_queued_res", STR, ""), ("max_user_run", INT, ""), ("max_group_run", INT, ""),
    ("max_running", INT, ""), ("comment", STR, ""), ("default_node", STR, ""),
    ("flatuid", BOOL, ""), ("scheduler_iteration", INT, ""), ("resv_enable", BOOL, ""),
    ("node_fail_requeue", INT, ""), ("max_array_size", INT, ""),
    ("resend_term_delay", INT, NOPRINT), ("pbs_license_min", INT, ""),
    ("pbs_license_max", INT, ""), ("pbs_license_linger_time", INT, ""),
    ("license_count", STR, RO + NOPRINT), ("pbs_version", STR, RO + NOPRINT),
    ("eligible_time_enable", BOOL, ""), ("job_history_enable", BOOL, ""),
    ("job_history_duration", TIME, ""), ("max_concurrent_provision", INT, ""),
    ("clear_topjob_estimates_enable", BOOL, NOPRINT), ("power_provisioning", BOOL, NOPRINT),
    ("max_job_sequence_id", INT, ""), ("job_requeue_timeout", TIME, ""),
    ("backfill_depth", INT, ""), ("job_sort_formula", STR, ""), ("node_group_enable", BOOL, ""),
    ("node_group_key", STR, ""), ("kill_delay", INT, ""),
)

QUEUE: Tuple[AttrDef, ...] = (
    ("queue_type", ENUM, ""), ("Priority", INT, ""), ("total_jobs", INT, RO + NOPRINT),
    ("state_count", STR, RO + NOPRINT), ("max_queued", ENTITY, ""), ("max_queued_res", STR, ""),
    ("max_queuable", INT, ""), ("acl_user_enable", BOOL, ""), ("acl_users", LIST, ""),
    ("acl_group_enable", BOOL, ""), ("acl_groups", LIST, ""), ("acl_host_enable", BOOL, ""),
    ("acl_hosts", LIST, ""), ("resources_max", RESC, ""), ("resources_min", RESC, ""),
    ("resources_default", RESC, ""), ("max_array_size", INT, ""),
    ("resources_available", RESC, ""),
    ("default_chunk", RESC, ""), ("resources_assigned", RESC, RO + NOPRINT),
    ("max_run", ENTITY, ""), ("max_run_res", STR, ""), ("max_user_run", INT, ""),
    ("max_group_run", INT, ""), ("from_route_only", BOOL, ""), ("route_destinations", LIST, ""),
    ("route_held_jobs", BOOL, ""), ("route_waiting_jobs", BOOL, ""),
    ("route_retry_time", INT, ""), ("route_lifetime", INT, ""), ("kill_delay", INT, ""),
    ("hasnodes", BOOL, RO + NOPRINT), ("comment", STR, ""), ("partition", STR, ""),
    ("enabled", BOOL, ""), ("started", BOOL, ""),
)

NODE: Tuple[AttrDef, ...] = (
    ("Mom", STR, NOPRINT), ("Port", INT, NOPRINT), ("pbs_version", STR, RO + NOPRINT),
    ("ntype", STR, RO + NOPRINT), ("state", NSTATE, ""), ("pcpus", INT, RO + NOPRINT),
    ("jobs", STR, RO + NOPRINT), ("resources_available", RESC, ""),
    ("resources_assigned", RESC, RO + NOPRINT), ("comment", STR, ""), ("queue", STR, ""),
    ("priority", INT, ""), ("resv_enable", BOOL, ""), ("sharing", STR, NOPRINT),
    ("no_multinode_jobs", BOOL, ""), ("partition", STR, ""), ("license", STR, RO + NOPRINT),
    ("last_state_change_time", STR, RO + NOPRINT), ("last_used_time", STR, RO + NOPRINT),
)

SCHED: Tuple[AttrDef, ...] = (
    ("sched_host", STR, ""), ("sched_cycle_length", TIME, ""), ("throughput_mode", BOOL, ""),
    ("job_run_wait", STR, ""), ("partition", STR, ""), ("sched_priv", STR, ""),
    ("sched_log", STR, ""), ("scheduling", BOOL, ""), ("scheduler_iteration", INT, ""),
    ("state", STR, ""), ("preempt_queue_prio", INT, ""), ("preempt_prio", STR, ""),
    ("preempt_order", STR, ""), ("preempt_sort", STR, ""), ("log_events", INT, ""),
    ("server_dyn_res_alarm", INT, ""), ("comment", STR, ""), ("sched_port", INT, ""),
    ("opt_backfill_fuzzy", STR, ""),
)

RESOURCE: Tuple[AttrDef, ...] = (("type", STR, ""), ("flag", STR, ""))

TABLES: Dict[str, Tuple[AttrDef, ...]] = {
    "server": SERVER, "queue": QUEUE, "node": NODE, "sched": SCHED, "resource": RESOURCE,
}

SCHED_DEFAULTS: Tuple[Tuple[str, str], ...] = (
    ("sched_cycle_length", "00:20:00"), ("throughput_mode", "True"),
    ("job_run_wait", "runjob_hook"), ("partition", "pbs-default"),
    ("sched_priv", "/var/spool/pbs/sched_priv"), ("sched_log", "/var/spool/pbs/sched_logs"),
    ("scheduling", "True"), ("scheduler_iteration", "600"), ("state", "idle"),
    ("preempt_queue_prio", "150"), ("preempt_prio", "express_queue, normal_jobs"),
    ("preempt_order", "SCR"), ("preempt_sort", "min_time_since_start"), ("log_events", "767"),
    ("server_dyn_res_alarm", "30"),
)

#: The values of each ENUM attribute, as PBS stores them.
ENUMS: Dict[str, Tuple[str, ...]] = {"queue_type": ("Execution", "Route")}

_TRUE = ("true", "t", "y", "1")
_FALSE = ("false", "f", "n", "0")


def find(objtype: str, name: str) -> Optional[AttrDef]:
    """The definition of ``name`` (``resources_default.ncpus`` finds ``resources_default``).

    Attribute names are case-insensitive, as in PBS (``priority=150``, transcript g01).
    """
    base = name.split(".", 1)[0].lower()
    for attr in TABLES.get(objtype, ()):
        if attr[0].lower() == base and (attr[1] == RESC) == ("." in name):
            return attr
    return None


def canonical(objtype: str, name: str) -> str:
    """``name`` spelt as PBS stores it (``priority`` -> ``Priority``); unknown names as given."""
    attr = find(objtype, name)
    if attr is None:
        return name
    base, dot, resource = name.partition(".")
    return attr[0] + dot + resource


def is_attribute(objtype: str, word: str) -> bool:
    """Whether qmgr takes ``word`` (after the object type) as an attribute (see grammar)."""
    return find(objtype, word) is not None


def order_key(objtype: str, name: str) -> Tuple[int, str]:
    """Sort key giving PBS's display order (resources alphabetical inside their container)."""
    base, _, resc = name.partition(".")
    for index, attr in enumerate(TABLES.get(objtype, ())):
        if attr[0] == base:
            return index, resc
    return len(TABLES.get(objtype, ())), name


def printable(objtype: str, name: str) -> bool:
    attr = find(objtype, name)
    return attr is not None and NOPRINT not in attr[2]


def normalize(objtype: str, name: str, value: str) -> str:
    """Check ``value`` for attribute ``name`` and return it as PBS stores it.

    Raises PBSE_NOATTR for unknown names, PBSE_ATTRRO for read-only ones and PBSE_BADATVAL for
    values of the wrong kind (booleans become ``True``/``False``).
    """
    attr = find(objtype, name)
    if attr is None:
        raise PbsError(PBSE_NOATTR)
    if RO in attr[2]:
        raise PbsError(PBSE_ATTRRO)
    if objtype == "sched":
        # the scheduler's ECL value checks (verify_value_preempt_order, ...): model/preempt.py
        check_sched_value(attr[0], value)
    kind = attr[1]
    if kind == BOOL:
        low = value.lower()
        if low in _TRUE:
            return "True"
        if low in _FALSE:
            return "False"
        raise PbsError(PBSE_BADATVAL)
    if kind == INT:
        try:
            return str(int(value, 10))
        except ValueError:
            raise PbsError(PBSE_BADATVAL) from None
    if kind == TIME:
        return _normalize_time(value)
    if kind == ENUM:
        return _enum(attr[0], value)
    if kind == NSTATE:
        return node_states.compose(split_list(value))
    if kind == ENTITY:
        return _entity(value)
    return value


def _enum(name: str, value: str) -> str:
    """The value whose name ``value`` begins (case-insensitively), as PBS's ECL matches it."""
    for choice in ENUMS[name]:
        if value and choice.lower().startswith(value.lower()):
            return choice
    raise PbsError(PBSE_BADATVAL)


def _entity(value: str) -> str:
    """An entity-limit list, each ``[t:name=N]`` with t one of u g p o and N a long."""
    items = [item.strip() for item in value.split(",")]
    for item in items:
        if not (item.startswith("[") and item.endswith("]")):
            raise PbsError(PBSE_BADATVAL)
        kind, colon, rest = item[1:-1].strip().partition(":")
        name, equal, number = rest.partition("=")
        if (not colon or kind.strip() not in ("u", "g", "p", "o") or not equal
                or not name.strip()):
            raise PbsError(PBSE_BADATVAL)
        try:
            int(number.strip(), 10)
        except ValueError:
            raise PbsError(PBSE_BADATVAL) from None
    return value


def _normalize_time(value: str) -> str:
    parts = value.split(":")
    try:
        numbers = [int(p, 10) for p in parts]
    except ValueError:
        raise PbsError(PBSE_BADATVAL) from None
    if not 1 <= len(numbers) <= 3 or any(n < 0 for n in numbers):
        raise PbsError(PBSE_BADATVAL)
    seconds = 0
    for number in numbers:
        seconds = seconds * 60 + number
    return "%02d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60)


def split_list(value: str) -> List[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def apply_op(objtype: str, name: str, op: str, old: Optional[str], value: str) -> str:
    """The new stored value for ``name op value`` given the ``old`` one (``+=``/``-=`` lists)."""
    new = normalize(objtype, name, value)
    attr = find(objtype, name)
    if op == "=" or attr is None:
        return new
    if attr[1] == NSTATE:
        current = [f for f in (old or "").split(",") if f]
        items = split_list(new)
        if op == "+=":
            return node_states.compose(current + items)
        return node_states.compose(f for f in current if f not in items)
    if attr[1] in (LIST, STR, ENTITY):
        current = split_list(old or "")
        items = split_list(new)
        if op == "+=":
            merged = current + [i for i in items if i not in current]
        else:
            merged = [i for i in current if i not in items]
        return ",".join(merged)
    if attr[1] == INT:
        base = int(old or "0")
        return str(base + int(new) if op == "+=" else base - int(new))
    raise PbsError(PBSE_BADATVAL)
