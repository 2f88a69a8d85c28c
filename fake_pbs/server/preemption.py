"""The server's side of preemption (PBS's ``req_preemptjobs`` / ``reply_preempt_jobs_request``).

The scheduler names victims; the server moves each one out of the way by the methods of the
scheduler object's ``preempt_order`` (the group that applies to the job's share of walltime
left), in order, falling through to the next method when one cannot apply:

- ``S`` suspend: the mom stops the job (SIGSTOP); state S, substate 45; its vnodes are freed.
- ``C`` checkpoint: the fake's moms have no checkpoint action, so C always fails with
  PBSE_NOSUP (15029), as PBS does for ``-c n`` jobs or a mom without a checkpoint script.
- ``R`` requeue: PBSE_NORERUN (15038) for ``-r n`` jobs; else TermJob, and the job comes back
  to Q with ``Exit_status`` -11.
- ``D`` delete: any job; TermJob as ``qdel`` sends, so it ends F/91, ``Exit_status`` 271,
  comment ``... and terminated by Scheduler@<host>``.

Each failure is logged ``preemption method <m> failed for job (<code>)``; a job none of whose
methods applies gets ``Job failed to be preempted``.  The answer for a job is its letter
(``S``, ``C``, ``Q`` for requeue, ``D``) or ``0``.  It is given only when the victim is really
out of the way: S at once; R once the job is back in the queue; D once its end-of-job
processing is over (obit, epilogue, accounting, and the mom's execjob_end and clean-up, seen as
the mom's job directory being gone).  So the high-priority job never oversubscribes a vnode.

Use: ``begin(app, ids, requestor)`` with the model lock held, then ``wait(app, request)``
*without* the lock (the victims' ends are applied by other threads), bounded in time.
"""
import time
from typing import Dict, List, Optional

from fake_pbs import paths
from fake_pbs.model import states as st
from fake_pbs.model.errors import PBSE_BADSTATE, PBSE_NORERUN, PBSE_NOSUP, PbsError
from fake_pbs.model.preempt import DEFAULT_ORDER, methods_for, parse_preempt_order
from fake_pbs.server import lifecycle
from fake_pbs.server.app import ServerApp
from fake_pbs.server.logs import ADMIN, DEBUG, JOB, REQ

__all__ = ["PreemptRequest", "begin", "wait", "poll", "server_order", "METHOD_NAMES",
           "REPLY_LETTERS", "SCHED_WORDS", "FAILED"]

Job = Dict[str, object]

METHOD_NAMES = {"S": "suspend", "C": "checkpoint", "R": "requeue", "D": "delete"}
REPLY_LETTERS = {"S": "S", "C": "C", "R": "Q", "D": "D"}
SCHED_WORDS = {"S": "suspension", "C": "checkpointing", "Q": "requeuing", "D": "deletion"}
FAILED = "0"

# The batch request type of a rerun (PBS_BATCH_Rerun), named in PBS's req_reject log line.
_RERUN_REQUEST_TYPE = 14
_POLL = 0.05
# A victim whose end never comes (a mom that died for good) does not block the scheduler
# forever: past this the request is answered with what is known.
DEFAULT_WAIT = 120.0


class Victim:
    """One job of a preempt request: the methods left to try and the outcome so far."""

    def __init__(self, jobid: str, methods: List[str]) -> None:
        self.jobid = jobid
        self.methods = methods
        self.index = 0
        self.pending: Optional[str] = None   # a method started whose end is awaited
        self.host = ""
        self.result: Optional[str] = None


class PreemptRequest:
    """The victims of one ``pbs_preempt_jobs`` call, in the order the scheduler named them."""

    def __init__(self, requestor: str) -> None:
        self.requestor = requestor
        self.victims: List[Victim] = []
        # PBS logs the rejected rerun's reply after the next method's signal went out (g27).
        self.deferred: List[str] = []

    def done(self) -> bool:
        return all(victim.result is not None for victim in self.victims)

    def replies(self) -> Dict[str, str]:
        return {victim.jobid: victim.result or FAILED for victim in self.victims}


