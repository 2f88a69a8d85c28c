"""Attribute definitions of the objects qmgr manages: server, queue, node, sched, resource.

One row per attribute, transcribed from OpenPBS 23.06.06's ``master_svr_attr_def.xml``,
``master_queue_attr_def.xml``, ``master_node_attr_def.xml`` and ``master_sched_attr_def.xml``, in
their index order (the order ``list`` and ``qstat -Bf`` show): the value kind (the ECL's
``verify_datatype_*``/``verify_value_*`` pair or the server's decode), and flags: read only (no
operator or manager write bit: 15003), manager only (``MGR_ONLY_SET``: operators refused),
checked by the server rather than the ECL (its refusal names the attribute, as
``reply_badattr`` does), invisible (no read bit) and not printed (``print`` writes back only
attributes with a write bit, as qmgr's ``is_attr(..., TYPE_ATTR_PUBLIC)``; golden d11, d12,
d12d, k10a).  ``resources_*``, ``default_chunk`` and the ``max_*_res`` limits take
``.<resource>`` suffixes.
"""
import re
import socket
from typing import Dict, FrozenSet, List, Optional, Tuple

from fake_pbs.model import ecl, node_states
from fake_pbs.model import resources as rdefs
from fake_pbs.model.errors import (PBSE_ATTRRO, PBSE_BADATVAL, PBSE_BADHOST,
                                   PBSE_BADJOBSCRIPTMAXSIZE,
                                   PBSE_LICENSE_LINGER_BADVAL, PBSE_LICENSE_MAX_BADVAL,
                                   PBSE_LICENSE_MIN_BADVAL, PBSE_NOATTR, PbsError, detail)
from fake_pbs.model.preempt import check_sched_value

BOOL = "bool"
INT = "int"
TIME = "time"
SIZE = "size"
FLOAT = "float"
STR = "str"
LIST = "list"  # comma list of names (acl/managers): print writes one "+=" line per item
RESC = "resc"  # a resource container: name.<resource>
ENUM = "enum"  # one of ENUMS[name], given as a case-insensitive prefix (verify_value_queue_type)
NSTATE = "nstate"  # a vnode's state names, kept in PBS's order (model/node_states.py)
ENTITY = "entity"  # entity limits ``[u:name=N],[g:PBS_GENERIC=N]`` (decode_entlim), N a long
# longs with a verify_value_* range: verify_value_priority, _zero_or_positive,
# _non_zero_positive, and the license checks with their own codes
PRIO = "prio"
NONNEG = "nonneg"
POS = "pos"
LICMIN = "licmin"
LICMAX = "licmax"
LINGER = "linger"
USERHOST = "userhost"  # managers/operators: user@host entries (verify_value_mgr_opr_acl_check)

RO = "ro"          # no write bit: set and unset refused (15003)
NOPRINT = "np"     # shown by list, never written by print (status or default-valued)
MGR = "mg"         # MGR_ONLY_SET: managers alone may set it
SRV = "sv"         # no ECL check: the server's decode refuses a bad value, naming the attribute
HIDDEN = "hd"      # no read bit: never shown

AttrDef = Tuple[str, str, str]  # name, kind, flags

_ROP = RO + NOPRINT

