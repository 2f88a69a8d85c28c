"""Ending one job on delete: what qdel, pbs_rdel and a reservation's end share.

A running job is signalled through its mom (``TermJob``, or ``SIGKILL`` when forced); a
queued one goes straight to history (OpenPBS ``req_delete.c``). The request handlers
(handlers/jobctl.py) add what belongs to the request itself: permissions, arrays, purging.
"""
from typing import Any, Dict

from fake_pbs.model import states as st
from fake_pbs.model.errors import PBSE_BADSTATE, PbsError
from fake_pbs.server import lifecycle
from fake_pbs.server.app import ServerApp
from fake_pbs.server.logs import DEBUG2

Job = Dict[str, Any]

KILL_SIGNALS = {False: "TermJob", True: "SIGKILL"}
EXIT_BY_SIGNAL = {False: 271, True: 265}


def delete_one(app: ServerApp, job: Job, force: bool, requestor: str, manager: bool) -> bool:
    """End ``job`` at the request of ``requestor``.

    Returns True when a job that never ran went straight to history (the caller may purge it).
    """
    job["_deleted_by"] = requestor
    if job.get("job_state") in st.ACTIVE_STATES:
        signal = KILL_SIGNALS[force]
        try:
            if app.execs is None:
                raise PbsError(PBSE_BADSTATE)
            app.execs.signal(job["_id"], signal)
            app.log.job(job["_id"], "Job sent signal %s on delete" % signal)
            # req_delete.c: a manager's forced delete ends the job on the server at once,
            # whatever the mom does (n02x: the purged jobs free the resource at once).
            ended_here = force and manager
        except PbsError:
            if not job.get("_started") and not force:
                job["_kill_on_start"] = signal
                ended_here = False
            else:  # the mom is gone: end the job here, as PBS does for a forced delete
                ended_here = True
        if ended_here:
            app.log.job(job["_id"], "Delete forced", DEBUG2)
            job["_exit"] = EXIT_BY_SIGNAL[True]
            job["_obit"] = app.now()
            lifecycle.end_forced(app, job)
            return False
        if not job.get("_kill_on_start"):
            # PBS says so while the job still runs (b05: R/42 1 s after qdel)
            lifecycle.note_termination(job)
        lifecycle.save(app, job)
        return False
    if job.get("array_id"):
        expire_subjob(app, job)
        return False
    # Queued, held or waiting: straight to history, substate 91, no Exit_status (c10b, k13).
    if job.get("comment"):
        job["comment"] = job["comment"] + " and terminated"
    lifecycle.to_history(app, job, st.SUB_TERMINATED, ran=False)
    return True


def expire_subjob(app: ServerApp, child: Job) -> None:
    """A subjob deleted before it ran expires (X): PBS keeps it as a row of the parent's
    table only, shown with the parent's Exit_status and substate (handlers/status.py)."""
    child["comment"] = "Subjob finished"
    lifecycle.to_history(app, child, st.SUB_TERMINATED, ran=False)
