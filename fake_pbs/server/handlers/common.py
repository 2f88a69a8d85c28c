"""Helpers shared by the job request handlers: lookup, permission, history rules."""
from typing import Any, Dict

from fake_pbs.model import job_attrs, states as st
from fake_pbs.model.errors import (PBSE_HISTJOBID, PBSE_IVALREQ, PBSE_PERM, PBSE_UNKJOBID,
                                   PbsError)
from fake_pbs.server import jobids, reqlog, subjobs
from fake_pbs.server.handlers.registry import Context
from fake_pbs.server.logs import SECURITY

Job = Dict[str, Any]


def caller_level(ctx: Context) -> str:
    """The caller's privilege level for the attribute rules of fake_pbs.model.job_attrs."""
    return job_attrs.MANAGER if ctx.caller.manager else job_attrs.USER


def job_id_arg(ctx: Context, request: Dict[str, Any]) -> str:
    raw = request.get("id")
    if not isinstance(raw, str):
        raise PbsError(PBSE_IVALREQ)
    jobid = jobids.normalize(raw, ctx.app.server_name)
    if jobid is None:
        raise PbsError(PBSE_UNKJOBID)
    return jobid


def find_job(ctx: Context, request: Dict[str, Any], history: bool = False) -> Job:
    """The job named by ``request["id"]``; 15001 if unknown, 15139 if finished and not wanted.

    A subjob id is looked up through its array parent first, as chk_job_request does: when
    the parent is over, any index is "Job has finished", in range or not (k12k).
    """
    jobid = job_id_arg(ctx, request)
    job = ctx.app.state.jobs.get(jobid)
    if job is None:
        parent = ctx.app.state.jobs.get(jobids.parent_of(jobid) or "")
        if (parent is not None and parent.get("job_state") in st.HISTORY_STATES
                and not request.get("purge")):
            raise PbsError(PBSE_HISTJOBID)
        index = jobids.index_of(jobid)
        if parent is not None and index is not None:
            # a row of the array's table: acted on alone, it becomes a record (subjobs.py)
            job = subjobs.materialize(ctx.app, parent, index)
        if job is None:
            raise PbsError(PBSE_UNKJOBID)
    if not history and job.get("job_state") in st.HISTORY_STATES:
        raise PbsError(PBSE_HISTJOBID)
    return job


def is_owner(ctx: Context, job: Job) -> bool:
    return int(job.get("_uid", -1)) == ctx.caller.uid


def require_owner(ctx: Context, job: Job) -> None:
    """Only the job's owner or a manager may act on a job (PBSE_PERM, exit 159); the server
    logs the refusal with the batch request's type (chk_job_request's msg_permlog, k06i:
    ``Unauthorized Request, request type: 11, ...`` for pbsuser2's qalter, k05m)."""
    if not ctx.caller.manager and not is_owner(ctx, job):
        kind = reqlog.OP_TYPES.get(ctx.op, (0,))[0]
        ctx.app.log.job(job["_id"], "Unauthorized Request, request type: %d, Object: Job, "
                        "Name: %s, request from: %s" % (kind, job["_id"], ctx.caller.name),
                        SECURITY)
        raise PbsError(PBSE_PERM)


def require_manager(ctx: Context) -> None:
    if not ctx.caller.manager:
        raise PbsError(PBSE_PERM)
