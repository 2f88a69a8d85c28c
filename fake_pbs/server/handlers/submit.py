"""``queuejob``: validate a submission, complete its attributes as PBS does, store, schedule.

Defaults and derived attributes follow ``qstat -f`` of real jobs (b02, b03b, i01c, c10b):
Job_Owner, Output_Path/Error_Path ``<host>:<cwd>/<name>.o<seq>``, Variable_List + PBS_O_QUEUE and
PBS_O_HOST, project ``_pbs_project_default``, ctime/qtime/mtime/etime, substate; holds (H/20),
dependencies (H/22), ``-a`` (W/30) and arrays (parent ``N[]``, state Q; subjobs ``N[i]``).
"""
import grp
import os
import re
from typing import Any, Dict, Optional

from fake_pbs import crashpoints
from fake_pbs.model import acl, ecl, job_attrs, preempt_targets, qmgr_attrs, states as st
from fake_pbs.model.errors import (PBSE_BADATVAL, PBSE_BADUSER, PBSE_FORCE_QSUB_UPDATE,
                                   PBSE_IVALREQ, PBSE_JOBSCRIPTMAXSIZE, PBSE_MaxArraySize,
                                   PBSE_NOSUP, PBSE_QUENODFLT, PBSE_UNKJOBID, PBSE_UNKQUE,
                                   PbsError)
from fake_pbs.server import (accounting, depend, enqueue, execid, hookpoints, jobids, lifecycle,
                             resourcing, subjobs, valuecheck)
from fake_pbs.model.attrs import is_true
from fake_pbs.server.handlers.common import caller_level
from fake_pbs.server.resv import jobs as resvjobs
from fake_pbs.server.handlers.registry import Context, handler

Job = Dict[str, Any]

BOOLEAN_ATTRS = frozenset(("Rerunable", "interactive", "block", "array", "no_stdio_sockets"))
DEFAULT_MAX_ARRAY_SIZE = 10000
_ARRAY_RANGE = re.compile(r"^(\d+)(?:-(\d+)(?::(\d+))?)?(?:%(\d+))?$")


def pbs_bool(value: str) -> str:
    return "True" if is_true(value) else "False"


def resolve_queue(ctx: Context, requested: Optional[str]) -> str:
    state = ctx.app.state
    name = (requested or "").split("@")[0]
    if not name:
        name = state.server.get("default_queue", "")
        if not name:
            raise PbsError(PBSE_QUENODFLT)
    queue = state.queues.get(name)
    if queue is None:
        raise PbsError(PBSE_UNKQUE)
    return name


def check_root(ctx: Context) -> None:
    """Stock PBS refuses root's jobs (a12) unless ``acl_roots`` allows ``root@host``
    (geteusernam.c set_objexid, a user ACL); the fake allows root by default and applies the
    stock rule once a manager sets ``acl_roots``."""
    if ctx.caller.uid != 0:
        return
    roots = ctx.app.state.server.get("acl_roots")
    if roots is None:
        return
    if not acl.check(roots, "root@%s" % ctx.app.host, acl.USER, ctx.app.host):
        raise PbsError(PBSE_BADUSER)


def split_resources(ctx: Context, attrs: Dict[str, str]) -> Dict[str, str]:
    custom = ctx.app.state.objects.get("resource", {})
    resources: Dict[str, str] = {}
    for name in list(attrs):
        if name.startswith("Resource_List."):
            resource = name.split(".", 1)[1]
            resources[resource] = resourcing.verify(resource, attrs.pop(name), custom)
            resource_action(ctx, resource, resources[resource])
    return resources


def resource_action(ctx: Context, resource: str, value: str) -> None:
    """A resource's own check at the server (resc_attr.c: preempt_targets_action)."""
    if resource == "preempt_targets" and value:
        custom = ctx.app.state.objects.get("resource", {})
        preempt_targets.check(value, lambda queue: queue in ctx.app.state.queues,
                              lambda name: resourcing.known(name, custom))


def default_path(host: str, cwd: str, name: str, letter: str, seq: int, array: bool) -> str:
    suffix = ".^array_index^" if array else ""
    return "%s:%s/%s.%s%d%s" % (host, cwd.rstrip("/") or "", name, letter, seq, suffix)


def qualify_path(value: str, host: str, cwd: str) -> str:
    if ":" in value.split("/")[0]:
        return value
    path = value if value.startswith("/") else os.path.join(cwd, value)
    return "%s:%s" % (host, path)