SERVER: Tuple[AttrDef, ...] = (
    ("server_state", INT, _ROP), ("server_host", STR, _ROP), ("scheduling", BOOL, ""),
    ("max_running", INT, ""), ("max_queued", ENTITY, SRV), ("max_queued_res", ENTITY, SRV),
    ("max_run", ENTITY, SRV), ("max_run_res", ENTITY, SRV), ("max_run_soft", ENTITY, SRV),
    ("max_run_res_soft", ENTITY, SRV), ("max_user_run", INT, ""), ("max_group_run", INT, ""),
    ("max_user_res", RESC, ""), ("max_group_res", RESC, ""), ("max_user_run_soft", INT, ""),
    ("max_group_run_soft", INT, ""), ("max_user_res_soft", RESC, ""),
    ("max_group_res_soft", RESC, ""), ("pnames", LIST, MGR), ("total_jobs", INT, _ROP),
    ("state_count", STR, _ROP), ("acl_host_enable", BOOL, MGR), ("acl_hosts", LIST, MGR),
    ("acl_host_moms_enable", BOOL, MGR), ("acl_resv_host_enable", BOOL, MGR),
    ("acl_resv_hosts", LIST, MGR), ("acl_resv_group_enable", BOOL, MGR + SRV),
    ("acl_resv_groups", LIST, MGR), ("acl_user_enable", BOOL, MGR), ("acl_users", LIST, MGR),
    ("acl_resv_user_enable", BOOL, MGR), ("acl_resv_users", LIST, MGR),
    ("acl_roots", LIST, MGR), ("managers", USERHOST, MGR), ("operators", USERHOST, MGR),
    ("default_queue", STR, ""), ("log_events", INT, ""), ("mailer", STR, MGR),
    ("mail_from", STR, MGR), ("query_other_jobs", BOOL, MGR),
    ("resources_available", RESC, ""), ("resources_default", RESC, ""),
    ("default_chunk", RESC, ""), ("resources_max", RESC, ""),
    ("resources_assigned", RESC, _ROP), ("resources_cost", RESC, MGR),
    ("system_cost", INT, MGR), ("scheduler_iteration", INT, ""), ("comment", STR, ""),
    ("default_node", STR, MGR), ("node_pack", BOOL, MGR), ("flatuid", BOOL, MGR),
    ("resv_enable", BOOL, MGR), ("node_fail_requeue", INT, ""), ("max_array_size", INT, ""),
    # master only (openpbs-master's d11/d12b list it); 23.06.06 has no such attribute
    ("resend_term_delay", INT, NOPRINT),
    ("require_cred_enable", BOOL, MGR), ("require_cred", STR, MGR),
    ("node_group_enable", BOOL, ""), ("node_group_key", STR, ""),
    ("default_qdel_arguments", STR, ""), ("default_qsub_arguments", STR, ""),
    ("rpp_retry", NONNEG, MGR), ("rpp_highwater", POS, MGR), ("pbs_license_info", STR, MGR),
    ("pbs_license_min", LICMIN, MGR), ("pbs_license_max", LICMAX, MGR),
    ("pbs_license_linger_time", LINGER, MGR), ("license_count", STR, _ROP),
    ("pbs_version", STR, _ROP), ("job_sort_formula", STR, MGR),
    ("eligible_time_enable", BOOL, MGR), ("reserve_retry_time", NONNEG, MGR),
    ("reserve_retry_init", NONNEG, MGR), ("job_history_enable", BOOL, MGR),
    ("job_history_duration", TIME, MGR), ("provision_enable", BOOL, _ROP),
    ("max_concurrent_provision", INT, MGR),
    # master only, as resend_term_delay
    ("clear_topjob_estimates_enable", BOOL, NOPRINT),
    ("provision_timeout", TIME, _ROP + HIDDEN), ("resv_post_processing_time", TIME, ""),
    ("backfill_depth", NONNEG, ""), ("job_requeue_timeout", TIME, ""),
    ("python_restart_max_hooks", POS, MGR), ("python_restart_max_objects", POS, MGR),
    ("python_restart_min_interval", TIME, MGR), ("queued_jobs_threshold", ENTITY, SRV),
    ("queued_jobs_threshold_res", ENTITY, SRV), ("jobscript_max_size", SIZE, MGR),
    ("restrict_res_to_release_on_suspend", LIST, MGR), ("power_provisioning", BOOL, _ROP),
    ("show_hidden_attribs", BOOL, MGR), ("sync_mom_hookfiles_timeout", POS, MGR),
    ("rpp_max_pkt_check", POS, MGR), ("max_job_sequence_id", POS, MGR),
    ("has_runjob_hook", BOOL, _ROP + HIDDEN), ("acl_krb_realm_enable", BOOL, MGR),
    ("acl_krb_realms", LIST, MGR), ("acl_krb_submit_realms", LIST, MGR),
    ("cred_renew_enable", BOOL, MGR), ("cred_renew_tool", STR, MGR),
    ("cred_renew_period", TIME, MGR), ("cred_renew_cache_period", TIME, MGR),
)