def server_order(app: ServerApp, job: Job) -> List[str]:
    """The methods the server tries for ``job``: the preempt_order group for its time left."""
    text = app.state.sched.get("preempt_order", DEFAULT_ORDER) or DEFAULT_ORDER
    try:
        order = parse_preempt_order(text)
    except PbsError:
        order = parse_preempt_order(DEFAULT_ORDER)
    public = {k: str(v) for k, v in job.items() if not k.startswith("_")}
    return list(methods_for(public, order, float(app.now())))


def begin(app: ServerApp, ids: List[str], requestor: str) -> PreemptRequest:
    """Start preempting ``ids`` (model lock held); answer what can be answered at once."""
    request = PreemptRequest(requestor)
    for jobid in ids:
        job = app.state.jobs.get(jobid)
        victim = Victim(jobid, server_order(app, job) if job is not None else [])
        request.victims.append(victim)
        state = job.get("job_state") if job is not None else None
        if job is None or state in st.HISTORY_STATES:
            victim.result = REPLY_LETTERS["D"]    # already gone
        elif state == st.QUEUED:
            victim.result = REPLY_LETTERS["R"]    # already out of the way
        elif state != st.RUNNING:
            _failed(app, victim)
        else:
            victim.host = _primary_host(job)
            _next_method(app, request, victim, job)
    return request


def _primary_host(job: Job) -> str:
    return str(job.get("exec_host", "")).split("/")[0].split("+")[0]


def _failed(app: ServerApp, victim: Victim) -> None:
    victim.result = FAILED
    app.log.job(victim.jobid, "Job failed to be preempted", DEBUG)


def _next_method(app: ServerApp, request: PreemptRequest, victim: Victim, job: Job) -> None:
    """Try the victim's methods from where it stands until one is under way or done."""
    while victim.index < len(victim.methods):
        method = victim.methods[victim.index]
        victim.index += 1
        try:
            finished = _apply(app, request, job, method)
        except PbsError as err:
            app.log.job(victim.jobid, "preemption method %s failed for job (%d)"
                        % (METHOD_NAMES[method], err.code), DEBUG)
            if method == "R":
                request.deferred.append("Reject reply code=%d, aux=0, type=%d, from %s"
                                        % (err.code, _RERUN_REQUEST_TYPE, request.requestor))
            continue
        _flush_rejects(app, request)
        if finished:
            victim.result = REPLY_LETTERS[method]
        else:
            victim.pending = method
        return
    _flush_rejects(app, request)
    _failed(app, victim)


def _flush_rejects(app: ServerApp, request: PreemptRequest) -> None:
    for line in request.deferred:
        app.log.write(DEBUG, REQ, "req_reject", line)
    del request.deferred[:]


def _apply(app: ServerApp, request: PreemptRequest, job: Job, method: str) -> bool:
    """Start one method; True when it is complete already; PbsError when it cannot apply."""
    if method == "S":
        _suspend(app, request, job)
        return True
    if method == "C":
        raise PbsError(PBSE_NOSUP)
    if method == "R":
        _requeue(app, request, job)
        return False
    _delete(app, request, job)
    return False


def _suspend(app: ServerApp, request: PreemptRequest, job: Job) -> None:
    jobid = str(job["_id"])
    if app.execs is None:
        raise PbsError(PBSE_BADSTATE)
    app.execs.signal(jobid, "suspend")
    app.log.job(jobid, "signal job request received", DEBUG)  # k06i
    app.log.job(jobid, "suspend job by %s" % request.requestor, ADMIN)
    app.log.job(jobid, "job signaled with suspend by %s" % request.requestor, JOB)
    lifecycle.suspend(app, job, True, by_scheduler=True)
    # Suspended by the scheduler (not by qsig): the scheduler resumes it when it can.
    lifecycle.set_state(job, st.SUSPENDED, st.SUB_SCHSUSP)
    lifecycle.save(app, job)


