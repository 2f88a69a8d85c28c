"""Job dependencies (``qsub -W depend=afterok:12``), extra cases j05.

A dependent with unmet ``after*`` conditions is held: H, substate 22, Hold_Types ``s``; its
``depend`` reads ``afterok:12.vm@vm``; the job it waits on lists it as ``beforeok:13.vm@vm``.
When that job ends, a satisfied condition releases the hold, an unsatisfiable one deletes the
dependent (F, substate 92, no comment, no Exit_status; log "Job deleted as result of dependency on
job 12.vm"; accounting ``A``).  An unknown job id is accepted at submission and the job is then
deleted ("Dependency request for job rejected by 9999.vm").

``before*`` works through ``on`` (src/server/req_register.c): a job submitted with
``-W depend=on:N`` is held (H, 22) until N jobs have registered a ``before*`` dependency on it
and each of those has ended as the type asks; ``qsub -W depend=beforeok:A`` registers with A,
which then shows the mirror ``afterok:B@server`` (register_dep) and one ``on`` fewer (none left:
no ``on``), and B's end releases or deletes A as an ``afterok`` would (depend_on_term).  A
``before*`` on a job with no ``on`` left is refused (PBSE_BADDEPEND) and the new job aborted
(post_doq), as is one on an unknown, finished or another owner's job.
"""
from typing import Any, Callable, Dict, List, Optional, Tuple

from fake_pbs.model import states as st
from fake_pbs.model.errors import PBSE_BADDEPEND, PbsError
from fake_pbs.server import jobids, lifecycle, mail

Job = Dict[str, Any]
Dep = Tuple[str, str]  # (type, canonical job id)

AFTER = ("after", "afterok", "afternotok", "afterany")
BEFORE = {"afterok": "beforeok", "afternotok": "beforenotok", "afterany": "beforeany",
          "after": "before"}
TYPES = frozenset(AFTER) | frozenset(BEFORE.values()) | {"on", "synccount", "syncwith",
                                                         "runone"}


def parse(value: str, server_name: str) -> List[Dep]:
    deps: List[Dep] = []
    for group in value.split(","):
        kind, _, rest = group.partition(":")
        if kind not in TYPES or not rest:
            raise PbsError(PBSE_BADDEPEND)
        if kind == "on":
            if not rest.isdigit():
                raise PbsError(PBSE_BADDEPEND)
            deps.append((kind, str(int(rest))))
            continue
        if kind not in AFTER:
            continue  # before* (registered by register), sync*/runone: not enforced
        for target in rest.split(":"):
            jobid = jobids.normalize(target.split("@")[0], server_name, any_server=True)
            if jobid is None:
                raise PbsError(PBSE_BADDEPEND)
            deps.append((kind, jobid))
    return deps


def _format(deps: List[Dep], server_name: str) -> str:
    grouped: Dict[str, List[str]] = {}
    for kind, jobid in deps:
        shown = jobid if kind == "on" else "%s@%s" % (jobid, server_name)  # on:N has a count
        grouped.setdefault(kind, []).append(shown)
    return ",".join("%s:%s" % (kind, ":".join(ids)) for kind, ids in grouped.items())


def _outcome(kind: str, target: Job) -> Optional[bool]:
    """True satisfied, False never satisfiable, None not decided yet."""
    if target.get("job_state") not in st.HISTORY_STATES:
        return None
    status = target.get("Exit_status")
    ok = status == "0" and target.get("substate") != str(st.SUB_TERMINATED)
    if kind in ("afterany", "after"):
        return True
    if kind == "afterok":
        return ok
    return not ok and status is not None


def before_targets(value: str, server_name: str) -> List[str]:
    """The jobs a ``before*`` dependency names (the jobs that would wait for this one)."""
    targets: List[str] = []
    for group in value.split(","):
        kind, _, rest = group.partition(":")
        if kind not in BEFORE.values():
            continue
        for target in rest.split(":"):
            jobid = jobids.normalize(target.split("@")[0], server_name, any_server=True)
            if jobid is not None:
                targets.append(jobid)
    return targets


def _owner(job: Job) -> Tuple[str, str]:
    user, _, host = str(job.get("Job_Owner", "")).partition("@")
    return user, host.lower()


def _on_count(job: Job) -> int:
    """How many ``before*`` registrations the job's ``on:N`` still expects."""
    for kind, rest in _parse_before(str(job.get("depend", ""))):
        if kind == "on" and rest.isdigit():
            return int(rest)
    return 0


