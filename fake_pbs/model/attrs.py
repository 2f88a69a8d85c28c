"""PBS attribute display order and visibility (``master_*_attr_def.xml`` index order).

PBS returns an object's attributes in its attribute-definition order; resources inside a resource
attribute (``Resource_List.ncpus``) sort alphabetically, case-insensitively.  Values are strings;
private fields (names starting with ``_``) never leave the server.
"""
from typing import Dict, FrozenSet, Iterable, List, Mapping, Sequence, Tuple

Pairs = List[Tuple[str, str]]


def is_true(value: object) -> bool:
    """Whether a boolean attribute's stored value is set, as the server reads it (unset: no)."""
    return str(value or "").strip().lower() in ("true", "t", "y", "yes", "1")


JOB_ATTR_ORDER: Sequence[str] = (
    "Job_Name", "Job_Owner", "resources_used", "job_state", "queue", "server", "Account_Name",
    "Checkpoint", "ctime", "depend", "Error_Path", "exec_host", "exec_vnode", "Execution_Time",
    "group_list", "Hold_Types", "interactive", "Join_Path", "Keep_Files", "Mail_Points",
    "Mail_Users", "mtime", "no_stdio_sockets", "Output_Path", "Priority", "qtime",
    "Remove_Files", "Rerunable", "Resource_List", "schedselect", "stime", "obittime",
    "session_id", "Shell_Path_List", "sandbox", "jobdir", "stagein", "stageout", "substate",
    "User_List", "Variable_List", "euser", "egroup", "hashname", "comment", "alt_id", "etime",
    "reserve_ID", "gridname", "umask", "block", "run_count", "accounting_id", "eligible_time",
    "Stageout_status", "Exit_status", "Submit_arguments", "executable", "argument_list",
    "array", "array_id", "array_index", "array_state_count", "array_indices_submitted",
    "array_indices_remaining", "estimated", "history_timestamp", "project",
    "tolerate_node_failures",
    "Submit_Host", "credential_id", "credential_validity", "create_resv_from_job",
    "max_run_subjobs",
)

#: Job attributes PBS shows to managers only.
JOB_MANAGER_ONLY = frozenset(("schedselect", "euser", "egroup", "hashname"))

SERVER_ATTR_ORDER: Sequence[str] = (
    "server_state", "server_host", "scheduling", "max_running", "max_queued", "max_queued_res",
    "max_run", "max_run_res", "max_run_soft", "max_run_res_soft", "max_user_run",
    "max_group_run", "max_user_res", "max_group_res", "total_jobs", "state_count",
    "acl_host_enable", "acl_hosts", "acl_resv_host_enable", "acl_resv_hosts",
    "acl_user_enable", "acl_users", "acl_roots", "managers", "operators", "default_queue",
    "log_events", "mailer", "mail_from", "query_other_jobs", "resources_available",
    "resources_default", "default_chunk", "resources_max", "resources_assigned",
    "scheduler_iteration", "comment", "default_node", "node_pack", "resv_enable",
    "node_fail_requeue", "max_array_size", "default_qsub_arguments", "pbs_license_info",
    "pbs_license_min", "pbs_license_max", "pbs_license_linger_time", "license_count",
    "pbs_version", "eligible_time_enable", "job_history_enable", "job_history_duration",
    "max_concurrent_provision", "power_provisioning", "max_job_sequence_id",
)

QUEUE_ATTR_ORDER: Sequence[str] = (
    "queue_type", "Priority", "max_queued", "max_queued_res", "total_jobs", "state_count",
    "max_running", "max_run", "max_run_res", "max_user_run", "max_group_run", "max_user_res",
    "acl_host_enable", "acl_hosts", "acl_user_enable", "acl_users", "acl_group_enable",
    "acl_groups", "from_route_only", "resources_max", "resources_min", "resources_default",
    "max_array_size", "resources_available", "resources_assigned", "default_chunk", "kill_delay",
    "comment",
    "enabled", "started", "route_destinations", "route_held_jobs", "route_waiting_jobs",
    "route_retry_time", "route_lifetime",
)

NODE_ATTR_ORDER: Sequence[str] = (
    "Mom", "Port", "pbs_version", "ntype", "state", "pcpus", "jobs", "resv", "resources_available",
    "resources_assigned", "comment", "resv_enable", "sharing", "license",
    "last_state_change_time", "last_used_time",
)

SCHED_ATTR_ORDER: Sequence[str] = (
    "sched_host", "pbs_version", "sched_cycle_length", "scheduling", "scheduler_iteration",
    "state", "preempt_queue_prio", "preempt_prio", "preempt_order", "preempt_sort",
    "log_events", "server_dyn_res_alarm",
)

#: Attributes that travel as epoch seconds and that the commands print ctime-style.
TIME_ATTRS = frozenset((
    "ctime", "mtime", "qtime", "etime", "stime", "obittime", "Execution_Time", "reserve_start",
    "reserve_end", "last_state_change_time", "last_used_time", "estimated.start_time",
))


def _position(order: Mapping[str, int], name: str) -> Tuple[int, str, str]:
    base, _, resource = name.partition(".")
    rank = order.get(base, order.get(name, len(order)))
    # Unknown attributes keep a stable place after the known ones.
    return (rank, resource.lower() if resource else "", name if rank == len(order) else "")


def ordered(attrs: Mapping[str, str], order: Sequence[str],
            hidden: Iterable[str] = ()) -> Pairs:
    """Public attributes of ``attrs`` as (name, value) pairs in PBS display order."""
    skip = frozenset(hidden)
    key = (id(order), skip, tuple(attrs))
    cached = _NAMES_CACHE.get(key)
    if cached is not None and cached[0] is order:
        names = cached[1]
    else:
        index = _index_of(order)
        names = [n for n in attrs if not n.startswith("_") and n.partition(".")[0] not in skip]
        names.sort(key=lambda n: _position(index, n))
        if len(_NAMES_CACHE) >= _NAMES_CACHE_LIMIT:
            _NAMES_CACHE.clear()
        _NAMES_CACHE[key] = (order, names)
    return [(n, attrs[n]) for n in names]


# Ordering every job's ~50 attributes with a Python key function dominated a large statjob
# (docs/performance.md, hotspot 5); jobs share a handful of key sets, so the sorted name list is
# cached per (order, hidden names, key sequence). The order sequences are module constants, so
# id() names them (checked with ``is``, in case another sequence reuses an id); the cache is
# bounded and simply restarts when full.
_NAMES_CACHE: Dict[Tuple[int, FrozenSet[str], Tuple[str, ...]],
                   Tuple[Sequence[str], List[str]]] = {}
_NAMES_CACHE_LIMIT = 4096
_INDEXES: Dict[int, Tuple[Sequence[str], Dict[str, int]]] = {}


def _index_of(order: Sequence[str]) -> Dict[str, int]:
    """``{name: rank}`` of ``order``, built once per order sequence."""
    known = _INDEXES.get(id(order))
    if known is None or known[0] is not order:
        known = (order, {name: i for i, name in enumerate(order)})
        _INDEXES[id(order)] = known
    return known[1]


def job_pairs(attrs: Mapping[str, str], manager: bool) -> Pairs:
    """A job's attributes as ``statjob`` returns them to a caller with or without privilege."""
    return ordered(attrs, JOB_ATTR_ORDER, () if manager else JOB_MANAGER_ONLY)