def resume(app: ServerApp, job: Job, requestor: str) -> None:
    """Resume a job the scheduler suspended (its vnodes are free again)."""
    jobid = str(job["_id"])
    if app.execs is None:
        raise PbsError(PBSE_BADSTATE)
    app.execs.signal(jobid, "resume")
    app.log.job(jobid, "signal job request received", DEBUG)
    app.log.job(jobid, "resume job by %s" % requestor, ADMIN)
    app.log.job(jobid, "job signaled with resume by %s" % requestor, JOB)
    lifecycle.suspend(app, job, False)


def _requeue(app: ServerApp, request: PreemptRequest, job: Job) -> None:
    jobid = str(job["_id"])
    if job.get("Rerunable", "True") != "True":
        raise PbsError(PBSE_NORERUN)
    app.log.job(jobid, "Job Rerun at request of %s" % request.requestor)
    job["_rerun"] = True
    lifecycle.set_state(job, st.RUNNING, st.SUB_RERUN)
    lifecycle.save(app, job)
    try:
        if app.execs is None:
            raise PbsError(PBSE_BADSTATE)
        app.execs.signal(jobid, "TermJob")
    except PbsError:
        job["_exit"] = -11
        lifecycle.complete(app, job)


def _delete(app: ServerApp, request: PreemptRequest, job: Job) -> None:
    """An internal delete request from the scheduler, as ``qdel`` (TermJob) would do it."""
    jobid = str(job["_id"])
    app.log.job(jobid, "delete job request received", DEBUG)
    job["_deleted_by"] = request.requestor
    lifecycle.save(app, job)
    try:
        if app.execs is None:
            raise PbsError(PBSE_BADSTATE)
        app.execs.signal(jobid, "TermJob")
        app.log.job(jobid, "Job sent signal TermJob on delete")
        _flush_rejects(app, request)
    except PbsError:
        if not job.get("_started"):
            job["_kill_on_start"] = "TermJob"
        else:
            job["_exit"] = 265
            job["_obit"] = app.now()
    app.log.job(jobid, "Job to be deleted at request of %s" % request.requestor)
    app.acct.record("D", jobid, "requestor=%s" % request.requestor)
    if job.get("_exit") == 265:
        lifecycle.complete(app, job)


def poll(app: ServerApp, request: PreemptRequest) -> bool:
    """Settle the victims whose method finished (model lock held); True when all are answered."""
    for victim in request.victims:
        if victim.result is not None or victim.pending is None:
            continue
        job = app.state.jobs.get(victim.jobid)
        state = job.get("job_state") if job is not None else None
        if victim.pending == "R":
            if state in (st.RUNNING, st.EXITING, st.SUSPENDED):
                continue
            if not _mom_done(app, victim):
                continue
            # Requeued (Q or held); a job that ended by itself meanwhile is out of the way too.
            victim.result = REPLY_LETTERS["R"] if state in (st.QUEUED, st.HELD) else "D"
        elif victim.pending == "D":
            if state is not None and state not in st.HISTORY_STATES:
                continue
            if not _mom_done(app, victim):
                continue
            victim.result = REPLY_LETTERS["D"]
        victim.pending = None
    return request.done()


def _mom_done(app: ServerApp, victim: Victim) -> bool:
    """The mom finished its end of the job (execjob_end ran, its job directory is gone)."""
    if not victim.host:
        return True
    return not (paths.mom_priv(app.home, victim.host) / "jobs" / victim.jobid).exists()


def wait(app: ServerApp, request: PreemptRequest, timeout: float = DEFAULT_WAIT) -> Dict[str, str]:
    """Block (without the model lock) until every victim is answered or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while True:
        with app.state.lock:
            if poll(app, request):
                break
            if time.monotonic() >= deadline or app.stopping.is_set():
                for victim in request.victims:
                    if victim.result is None:
                        _failed(app, victim)
                break
        time.sleep(_POLL)
    return request.replies()
