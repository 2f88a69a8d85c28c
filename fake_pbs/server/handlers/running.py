"""``sigjob``, ``rerunjob``, ``runjob``: requests that act on a job's execution.

Transcripts: k03 (qsig: signals, suspend/resume by managers only), k04 (qrerun: managers only,
non-rerunnable 190 unless forced, queued 168), k06 (qrun: managers only; comment ``Job was sent
for execution at ...``).
"""
import signal as signals
import time
from typing import Any, Dict, Optional

from fake_pbs.model import states as st
from fake_pbs.model.errors import (PBSE_BADSTATE, PBSE_NORERUN, PBSE_PERM, PBSE_RESCUNAV,
                                   PBSE_UNKSIG, PbsError)
from fake_pbs.server import lifecycle
from fake_pbs.server.handlers.common import find_job, require_manager, require_owner
from fake_pbs.server.handlers.registry import Context, handler
from fake_pbs.server.logs import DEBUG, JOB, SCHED
from fake_pbs.server.sched.loop import failed_to_run

Job = Dict[str, Any]

_ADMIN_SIGNALS = frozenset(("suspend", "resume", "admin-suspend", "admin-resume"))


def normalize_signal(text: str) -> str:
    """``USR1``, ``SIGUSR1``, ``10`` -> a name the mom understands; 15013 when unknown."""
    if text in _ADMIN_SIGNALS:
        return text
    if text.isdigit():
        number = int(text)
        if 0 <= number < signals.NSIG:
            return text
        raise PbsError(PBSE_UNKSIG)
    name = text if text.startswith("SIG") else "SIG" + text
    if not hasattr(signals, name) or name.startswith("SIG_"):
        raise PbsError(PBSE_UNKSIG)
    return name


@handler("sigjob")
def sigjob(ctx: Context, request: Dict[str, Any]) -> None:
    job = find_job(ctx, request)
    require_owner(ctx, job)
    sig = normalize_signal(str(request.get("signal") or "SIGTERM"))
    state = job.get("job_state")
    if sig in _ADMIN_SIGNALS:
        if not ctx.caller.manager:
            raise PbsError(PBSE_PERM)
        wants_suspend = sig.endswith("suspend")
        if (wants_suspend and state != st.RUNNING) or (not wants_suspend and
                                                       state != st.SUSPENDED):
            raise PbsError(PBSE_BADSTATE)
    elif state not in (st.RUNNING, st.SUSPENDED):
        raise PbsError(PBSE_BADSTATE)
    app = ctx.app
    if app.execs is None:
        raise PbsError(PBSE_BADSTATE)
    app.execs.signal(job["_id"], sig)
    if sig in _ADMIN_SIGNALS:
        lifecycle.suspend(app, job, sig.endswith("suspend"))
    return None


@handler("rerunjob")
def rerunjob(ctx: Context, request: Dict[str, Any]) -> None:
    job = find_job(ctx, request)
    require_manager(ctx)
    if job.get("job_state") not in st.ACTIVE_STATES:
        raise PbsError(PBSE_BADSTATE)
    force = bool(request.get("force"))
    if job.get("Rerunable", "True") != "True" and not force:
        raise PbsError(PBSE_NORERUN)
    job["_rerun"] = True
    lifecycle.save(ctx.app, job)
    if ctx.app.execs is not None:
        try:
            ctx.app.execs.signal(job["_id"], "SIGKILL" if force else "TermJob")
        except PbsError:
            job["_exit"] = -11
            lifecycle.complete(ctx.app, job)
    return None


