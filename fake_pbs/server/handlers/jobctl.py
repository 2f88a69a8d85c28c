"""``deljob``, ``holdjob``, ``rlsjob``, ``movejob``, ``alterjob``: changes to one job.

Errors and effects follow the golden transcripts c01-c10 (qdel), k01/k02 (holds), k05 (qalter),
k09 (qmove), k12/k13 (deleting subjobs and queued jobs).
"""
import re
import time
from typing import Any, Dict, List, Optional

from fake_pbs.model import job_attrs, states as st
from fake_pbs.model.errors import (PBSE_BADATVAL, PBSE_BADSTATE, PBSE_IVALREQ,
                                   PBSE_PERM, PBSE_UNKJOBID, PBSE_UNKQUE, PbsError)
from fake_pbs.server import (accounting, enqueue, execid, hookpoints, jobdelete, jobids,
                             lifecycle, mail, resourcing, subjobs, valuecheck)
from fake_pbs.server.app import ServerApp
from fake_pbs.server.handlers.common import caller_level, find_job, is_owner, require_owner
from fake_pbs.server.handlers.registry import Context, handler
from fake_pbs.server.handlers.submit import resource_action
from fake_pbs.server.resv import jobs as resvjobs

Job = Dict[str, Any]

# -- qdel -------------------------------------------------------------------------------------
_SUBJOB_RANGE = jobids.SUBJOB_RANGE
QDEL_MAIL_SUPPRESS = 1000  # cmds.h: deletes with mail when neither -W nor the server say


@handler("deljob")
def deljob(ctx: Context, request: Dict[str, Any]) -> None:
    raw = request.get("id")
    span = _SUBJOB_RANGE.match(raw.strip()) if isinstance(raw, str) else None
    if span is not None:
        _delete_range(ctx, request, span)
        return None
    _delete(ctx, find_job(ctx, request, history=True), request)
    return None


def _delete_range(ctx: Context, request: Dict[str, Any], span: "re.Match[str]") -> None:
    """``qdel N[3-4]``: each subjob of the range that is not over yet (k12e: rc 0, the
    queued one expires, the running ones are signalled)."""
    seq, first, last = int(span.group(1)), int(span.group(2)), int(span.group(3))
    step = int(span.group(4) or 1)
    server = ctx.app.server_name
    parent = ctx.app.state.jobs.get(jobids.make(seq, server, array=True))
    if parent is None or first > last or step < 1:
        raise PbsError(PBSE_UNKJOBID)
    if parent.get("job_state") in st.HISTORY_STATES and not request.get("purge"):
        raise lifecycle_finished()  # chk_job_request: the parent is over (k12k)
    require_owner(ctx, parent)
    # the queued rows of the table expire as one change; subjobs that are records are
    # deleted one by one (req_delete.c)
    indices = range(first, last + 1, step)
    expired = subjobs.expire_span(parent, indices, ctx.app.now())
    for child in sorted(ctx.app.state.subjobs(parent["_id"]),
                        key=lambda c: int(c.get("array_index", "-1"))):
        if int(child.get("array_index", "-1")) in indices and \
                child.get("job_state") not in st.HISTORY_STATES:
            _delete(ctx, child, request)
    if expired:
        lifecycle.array_child_ended(ctx.app, parent["_id"])


def _delete(ctx: Context, job: Job, request: Dict[str, Any]) -> None:
    if job.get("job_state") in st.HISTORY_STATES:
        if not request.get("purge"):
            raise lifecycle_finished()
        require_owner(ctx, job)
        _purge(ctx, job)
        return None
    require_owner(ctx, job)
    force = bool(request.get("force"))
    if job.get("job_state") == st.EXITING and not force:
        raise PbsError(PBSE_BADSTATE)
    app = ctx.app
    deleting = "Job to be deleted at request of %s" % ctx.caller.name
    app.log.job(job["_id"], deleting)
    app.acct.record("D", job["_id"], "requestor=%s" % ctx.caller.name)
    if not is_owner(ctx, job) and _mail_allowed(app, request):
        # acct_del_write: the owner hears of a delete by someone else
        mail.send(app, job, mail.OTHER, deleting, force=True)
    if request.get("purge"):
        job["_purge"] = True
    if job.get("array") == "True":
        delete_array(ctx, job, force)
        return None
    delete_one(ctx, job, force)
    return None