QUEUE: Tuple[AttrDef, ...] = (
    ("queue_type", ENUM, ""), ("Priority", PRIO, ""), ("max_queuable", INT, ""),
    ("total_jobs", INT, _ROP), ("state_count", STR, _ROP), ("max_running", INT, ""),
    ("max_queued", ENTITY, SRV), ("max_queued_res", ENTITY, SRV),
    ("acl_host_enable", BOOL, ""), ("acl_hosts", LIST, ""), ("acl_user_enable", BOOL, ""),
    ("acl_users", LIST, ""), ("from_route_only", BOOL, MGR), ("resources_max", RESC, ""),
    ("resources_min", RESC, ""), ("resources_default", RESC, ""),
    ("require_cred_enable", BOOL, MGR), ("require_cred", STR, MGR),
    ("max_array_size", INT, ""), ("comment", STR, ""), ("acl_group_enable", BOOL, ""),
    ("acl_groups", LIST, ""), ("checkpoint_min", INT, ""), ("rendezvous_retry", INT, ""),
    ("reserved_expedite", INT, ""), ("reserved_sync", INT, ""), ("default_chunk", RESC, ""),
    ("resources_available", RESC, ""), ("resources_assigned", RESC, _ROP),
    ("kill_delay", INT, ""), ("max_user_run", INT, ""), ("max_group_run", INT, ""),
    ("max_run", ENTITY, SRV), ("max_run_res", ENTITY, SRV), ("max_run_soft", ENTITY, SRV),
    ("max_run_res_soft", ENTITY, SRV), ("hasnodes", BOOL, _ROP), ("max_user_res", RESC, ""),
    ("max_group_res", RESC, ""), ("max_user_run_soft", INT, ""),
    ("max_group_run_soft", INT, ""), ("max_user_res_soft", RESC, ""),
    ("max_group_res_soft", RESC, ""), ("node_group_key", STR, ""),
    ("backfill_depth", NONNEG, ""), ("route_destinations", LIST, MGR),
    ("alt_router", BOOL, MGR), ("route_held_jobs", BOOL, ""),
    ("route_waiting_jobs", BOOL, ""), ("route_retry_time", INT, ""),
    ("route_lifetime", INT, ""), ("enabled", BOOL, ""), ("started", BOOL, ""),
    ("queued_jobs_threshold", ENTITY, SRV), ("queued_jobs_threshold_res", ENTITY, SRV),
    ("partition", STR, MGR),
)

NODE: Tuple[AttrDef, ...] = (
    ("Mom", STR, MGR + NOPRINT), ("Port", INT, NOPRINT), ("pbs_version", STR, _ROP),
    ("ntype", STR, _ROP), ("state", NSTATE, ""), ("pcpus", INT, _ROP),
    ("Priority", PRIO, ""), ("jobs", STR, _ROP), ("max_running", INT, ""),
    ("max_user_run", INT, ""), ("max_group_run", INT, ""), ("no_tasks", BOOL, ""),
    ("pnames", LIST, MGR), ("resv", STR, _ROP), ("resources_available", RESC, ""),
    ("resources_assigned", RESC, _ROP), ("queue", STR, MGR), ("comment", STR, ""),
    ("resv_enable", BOOL, MGR), ("no_multinode_jobs", BOOL, MGR), ("sharing", STR, _ROP),
    ("provision_enable", BOOL, MGR), ("current_aoe", STR, MGR),
    ("in_multivnode_host", INT, MGR), ("maintenance_jobs", LIST, _ROP),
    ("license", STR, _ROP), ("license_info", INT, _ROP + HIDDEN),
    ("topology_info", STR, _ROP + HIDDEN), ("vnode_pool", INT, MGR),
    ("power_provisioning", BOOL, MGR), ("current_eoe", STR, MGR), ("partition", STR, ""),
    ("poweroff_eligible", BOOL, MGR), ("last_state_change_time", STR, _ROP),
    ("last_used_time", STR, _ROP),
)