def refuse_before(app: Any, job: Job) -> bool:
    """The registrations a ``before*`` dependency sends, refused as req_register refuses them:
    an unknown job (PBSE_UNKJOBID), a finished one (PBSE_HISTDEPEND) or another owner's job
    (svr_chk_owner: PBSE_PERM, a user may not make another's job wait for theirs).  As
    post_doq does, the refusal is logged and the new job is aborted (F, substate 92, an ``A``
    record) after its ``Q`` record; the submission itself succeeds.  Returns whether it was."""
    jobid = job["_id"]
    for target_id in before_targets(str(job.get("depend", "")), app.server_name):
        target = app.state.jobs.get(target_id)
        if target is not None and target.get("job_state") in st.HISTORY_STATES:
            app.log.job(jobid, "%s Finished job did not satisfy dependency" % target_id)
        elif target is None or _owner(target) != _owner(job) or _on_count(target) <= 0:
            # unknown (PBSE_UNKJOBID), another owner's (PBSE_PERM), or no "on" left to
            # register against (PBSE_BADDEPEND): post_doq logs it and aborts the new job
            app.log.job("%s@%s" % (jobid, app.server_name),
                        "Dependency request for job rejected by %s" % target_id)
        else:
            continue
        return True
    return False


def register(app: Any, job: Job, deps: List[Dep], queued_record: Callable[[], None]) -> None:
    """The queued job's dependencies, after its ``Job Queued`` line (j05p, j05y: the enqueue
    line shows the state before them).  Any ``after*`` dependency first puts the system hold
    on (H, substate 22, Hold_Types ``s``, no etime: j05x); each is then checked in order and
    logged: a finished job that satisfies it (``343.vm Job has finished, dependency
    satisfied``) leaves ``depend`` (j05w), one that cannot (``342.vm Finished job did not
    satisfy dependency``) or an unknown job (``Dependency request for job rejected by
    9999.vm``, logged about ``ID@server``) deletes the job once all are checked; with none
    left the hold comes off again.  ``queued_record`` writes the job's Q accounting record once
    ``depend`` and the hold are set, before any A record of its deletion (k14f)."""
    server = app.server_name
    jobid = job["_id"]
    if refuse_before(app, job):
        queued_record()
        _delete(app, job, None)
        return
    befores = _register_before(app, job)
    on = [int(rest) for kind, rest in deps if kind == "on"]
    deps = [d for d in deps if d[0] != "on"]
    extra = befores + [("on", str(n)) for n in on if n > 0]
    if extra:
        job["depend"] = _format(extra, server)
    if on and on[0] > 0:
        # set_depend_hold: an "on" still expecting registrations holds the job
        job["Hold_Types"] = "".join(t for t in "uosp" if t in job.get("Hold_Types", "") + "s")
        lifecycle.set_state(job, st.HELD, st.SUB_DEPNHOLD)
        job.pop("etime", None)
    if not deps:
        queued_record()
        return
    job["Hold_Types"] = "".join(t for t in "uosp" if t in job.get("Hold_Types", "") + "s")
    lifecycle.set_state(job, st.HELD, st.SUB_DEPNHOLD)
    job.pop("etime", None)
    kept: List[Dep] = []
    refused = False
    for kind, target_id in deps:
        target = app.state.jobs.get(target_id)
        if target is None:
            app.log.job("%s@%s" % (jobid, server),
                        "Dependency request for job rejected by %s" % target_id)
            kept.append((kind, target_id))
            refused = True
            continue
        outcome = _outcome(kind, target)
        if outcome is True:
            app.log.job(jobid, "%s Job has finished, dependency satisfied" % target_id)
            continue
        kept.append((kind, target_id))
        if outcome is False:
            app.log.job(jobid, "%s Finished job did not satisfy dependency" % target_id)
            refused = True
    _set_depend(job, kept + extra, server)
    queued_record()
    if refused:
        _delete(app, job, None)
        return
    for kind, target_id in kept:
        target = app.state.jobs[target_id]
        existing = [d for d in _parse_before(target.get("depend", ""))]
        existing.append((BEFORE[kind], jobid))
        target["depend"] = _format(existing, server)
        app.state.save_job(target_id)
    job["_deps"] = [list(d) for d in kept]
    if not kept and not (on and on[0] > 0):
        _lift_system_hold(app, job)