@handler("runjob", locked=False)
def runjob(ctx: Context, request: Dict[str, Any]) -> None:
    app = ctx.app
    with app.state.lock:
        job = find_job(ctx, request)
        if not ctx.caller.manager:
            raise PbsError(PBSE_PERM)
        if job.get("job_state") not in (st.QUEUED, st.HELD, st.WAITING) or \
                job.get("array") == "True":
            raise PbsError(PBSE_BADSTATE)
        exec_vnode: Optional[str] = request.get("vnodes") or None
        if exec_vnode and not exec_vnode.startswith("("):
            exec_vnode = "+".join("(%s:ncpus=%s)" % (host, job.get("Resource_List.ncpus", "1"))
                                  for host in exec_vnode.split("+"))
        scheduler = app.scheduler
        from fake_pbs.server.sched.loop import Scheduler
        if exec_vnode is None:
            try:
                exec_vnode = _placement(ctx, job)
            except PbsError as err:
                if err.code != PBSE_RESCUNAV or not isinstance(scheduler, Scheduler):
                    raise
        if exec_vnode is not None:
            if request.get("vnodes") or not isinstance(scheduler, Scheduler):
                _start(ctx, job, exec_vnode)
            else:
                _start_by_scheduler(ctx, job, exec_vnode)
            return None
        lifecycle.set_state(job, st.QUEUED, st.SUB_QUEUED)
        lifecycle.save(app, job)
        jobid = job["_id"]
    # The vnodes are taken: PBS's scheduler gets the job (SCH_SCHEDULE_AJOB) and may preempt
    # running jobs for it, then runs it itself (k06c/k06d/k06h/k06i).  The victims' ends are
    # awaited without the model lock.
    assert isinstance(scheduler, Scheduler)
    scheduler.run_failures.pop(jobid, None)
    scheduler.cycle(force=True, qrun=jobid)
    with app.state.lock:
        job = app.state.jobs.get(jobid) or {}
        if job.get("job_state") not in (st.RUNNING, st.EXITING) and not job.get("_started"):
            refused = scheduler.run_failures.pop(jobid, None)
            if refused is not None:
                raise PbsError(refused.code, failed_to_run(refused))
            raise PbsError(PBSE_RESCUNAV)
    return None


def _start_by_scheduler(ctx: Context, job: Job, exec_vnode: str) -> None:
    """A qrun without ``-H`` goes through PBS's scheduler, which logs it and answers a refusal
    with its own text: ``Failed to run: <reason> (<code>)`` (m03d, m03f: a runjob hook's
    reject, which the qrun prints followed by the job id)."""
    log = ctx.app.sched_log
    jobid = job["_id"]
    log.write(JOB, "Job", jobid, "Received qrun request")
    log.write(DEBUG, "Job", jobid, "Considering job to run")
    try:
        _start(ctx, job, exec_vnode)
    except PbsError as err:
        text = failed_to_run(err)
        log.write(SCHED, "Job", jobid, text)
        raise PbsError(err.code, text)
    finally:
        from fake_pbs.server.sched.loop import Scheduler
        if isinstance(ctx.app.scheduler, Scheduler):
            ctx.app.scheduler.run_failures.pop(jobid, None)
    if job.get("job_state") == st.RUNNING:
        log.write(SCHED, "Job", jobid, "Job run")


def _start(ctx: Context, job: Job, exec_vnode: str) -> None:
    """Run ``job`` on ``exec_vnode`` at the manager's request (model lock held)."""
    app = ctx.app
    lifecycle.set_state(job, st.QUEUED, st.SUB_QUEUED)
    scheduler = app.scheduler
    requestor = ctx.caller.name
    from fake_pbs.server.sched.loop import Scheduler
    if isinstance(scheduler, Scheduler):
        scheduler.apply_run(job["_id"], exec_vnode, "", [], requestor)
    else:
        lifecycle.begin_run(app, job, exec_vnode, "", None, requestor)
    job["comment"] = "Job was sent for execution at %s on %s" % (
        time.strftime("%a %b %d at %H:%M", time.localtime(app.now())), exec_vnode)
    lifecycle.save(app, job)


def _placement(ctx: Context, job: Job) -> str:
    from fake_pbs.server.sched.cycle import run_cycle
    from fake_pbs.server.sched.loop import public
    state = ctx.app.state
    entry = public(job)
    entry["id"] = job["_id"]
    entry["job_state"] = st.QUEUED
    result = run_cycle(dict(state.server), dict(state.sched),
                       {n: dict(q) for n, q in state.queues.items()},
                       {n: dict(a) for n, a in state.nodes.items()}, [entry],
                       ctx.app.now(), consumables=ctx.app.sched_consumables())
    for run in result.runs:
        if run.jobid == job["_id"]:
            return str(run.exec_vnode)
    raise PbsError(PBSE_RESCUNAV)
