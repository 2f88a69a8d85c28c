"""``sigjob``, ``msgjob``, ``rerunjob``, ``runjob``: requests that act on a job's execution.

Transcripts: k03 (qsig: signals, suspend/resume by managers only), k04 (qrerun: managers only,
non-rerunnable 190 unless forced, queued 168, the reply once the job is requeued), k06 (qrun:
managers only; the scheduler preempts for it).
"""
import re
import time
from typing import Any, Dict, Optional

from fake_pbs.model import states as st
from fake_pbs.model.errors import (PBSE_BADSTATE, PBSE_HISTJOBID, PBSE_INTERNAL, PBSE_IVALREQ,
                                   PBSE_NORERUN, PBSE_NOSUP, PBSE_PERM, PBSE_RESCUNAV,
                                   PBSE_UNKJOBID, PBSE_WRONG_RESUME, PbsError)
from fake_pbs.server import jobids, lifecycle
from fake_pbs.server.handlers.common import find_job, require_manager, require_owner
from fake_pbs.server.handlers.registry import Context, handler
from fake_pbs.server.logs import ADMIN, DEBUG, JOB, REQ, SCHED
from fake_pbs.server.sched.loop import failed_to_run

Job = Dict[str, Any]

MESSAGE_MAX = 256  # qmsg.c MAX_MSG_STRING_LEN: no client sends more
_SUSPENDS = frozenset(("suspend", "admin-suspend"))
_RESUMES = frozenset(("resume", "admin-resume"))


@handler("sigjob")
def sigjob(ctx: Context, request: Dict[str, Any]) -> None:
    """qsig (req_signal.c, k03): suspend/resume need a manager; a signal goes to the mom as
    named (USR1, SIGUSR1, 10, or SIGFOO, which the mom refuses: 165, k03b/k03n).  A manager's
    ``resume`` hands the job to the scheduler (substate 45), which resumes it (k03s/k03t,
    ``resume job by Scheduler@vm``); ``admin-suspend`` puts its vnodes in maintenance until
    ``admin-resume`` (k03v), and either kind of resume refuses the other kind of suspend."""
    app = ctx.app
    raw = request.get("id")
    app.log.job(str(raw), "signal job request received", DEBUG)
    span = jobids.SUBJOB_RANGE.match(raw.strip()) if isinstance(raw, str) else None
    job = _range_parent(ctx, span) if span is not None else find_job(ctx, request)
    require_owner(ctx, job)
    sig = str(request.get("signal") or "SIGTERM")
    suspend, resume = sig in _SUSPENDS, sig in _RESUMES
    if (suspend or resume) and not ctx.caller.manager:
        raise PbsError(PBSE_PERM)
    if span is not None or job.get("array") == "True":
        _signal_subjobs(ctx, job, sig, span)
        return None
    _signal_one(ctx, job, sig)
    return None


def _range_parent(ctx: Context, span: "re.Match[str]") -> Job:
    """The array of ``N[a-b]``: unknown (15001) or over (15139) as chk_job_request says."""
    parent = ctx.app.state.jobs.get(jobids.make(int(span.group(1)), ctx.app.server_name,
                                                array=True))
    if parent is None or int(span.group(2)) > int(span.group(3)):
        raise PbsError(PBSE_UNKJOBID)
    if parent.get("job_state") in st.HISTORY_STATES:
        raise PbsError(PBSE_HISTJOBID)
    return parent


def _signal_subjobs(ctx: Context, parent: Job, sig: str,
                    span: "Optional[re.Match[str]]") -> None:
    """req_signaljob on ``N[]`` or ``N[a-b]``: each running subjob is signalled (a suspend
    skips the suspended ones, a resume takes only those); the array must have begun (15016),
    a range must hold one such subjob (15016); the first subjob's error is the reply's."""
    if span is None:
        if parent.get("job_state") != st.BEGUN:
            raise PbsError(PBSE_BADSTATE)
        wanted = None
    else:
        first, last, step = int(span.group(2)), int(span.group(3)), int(span.group(4) or 1)
        wanted = range(first, last + 1, max(step, 1))
    targets = []
    for child in ctx.app.state.subjobs(parent["_id"]):  # only records ever ran
        if wanted is not None and int(child.get("array_index", "-1")) not in wanted:
            continue
        state = child.get("job_state")
        if state not in (st.RUNNING, st.SUSPENDED):
            continue
        if sig in _SUSPENDS and state == st.SUSPENDED:
            continue
        if sig in _RESUMES and state != st.SUSPENDED:
            continue
        targets.append(child)
    if wanted is not None and not targets:
        raise PbsError(PBSE_BADSTATE)
    failure: Optional[PbsError] = None
    for child in sorted(targets, key=lambda c: int(c.get("array_index", "0"))):
        try:
            _signal_one(ctx, child, sig)
        except PbsError as err:
            failure = failure or err
    if failure is not None:
        raise failure


