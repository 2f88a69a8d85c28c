"""Whether a job may enter a queue: svr_chkque (svr_jobfunc.c) beyond its ACL steps.

In PBS's order, for a submission (``MOVE_TYPE_Move``), a user's or operator's ``qmove`` (the
same) and a manager's ``qmove`` (``MOVE_TYPE_MgrMv``, which skips every check here but the
defaults):

2. the queue must be ``enabled`` (PBSE_QUNOENB, 15021) and hold fewer jobs than
   ``max_queuable`` (history not counted; PBSE_MAXQUED, 15046); 2a. an array no larger than
   the queue's ``max_array_size`` (PBSE_MaxArraySize);
3. a ``from_route_only`` queue takes no job but from a route (PBSE_QACESS, 15022);
4-5. the queue's ACLs (server/queueacl.py);
7a. the queue's ``max_queued`` then ``queued_jobs_threshold`` job counts, 7b. the server's, for a
    new job only (check_entity_ct_limit_max / _queued: PBSE_ENTLIMCT, 15142, with the limit's
    text);
    the queue's and server's defaults (set_resc_deflt, model/jobdefaults.py);
7c/7d. ``max_queued_res.*`` then ``queued_jobs_threshold_res.*``, queue then server
    (check_entity_resc_limit_max / _queued: PBSE_ENTLIMRESC, 15143);
7e. ``resources_max`` / ``resources_min`` (chk_resc_limits: PBSE_EXCQRESC, 15036).

Usage is counted from the job table when asked: ``max_queued`` counts every job not in
history, ``queued_jobs_threshold`` the jobs in state Q; an array counts its queued subjobs.
"""
from typing import Any, Dict, Iterable, List, Optional, Tuple

from fake_pbs.model import entlimits, jobdefaults
from fake_pbs.model.attrs import is_true
from fake_pbs.model.errors import (PBSE_ENTLIMCT, PBSE_ENTLIMRESC, PBSE_EXCQRESC, PBSE_MAXQUED,
                                   PBSE_MaxArraySize, PBSE_QACESS, PBSE_QUNOENB,
                                   PbsError)
from fake_pbs.server import queueacl, resourcing, subjobs

Job = Dict[str, Any]
Attrs = Dict[str, str]


def requested(job: Job) -> Dict[str, str]:
    """The job's Resource_List by resource name."""
    return {k.split(".", 1)[1]: str(v) for k, v in job.items() if k.startswith("Resource_List.")}


def adopt(job: Job, trial: Job) -> None:
    """Take the Resource_List, schedselect and defaults a checked copy of ``job`` got."""
    for key in [k for k in job if k.startswith("Resource_List.")]:
        del job[key]
    job.update((k, v) for k, v in trial.items()
               if k.startswith("Resource_List.") or k in ("schedselect", "_resc_defaulted"))


def entity(job: Job) -> entlimits.Entity:
    return entlimits.Entity(str(job.get("euser") or job.get("_user") or ""),
                            str(job.get("egroup") or job.get("_group") or ""),
                            str(job.get("project") or "_pbs_project_default"))


def weight(job: Job) -> int:
    """How many jobs a record counts for: an array parent, its queued subjobs."""
    if job.get("array") == "True":
        return sum(len(r) for r in subjobs.queued(job))
    return 1


def _counted(jobs: Iterable[Job], queue: Optional[str], queued_only: bool
             ) -> Iterable[Tuple[Job, int]]:
    for job in jobs:
        if queue is not None and job.get("queue") != queue:
            continue
        if queued_only and job.get("job_state") != "Q":
            continue
        count = weight(job)
        if count:
            yield job, count


def count_usage(jobs: Iterable[Job], queue: Optional[str], queued_only: bool
                ) -> Dict[Tuple[str, str], int]:
    usage: Dict[Tuple[str, str], int] = {}
    for job, count in _counted(jobs, queue, queued_only):
        who = entity(job)
        for kind in entlimits.KINDS:
            key = (kind, who.name(kind))
            usage[key] = usage.get(key, 0) + count
    return usage


def resource_usage(jobs: Iterable[Job], queue: Optional[str], queued_only: bool,
                   names: Iterable[str], kinds: Dict[str, str]
                   ) -> Dict[Tuple[str, str, str], float]:
    wanted = list(names)
    usage: Dict[Tuple[str, str, str], float] = {}
    for job, count in _counted(jobs, queue, queued_only):
        who = entity(job)
        for res in wanted:
            value = job.get("Resource_List." + res)
            if value is None:
                continue
            try:
                amount = entlimits.amount(kinds.get(res, "long"), str(value)) * count
            except (ValueError, PbsError):
                continue
            for kind in entlimits.KINDS:
                key = (kind, who.name(kind), res)
                usage[key] = usage.get(key, 0.0) + amount
    return usage


def resource_kinds(app: Any) -> Dict[str, str]:
    return {name: defn.type for name, defn in
            resourcing.table(app.state.objects.get("resource")).items()}


