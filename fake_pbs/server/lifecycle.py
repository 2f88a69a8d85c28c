"""The job state machine on the server: run, exec events, end (history) and requeue.

Every function here is called with the model lock held and saves what it changes; the caller
replies only afterwards.  Messages and comments are PBS's (req_runjob.c, req_jobobit.c,
svr_jobfunc.c; golden transcripts b02, b04, b05b, c04c, i01c, k14*).
"""
import pwd
import secrets
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

from fake_pbs import crashpoints
from fake_pbs.model import node_states, states as st
from fake_pbs.model.attrs import is_true
from fake_pbs.model.errors import (PBSE_HOOK_REJECT_DELETEJOB, PBSE_HOOK_REJECT_RERUNJOB,
                                   PBSE_MOMREJECT, message_for)
from fake_pbs.server import (accounting, assigned, hookpoints, hooksync, mail, subjobs,
                             vnodeslots as vnodes)
from fake_pbs.server.app import ServerApp
from fake_pbs.server.logs import DEBUG

Job = Dict[str, Any]

# Mom exit codes that put the job back in the queue (req_jobobit.c).
REQUEUE_CODES = frozenset((-3, -4, -5, -6, -7, -15, -16, -18, -20, -22, -30))
RERUN_IF_RERUNABLE = frozenset((-11, -14))
WALLTIME_KILLED = -29
# job.h JOB_EXEC_KILL_*: the limit a mom killed the job over (svr_jobfunc.c's comment).
OVER_LIMIT = {-24: "ncpus (burst)", -25: "ncpus (sum)", -26: "vmem", -27: "mem", -28: "cput",
              WALLTIME_KILLED: "walltime"}
LOST_RUN = -11  # JOB_EXEC_RERUN: the mom found the job's processes gone
MAX_FAILED_ATTEMPTS = 20
DEPEND_RELEASE_SHARE = 0.5  # pace pbs: dependents are dealt with halfway through the E phase
SESSION_ID_AFTER = 2
SUB_STAGEOUT = 51  # JOB_SUBSTATE_STAGEOUT: E after the obit, while files are staged out (c04b)

RERUN_MESSAGES = {
    -16: message_for(PBSE_HOOK_REJECT_RERUNJOB),
    -17: message_for(PBSE_HOOK_REJECT_DELETEJOB),
    -19: "a hook requested for job to be deleted",
    -30: "Mom rejected job due to join job error",
}

RESOURCES_USED_START = {
    "resources_used.cpupercent": "0", "resources_used.cput": "00:00:00",
    "resources_used.mem": "0kb", "resources_used.vmem": "0kb",
    "resources_used.walltime": "00:00:00",
}


STAGEFAIL_WAIT = 1800  # server_limits.h PBS_STAGEFAIL_WAIT: retry a failed stage-in after


def set_state(job: Job, letter: str, substate: int) -> None:
    if letter == st.QUEUED and substate == st.SUB_QUEUED and job.get("stagein"):
        substate = st.SUB_PRESTAGEIN  # svr_evaljobstate: queued with files to stage in
    job["job_state"] = letter
    job["substate"] = str(substate)


def touch(app: ServerApp, job: Job) -> None:
    job["mtime"] = str(app.now())


def save(app: ServerApp, job: Job) -> None:
    app.state.save_job(job["_id"])


def run_comment(now: int, exec_vnode: str) -> str:
    return "Job run at %s on %s" % (time.strftime("%a %b %d at %H:%M", time.localtime(now)),
                                    exec_vnode)


def used_fields(job: Job) -> str:
    return accounting.used_fields(job)


# -- running ----------------------------------------------------------------------------------
def begin_run(app: ServerApp, job: Job, exec_vnode: str, exec_host: str,
              hosts: Optional[List[Dict[str, Any]]], requestor: str) -> None:
    """The scheduler (or qrun) chose vnodes: charge them, mark the job running, send it."""
    with app.state.store.batch():  # the vnodes charged and the job running: one commit
        _mark_running(app, job, exec_vnode, exec_host, hosts, requestor)
    if app.execs is not None:
        app.execs.start(job["_id"])


