"""``tm_spawn``, ``tm_obit``, ``tm_kill``, ``tm_attach``: the task manager requests of ``pbsdsh``,
``pbs_tmrsh`` and ``pbs_attach`` (PBS's TM interface, src/lib/Libifl/tm.c), passed to the
job's moms.

In PBS a task's command talks to its host's mom, authenticated by the job's cookie; here the
commands talk to the server, which knows the caller from the socket's peer credentials and
lets only the job's owner (or root) start tasks of a running job.  The primary mom picks the
host and builds the task (fake_pbs/mom/tm.py); the obit is asked of the task's host, in
bounded waits the command repeats.
"""
from typing import Any, Dict, Set, Tuple

from fake_pbs import paths, protocol
from fake_pbs.model import states as st
from fake_pbs.model.errors import (PBSE_BADSTATE, PBSE_HISTJOBID, PBSE_IVALREQ,
                                   PBSE_NORELYMOM, PBSE_PERM, PBSE_UNKJOBID, PbsError)
from fake_pbs.model.tmcodes import TM_ENOTFOUND, TM_EUSER
from fake_pbs.server.execclient import primary_host
from fake_pbs.server.handlers.common import find_job, is_owner
from fake_pbs.server.handlers.registry import Context, handler

MOM_TIMEOUT = 60.0  # a task_wait answers within 30 s (fake_pbs/mom/tm.py MAX_WAIT)


def _running_job(ctx: Context, request: Dict[str, Any]) -> Dict[str, Any]:
    with ctx.app.state.lock:
        job = find_job(ctx, request)
        if ctx.caller.uid != 0 and not is_owner(ctx, job):
            raise PbsError(PBSE_PERM)
        if job.get("job_state") != st.RUNNING or not job.get("_started"):
            raise PbsError(PBSE_BADSTATE)
        return dict(job)


def _mom(ctx: Context, host: str, op: str, **args: Any) -> Any:
    try:
        return protocol.call_once(paths.mom_socket(ctx.app.home, host), op,
                                  timeout=MOM_TIMEOUT, **args)
    except (OSError, ValueError):
        raise PbsError(PBSE_NORELYMOM, "No reply from MOM")


@handler("tm_spawn", locked=False)
def tm_spawn(ctx: Context, request: Dict[str, Any]) -> Any:
    """{id, node, argv} -> {task, host, nodenum}: start a task on TM node ``node``."""
    job = _running_job(ctx, request)
    argv = request.get("argv")
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        raise PbsError(PBSE_IVALREQ)
    node = request.get("node")
    if not isinstance(node, int) or node < 0:
        raise PbsError(PBSE_IVALREQ)
    return _mom(ctx, primary_host(job), "tm_spawn", job=str(job["_id"]), node=node, argv=argv)


def _job_hosts(job: Dict[str, Any]) -> Set[str]:
    """The hosts of the job's exec_host."""
    return {part.split("/")[0] for part in str(job.get("exec_host", "")).split("+")}


def _task_host(ctx: Context, request: Dict[str, Any]) -> Tuple[str, str, int]:
    """(job id, host, task) of a request naming a task of the caller's job."""
    with ctx.app.state.lock:
        job = find_job(ctx, request, history=True)
        if ctx.caller.uid != 0 and not is_owner(ctx, job):
            raise PbsError(PBSE_PERM)
        hosts = _job_hosts(job)
    host, task = request.get("host"), request.get("task")
    if not isinstance(host, str) or host not in hosts or not isinstance(task, int):
        raise PbsError(PBSE_IVALREQ)
    return str(job["_id"]), host, task


@handler("tm_obit", locked=False)
def tm_obit(ctx: Context, request: Dict[str, Any]) -> Any:
    """{id, host, task, timeout} -> {status}: the task's exit status, or null while it runs."""
    jobid, host, task = _task_host(ctx, request)
    timeout = float(request.get("timeout") or 10.0)
    return _mom(ctx, host, "task_wait", job=jobid, task=task, wait=timeout)


@handler("tm_kill", locked=False)
def tm_kill(ctx: Context, request: Dict[str, Any]) -> Any:
    """{id, host, task, signal}: a signal (number) to the task's session."""
    jobid, host, task = _task_host(ctx, request)
    signum = request.get("signal")
    if not isinstance(signum, int) or not 0 < signum < 65:
        raise PbsError(PBSE_IVALREQ)
    return _mom(ctx, host, "task_kill", job=jobid, task=task, signal=signum)


class TmRefusal(Exception):
    """A tm_attach the server refuses with a TM code (the reply's ``tm_error``)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _attach_job(ctx: Context, request: Dict[str, Any]) -> Dict[str, Any]:
    """The running job a tm_attach names, or the caller's only running job when it names
    none (mom_comm.c TM_ATTACH); a TmRefusal otherwise."""
    with ctx.app.state.lock:
        if request.get("id"):
            try:
                job = find_job(ctx, request)
            except PbsError as err:
                if err.code in (PBSE_UNKJOBID, PBSE_HISTJOBID):
                    raise TmRefusal(TM_ENOTFOUND)
                raise
            if job.get("job_state") != st.RUNNING or not job.get("_started"):
                raise TmRefusal(TM_ENOTFOUND)
            if not is_owner(ctx, job):  # the job's owner only, root included (uid mismatch)
                raise TmRefusal(TM_EUSER)
            return dict(job)
        mine = [job for job in ctx.app.state.jobs.values()
                if is_owner(ctx, job) and job.get("job_state") == st.RUNNING
                and job.get("_started")]
        if len(mine) != 1:
            raise TmRefusal(TM_ENOTFOUND)
        return dict(mine[0])


@handler("tm_attach", locked=False)
def tm_attach(ctx: Context, request: Dict[str, Any]) -> Any:
    """{id?, host?, pid} -> {task, host} or {tm_error}: the session of ``pid`` joins the job on
    ``host`` (pbs_attach's own host in a job, else the primary)."""
    pid = request.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        raise PbsError(PBSE_IVALREQ)
    try:
        job = _attach_job(ctx, request)
    except TmRefusal as refusal:
        return {"tm_error": refusal.code}
    primary = primary_host(job)
    hosts = _job_hosts(job)
    host = request.get("host") if request.get("host") in hosts else primary
    jobid = str(job["_id"])
    reply = _mom(ctx, str(host), "tm_attach", job=jobid, pid=pid)
    if "task" in reply and host != primary:  # the primary collects its usage at the end
        _mom(ctx, primary, "task_sister", job=jobid, sister=host)
    return dict(reply, host=host)