def _mail_allowed(app: ServerApp, request: Dict[str, Any]) -> bool:
    """qdel sends its first ``suppress_email`` deletes with mail, the rest with ``nomail``
    (qdel.c: ``-W suppress_email=N``, else the server's ``default_qdel_arguments``, else
    QDEL_MAIL_SUPPRESS); ``mail_index`` is the job's place among the command's ids."""
    limit = _count(request.get("suppress_mail"))
    if limit == 0:
        default = str(app.state.server.get("default_qdel_arguments") or "")
        key, _, value = default.replace(" ", "").partition("=")
        limit = _count(value) if key == "-Wsuppress_email" else 0
    limit = limit or QDEL_MAIL_SUPPRESS
    return _count(request.get("mail_index")) < limit


def _count(value: Any) -> int:
    """atol of a suppress_email value: its leading digits, 0 for none."""
    digits = re.match(r"\s*(\d+)", str(value or ""))
    return int(digits.group(1)) if digits else 0


def lifecycle_finished() -> PbsError:
    from fake_pbs.model.errors import PBSE_HISTJOBID
    return PbsError(PBSE_HISTJOBID)


def _purge(ctx: Context, job: Job) -> None:
    ids = [job["_id"]] + [c["_id"] for c in ctx.app.state.subjobs(job["_id"])]
    for jobid in ids:
        ctx.app.state.jobs.pop(jobid, None)
        ctx.app.state.save_job(jobid)


def delete_one(ctx: Context, job: Job, force: bool, requestor: Optional[str] = None) -> None:
    """End ``job`` for the caller (server/jobdelete.py); a queued job that went to history is
    then purged when the request asked for it."""
    who = ctx.caller.name if requestor is None else requestor
    if jobdelete.delete_one(ctx.app, job, force, who, bool(ctx.caller.manager)):
        _maybe_purge(ctx, job)


def _maybe_purge(ctx: Context, job: Job) -> None:
    if job.get("_purge") and job["_id"] in ctx.app.state.jobs:
        _purge(ctx, job)


def delete_array(ctx: Context, parent: Job, force: bool) -> None:
    parent["_deleted_by"] = ctx.caller.name
    lifecycle.save(ctx.app, parent)
    # The queued subjobs of the table expire at once, as one change of the parent
    # (req_delete.c); those that are records are ended one by one.
    subjobs.expire_queued(parent, ctx.app.now())
    children = [c for c in ctx.app.state.subjobs(parent["_id"])
                if c.get("job_state") not in st.HISTORY_STATES]
    for child in children:
        if child.get("job_state") in st.ACTIVE_STATES:
            # killed with the whole array: PBS names no requestor in the subjob's comment,
            # "... and terminated by " (k12j, k12n)
            delete_one(ctx, child, force, requestor="")
        else:
            jobdelete.expire_subjob(ctx.app, child)
    lifecycle.array_child_ended(ctx.app, parent["_id"])


# -- holds ------------------------------------------------------------------------------------
def _hold_types(ctx: Context, request: Dict[str, Any]) -> str:
    types = str(request.get("types") or "u")
    if any(t not in "uosnp" for t in types):
        raise PbsError(PBSE_BADATVAL)
    if not ctx.caller.manager and any(t in "os" for t in types):
        raise PbsError(PBSE_PERM)
    return types


@handler("holdjob")
def holdjob(ctx: Context, request: Dict[str, Any]) -> None:
    job = find_job(ctx, request)
    require_owner(ctx, job)
    types = _hold_types(ctx, request)
    # req_holdjob notes the hold in the comment whatever the state: a running job stays R
    # with "Job held by ..." (k01e); qalter -h (modify_job_attr) writes no comment.
    job["comment"] = "Job held by %s on %s" % (ctx.caller.user, time.ctime(ctx.app.now()))
    apply_hold(ctx, job, types)
    ctx.app.log.job(job["_id"], "Holds %s set at request of %s" % (types, ctx.caller.name))
    return None


def apply_hold(ctx: Context, job: Job, types: str) -> None:
    current = "" if job.get("Hold_Types", "n") == "n" else job["Hold_Types"]
    merged = "".join(t for t in "uosp" if t in current or t in types) or "n"
    job["Hold_Types"] = merged
    if job.get("job_state") in (st.QUEUED, st.WAITING):
        lifecycle.set_state(job, st.HELD, st.SUB_HELD)
    lifecycle.touch(ctx.app, job)
    lifecycle.save(ctx.app, job)