def parse_array(value: str) -> range:
    match = _ARRAY_RANGE.match(value.strip())
    if match is None:
        raise PbsError(PBSE_BADATVAL)
    first = int(match.group(1))
    last = int(match.group(2)) if match.group(2) else first
    step = int(match.group(3)) if match.group(3) else 1
    if last <= first or step < 1:
        raise PbsError(PBSE_BADATVAL)
    return range(first, last + 1, step)  # lazy: its size is checked before any subjob


def check_array_size(server: Dict[str, str], queue: Dict[str, str], count: int) -> None:
    """PBS's array limits: the server's ``max_array_size`` (10000 when unset) and the queue's
    when set (array_func.c, svr_chkque); PBSE_MaxArraySize, whose number qsub exits with (3)."""
    for limit in (server.get("max_array_size") or str(DEFAULT_MAX_ARRAY_SIZE),
                  queue.get("max_array_size")):
        if limit is not None and count > int(limit):
            raise PbsError(PBSE_MaxArraySize)


def check_script_size(server: Dict[str, Any], script: str) -> None:
    """req_quejob.c req_jobscript: a script larger than the server's ``jobscript_max_size``
    (100mb when unset) is refused with 15175 and the job is not created."""
    limit = ecl.parse_size(str(server.get("jobscript_max_size")
                               or qmgr_attrs.JOBSCRIPT_MAX_SIZE_DEFAULT))
    if len(script.encode("utf-8", "surrogateescape")) > limit:
        raise PbsError(PBSE_JOBSCRIPTMAXSIZE)


@handler("queuejob")
def queuejob(ctx: Context, request: Dict[str, Any]) -> Dict[str, str]:
    app = ctx.app
    crashpoints.reach(app.home, "server", "submit-received")
    attrs_in = request.get("attrs") or {}
    if not isinstance(attrs_in, dict):
        raise PbsError(PBSE_IVALREQ)
    attrs: Dict[str, str] = {str(k): str(v) for k, v in attrs_in.items()}
    if "qsub_defaults" in request:
        # qsub built the job with these default_qsub_arguments: other ones than the server's
        # send it back to build it again (PBSE_FORCE_QSUB_UPDATE; no job number spent)
        wanted = app.state.server.get("default_qsub_arguments", "")
        if str(request["qsub_defaults"]) != wanted:
            raise PbsError(PBSE_FORCE_QSUB_UPDATE, wanted)
    # PBS numbers the job before checking it: a rejected submission still spends its number.
    seq = app.state.next_seq()
    check_root(ctx)
    valuecheck.check(attrs)
    # The submit host is the connection's (every client is on the server's host), as PBS takes
    # Job_Owner's and Submit_Host's from the authenticated connection, never from the request.
    host = app.host
    cwd = str(request.get("cwd") or "/")
    destination = attrs.pop("queue", None)
    destination = attrs.pop("destination", None) or destination
    attrs = job_attrs.check_submit(attrs, caller_level(ctx))
    queue = resolve_queue(ctx, destination)
    explicit = split_resources(ctx, attrs)
    resources = dict(explicit)
    for key, value in app.state.queues[queue].items():
        if key.startswith("resources_default."):
            resources.setdefault(key.split(".", 1)[1], value)
    resources = resourcing.derive(resources, app.state.objects.get("resource"))
    indices = range(0)
    if "array_indices_submitted" in attrs:
        if is_true(attrs.get("interactive")):
            raise PbsError(PBSE_NOSUP)  # req_quejob.c: no interactive array job
        indices = parse_array(attrs["array_indices_submitted"])
        check_array_size(app.state.server, app.state.queues[queue], len(indices))
    check_script_size(app.state.server, str(request.get("script") or ""))
    now = app.now()
    is_array = bool(indices)
    jobid = jobids.make(seq, app.server_name, array=is_array)
    name = attrs.get("Job_Name", "STDIN")
    job: Job = {"_id": jobid, "_seq": seq, "_uid": ctx.caller.uid, "_gid": ctx.caller.gid,
                "_user": ctx.caller.user, "_group": _group_name(ctx.caller.gid),
                "_script": str(request.get("script") or "")}
    if request.get("token"):
        job["_submit_token"] = str(request["token"])  # for ``submitted`` (below)
    for key, value in attrs.items():
        job[key] = pbs_bool(value) if key in BOOLEAN_ATTRS else value
    job["Job_Name"] = name
    job["Job_Owner"] = "%s@%s" % (ctx.caller.user, host)
    job["queue"] = queue
    job["server"] = app.server_name
    for key, value in resources.items():
        job["Resource_List." + key] = value
    # what the hook sees has the queue's defaults; svr_chkque sets them all again (enqueue.py)
    job["_resc_defaulted"] = [key for key in resources if key not in explicit]
    job["ctime"] = job["qtime"] = job["mtime"] = str(now)
    for attr, letter in (("Output_Path", "o"), ("Error_Path", "e")):
        if attr in job:
            job[attr] = qualify_path(job[attr], host, cwd)
        else:
            job[attr] = default_path(host, cwd, name, letter, seq, is_array)
    job["Variable_List"] = _variable_list(attrs.get("Variable_List", ""), queue, host)
    job.setdefault("project", "_pbs_project_default")
    job["Submit_Host"] = host
    job.setdefault("Rerunable", "True")
    if is_true(job.get("interactive")):
        job["Rerunable"] = "False"  # req_quejob.c: interactive jobs are not rerunnable (I02)
    if is_array:
        job["array"] = "True"
        job["array_indices_remaining"] = attrs["array_indices_submitted"].split("%")[0]
        job["array_indices_submitted"] = attrs["array_indices_submitted"].split("%")[0]
        if "%" in attrs["array_indices_submitted"]:
            job["max_run_subjobs"] = attrs["array_indices_submitted"].split("%")[1]
    execid.apply(job, ctx.caller.user, app.host)
    set_initial_state(app.now(), job)
    deps = depend.parse(job.get("depend", ""), app.server_name) if job.get("depend") else []
    hookpoints.current().queuejob(app, job)
    # svr_chkque (enqueue.py: state, ACLs, limits, defaults): after the queuejob hook, as in PBS
    enqueue.check(app, job, str(job["queue"]), new_job=True,
                  adding=len(indices) if is_array else 1)
    resvjobs.enter_queue(app, job, str(job["queue"]))
    if is_array:
        # the subjobs are rows of the parent's table until they run (server/subjobs.py)
        subjobs.start_table(job, indices)
    app.state.jobs[jobid] = job
    app.state.save_job(jobid)
    # svr_enquejob's line precedes req_quejob's (f05, h01): state is the job's letter (Q or H).
    app.log.job(jobid, "enqueuing into %s, state %s hop 1" % (queue, job.get("job_state", "Q")),
                0x0100)
    app.log.job(jobid, "Job Queued at request of %s, owner = %s, job name = %s, queue = %s" % (
        ctx.caller.name, job["Job_Owner"], name, queue))
    # The Q record follows the dependencies' registration (k14f: etime=0 under the system
    # hold, depend=afterok:ID@server), which follows the Job Queued line (j05p, j05y).

    def queued_record() -> None:
        app.acct.record("Q", jobid, accounting.job_fields(job, "Q"))
    if job.get("depend"):  # after*: holds; before*: registrations PBS may refuse
        depend.register(app, job, deps, queued_record)
        app.state.save_job(jobid)
    else:
        queued_record()
    app.trigger_schedule()
    crashpoints.reach(app.home, "server", "submit-saved")
    return {"jobid": jobid}