def _mark_running(app: ServerApp, job: Job, exec_vnode: str, exec_host: str,
                  hosts: Optional[List[Dict[str, Any]]], requestor: str) -> None:
    now = app.now()
    jobid = job["_id"]
    names = [chunk[0] for chunk in vnodes.parse_exec_vnode(exec_vnode)]
    # PBS warns (set_nodes) when a vnode's mom still awaits hook files, before it turns busy
    hooksync.of(app).note_run(jobid, names)
    computed = vnodes.assign(app.state.nodes, jobid, exec_vnode)
    for name in set(names):
        if name in app.state.nodes:
            app.state.nodes[name]["last_used_time"] = str(now)
            app.state.save_node(name)
    job["exec_vnode"] = exec_vnode
    job["exec_host"] = exec_host or computed
    job["_hosts"] = hosts or hosts_from_vnode(exec_vnode)
    job["jobdir"] = _home(int(job.get("_uid", 0)))
    job.setdefault("etime", str(now))
    job["run_count"] = str(int(job.get("run_count", "0")) + 1)
    # Job ids come back (a reset starts them at 0 again; the sequence wraps), so id and
    # run_count do not name a run: its follower and its events are matched on this key.
    # The token stays with the job through its requeues and names it apart from a later job
    # given its id; run_count names the run within it (the mom tells the two cases apart).
    job.setdefault("_instance", secrets.token_hex(6))
    job["_run_key"] = "%s#%s#%s" % (job["_id"], job["run_count"], job["_instance"])
    job["comment"] = run_comment(now, exec_vnode)
    job["_last_seq"] = 0
    job["_sent"] = False
    for private in ("_exit", "_started", "_run_seconds", "_obit", "session_id", "_exception",
                    "_signals_on_start"):
        job.pop(private, None)
    # svr_stagein: the mom stages in first, the job shows R with substate 15 meanwhile
    set_state(job, st.RUNNING, st.SUB_STAGEGO if job.get("stagein") else st.SUB_PRERUN)
    touch(app, job)
    _remember_assigned(app, job)
    parent = job.get("array_id")
    if parent:
        _parent_began(app, parent, now)
    app.log.job(jobid, "Job Run at request of %s on exec_vnode %s" % (requestor, exec_vnode))
    if app.execs is None:
        _accepted(app, job)
    save(app, job)


def _accepted(app: ServerApp, job: Job) -> None:
    """The mom took the job in (its first event other than a refusal stands for its reply to
    the job send): PBS's complete_running records the start time and the S accounting record
    only then, so a job its mom refuses has neither (m04d, m04g)."""
    now = app.now()
    job["stime"] = str(now)
    job["_accepted"] = job.get("run_count")
    exec_vnode = str(job.get("exec_vnode", ""))
    app.acct.record("S", job["_id"], accounting.job_fields(job, "S") + assigned_fields(exec_vnode))
    mail.send(app, job, mail.BEGIN)  # complete_running


def run_refused(app: ServerApp, job: Job, code: int, message: str) -> None:
    """The mom answered the job send with a hook's error (execjob_begin rejected it): PBS's
    post_sendmom logs the refusal, frees the vnodes and requeues the job without an obit,
    Exit_status or accounting record; after more than 20 tries it is held (m04: 21 attempts
    within ~2 s, then H).  ``job.delete()`` in the hook (15171) aborts the job instead."""
    jobid = job["_id"]
    host = str(job.get("exec_host", "")).split("/")[0].split("+")[0]
    app.log.job(jobid, "send of job to %s failed error = %d reject_msg=,%s"
                % (host, code, message))
    job["comment"] = "Not Running: PBS Error: %s" % message_for(PBSE_MOMREJECT)
    app.log.job(jobid, "Unable to Run Job, MOM rejected")
    app.log.job(jobid, message_for(code))  # the reply to the run request
    release_vnodes(app, job)
    for name in ("exec_host", "exec_vnode", "_hosts", "_sent", "jobdir", "session_id",
                 "_hook_action"):
        job.pop(name, None)
    if code == PBSE_HOOK_REJECT_DELETEJOB:
        app.log.job(jobid, "Job aborted per a hook rejection", DEBUG)
        to_history(app, job, st.SUB_TERMINATED, ran=False)
        return
    if int(job.get("run_count", "0")) > MAX_FAILED_ATTEMPTS:
        _hold_failed(job)
    else:
        set_state(job, st.QUEUED, st.SUB_QUEUED)
    touch(app, job)
    save(app, job)


def stage_in_failed(app: ServerApp, job: Job) -> None:
    """req_runjob.c post_stagein: a stage-in that failed frees the job's resources and
    exec_host/exec_vnode, sets Execution_Time to now + PBS_STAGEFAIL_WAIT (unless one is set)
    and leaves the job W, substate 37, to be tried again then.  The run never started: its
    run_count is not counted (svr_strtjob2 counts it after the stage-in)."""
    release_vnodes(app, job)
    for name in ("exec_host", "exec_vnode", "_hosts", "_sent", "jobdir", "session_id",
                 "_hook_action", "_run_key"):
        job.pop(name, None)
    count = int(job.get("run_count", "1")) - 1
    if count > 0:
        job["run_count"] = str(count)
    else:
        job.pop("run_count", None)
    job["_instance"] = secrets.token_hex(6)  # the next run's key differs from this one's
    if not job.get("Execution_Time"):
        job["Execution_Time"] = str(app.now() + STAGEFAIL_WAIT)
    set_state(job, st.WAITING, st.SUB_STAGEFAIL)
    touch(app, job)
    save(app, job)