# state is READ_ONLY in PBS's table, but qmgr's print finds the node's (writable) state first
# (is_attr searches the server, node, queue, sched tables in turn), so print writes it (k10a).
SCHED: Tuple[AttrDef, ...] = (
    ("sched_host", STR, MGR), ("sched_cycle_length", TIME, ""),
    ("do_not_span_psets", BOOL, ""), ("only_explicit_psets", BOOL, ""),
    ("sched_preempt_enforce_resumption", BOOL, MGR), ("preempt_targets_enable", BOOL, MGR),
    ("job_sort_formula_threshold", FLOAT, MGR), ("throughput_mode", BOOL, MGR),
    ("job_run_wait", STR, MGR), ("opt_backfill_fuzzy", STR, MGR), ("partition", STR, MGR),
    ("sched_priv", STR, MGR), ("sched_log", STR, MGR), ("scheduling", BOOL, MGR),
    ("scheduler_iteration", INT, MGR), ("sched_user", STR, MGR), ("comment", STR, MGR),
    ("state", STR, RO), ("preempt_queue_prio", INT, MGR + SRV), ("preempt_prio", STR, MGR),
    ("preempt_order", STR, MGR), ("preempt_sort", STR, MGR), ("log_events", INT, ""),
    ("job_sort_formula", STR, MGR), ("server_dyn_res_alarm", NONNEG, MGR),
    ("attr_update_period", NONNEG, MGR),
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


def find(objtype: str, name: str) -> Optional[AttrDef]:
    """The definition of ``name`` (``resources_default.ncpus`` finds ``resources_default``).

    Attribute names are case-insensitive, as in PBS (``priority=150``, transcript g01).
    """
    base = name.split(".", 1)[0].lower()
    for attr in TABLES.get(objtype, ()):
        if attr[0].lower() == base and ("." in name) in _dotted(attr):
            return attr
    return None


def _dotted(attr: AttrDef) -> Tuple[bool, ...]:
    """Whether the name takes a ``.resource``: always (``resources_max.ncpus``), either way
    (the entity limits per resource, ``max_queued_res.ncpus``; bare, the value is refused) or
    never."""
    if attr[1] == RESC:
        return (True,)
    if attr[1] == ENTITY and attr[0].endswith(("_res", "_res_soft")):
        return (True, False)
    return (False,)


def canonical(objtype: str, name: str) -> str:
    """``name`` spelt as PBS stores it (``priority`` -> ``Priority``); unknown names as given."""
    attr = find(objtype, name)
    if attr is None:
        return name
    base, dot, resource = name.partition(".")
    return attr[0] + dot + resource


def is_attribute(objtype: str, word: str) -> bool:
    """Whether qmgr takes ``word`` (after the object type) as an attribute (see grammar).

    qmgr's ``is_attr`` looks the name up in the server, node, queue and scheduler tables alike,
    whatever the object: ``set server enabled=true`` goes to the server as an attribute (and is
    refused there, 15002), where an unknown name is an object name and a syntax error."""
    if objtype not in _QMGR_OBJECTS:
        return False
    return any(find(table, word) is not None for table in _QMGR_OBJECTS)


_QMGR_OBJECTS = ("server", "node", "queue", "sched")


def manager_only(objtype: str) -> FrozenSet[str]:
    """Names of ``objtype`` operators may not set (MGR_ONLY_SET; read-only ones neither)."""
    return frozenset(a[0].lower() for a in TABLES.get(objtype, ())
                     if MGR in a[2] or RO in a[2])


def is_list(attr: AttrDef) -> bool:
    """Whether ``print`` writes the value one ``+=`` line per item."""
    return attr[1] in (LIST, USERHOST)


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

    Raises PBSE_NOATTR for unknown names (the ECL: no name in the text), PBSE_ATTRRO for
    read-only ones (the server: the text names the attribute) and PBSE_BADATVAL (or a license
    code) for values of the wrong kind; a check the ECL makes gives the bare message, one the
    server makes names the attribute (``reply_badattr``).  Booleans become ``True``/``False``.
    """
    attr = find(objtype, name)
    if attr is None:
        raise PbsError(PBSE_NOATTR)
    if RO in attr[2]:
        raise PbsError(PBSE_ATTRRO, detail(PBSE_ATTRRO, name))
    if objtype == "sched":
        # the scheduler's ECL value checks (verify_value_preempt_order, ...): model/preempt.py
        check_sched_value(attr[0], value)
    try:
        stored = _checked(attr, value)
    except PbsError as err:
        if SRV in attr[2] and err.code == PBSE_BADATVAL:
            raise PbsError(err.code, detail(err.code, name)) from None
        raise
    if attr[0] == "jobscript_max_size" and ecl.parse_size(stored) > JOBSCRIPT_MAX_SIZE_CAP:
        raise PbsError(PBSE_BADJOBSCRIPTMAXSIZE)  # svr_func.c action_jobscript_max_size
    return stored


#: jobscript_max_size: what an unset server takes (pbs_internal.h DFLT_JOBSCRIPT_MAX_SIZE) and
#: the most a manager may set (action_jobscript_max_size: 2gb).
JOBSCRIPT_MAX_SIZE_DEFAULT = "100mb"
JOBSCRIPT_MAX_SIZE_CAP = 2 << 30


def ecl_verify(objtype: str, name: str, value: str) -> None:
    """What PBS's client library checks before a manager request leaves qmgr
    (verify_an_attribute): an unknown name (15002) and a value the attribute's ECL check
    refuses, before the server looks at who asks.  Rights, kinds only the server decodes and a
    site's resources are the server's (:func:`normalize`).  ``value`` is empty for unset."""
    attr = find(objtype, name)
    if attr is None:
        raise PbsError(PBSE_NOATTR)
    if value == "" or RO in attr[2] or SRV in attr[2]:
        return
    if attr[1] == RESC:
        defn = rdefs.lookup(name.split(".", 1)[1])
        if defn is not None:
            try:
                ecl.verify_resource(defn, value)
            except PbsError as err:
                raise PbsError(err.code, detail(err.code, name)) from None
        return
    if objtype == "sched":
        check_sched_value(attr[0], value)
    _checked(attr, value)


def _checked(attr: AttrDef, value: str) -> str:
    """``value`` as the attribute's kind checks and stores it."""
    kind = attr[1]
    if kind == BOOL:
        return ecl.normalize_boolean(value)
    if kind in _LONG_RANGES:
        number = ecl.parse_long(value)
        low, high, code = _LONG_RANGES[kind]
        if (low is not None and number < low) or (high is not None and number > high):
            raise PbsError(code)
        return str(number)
    if kind == TIME:
        return ecl.normalize_time(value)
    if kind == SIZE:
        stored = ecl.normalize_size(value)
        if ecl.parse_size(value) <= 0:  # jobscript_max_size: verify_value_non_zero_positive
            raise PbsError(PBSE_BADATVAL)
        return stored
    if kind == FLOAT:
        ecl.parse_float(value)
        return value
    if kind == ENUM:
        return _enum(attr[0], value)
    if kind == NSTATE:
        return node_states.compose(split_list(value))
    if kind == ENTITY:
        return _entity(value)
    if kind == USERHOST:
        return _user_hosts(value)
    return value


# kind: (lowest, highest, code) for longs with a value check (ecl_verify_values.c)
_INT_MAX = 2147483647
_LONG_RANGES: Dict[str, Tuple[Optional[int], Optional[int], int]] = {
    INT: (None, None, PBSE_BADATVAL), PRIO: (-1024, 1023, PBSE_BADATVAL),
    NONNEG: (0, None, PBSE_BADATVAL), POS: (1, None, PBSE_BADATVAL),
    LICMIN: (0, _INT_MAX, PBSE_LICENSE_MIN_BADVAL), LICMAX: (0, _INT_MAX, PBSE_LICENSE_MAX_BADVAL),
    LINGER: (1, None, PBSE_LICENSE_LINGER_BADVAL),
}


def _user_hosts(value: str) -> str:
    """managers/operators: every entry ``user@host``, the host ``*``-led or a name that resolves
    to itself (verify_value_mgr_opr_acl_check); else 15008 Access from host not allowed."""
    for entry in split_list(value):
        user, at, host = entry.partition("@")
        if not at or not host:
            raise PbsError(PBSE_BADHOST)
        if not host.startswith("*") and not _resolves_to_itself(host):
            raise PbsError(PBSE_BADHOST)
    return value


def _resolves_to_itself(host: str) -> bool:
    try:
        infos = socket.getaddrinfo(host, None, flags=socket.AI_CANONNAME)
    except (OSError, UnicodeError):
        return False
    names = {info[3].lower() for info in infos if info[3]}
    return host.lower() in names or host.lower() == socket.gethostname().lower()


def _enum(name: str, value: str) -> str:
    """The value whose name ``value`` begins (case-insensitively), as PBS's ECL matches it."""
    for choice in ENUMS[name]:
        if value and choice.lower().startswith(value.lower()):
            return choice
    raise PbsError(PBSE_BADATVAL)


# a count, or (``max_queued_res.mem``) a size, a time or a float
_LIMIT_VALUE = re.compile(r"^(\d+[kmgtpKMGTP]?[bwBW]?|\d+(:\d+){1,2}|\d*\.\d+)$")


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
        if not _LIMIT_VALUE.match(number.strip()):
            raise PbsError(PBSE_BADATVAL)
    return value


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
    if attr[1] in (LIST, STR, ENTITY, USERHOST):
        current = split_list(old or "")
        items = split_list(new)
        if op == "+=":
            merged = current + [i for i in items if i not in current]
        else:
            merged = [i for i in current if i not in items]
        return ",".join(merged)
    if attr[1] in _LONG_RANGES:
        base = int(old or "0")
        return str(base + int(new) if op == "+=" else base - int(new))
    raise PbsError(PBSE_BADATVAL)