@handler("rlsjob")
def rlsjob(ctx: Context, request: Dict[str, Any]) -> None:
    job = find_job(ctx, request)
    require_owner(ctx, job)
    types = _hold_types(ctx, request)
    current = job.get("Hold_Types", "n")
    left = "".join(t for t in current if t not in types and t != "n") or "n"
    job["Hold_Types"] = left
    if left == "n" and job.get("job_state") == st.HELD and not job.get("_deps"):
        if int(job.get("Execution_Time", "0") or 0) > ctx.app.now():
            lifecycle.set_state(job, st.WAITING, st.SUB_WAITING)
        else:
            lifecycle.set_state(job, st.QUEUED, st.SUB_QUEUED)
        job["etime"] = str(ctx.app.now())
        ctx.app.trigger_schedule()
    lifecycle.touch(ctx.app, job)
    lifecycle.save(ctx.app, job)
    # req_releasejob logs the hold types of the request (tracejob, k11: "Holds u released")
    ctx.app.log.job(job["_id"], "Holds %s released at request of %s"
                    % (types, ctx.caller.name))
    return None


# -- qmove ------------------------------------------------------------------------------------
@handler("movejob")
def movejob(ctx: Context, request: Dict[str, Any]) -> None:
    job = find_job(ctx, request)
    require_owner(ctx, job)
    dest = str(request.get("dest") or "").split("@")[0]
    if dest not in ctx.app.state.queues:
        raise PbsError(PBSE_UNKQUE)
    if job.get("job_state") not in (st.QUEUED, st.HELD, st.WAITING):
        raise PbsError(PBSE_BADSTATE)
    hookpoints.current().movejob(ctx.app, job, dest)
    # svr_chkque's ACLs for the new queue; a manager's move is MOVE_TYPE_MgrMv (no ACL), an
    # operator's is not (svr_movejob.c: the manager bits only)
    # svr_chkque (enqueue.py) on a copy: a refused move leaves the job's defaults as they were
    trial = dict(job)
    enqueue.check(ctx.app, trial, dest, new_job=False,
                  manager_move=ctx.caller.manager and not ctx.caller.operator)
    enqueue.adopt(job, trial)
    resvjobs.enter_queue(ctx.app, job, dest)
    job["queue"] = dest
    job["qtime"] = str(ctx.app.now())
    lifecycle.touch(ctx.app, job)
    ctx.app.acct.record("Q", job["_id"], accounting.job_fields(job, "Q"))
    lifecycle.save(ctx.app, job)
    ctx.app.trigger_schedule()
    return None


# -- qorder -----------------------------------------------------------------------------------
@handler("orderjob")
def orderjob(ctx: Context, request: Dict[str, Any]) -> None:
    """req_orderjob: swap two jobs' places in submission order (PBS's qrank), and their
    queues when they differ, each checked by svr_chkque as a MOVE_TYPE_Order move."""
    first = find_job(ctx, request)
    second = find_job(ctx, {"id": request.get("other")})
    require_owner(ctx, first)
    require_owner(ctx, second)
    if first.get("array_id") or second.get("array_id"):
        raise PbsError(PBSE_IVALREQ)  # subjobs cannot be ordered
    if any(j.get("job_state") in (st.RUNNING, st.BEGUN) for j in (first, second)):
        raise PbsError(PBSE_BADSTATE)
    q1, q2 = str(first.get("queue")), str(second.get("queue"))
    if q1 != q2:
        trials = (dict(first), dict(second))
        enqueue.check(ctx.app, trials[0], q2, new_job=False, order=True)
        enqueue.check(ctx.app, trials[1], q1, new_job=False, order=True)
        enqueue.adopt(first, trials[0])
        enqueue.adopt(second, trials[1])
        first["queue"], second["queue"] = q2, q1
    first["_qrank"], second["_qrank"] = _rank(second), _rank(first)
    for job in (first, second):
        lifecycle.touch(ctx.app, job)
        lifecycle.save(ctx.app, job)
    return None


def _rank(job: Job) -> str:
    """A job's place in submission order: its qtime, then its number (PBS: qrank, the
    enqueue time in microseconds)."""
    if "_qrank" in job:
        return str(job["_qrank"])
    return "%d.%07d" % (int(job.get("qtime", "0") or 0), int(job.get("_seq", 0)) % 10000000)


# -- qalter -----------------------------------------------------------------------------------
def _seconds(value: str) -> int:
    total = 0
    for part in value.split(":"):
        total = total * 60 + int(float(part))
    return total