def _remember_assigned(app: ServerApp, job: Job) -> None:
    """The job's queue and the server total its resources from now on, at 0 once it ended
    (server/assigned.py, k08p)."""
    names = assigned.job_names(job, app.state.objects.get("resource"))
    queue = app.state.queues.get(job.get("queue", ""))
    if queue is not None and assigned.remember(queue, names):
        app.state.save_queue(job["queue"])
    if assigned.remember(app.state.server, names):
        app.state.save_server()


def _home(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_dir
    except KeyError:
        return "/"


def assigned_fields(exec_vnode: str) -> str:
    totals: Dict[str, int] = {}
    for _, values in vnodes.parse_exec_vnode(exec_vnode):
        for key, value in values.items():
            if value.isdigit():
                totals[key] = totals.get(key, 0) + int(value)
    return " ".join("resource_assigned.%s=%d" % kv for kv in sorted(totals.items())) + " "


def hosts_from_vnode(exec_vnode: str) -> List[Dict[str, Any]]:
    """Per-host chunk list for the mom's ``start`` message, merged by host in order."""
    merged: Dict[str, Dict[str, Any]] = {}
    for name, values in vnodes.parse_exec_vnode(exec_vnode):
        entry = merged.setdefault(name, {"host": name, "ncpus": 0, "mpiprocs": 0, "ngpus": 0})
        ncpus = int(values.get("ncpus", "0") or 0)
        entry["ncpus"] += ncpus
        entry["mpiprocs"] += int(values.get("mpiprocs", ncpus) or 0)
        entry["ngpus"] += int(values.get("ngpus", "0") or 0)
        if "mem" in values:
            entry["mem"] = values["mem"]
    return list(merged.values())


def _parent_began(app: ServerApp, parent_id: str, now: int) -> None:
    parent = app.state.jobs.get(parent_id)
    if parent is None or parent.get("job_state") == st.BEGUN:
        return
    set_state(parent, st.BEGUN, st.SUB_BEGUN)
    parent["stime"] = str(now)
    parent["comment"] = "Job Array Began at %s" % time.strftime(
        "%a %b %d at %H:%M", time.localtime(now))
    touch(app, parent)
    app.acct.record("S", parent_id, accounting.job_fields(parent, "S"))
    mail.send(app, parent, mail.BEGIN)
    save(app, parent)


def suspend(app: ServerApp, job: Job, suspend: bool, by_scheduler: bool = False) -> None:
    """After the mom suspended (resumed) the job: PBS frees a suspended job's CPUs for other
    jobs and charges them again on resume (k03; accounting ``z``/``r``).  A suspension asks
    for a scheduling cycle, except the scheduler's own (a preemption, within its cycle: k06h
    shows none after it)."""
    exec_vnode = job.get("exec_vnode", "")
    if suspend:
        vnodes.release(app.state.nodes, job["_id"], exec_vnode)
        set_state(job, st.SUSPENDED, st.SUB_SUSPEND)
        app.acct.record("z", job["_id"], used_fields(job))
    else:
        vnodes.assign(app.state.nodes, job["_id"], exec_vnode)
        set_state(job, st.RUNNING, st.SUB_RUNNING)
        app.acct.record("r", job["_id"], "")
    for name in {c[0] for c in vnodes.parse_exec_vnode(exec_vnode)}:
        app.state.save_node(name)
    touch(app, job)
    save(app, job)
    if suspend and not by_scheduler:
        app.trigger_schedule()


def admin_suspend(app: ServerApp, job: Job, suspend: bool) -> None:
    """``qsig -s admin-suspend`` puts the job's vnodes in ``maintenance`` (no new job runs
    there) until ``admin-resume`` (req_signal.c set_admin_suspend; k03v)."""
    if suspend:
        job["_admin_suspended"] = True
    else:
        job.pop("_admin_suspended", None)
    for name in {c[0] for c in vnodes.parse_exec_vnode(job.get("exec_vnode", ""))}:
        node = app.state.nodes.get(name)
        if node is None:
            continue
        flags = [f for f in str(node.get("state", "free")).split(",")
                 if f not in ("free", "maintenance")]
        node["state"] = node_states.compose(flags + (["maintenance"] if suspend else []))
        app.state.save_node(name)
    save(app, job)


# -- exec events ------------------------------------------------------------------------------
def run_key(job: Dict[str, Any]) -> str:
    """What names one run of one job (set when it is run; id and run_count for a run started
    by a server that had no keys)."""
    return str(job.get("_run_key") or "%s#%s" % (job.get("_id"), job.get("run_count", "0")))


def apply_event(app: ServerApp, event: Dict[str, Any]) -> bool:
    """Turn one mom event into job state; returns True when the stream is complete."""
    job = app.state.jobs.get(str(event.get("job")))
    if job is None or str(event.get("run_count")) != job.get("run_count") or (
            job.get("job_state") in st.HISTORY_STATES):
        # A stale stream: the job was purged or ran again, or its run already ended on the
        # server (a manager's forced delete).  PBS's job_obit drops an obit for a job neither
        # running nor exiting ("job not running"): applying it again ended the run twice,
        # freed its cpus twice and put the next job on a slot beyond ncpus (b08c, b22e).
        return True
    seq = int(event.get("seq", 0))
    if seq and seq <= int(job.get("_last_seq", 0)):
        return bool(event.get("ev") == "release" and event.get("final"))
    job["_last_seq"] = seq
    kind = event.get("ev")
    if kind == "rejected":
        run_refused(app, job, int(event.get("code", 0)), str(event.get("msg", "")))
        return True
    if kind == "stagein_failed":
        stage_in_failed(app, job)
        # post_stagein: the mom's bad list goes to the owner, whatever Mail_Points says
        mail.send(app, job, mail.STAGEIN, "\n".join(str(b) for b in event.get("bad") or []),
                  force=True)
        return True
    if kind == "stagedin":
        if job.get("substate") == str(st.SUB_STAGEGO):
            set_state(job, st.RUNNING, st.SUB_PRERUN)  # post_stagein: on to svr_strtjob2
            save(app, job)
        return False
    if kind != "update" and job.get("_accepted") != job.get("run_count"):
        _accepted(app, job)  # the mom took the job in: any event but a refusal says so
    if kind == "start":
        _on_start(app, job, event)
    elif kind == "exception":
        job["_exception"] = event.get("note", "")
        save(app, job)
    elif kind == "finish":
        _on_finish(app, job, event)
    elif kind == "update":
        hookpoints.mom_update(app, job, event)
    elif kind == "usage":
        _on_usage(app, job, event)
    elif kind == "release":
        if event.get("final"):
            # the mom's stage-out result: 0 when a file could not be delivered (i05w)
            job["_stageout_status"] = str(int(event.get("stageout_status", 1)))
            complete(app, job)
            return True
        save(app, job)
    return False


def _on_start(app: ServerApp, job: Job, event: Dict[str, Any]) -> None:
    if app.pace.first_update > 0:
        # pace pbs: 42 and the usage come with the mom's first status update, not with the
        # start; a job suspended before its start was reported is updated too (k03q)
        if job.get("job_state") in (st.RUNNING, st.SUSPENDED):
            _after(app.pace.first_update, _first_update, app, job["_id"], job["run_count"])
    elif job.get("job_state") == st.RUNNING:
        set_state(job, st.RUNNING, st.SUB_RUNNING)
    job["_started"] = True
    job["_session_id"] = str(event.get("session_id", 0))
    if event.get("jobdir"):
        job["jobdir"] = str(event["jobdir"])  # the mom's sandbox=PRIVATE directory (i07c)
    if event.get("pty") and is_true(job.get("interactive")):
        # start_exec.c: an interactive job's streams are the mom's pty, no host (I02)
        job["Output_Path"] = job["Error_Path"] = str(event["pty"])
    if app.pace.first_update <= 0:
        job["session_id"] = job["_session_id"]
        _first_usage(job)
    else:  # a rerun shows nothing of its earlier run's usage until the first update
        for key in [k for k in job if k.startswith("resources_used.")]:
            del job[key]
    touch(app, job)
    save(app, job)
    held = job.pop("_signals_on_start", None)
    if held and app.execs is not None:
        # signals sent before the mom had the job or its processes (execclient.signal)
        threading.Thread(target=_deliver_held, args=(app, job["_id"], list(held)),
                         daemon=True).start()
    pending = job.pop("_kill_on_start", None)
    if pending and app.execs is not None:
        # qdel arrived before the mom had the job: deliver the kill now, off this thread.
        threading.Thread(target=_deferred_kill, args=(app, job["_id"], pending),
                         daemon=True).start()


def _on_usage(app: ServerApp, job: Job, event: Dict[str, Any]) -> None:
    """A resource poll's status update (pace pbs): the running job's resources_used now (k08n:
    ``qstat -p`` shows 5 % of a 10 min walltime 33 s in).  An update that crossed the job's
    suspension or end changes nothing: those states carry their own figures."""
    if job.get("job_state") != st.RUNNING:
        return
    for key, value in dict(event.get("resources_used") or {}).items():
        job["resources_used." + str(key)] = str(value)
    save(app, job)


def hold_signal(job: Job, signal: str) -> None:
    """Keep ``signal`` for the run's start (the mom had no job or process to give it to)."""
    held = job.setdefault("_signals_on_start", [])
    assert isinstance(held, list)
    held.append(signal)


def _deliver_held(app: ServerApp, jobid: str, signals: List[str]) -> None:
    """Send the held signals in the order they were asked for (stop then continue, say)."""
    for signal in signals:
        try:
            with app.state.lock:
                if app.execs is not None:
                    app.execs.signal(jobid, signal)
        except Exception:
            pass


def _deferred_kill(app: ServerApp, jobid: str, signal: str) -> None:
    """Deliver a delete's kill held back until the mom had the job; PBS logs the send."""
    try:
        if app.execs is not None:
            app.execs.signal(jobid, signal)
            app.log.job(jobid, "Job sent signal %s on delete" % signal)
    except Exception:
        pass


def _on_finish(app: ServerApp, job: Job, event: Dict[str, Any]) -> None:
    status = int(event.get("status", 0))
    job["_exit"] = status
    job["_obit"] = app.now()
    job["_run_seconds"] = app.now() - int(job.get("stime", app.now()))
    used = event.get("resources_used") or {}
    if not job.get("_started"):
        # A run that never started has no usage; one that ends here (not requeued) shows its
        # walltime only (m05c: an execjob_launch reject, -17), as PBS's obit does.
        if status not in REQUEUE_CODES:
            job["resources_used.walltime"] = str(used.get("walltime", "00:00:00"))
        used = {}
    elif not any(n.startswith("resources_used.") for n in job):
        _first_usage(job)
    for key, value in used.items():
        name = key if key.startswith("resources_used.") else "resources_used." + key
        job[name] = str(value)
    job["_substate_at_obit"] = int(job.get("substate", st.SUB_RUNNING))
    if (status >= 0 and not job.get("_rerun") and job.get("_deleted_by") is None
            and job.get("job_state") in (st.RUNNING, st.SUSPENDED)):
        # The obit brings the exit status; the stage-out follows (i05y: a job whose output
        # copy is still being retried shows Exit_status 0 in E).
        job["Exit_status"] = str(status)
    if job.get("job_state") in (st.RUNNING, st.SUSPENDED):
        set_state(job, st.EXITING, st.SUB_EXITING)
    touch(app, job)
    save(app, job)


def complete(app: ServerApp, job: Job) -> None:
    """The final release arrived: free the vnodes and decide the job's outcome.

    The mom's delete-job request, which lets the mom forget the run, leaves only once the
    job's end is saved (docs/reliability.md, ordering rule): a server that crashes before
    then finds the run on the mom and replays its end; one that crashes after finds the end
    stored.  The other way round a restart met a mom that had forgotten a job the server
    still had running, and ran it again (issue 15).
    """
    target = _discard_target(job)
    with app.state.store.batch():  # the nodes freed and the job's end: one commit
        over = _decide_end(app, job)
    if over:
        crashpoints.reach(app.home, "server", "end-saved")
        _send_discard(app, target)


def end_forced(app: ServerApp, job: Job) -> None:
    """A manager's ``qdel -W force`` of a running job, or one whose mom cannot be reached:
    req_delete.c ends the run on the server there and then, without an obit (``Delete
    forced``, the jobobit hooks, the resources released, the E record, history) and sends the
    mom its delete-job request.  No E phase: the mom's later events for the run are stale
    (:func:`apply_event`), so they cannot end it a second time."""
    target = _discard_target(job)
    status = int(job.get("_exit", -3))
    with app.state.store.batch():  # the nodes freed and the job's end: one commit
        job["_exit"] = status
        job["Exit_status"] = str(status)
        hookpoints.current().jobobit(app, job)
        suffix = _comment_suffix(job, status)
        if suffix and job.get("comment") and not job["comment"].endswith(" " + suffix):
            job["comment"] = job["comment"] + " " + suffix
        _free(app, job)
        to_history(app, job, st.final_substate(status, True), ran=True, end_status=status)
    crashpoints.reach(app.home, "server", "end-saved")
    _send_discard(app, target)


def _decide_end(app: ServerApp, job: Job) -> bool:
    """The body of :func:`complete`; True when the run is over on the mom (nodes freed)."""
    jobid = job["_id"]
    status = hookpoints.obit_status(job, int(job.get("_exit", -3)))
    job["_exit"] = status
    e_phase = app.pace.e_phase
    if e_phase <= 0:
        _free(app, job)
    # qrerun -W force discarded the run: the server awaits the mom's discard answer, not an
    # obit (k04l: "Job requeued, discard response received")
    discarded = job.pop("_discard_rerun", None) and job.get("_deleted_by") is None
    if not discarded:
        app.log.job(jobid, "Obit received momhop:%s serverhop:%s state:%s substate:%s" % (
            job.get("run_count", "1"), job.get("run_count", "1"), "R",
            job.get("_substate_at_obit", st.SUB_RUNNING)), DEBUG)
    if job.get("_stageout_status") == "0":
        # The mom's copy failed: PBS logs the post-job error, then the obit the mom sends
        # after its stage-out (state E, substate 53: i05g's server log).
        host = str(job.get("exec_host", "")).split("/")[0]
        app.log.job(jobid, "Post job file processing error; job %s on host %s" % (jobid, host),
                    0x000d)
        app.log.job(jobid, "Obit received momhop:%s serverhop:%s state:E substate:53" % (
            job.get("run_count", "1"), job.get("run_count", "1")), DEBUG)
    if status in RERUN_MESSAGES:
        app.log.job(jobid, RERUN_MESSAGES[status], 0x0009)
    rerunable = job.get("Rerunable", "True") == "True"
    if job.pop("_rerun", None) and job.get("_deleted_by") is None:
        status = -11  # JOB_EXEC_RERUN: qrerun or preemption by requeue (k04, k14b)
        job["_exit"] = status
        job["_force_requeue"] = True
    if job.get("_deleted_by") is None and (
            job.pop("_force_requeue", None) or status in REQUEUE_CODES
            or (status in RERUN_IF_RERUNABLE and rerunable)):
        if discarded:
            # force_reque keeps the status for the R record only: no Exit_status (k04i)
            app.log.job(jobid, "Job requeued, discard response received")
        else:
            job["Exit_status"] = str(status)
        if e_phase > 0:
            _free(app, job)
        _account_end(app, job, "R", status)
        requeue(app, job, failed_start=not job.get("_started"))
        return True
    job["Exit_status"] = str(status)
    hookpoints.current().jobobit(app, job)
    _mail_end(app, job, status, rerunable)
    suffix = _comment_suffix(job, status)
    if suffix and job.get("comment") and not job["comment"].endswith(" " + suffix):
        job["comment"] = job["comment"] + " " + suffix
    if e_phase > 0:
        # pace pbs: the obit is in (a blocking qsub has its reply, cli/qsub.py); stage-out
        # and the mom's delete-job request follow, and only then are the nodes free (a17b).
        set_state(job, st.EXITING, SUB_STAGEOUT)
        touch(app, job)
        save(app, job)
        if "before" in job.get("depend", ""):
            _after(e_phase * DEPEND_RELEASE_SHARE, _release_dependents, app, jobid,
                   job.get("run_count", ""))
        _after(e_phase, _end_of_e_phase, app, jobid, job.get("run_count", ""))
        return False
    to_history(app, job, st.final_substate(status, job.get("_deleted_by") is not None),
               ran=True, end_status=status)
    return True


def _mail_end(app: ServerApp, job: Job, status: int, rerunable: bool) -> None:
    """req_jobobit.c's mail for a run that ends (not requeued): a forced abort mail for a
    mom's special exit code, else the end mail with the exit status and usage."""
    if status in mail.ABORT_TEXT:
        mail.send(app, job, mail.ABORT, mail.ABORT_TEXT[status], force=True)
        return
    if status in RERUN_IF_RERUNABLE and not rerunable:
        mail.send(app, job, mail.ABORT, "Non-rerunable job deleted on requeue")
    mail.send(app, job, mail.END, mail.end_text(job, status))


def _free(app: ServerApp, job: Job) -> None:
    """The nodes given back: the end of the E phase (the delete-job request follows the save:
    :func:`_send_discard`)."""
    release_vnodes(app, job)


Target = Optional[Tuple[str, str, int, str]]


def _discard_target(job: Job) -> Target:
    """Whom the delete-job request of this run goes to: (job id, primary host, run_count, run
    key), taken before a requeue clears exec_host; None for a job that never went to a mom."""
    host = str(job.get("exec_host", "")).split("/")[0].split("+")[0]
    if not host:
        return None
    return job["_id"], host, int(job.get("run_count", "0") or 0), run_key(job)


def _send_discard(app: ServerApp, target: Target) -> None:
    """Send the delete-job request; the caller has saved the job's end (its own record)."""
    if target is not None and app.execs is not None:
        app.execs.discard(*target)


def _after(delay: float, target: Any, *args: Any) -> None:
    timer = threading.Timer(delay, target, args)
    timer.daemon = True
    timer.start()


def _current(app: ServerApp, jobid: str, run_count: str, state: str) -> Optional[Job]:
    job = app.state.jobs.get(jobid)
    if job is None or job.get("run_count") != run_count or job.get("job_state") != state:
        return None
    return job


def _first_usage(job: Job) -> None:
    """resources_used as the mom's first status update brings it: a running job shows none
    before (pace pbs: qstat's Time Use is 0 for the first seconds, j05f)."""
    job.update(RESOURCES_USED_START)
    job["resources_used.ncpus"] = job.get("Resource_List.ncpus", "1")


def _first_update(app: ServerApp, jobid: str, run_count: str) -> None:
    """pace pbs: the mom's first status update for this run: substate 41 -> 42, and the
    first resources_used (until then qstat's Time Use is ``0``: j05f, k04c, k06d)."""
    with app.state.lock:
        job = _current(app, jobid, run_count, st.RUNNING) or \
            _current(app, jobid, run_count, st.SUSPENDED)
        if job is None:
            return
        # The update carries the session id and usage (a suspended job is reported too,
        # k03q): a job that ended before it never shows them.
        job["session_id"] = job.get("_session_id", "0")
        if not any(name.startswith("resources_used.") for name in job):
            _first_usage(job)
        if job.get("substate") == str(st.SUB_PRERUN):
            set_state(job, st.RUNNING, st.SUB_RUNNING)
        save(app, job)


def _release_dependents(app: ServerApp, jobid: str, run_count: str) -> None:
    """pace pbs: the stage-out is done (substate EXITED): the jobs that depend on this one are
    released or deleted now, before the mom's delete-job reply frees its nodes (req_jobobit.c
    on_job_exit: depend_on_term, then the DeleteJob request, rel_resc on its reply).  A cycle
    in between finds the cpus still taken: j05p's released 346.vm is ``Job Modified at
    request of Scheduler`` (its Not Running comment) before it runs."""
    from fake_pbs.server import depend  # depend uses this module: import at call time
    with app.state.lock:
        job = _current(app, jobid, run_count, st.EXITING)
        if job is None or job.get("substate") != str(SUB_STAGEOUT) or job.get("_deps_done"):
            return
        status = int(job.get("Exit_status", "0") or 0)
        ended = dict(job, job_state=st.FINISHED, substate=str(st.final_substate(
            status, job.get("_deleted_by") is not None)))
        job["_deps_done"] = True
        depend.job_ended(app, ended)


def _end_of_e_phase(app: ServerApp, jobid: str, run_count: str) -> None:
    """pace pbs: stage-out and delete-job are done: free the nodes, E record, history."""
    with app.state.lock:
        job = _current(app, jobid, run_count, st.EXITING)
        if job is None or job.get("substate") != str(SUB_STAGEOUT):
            return
        end_e_phase(app, job)


def end_e_phase(app: ServerApp, job: Job) -> None:
    """Finish a job left in E/51 (also called at server start-up for jobs a restart caught
    in their E phase, so that none stays E forever)."""
    status = int(job.get("Exit_status", "0") or 0)
    target = _discard_target(job)
    _free(app, job)
    to_history(app, job, st.final_substate(status, job.get("_deleted_by") is not None),
               ran=True, end_status=status)
    crashpoints.reach(app.home, "server", "end-saved")
    _send_discard(app, target)


def note_termination(job: Job) -> None:
    """A delete's kill was sent: the comment says ``and terminated by ...`` from now on."""
    suffix = _comment_suffix(job, 0)
    if job.get("comment") and not job["comment"].endswith(" " + suffix):
        job["comment"] = job["comment"] + " " + suffix


def _comment_suffix(job: Job, status: int) -> str:
    deleted_by = job.get("_deleted_by")
    if deleted_by is not None:
        return "and terminated by %s" % deleted_by  # "" for a subjob of a deleted array
    if status in OVER_LIMIT:
        return "and exceeded resource %s" % OVER_LIMIT[status]
    if status == LOST_RUN and job.get("_exception"):
        # A run whose processes vanished and that may not rerun: say why (issue 6).
        return "and failed: %s" % job["_exception"]
    return "and finished" if status == 0 else "and failed"


def _account_end(app: ServerApp, job: Job, kind: str, status: int) -> None:
    app.acct.record(kind, job["_id"], accounting.end_fields(job, status, app.now()))


def release_vnodes(app: ServerApp, job: Job) -> None:
    exec_vnode = job.get("exec_vnode")
    if exec_vnode:
        vnodes.release(app.state.nodes, job["_id"], exec_vnode)
        for name in {c[0] for c in vnodes.parse_exec_vnode(exec_vnode)}:
            if name in app.state.nodes:
                app.state.nodes[name]["last_used_time"] = str(app.now())
                app.state.save_node(name)
    app.trigger_schedule()


def requeue(app: ServerApp, job: Job, failed_start: bool = False) -> None:
    """Back to Q (req_jobobit.c rerun paths); after more than 20 runs that never got going,
    hold it: H, Hold_Types s, ``job held, too many failed attempts to run`` (f12, m04)."""
    for name in ("exec_host", "exec_vnode", "session_id", "_session_id", "_sent", "_exit",
                 "jobdir"):
        job.pop(name, None)
    for name in [n for n in job if n.startswith("resources_used.")]:
        del job[name]
    job["obittime"] = str(job.pop("_obit", app.now()))
    if failed_start and int(job.get("run_count", "0")) > MAX_FAILED_ATTEMPTS:
        _hold_failed(job)
    else:
        set_state(job, st.QUEUED, st.SUB_QUEUED)
    touch(app, job)
    save(app, job)
    app.trigger_schedule()


def _hold_failed(job: Job) -> None:
    """check_failed_attempts (req_runjob.c) sets the hold and comment but logs nothing (f05)."""
    holds = job.get("Hold_Types", "n").replace("n", "")
    job["Hold_Types"] = holds + "s" if "s" not in holds else holds
    job["comment"] = "job held, too many failed attempts to run"
    job.pop("etime", None)
    set_state(job, st.HELD, st.SUB_HELD)


def to_history(app: ServerApp, job: Job, substate: int, ran: bool,
               end_status: Optional[int] = None) -> None:
    """The job is over: keep it as history (F, or X for a subjob) or purge it.

    ``end_status``: write the E record, after the dependent jobs are dealt with (the A record
    of one deleted by this end comes first, k14f) and before the array parent's end (k14d).
    """
    now = app.now()
    jobid = job["_id"]
    if ran:
        job["obittime"] = str(job.pop("_obit", now))
        stageout_status = str(job.pop("_stageout_status", "1"))
        if not is_true(job.get("interactive")) or job.get("stageout"):
            # req_jobobit.c: an interactive job has no output file to copy, and no status
            # for it unless it stages files out (I02)
            job["Stageout_status"] = stageout_status
        # PBS learns the session id from the mom's first status update; a job that ended
        # within a couple of seconds never shows one (b04, i01c) while longer ones do (c04c).
        # Under the pbs pace the first update itself sets it (_first_update).
        if (app.pace.first_update <= 0
                and int(job.get("_run_seconds", SESSION_ID_AFTER)) < SESSION_ID_AFTER):
            job.pop("session_id", None)
    job["history_timestamp"] = str(now)
    set_state(job, st.EXPIRED if job.get("array_id") else st.FINISHED, substate)
    touch(app, job)
    if (not app.history_enabled() or job.get("_purge")) and not job.get("array_id"):
        del app.state.jobs[jobid]  # no history kept, or `qdel -x` of a job that ran (n02x)
    save(app, job)
    if "before" in job.get("depend", "") and not job.get("_deps_done"):
        from fake_pbs.server import depend  # depend uses this module: import at call time
        depend.job_ended(app, job)
    if end_status is not None:
        _account_end(app, job, "E", end_status)
    parent_id = job.get("array_id")
    if parent_id:
        if parent_id in app.state.jobs:
            note_subjob_exit(app.state.jobs[parent_id], job)
        array_child_ended(app, parent_id)


def array_child_ended(app: ServerApp, parent_id: str) -> None:
    """When every subjob is over, the parent ends too (array_func.c chk_array_doneness)."""
    parent = app.state.jobs.get(parent_id)
    if parent is None or parent.get("job_state") in st.HISTORY_STATES:
        return
    stored = app.state.subjobs(parent_id)
    if subjobs.queued(parent) or any(c.get("job_state") not in st.HISTORY_STATES
                                     for c in stored):
        save(app, parent)
        return
    # the table's subjobs never ran: no stime, no obittime, nothing for the end's figures
    children = stored
    began = parent.get("job_state") == st.BEGUN
    substate = array_end_substate(parent, children)
    base = parent.get("comment") or "Job Array Began at %s" % time.strftime(
        "%a %b %d at %H:%M", time.localtime(app.now()))
    parent["comment"] = base + {st.SUB_TERMINATED: " and terminated",
                                st.SUB_FAILED: " and failed"}.get(substate, " and finished")
    parent["Exit_status"] = parent.pop("_sub_exit", "1" if substate == st.SUB_TERMINATED
                                       else "0")
    ends = [int(c["obittime"]) for c in children if c.get("obittime", "").isdigit()]
    if ends:  # subjobs ran: the parent ends with the last one's obit, staged out (j03)
        parent["obittime"] = str(max(ends))
        parent["Stageout_status"] = "1"
    to_history(app, parent, substate, ran=False)
    if began:  # a parent that began has an E record, without usage (k14d)
        app.acct.record("E", parent_id, accounting.end_fields(
            parent, int(parent["Exit_status"]), app.now(), with_usage=False))
        mail.send(app, parent, mail.END, "Exit_status=%s" % parent["Exit_status"])
    for child in stored:  # those of the table follow the parent's state (subjobs.record)
        if app.history_enabled():
            child["job_state"] = st.FINISHED
            save(app, child)
        else:
            app.state.jobs.pop(child["_id"], None)
            app.state.save_job(child["_id"])


def array_end_substate(parent: Job, children: List[Job]) -> int:
    """svr_setjob_histinfo: 91 for a deleted array, else the substate of the first subjob (by
    index) that ran and failed (93) or was deleted (91), else 92 (k12n: a running subjob
    deleted -> "and terminated"; j04: one failed -> "and failed")."""
    if parent.get("_deleted_by") is not None:
        return st.SUB_TERMINATED
    for child in sorted(children, key=lambda c: int(c.get("array_index", "0"))):
        substate = int(child.get("substate", "0") or 0)
        if "stime" in child and substate in (st.SUB_FAILED, st.SUB_TERMINATED):
            return substate
    return st.SUB_FINISHED


def note_subjob_exit(parent: Job, child: Job) -> None:
    """update_sj_parent: the parent's Exit_status follows the last subjob that ended with one:
    1 when it was positive, 2 when negative, else 0 (k12j/k12n: 271 -> 1; j04: the last, 0)."""
    value = child.get("Exit_status")
    if value is None or "stime" not in child:
        return
    code = int(value)
    parent["_sub_exit"] = "1" if code > 0 else "2" if code < 0 else "0"
