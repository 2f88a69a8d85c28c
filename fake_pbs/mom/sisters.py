"""Multi-host jobs: the primary mom drives its sisters over their sockets (join, kill, abort,
release), and a sister's side of it.

A sister holds the job's vnodes from ``join`` until ``release`` (job over: execjob_epilogue and
execjob_end run there) or ``abort`` (the job failed to start: execjob_abort only, reference §6.4).
The job's processes on a sister are its TM tasks (pbsdsh, pbs_tmrsh: fake_pbs/mom/tm.py);
``kill`` signals them, ``release`` and ``abort`` end them, as PBS's sister mom does.
"""
import shutil
import signal
import threading
from typing import Any, Dict, Mapping, Optional, Tuple

from fake_pbs import paths
from fake_pbs.model.errors import (PBSE_HOOK_REJECT, PBSE_HOOK_REJECT_DELETEJOB,
                                   PBSE_HOOK_REJECT_RERUNJOB, PBSE_PROTOCOL, PBSE_SISCOMM,
                                   PBSE_SYSTEM, PbsError)
from fake_pbs.mom import hookpoints, hookshep, tasks
from fake_pbs.mom.signals import signal_number
from fake_pbs.mom.context import MomContext
from fake_pbs.mom.durable import read_json, write_json
from fake_pbs.protocol import call, connect

JOB_EXEC_RETRY = -3
JOB_EXEC_FAILHOOK_RERUN = -16
JOB_EXEC_FAILHOOK_DELETE = -17
JOB_EXEC_JOINJOB = -30
SISTER_TIMEOUT = 30.0


class DropConnection(Exception):
    """Raised by a handler to close the connection without a reply (the ``comm`` fault)."""


# ---- primary side -------------------------------------------------------------------------------

def sister_request(ctx: MomContext, host: str, op: str, timeout: float = SISTER_TIMEOUT,
                   **args: Any) -> Any:
    """One request to the sister ``host``; connection trouble becomes PBSE_SISCOMM."""
    try:
        channel = connect(paths.mom_socket(ctx.home, host), timeout=timeout)
    except OSError:
        raise PbsError(PBSE_SISCOMM)
    try:
        return call(channel, op, **args)
    except (OSError, ValueError):
        raise PbsError(PBSE_SISCOMM)
    except PbsError as err:
        if err.code == PBSE_PROTOCOL:  # the sister hung up without answering
            raise PbsError(PBSE_SISCOMM)
        raise
    finally:
        channel.close()


def join_failure_code(code: int) -> int:
    """The job's exit code when a sister failed to join with PBSE ``code`` (job_start_error)."""
    return {PBSE_HOOK_REJECT_DELETEJOB: JOB_EXEC_FAILHOOK_DELETE,
            PBSE_HOOK_REJECT_RERUNJOB: JOB_EXEC_FAILHOOK_RERUN,
            PBSE_SISCOMM: JOB_EXEC_JOINJOB}.get(code, JOB_EXEC_RETRY)


def join_all(ctx: MomContext, job: Mapping[str, Any], sisters: Tuple[str, ...]
             ) -> Optional[Tuple[str, PbsError]]:
    """Join every sister in turn; the first failure as (host, error), or None."""
    for host in sisters:
        try:
            sister_request(ctx, host, "join", job=dict(job))
        except PbsError as err:
            return host, err
    return None


# ---- sister side --------------------------------------------------------------------------------

def begin_reject_code(result: hookpoints.HookResult) -> int:
    if result.delete:
        return PBSE_HOOK_REJECT_DELETEJOB
    if result.rerun:
        return PBSE_HOOK_REJECT_RERUNJOB
    return PBSE_HOOK_REJECT


class SisterJobs:
    """The jobs this mom holds as a sister."""

    def __init__(self, ctx: MomContext) -> None:
        self.ctx = ctx
        self.jobs: Dict[str, Dict[str, Any]] = {}

    def join(self, job: Dict[str, Any]) -> None:
        ctx, jobid = self.ctx, str(job["id"])
        if ctx.faults.armed("comm"):
            raise DropConnection()
        ctx.log.job(jobid, "JOIN_JOB as node %s" % ctx.host, 0x0080)
        result = hookpoints.execjob_begin(ctx.site(False), job)
        if not result.accept:
            # A sister whose execjob_begin rejects runs no abort hook: the primary aborts.
            raise PbsError(begin_reject_code(result), result.message or None)
        layout = ctx.layout.job(jobid)
        if ctx.faults.armed("jobdir"):
            self._abort_locally(job, "could not create job directory")
            raise PbsError(PBSE_SYSTEM, "could not create job directory")
        if ctx.faults.armed("join"):
            self._abort_locally(job, "join job failed")
            raise PbsError(PBSE_SISCOMM)
        layout.dir.mkdir(parents=True, exist_ok=True)
        layout.dir.chmod(0o711)  # as a primary's: only the mom writes it (daemon.job_record)
        write_json(layout.spec, {"role": "sister", "job": job})
        self.jobs[jobid] = job

    def _abort_locally(self, job: Mapping[str, Any], why: str) -> None:
        self.ctx.log.job(str(job["id"]), why, 0x0001)
        hookpoints.execjob_abort(self.ctx.site(False), job, JOB_EXEC_JOINJOB)

    def abort(self, jobid: str) -> None:
        self.ctx.log.job(jobid, "ABORT_JOB received")
        tasks.kill_all(self.ctx.layout.job(jobid).dir)
        job = self.jobs.pop(jobid, None)
        if job is not None:
            hookpoints.execjob_abort(self.ctx.site(False), job, JOB_EXEC_RETRY)
        self._forget(jobid)

    def kill(self, jobid: str, signame: str) -> None:
        self.ctx.log.job(jobid, "signal job with %s" % signame, 0x0004)
        number = signal_number(signame) if signame != "TermJob" else int(signal.SIGTERM)
        if number:
            tasks.signal_all(self.ctx.layout.job(jobid).dir, number)

    def release(self, jobid: str, exit_status: int) -> None:
        tasks.kill_all(self.ctx.layout.job(jobid).dir)  # nothing of the job outlives it
        job = self.jobs.pop(jobid, None)
        if job is not None:
            # Under hook shepherds: a sister restarted mid-release finishes it (adopt) with
            # the recorded results, never running these hooks twice.
            site, jobdir = self.ctx.site(False), self.ctx.layout.job(jobid).dir
            hookshep.run(site, "execjob_epilogue", job, jobdir, [exit_status])
            hookshep.run(site, "execjob_end", job, jobdir, [exit_status])
        self.ctx.log.job(jobid, "kill_job")
        self._forget(jobid)

    def _forget(self, jobid: str) -> None:
        layout = self.ctx.layout.job(jobid)
        shutil.rmtree(str(layout.dir), ignore_errors=True)
        shutil.rmtree(str(layout.tmpdir), ignore_errors=True)  # TM tasks' TMPDIR here

    def adopt(self, jobid: str, job: Dict[str, Any]) -> None:
        """Re-learn a sister job found on disk at mom start-up; finish a release that had
        begun (the primary will not ask again: it counted this sister as gone)."""
        self.jobs[jobid] = job
        jobdir = self.ctx.layout.job(jobid).dir
        for event in ("execjob_epilogue", "execjob_end"):
            if hookshep.in_progress(jobdir, event):
                request = hookshep.record_paths(jobdir, event)[0]
                args = list((read_json(request) or {}).get("args") or [0])
                threading.Thread(target=self.release, args=(jobid, int(args[0] or 0)),
                                 name="release-" + jobid, daemon=True).start()
                return