@handler("submitted")
def submitted(ctx: Context, request: Dict[str, Any]) -> Dict[str, str]:
    """Fake-only: the id of the caller's job stored under ``token`` (Unknown Job Id if none).

    A qsub whose connection broke before the reply asks this once the server answers again:
    PBS's qsub has the id from the queue-job reply that precedes the commit and prints it,
    exit 0, when only the commit's reply is lost (docs/reliability.md, "qsub and a lost
    reply"); the fake's single request needs the lookup to know whether the job was stored.
    """
    token = str(request.get("token") or "")
    for job in ctx.app.state.iter_jobs():
        if (token and job.get("_submit_token") == token and not job.get("array_id")
                and int(job.get("_uid", -1)) == ctx.caller.uid):
            return {"jobid": str(job["_id"])}
    raise PbsError(PBSE_UNKJOBID)


def set_initial_state(now: int, job: Job) -> None:
    holds = job.get("Hold_Types", "n")
    if any(h in holds for h in "uosp"):
        lifecycle.set_state(job, st.HELD, st.SUB_HELD)
    elif int(job.get("Execution_Time", "0") or 0) > now:
        lifecycle.set_state(job, st.WAITING, st.SUB_WAITING)
        job["etime"] = str(now)
    else:
        lifecycle.set_state(job, st.QUEUED, st.SUB_QUEUED)
        job["etime"] = str(now)


def _variable_list(given: str, queue: str, host: str) -> str:
    pieces = [given] if given else []
    if "PBS_O_QUEUE=" not in given:
        pieces.append("PBS_O_QUEUE=%s" % queue)
    if "PBS_O_HOST=" not in given:
        pieces.append("PBS_O_HOST=%s" % host)
    return ",".join(pieces)


def _group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)