def _count_limits(app: Any, job: Job, queue_name: str, adding: int, new_job: bool) -> None:
    state = app.state
    live: Optional[List[Job]] = None  # the job table is walked only when a limit is set
    scopes: List[Tuple[Attrs, Optional[str]]] = [(state.queues[queue_name], queue_name)]
    if new_job:
        scopes.append((state.server, None))
    for attrs, where in scopes:
        for attr, queued_only in (("max_queued", False), ("queued_jobs_threshold", True)):
            limits = entlimits.parse(attrs.get(attr))
            if not limits:
                continue
            if live is None:
                live = state.live_jobs()
            usage = count_usage(live, where, queued_only)
            text = entlimits.check_count(limits, entity(job), usage, adding, where, queued_only)
            if text is not None:
                raise PbsError(PBSE_ENTLIMCT, text)


def _resource_limits(app: Any, job: Job, queue_name: str, adding: int,
                     kinds: Dict[str, str]) -> None:
    state = app.state
    live: Optional[List[Job]] = None  # the job table is walked only when a limit is set
    request = requested(job)
    for attrs, where in ((state.queues[queue_name], queue_name), (state.server, None)):
        for attr, queued_only in (("max_queued_res", False), ("queued_jobs_threshold_res", True)):
            limits = entlimits.by_resource(attrs, attr)
            if not limits:
                continue
            if live is None:
                # a job already counted (qalter) counts with its new request, not its old one
                live = [other for other in state.live_jobs() if other.get("_id") != job.get("_id")]
            usage = resource_usage(live, where, queued_only, limits, kinds)
            text = entlimits.check_resources(limits, kinds, entity(job), usage, request, adding,
                                             where, queued_only)
            if text is not None:
                raise PbsError(PBSE_ENTLIMRESC, text)


def apply_defaults(app: Any, job: Job, queue_name: str, replace: bool = True) -> None:
    """Replace the job's defaulted resources by those ``queue_name`` and the server give
    (clear_default_resc, then set_resc_deflt); ``replace=False``: only fill in what is unset
    (req_modifyjob's set_resc_deflt: the defaults already there stay)."""
    custom = app.state.objects.get("resource")
    before = list(job.get("_resc_defaulted") or [])
    if replace:
        for name in before:
            job.pop("Resource_List." + name, None)
    given = requested(job)
    for key in [k for k in job if k.startswith("Resource_List.")]:
        del job[key]
    done = jobdefaults.complete(given, app.state.queues.get(queue_name, {}),
                                app.state.server, list(resourcing.table(custom)))
    for name, value in done.resources.items():
        job["Resource_List." + name] = value
    job["schedselect"] = done.schedselect
    kept = [] if replace else [name for name in before
                               if name in given and name not in done.defaulted]
    job["_resc_defaulted"] = kept + done.defaulted


def check(app: Any, job: Job, queue_name: str, new_job: bool, manager_move: bool = False,
          from_route: bool = False, adding: Optional[int] = None, order: bool = False) -> None:
    """svr_chkque for ``job`` entering ``queue_name``; applies that queue's defaults to it.

    The job's defaulted resources are those of ``queue_name`` afterwards, whatever the outcome
    (the caller keeps or drops the job).
    """
    queue = app.state.queues[queue_name]
    if adding is None:
        adding = weight(job)
    if not (manager_move or order):  # qorder (MOVE_TYPE_Order) skips steps 2, 2a and 3
        if not is_true(queue.get("enabled", "False")):
            raise PbsError(PBSE_QUNOENB)
        if queue.get("max_queuable") and sum(
                1 for other in app.state.live_jobs()
                if other.get("queue") == queue_name and not other.get("array_id")
        ) >= int(queue["max_queuable"]):
            raise PbsError(PBSE_MAXQUED)  # step 2: jobs in the queue, history not counted
        if (job.get("array") == "True" and queue.get("max_array_size")
                and adding > int(queue["max_array_size"])):
            raise PbsError(PBSE_MaxArraySize)  # step 2a
        if is_true(queue.get("from_route_only")) and not from_route:
            raise PbsError(PBSE_QACESS)
    queueacl.check(app, queue, job, manager_move=manager_move)
    if not manager_move:
        _count_limits(app, job, queue_name, adding, new_job)
    apply_defaults(app, job, queue_name)
    if manager_move:
        return
    kinds = resource_kinds(app)
    _resource_limits(app, job, queue_name, adding, kinds)
    request = requested(job)
    if jobdefaults.violates(request, kinds, queue, app.state.server):
        raise PbsError(PBSE_EXCQRESC)


def check_altered(app: Any, job: Job) -> None:
    """req_modifyjob for a user: the altered job (defaults applied) within its queue's and the
    server's resources_max/min and resource entity limits."""
    queue_name = str(job.get("queue", ""))
    if queue_name not in app.state.queues:
        return
    kinds = resource_kinds(app)
    request = requested(job)
    if jobdefaults.violates(request, kinds, app.state.queues[queue_name], app.state.server):
        raise PbsError(PBSE_EXCQRESC)
    _resource_limits(app, job, queue_name, weight(job), kinds)