def _signal_one(ctx: Context, job: Job, sig: str) -> None:
    """req_signaljob2: ``sig`` to one job that is not an array."""
    app = ctx.app
    suspend, resume = sig in _SUSPENDS, sig in _RESUMES
    state = job.get("job_state")
    if state not in (st.RUNNING, st.SUSPENDED):
        raise PbsError(PBSE_BADSTATE)
    jobid, admin = str(job["_id"]), bool(job.get("_admin_suspended"))
    if (sig == "admin-resume" and not admin) or (sig == "resume" and admin):
        raise PbsError(PBSE_WRONG_RESUME)
    if suspend or resume:
        app.log.job(jobid, "%s job by %s" % (sig, ctx.caller.name), ADMIN)
    if resume:
        if state != st.SUSPENDED:
            raise PbsError(PBSE_BADSTATE)
        if sig == "resume":
            lifecycle.set_state(job, st.SUSPENDED, st.SUB_SCHSUSP)
            lifecycle.save(app, job)
            app.trigger_schedule()
            return
    app.log.job(jobid, "job signaled with %s by %s" % (sig, ctx.caller.name))
    try:
        if app.execs is None or (suspend and state == st.SUSPENDED):
            # the mom refuses to suspend what it has suspended (k03r)
            raise PbsError(PBSE_BADSTATE)
        app.execs.signal(jobid, sig)
    except PbsError:
        app.log.write(DEBUG, REQ, jobid, "Execution server rejected request")
        raise
    if suspend or resume:
        lifecycle.suspend(app, job, suspend)
        if sig.startswith("admin-"):
            lifecycle.admin_suspend(app, job, suspend)


@handler("msgjob")
def msgjob(ctx: Context, request: Dict[str, Any]) -> None:
    """qmsg (req_message.c req_messagejob): the owner's or a manager's message to a running
    job that is not part of an array, appended by its primary mom to the job's stdout and/or
    stderr file (requests.c message_job)."""
    raw = request.get("id")
    span = jobids.SUBJOB_RANGE.match(raw.strip()) if isinstance(raw, str) else None
    if span is not None:
        _range_parent(ctx, span)  # an unknown or finished array says so first
        raise PbsError(PBSE_NOSUP, "not supported for Array Jobs")
    job = find_job(ctx, request)
    require_owner(ctx, job)
    if job.get("array") == "True" or job.get("array_id"):
        raise PbsError(PBSE_NOSUP, "not supported for Array Jobs")
    if job.get("job_state") != st.RUNNING or ctx.app.execs is None:
        raise PbsError(PBSE_BADSTATE)
    text = request.get("text")
    if not isinstance(text, str) or not text or "\0" in text:
        raise PbsError(PBSE_IVALREQ)
    ctx.app.execs.message(str(job["_id"]), text[:MESSAGE_MAX], bool(request.get("stdout")),
                          bool(request.get("stderr")) or not request.get("stdout"))
    return None


# How long qrerun waits for the job's resources to be released (PBS_DIS_TCP_TIMEOUT_RERUN,
# or the server's job_requeue_timeout), and how often it looks.
RERUN_TIMEOUT = 45.0
_RERUN_POLL = 0.05


@handler("rerunjob", locked=False)
def rerunjob(ctx: Context, request: Dict[str, Any]) -> None:
    """qrerun (req_rerun.c): managers only; a job that is not rerunnable is 190 before its
    state is looked at (k04f), one that is not running 168 (k04j).  The reply waits until the
    run's resources are released (rel_resc), so the job is queued -- and usually running
    again -- when qrerun returns (k04b/k04c: R, run_count 2, Exit_status -11).  ``-W force``
    discards the run at once and replies (k04h, k04l)."""
    app = ctx.app
    with app.state.lock:
        job = find_job(ctx, request)
        require_manager(ctx)
        force = bool(request.get("force"))
        if job.get("Rerunable", "True") != "True" and not force:
            raise PbsError(PBSE_NORERUN)
        started = (str(st.SUB_PRERUN), str(st.SUB_RUNNING))
        if job.get("job_state") != st.RUNNING or (not force and job.get("substate") not in started):
            raise PbsError(PBSE_BADSTATE)
        jobid, runs = str(job["_id"]), job.get("run_count")
        job["_rerun"] = True
        if force:
            # discard_job: the mom kills the job; no obit, the requeue follows its answer
            app.log.job(jobid, "Discard running job, Force rerun ")
            job["_discard_rerun"] = True
        else:
            app.log.job(jobid, "Job Rerun at request of %s" % ctx.caller.name)
            lifecycle.set_state(job, st.RUNNING, st.SUB_RERUN)
        lifecycle.save(app, job)
        try:
            if app.execs is None:
                raise PbsError(PBSE_BADSTATE)
            app.execs.signal(jobid, "SIGKILL" if force else "TermJob")
        except PbsError:
            job["_exit"] = -11
            lifecycle.complete(app, job)
        if force:
            return None
        timeout = _requeue_timeout(app.state.server)
    _await_release(app, jobid, runs, timeout)
    return None


def _requeue_timeout(server: Dict[str, Any]) -> float:
    """The server's ``job_requeue_timeout`` (``[[HH:]MM:]SS``) in seconds, else 45."""
    text = str(server.get("job_requeue_timeout", "")).strip()
    try:
        seconds = 0.0
        for part in text.split(":"):
            seconds = seconds * 60 + float(part)
        return seconds if text else RERUN_TIMEOUT
    except ValueError:
        return RERUN_TIMEOUT


def _await_release(app: Any, jobid: str, runs: Any, timeout: float) -> None:
    """Block (without the model lock) until run ``runs`` of the job has given its resources
    back: the job left R/E for that run, or is gone."""
    deadline = time.monotonic() + timeout
    while True:
        with app.state.lock:
            job = app.state.jobs.get(jobid)
            if job is None or job.get("run_count") != runs or \
                    job.get("job_state") not in (st.RUNNING, st.EXITING):
                return
            if time.monotonic() >= deadline or app.stopping.is_set():
                raise PbsError(PBSE_INTERNAL,
                               "Response timed out. Job rerun request still in progress for")
        time.sleep(_RERUN_POLL)


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
    # PBS's "Job was sent for execution at ..." lasts only until the mom takes the job
    # (complete_running then writes "Job run at ...", as for any run): k06d shows the latter
    # 87 ms after qrun; k06e caught the former (a snapshot of that window).
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