@handler("alterjob")
def alterjob(ctx: Context, request: Dict[str, Any]) -> None:
    job = find_job(ctx, request)
    require_owner(ctx, job)
    raw = request.get("attrs") or {}
    if not isinstance(raw, dict):
        raise PbsError(PBSE_IVALREQ)
    running = job.get("job_state") in st.ACTIVE_STATES
    # Names, rights and the running rule come from the attribute table (model/job_attrs.py);
    # a resource's own rule (walltime may only shrink for a user) is resourcing's.
    changes = job_attrs.check_alter({str(k): str(v) for k, v in raw.items()},
                                    caller_level(ctx), running)
    valuecheck.check(changes)
    custom = ctx.app.state.objects.get("resource", {})
    for name, value in changes.items():
        if name.startswith("Resource_List."):
            resource = name.split(".", 1)[1]
            changes[name] = value = resourcing.verify(resource, value, custom)
            resource_action(ctx, resource, value)
        if running and name == "Resource_List.walltime" and not ctx.caller.manager:
            old = job.get(name)
            if old is None or _seconds(value) > _seconds(old):
                if old is not None:
                    raise PbsError(PBSE_PERM)
    identity: Dict[str, Any] = {}
    if "User_List" in changes or "group_list" in changes:
        identity = dict(job, **changes)
        execid.apply(identity, str(job.get("_user", "")), ctx.app.host)
    hookpoints.current().modifyjob(ctx.app, job, changes)
    if not (ctx.caller.manager or ctx.caller.operator) and any(
            name.startswith("Resource_List.") for name in changes):
        # req_modifyjob: a user's new resources within the queue's, server's and entity
        # limits (chk_resc_limits, check_entity_resc_limit_max/_queued with the altered list)
        trial = dict(job)
        _apply_resources(ctx.app, trial, changes)
        enqueue.check_altered(ctx.app, trial)
    for key in ("_gid", "_group"):
        if key in identity:
            job[key] = identity[key]
    _apply_changes(ctx, job, changes)
    # req_modifyjob's msg_manager line, once per accepted qalter (k06i: five for 392.vm)
    ctx.app.log.job(job["_id"], "Job Modified at request of %s" % ctx.caller.name)
    return None


def _apply_resources(app: ServerApp, job: Job, changes: Dict[str, str]) -> None:
    """The job's Resource_List with the changes, derived values and defaults made again."""
    resources = enqueue.requested(changes)
    if not resources:
        return
    current = enqueue.requested(job)
    if "select" in resources:
        for derived in ("ncpus", "nodect", "mem"):
            current.pop(derived, None)
    elif "ncpus" in resources or "mem" in resources:
        current.pop("select", None)
        current.pop("nodect", None)
    current.update(resources)
    for key in [k for k in job if k.startswith("Resource_List.")]:
        del job[key]
    for key, value in current.items():
        job["Resource_List." + key] = value
    # set_resc_deflt again (req_modifyjob): what is unset now takes the queue's and server's
    # defaults; the defaults already there stay (k05j: place = pack after a new select)
    job["_resc_defaulted"] = [name for name in job.get("_resc_defaulted") or []
                              if name not in resources]
    enqueue.apply_defaults(app, job, str(job.get("queue", "")), replace=False)


def _apply_changes(ctx: Context, job: Job, changes: Dict[str, str]) -> None:
    app = ctx.app
    was = job.get("job_state")
    _apply_resources(app, job, changes)
    for name, value in changes.items():
        if name.startswith("Resource_List."):
            app.acct.record("a", job["_id"], "%s=%s" % (name, job.get(name, value)))
            continue
        if name == "Hold_Types":
            apply_hold(ctx, job, value)
            continue
        job[name] = value
        app.acct.record("a", job["_id"], "%s=%s" % (name, value))
    if "Execution_Time" in changes and job.get("job_state") == st.QUEUED and \
            int(changes["Execution_Time"]) > app.now():
        lifecycle.set_state(job, st.WAITING, st.SUB_WAITING)
    elif "stagein" in changes and job.get("job_state") == st.QUEUED:
        lifecycle.set_state(job, st.QUEUED, st.SUB_QUEUED)  # svr_evaljobstate: substate 11
    lifecycle.touch(app, job)
    lifecycle.save(app, job)
    # A qalter starts no scheduling cycle; a job that became queued does (svr_setjobstate:
    # k06h shows one cycle for 392.vm, at its submission, none for its five qalters).
    if job.get("job_state") == st.QUEUED and was != st.QUEUED:
        app.trigger_schedule()


def affected(jobs: List[Job]) -> List[str]:
    return [j["_id"] for j in jobs]