def _register_before(app: Any, job: Job) -> List[Dep]:
    """Each ``before*:A`` of the new job registered with A (req_register.c register_dep): A
    gets the mirror ``after*`` on this job and expects one registration fewer.  Returns the
    job's own ``before*`` entries."""
    jobid = job["_id"]
    server = app.server_name
    own: List[Dep] = []
    for group in str(job.get("depend", "")).split(","):
        kind, _, rest = group.partition(":")
        if kind not in BEFORE.values():
            continue
        mirror = next(k for k, v in BEFORE.items() if v == kind)
        for target_id in before_targets("%s:%s" % (kind, rest), server):
            own.append((kind, target_id))
            target = app.state.jobs[target_id]
            left = _on_count(target) - 1
            entries = [(k, i) for k, i in _parse_before(str(target.get("depend", "")))
                       if k != "on"]
            entries.append((mirror, jobid))
            target_deps = [tuple(d) for d in target.get("_deps", [])] + [(mirror, jobid)]
            target["_deps"] = [list(d) for d in target_deps]
            shown = [(k, i) for k, i in entries] + ([("on", str(left))] if left > 0 else [])
            target["depend"] = _format(shown, server)
            lifecycle.touch(app, target)
            app.state.save_job(target_id)
    return own


def _befores(job: Job) -> List[Dep]:
    """The job's own ``before*`` entries, which stay in ``depend`` until it ends."""
    return [(k, i) for k, i in _parse_before(str(job.get("depend", "")))
            if k in BEFORE.values()]


def _lift_system_hold(app: Any, job: Job) -> None:
    """No dependency left: the system hold comes off (Q again unless another hold stays)."""
    holds = job.get("Hold_Types", "n").replace("s", "") or "n"
    job["Hold_Types"] = holds
    if holds == "n" and job.get("job_state") == st.HELD:
        lifecycle.set_state(job, st.QUEUED, st.SUB_QUEUED)
        job["etime"] = str(app.now())
    elif holds != "n":
        lifecycle.set_state(job, st.HELD, st.SUB_HELD)


def _set_depend(job: Job, deps: List[Dep], server: str) -> None:
    """``depend`` shows the dependencies not satisfied yet; none, no attribute (j05m-o)."""
    if deps:
        job["depend"] = _format(deps, server)
    else:
        job.pop("depend", None)


def _parse_before(value: str) -> List[Dep]:
    deps: List[Dep] = []
    for group in value.split(","):
        kind, _, rest = group.partition(":")
        if not rest:
            continue
        for target in rest.split(":"):
            deps.append((kind, target.split("@")[0]))
    return deps


def _delete(app: Any, job: Job, message: Optional[str]) -> None:
    if message is not None:
        app.log.job(job["_id"], message)
    app.acct.record("A", job["_id"], message or "")  # k14f: the A record carries the reason
    if message is not None:  # job_abt: the abort mail, as asked for (the default 'a')
        mail.send(app, job, mail.ABORT, message)
    job["_deps"] = []
    lifecycle.to_history(app, job, st.SUB_FINISHED, ran=False)


def job_ended(app: Any, target: Job) -> None:
    """``target`` reached history: release or delete the jobs that wait on it."""
    for kind, dependent_id in _parse_before(target.get("depend", "")):
        dependent = app.state.jobs.get(dependent_id)
        if dependent is None or dependent.get("job_state") in st.HISTORY_STATES:
            continue
        deps = [tuple(d) for d in dependent.get("_deps", [])]
        remaining = []
        for dkind, did in deps:
            if did != target["_id"]:
                remaining.append((dkind, did))
                continue
            outcome = _outcome(str(dkind), target)
            if outcome is False:
                _delete(app, dependent, "Job deleted as result of dependency on job %s"
                        % target["_id"])
                break
        else:
            if len(remaining) < len(deps):  # j05p: 346.vm's afternotok on the failed 342.vm
                app.log.job(dependent_id, "Dependency on job %s released." % target["_id"])
            on = _on_count(dependent)
            dependent["_deps"] = [list(d) for d in remaining]
            _set_depend(dependent, [(str(k), str(i)) for k, i in remaining] + _befores(dependent)
                        + ([("on", str(on))] if on > 0 else []), app.server_name)
            if not remaining and _on_count(dependent) <= 0 and \
                    dependent.get("job_state") == st.HELD:
                _lift_system_hold(app, dependent)
                lifecycle.touch(app, dependent)
            app.state.save_job(dependent_id)
    app.trigger_schedule()
