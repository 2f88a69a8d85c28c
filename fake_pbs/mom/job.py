"""One job run on its primary mom: set-up, start under a shepherd, watch, finish, release.

The life of a job is a sequence of durable steps; each is skipped when its result is already on
disk, so the same code continues a job after a mom restart:

    spec.json -> [begin hook, sisters joined, nodefile, TMPDIR, prologue, launch hook]
    -> launch.json -> shepherd (shepherd.json) -> event start
    -> exit.json (or the processes are gone: a definite outcome) -> epilogue, stage-out
    -> event finish -> sisters released (event release, final false) -> event release final

A failure before the shell runs is PBS's exec_bail: log, execjob_abort hooks, ABORT to the
sisters, events exception + finish {JOB_EXEC code} + release final.
"""
import os
import shutil
import signal
import threading
import time
from typing import Any, Dict, List, Optional, Set, Tuple

from fake_pbs import crashpoints
from fake_pbs.model.errors import (PBSE_HOOK_REJECT, PBSE_HOOK_REJECT_DELETEJOB,
                                   PBSE_HOOK_REJECT_RERUNJOB, PBSE_HOOKERROR, PBSE_MOMREJECT,
                                   PBSE_UNKSIG, PbsError)
from fake_pbs.mom import (exitwatch, hookpoints, hookshep, launcher, limits, ptyrelay,
                          staging, tasks, tm, vnodemap)
from fake_pbs.mom.context import MomContext
from fake_pbs.mom.delivery import Report, append_as_owner, deliver, remove_as_owner
from fake_pbs.mom.durable import read_json, write_json
from fake_pbs.mom.environment import nodefile_lines
from fake_pbs.mom.eventlog import EventLog
from fake_pbs.mom.faults import BOTTOM_UP_GAP
from fake_pbs.mom.launch import build_launch, is_interactive, sandbox_dir
from fake_pbs.mom.layout import JobLayout
from fake_pbs.mom.procs import (same_process_alive, session_usage, signal_session,
                                signal_session_bottom_up)
from fake_pbs.mom.rlimits import SETLIM_FAILED
from fake_pbs.mom.signals import (ADMIN_RESUME, ADMIN_SUSPEND, RESUME, SUSPEND, TERMJOB,
                                  signal_number)
from fake_pbs.mom.sisters import JOB_EXEC_RETRY, join_all, join_failure_code, sister_request
from fake_pbs.mom.sisterwatch import JOB_EXEC_RERUN_SIS_FAIL, SisterWatch
from fake_pbs.mom.streams import deliveries, job_streams
from fake_pbs.mom.usage import parse_duration, poll_usage, resources_used
from fake_pbs.workers import Workers

JOB_EXEC_FAIL2 = -2
JOB_EXEC_RERUN = -11
JOB_EXEC_FAILHOOK_RERUN = -16
JOB_EXEC_FAILHOOK_DELETE = -17
JOB_EXEC_HOOKERROR = -22
JOB_EXEC_KILL_WALLTIME = -29
DEFAULT_KILL_DELAY = 10
REFUSAL_CLEANUP_WAIT = 10.0  # bound on a refused run's own removal of its files
SHEPHERD_GONE_WAIT = 5.0     # bound on a discarded run's shepherd writing its exit and ending
POLL_SECONDS = 1.0          # walltime and liveness poll: PBS polls every 10 s, the fake every 1 s
SHEPHERD_START_TIMEOUT = 60.0
# Seconds the mom waits after the obit for the server's copy file request before it stages out
# on its own (server down or busy): output is never held back for long.
COPY_WAIT = 10.0
SISTER_LOST = "sisfail"  # the kill record's reason when a lost sister ends the job


def remove_job_dir(files: JobLayout) -> None:
    """Forget a job atomically: rename its directory to a hidden name (which the restart
    sweeps, ``MomDaemon.recover``), then delete it."""
    gone = files.dir.parent / (".gone-%s-%d" % (files.jobid, os.getpid()))
    try:
        os.replace(str(files.dir), str(gone))
    except FileNotFoundError:
        return
    shutil.rmtree(str(gone), ignore_errors=True)


# Kills after which pace pbs leaves the task open until a resource poll or kill_delay's SIGKILL
# (the shell is reaped, a child may still be listed: mom_start.c, fake_pbs/pace.py).
_ORPHANING_KILLS = (TERMJOB, "walltime") + tuple(limits.KILL_STATUS)

# The threads that run jobs (one job each at a time), reused from one job to the next.
_WORKERS = Workers("job")


def _no_pause(seconds: float) -> None:
    """The fast pace: failed copies are tried again at once."""


class StartRejected(Exception):
    """The job is refused before the mom takes it in: PBS's execjob_begin rejection is the mom's
    error reply to the server's job send (req_commit), never a run (m04: no obit, no abort
    hook, no stage-out; the server requeues it)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def begin_reject_code(result: hookpoints.HookResult) -> int:
    """The error the mom answers a refused job send with (req_runjob.c post_sendmom's cases):
    ``job.delete()`` -> 15171, ``job.rerun()`` -> 15170, exception or alarm -> 15136 (the
    hook's fail_action applies), a plain reject -> 15169."""
    if result.delete:
        return PBSE_HOOK_REJECT_DELETEJOB
    if result.rerun:
        return PBSE_HOOK_REJECT_RERUNJOB
    if result.error:
        return PBSE_HOOKERROR
    return PBSE_HOOK_REJECT


class StartFailure(Exception):
    """The job cannot start: its JOB_EXEC code, a note, and whether abort hooks must run."""

    def __init__(self, code: int, note: str, abort: bool = True) -> None:
        super().__init__(note)
        self.code = code
        self.note = note
        self.abort = abort


def hook_reject_code(result: hookpoints.HookResult, event: str) -> int:
    """Reference §6.4: prologue rejects requeue by default, launch rejects delete by default."""
    if event == "execjob_launch":
        return JOB_EXEC_FAILHOOK_RERUN if result.rerun else JOB_EXEC_FAILHOOK_DELETE
    if result.delete:
        return JOB_EXEC_FAILHOOK_DELETE
    if result.error:
        return JOB_EXEC_HOOKERROR
    return JOB_EXEC_FAILHOOK_RERUN


class MomJob:
    """A job whose primary mom is this one."""

    def __init__(self, ctx: MomContext, job: Dict[str, Any]) -> None:
        self.ctx = ctx
        self.job = job
        self.jobid = str(job["id"])
        self.run_count = int(job.get("run_count", 1))
        self.files: JobLayout = ctx.layout.job(self.jobid)
        self.events = EventLog(self.files.events, self.jobid, self.run_count)
        self.wake = threading.Event()
        self.discarded = False
        self._kill_lock = threading.Lock()
        self._term_sent = False
        self._kill_sent = False
        self._reaped_logged = False  # "task 00000001 terminated" logged while orphaned
        self._walltime_polled = 0.0  # the last resource poll that checked the walltime
        self._peak_cput = 0  # the most CPU seconds a poll saw the job's session use
        self._limits_polled = 0.0  # pace pbs: the last resource poll that checked cput, vmem
        self._started_at: Optional[float] = None  # pace pbs: the mom's clock at the start
        self._polled = 0.0  # pace pbs: the last resource poll that sent this job's usage
        self._suspended = False  # a suspended job is not sampled (substate 43, not 42)
        self._obit_resent = False  # a failed stage-out sent the obit again (post_cpyfile)
        # The server's copy file request (stage-out after the obit): set by request_copy, or
        # by discard so that a job deleted meanwhile still has its output delivered.
        self._copy = threading.Event()
        self._stopping = threading.Event()  # the mom stops: no more copy pauses
        # A refused run's files are gone (set by _refuse): the server learns of the refusal
        # from the events, before they go, and may send the next run of the same id at once.
        self._refusal_cleaned = threading.Event()
        self._copy_asked = False
        # The job's own work (start, watch, end) runs on a reused thread (_WORKERS): whether
        # it runs, which thread runs it, and its end.
        self.running = False
        self._runner: Optional[int] = None
        self.finished = threading.Event()
        self._exit_watched = False
        # Records read from the job directory once (docs/performance.md): launch.json and
        # shepherd.json never change once written, kill.json is written only by this object
        # (request_kill, which forgets the cached absence).  A restarted mom reads them anew.
        self._launch: Optional[Dict[str, Any]] = None
        self._shepherd: Optional[Dict[str, Any]] = None
        self._kill: Optional[Dict[str, Any]] = None
        self._kill_read = False
        self._kill_cache_lock = threading.Lock()  # a read racing request_kill's write
        hosts: List[str] = []
        for chunk in job.get("hosts") or []:
            name = str(chunk["host"])
            if name != ctx.host and name not in hosts:
                hosts.append(name)
        self.sisters: Tuple[str, ...] = tuple(hosts)
        self._sister_watch = SisterWatch(ctx, self.jobid, self.sisters)
        self._sisters_checked = 0.0

    # ---- creation and threads ------------------------------------------------------------------

    @classmethod
    def create(cls, ctx: MomContext, job: Dict[str, Any]) -> "MomJob":
        """Store the job durably (spec and script) before anything else happens."""
        files = ctx.layout.job(str(job["id"]))
        # Only reached when no run of this job is active here: leftovers of an older run
        # (events, exit record) must not leak into this one.
        shutil.rmtree(str(files.dir), ignore_errors=True)
        files.dir.mkdir(parents=True, exist_ok=True)
        files.dir.chmod(0o711)
        write_json(files.spec, {"role": "primary", "job": job})
        return cls(ctx, job)

    def run(self, recovering: bool = False) -> None:
        target = self._recover if recovering else self._start
        self.running = True
        _WORKERS.spawn(self._guard, target)

    @property
    def working(self) -> bool:
        """True while the job's own thread is at work (set-up, watch, end)."""
        return self.running and not self.finished.is_set()

    def _guard(self, target: Any) -> None:
        self._runner = threading.get_ident()
        try:
            target()
        except Exception as exc:  # never leave a job without an outcome
            self.ctx.log.job(self.jobid, "mom internal error: %s" % exc, 0x0001)
            if not self.events.has("finish"):
                self._bail(StartFailure(JOB_EXEC_RETRY, "mom internal error: %s" % exc))
            else:
                self._release_all(int((self.events.first("finish") or {}).get("status", 0)))
        finally:
            self._runner = None
            self.finished.set()

    @property
    def done(self) -> bool:
        return self.events.complete

    @property
    def started(self) -> bool:
        return self.files.shepherd.exists()

    def _launch_record(self) -> Optional[Dict[str, Any]]:
        """launch.json (None until the mom wrote it)."""
        if self._launch is None:
            self._launch = read_json(self.files.launch)
        return self._launch

    def _shepherd_record(self) -> Optional[Dict[str, Any]]:
        """shepherd.json (None until the shepherd wrote it)."""
        if self._shepherd is None:
            self._shepherd = read_json(self.files.shepherd)
        return self._shepherd

    def _kill_record(self) -> Optional[Dict[str, Any]]:
        """kill.json: why the mom killed the job, or None."""
        with self._kill_cache_lock:
            if not self._kill_read:
                self._kill = read_json(self.files.kill)
                self._kill_read = True
            return self._kill

    def _site(self) -> hookpoints.HookSite:
        return self.ctx.site(True)

    def _hook(self, event: str, *args: Any) -> hookpoints.HookResult:
        """Run a hook event and pass what the hooks asked of the server (attributes,
        rerun/delete) as an ``update``."""
        result: hookpoints.HookResult
        if event in hookshep.SHEPHERDED:
            # Under a detached shepherd: a restarted mom gets the same result, not a second run.
            result = hookshep.run(self._site(), event, self.job, self.files.dir, list(args))
            if any(e["ev"] == "update" and e.get("hook_event") == event
                   for e in self.events.snapshot()):
                return result  # sent before the mom crashed
        else:
            result = getattr(hookpoints, event)(self._site(), self.job, *args)
        if (result.job_attrs or result.rerun or result.delete) and not self.events.complete:
            self.events.append("update", hook_event=event, attrs=dict(result.job_attrs or {}),
                               rerun=result.rerun, delete=result.delete)
        return result

    # ---- start ---------------------------------------------------------------------------------

    def _start(self) -> None:
        if not self._stage_in():
            return
        try:
            self._setup()
            self._spawn()
        except StartRejected as refused:
            self._refuse(refused)
            return
        except StartFailure as failure:
            self._bail(failure)
            return
        self._watch()

    def _start_from_prologue(self) -> None:
        try:
            self._setup_from_prologue()
            self._spawn()
        except StartFailure as failure:
            self._bail(failure)
            return
        self._watch()

    def _setup(self) -> None:
        ctx, log = self.ctx, self.ctx.log
        log.job(self.jobid, "execvnode=%s" % self.job.get("exec_vnode", ""), 0x0400)
        log.job(self.jobid, "schedselect=%s" % self.job.get("attrs", {}).get(
            "schedselect", self.job.get("attrs", {}).get("Resource_List.select", "")), 0x0400)
        vnodemap.log_setup(ctx.home, self.job, ctx.host, log.job)
        begin = self._hook("execjob_begin")
        if not begin.accept:
            raise StartRejected(begin_reject_code(begin), begin.message)
        failed = join_all(ctx, self.job, self.sisters)
        if failed is not None:
            host, err = failed
            log.job(self.jobid, "job_start_error %d from node %s could not JOIN_JOB successfully"
                    % (err.code, host))
            raise StartFailure(join_failure_code(err.code), "sister %s could not join: %s"
                               % (host, err.text))
        self._write_nodefile()
        try:
            if ctx.faults.armed("jobdir"):
                raise OSError("injected fault: jobdir")
            self._make_tmpdir()
        except OSError as exc:
            raise StartFailure(JOB_EXEC_RETRY, "could not create job directory: %s" % exc)
        self._setup_from_prologue()

    def _setup_from_prologue(self) -> None:
        """The prologue onwards; a restarted mom continues here when the prologue had begun."""
        ctx = self.ctx
        prologue = self._hook("execjob_prologue")
        if not prologue.accept:
            raise StartFailure(hook_reject_code(prologue, "execjob_prologue"),
                               prologue.message or "execjob_prologue hook rejected")
        # With pidfds the mom sees the shepherd exit (exitwatch.py): no notification needed.
        notify = "" if exitwatch.SUPPORTED else str(ctx.layout.socket)
        launch = build_launch(self.job, self.files, ctx.host, str(ctx.home), notify,
                              ctx.is_root)
        self._write_script(launch)
        argv = [str(a) for a in launch["argv"]]
        result = self._hook("execjob_launch", str(launch.get("progname") or argv[0]), argv,
                            dict(launch["env"]))
        if not result.accept:
            # PBS runs execjob_launch in the job's child once its output files are open: they
            # exist, empty, and are staged out (m05d, m05e).
            self._open_spool_files(launch)
            write_json(self.files.launch, launch)
            raise StartFailure(hook_reject_code(result, "execjob_launch"),
                               result.message or "execjob_launch hook rejected")
        if result.argv is not None:
            launch["argv"] = list(result.argv)
        if result.progname is not None:
            launch["progname"] = result.progname
        if result.env is not None:
            launch["env"] = dict(result.env)
        # The sandbox is made by the shepherd's child as the job owner (fake_pbs/mom/shepherd.py).
        write_json(self.files.launch, launch)

    def _open_spool_files(self, launch: Dict[str, Any]) -> None:
        """Create the job's spool files (their fixed names only: never a path elsewhere, nor
        another file of the job directory), empty, mode 0600, owned by the owner."""
        uid, gid = self._owner()
        wanted = {str(launch.get("stdout") or ""), str(launch.get("stderr") or "")}
        for path in self.files.spools:
            if path not in wanted:
                continue
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            except OSError:
                continue
            try:
                if self.ctx.is_root:
                    os.fchown(fd, uid, gid)
            finally:
                os.close(fd)

    def _owner(self) -> Tuple[int, int]:
        if self.ctx.is_root:
            return int(self.job.get("uid", 0)), int(self.job.get("gid", 0))
        return os.getuid(), os.getgid()

    def _write_nodefile(self) -> None:
        lines = nodefile_lines(list(self.job.get("hosts") or [{"host": self.ctx.host}]))
        path = self.files.nodefile
        with open(str(path), "wb") as handle:
            handle.write(("\n".join(lines) + "\n").encode())
        path.chmod(0o644)

    def _make_tmpdir(self) -> None:
        uid, gid = self._owner()
        self.files.tmpdir.mkdir(mode=0o700, exist_ok=True)
        if self.ctx.is_root:
            os.chown(str(self.files.tmpdir), uid, gid)

    def _write_script(self, launch: Dict[str, Any]) -> None:
        script = self.files.script
        with open(str(script), "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(str(self.job.get("script") or ""))
        uid, gid = self._owner()
        if self.ctx.is_root:
            os.chown(str(script), uid, gid)
        script.chmod(0o700)

    def _spawn(self) -> None:
        ctx = self.ctx
        if ctx.faults.armed("fork"):
            raise StartFailure(JOB_EXEC_RETRY, "fork failed: injected fault")
        # Forked by the mom's launcher (no Python start per job), detached as before.
        report = launcher.shared(str(ctx.layout.jobs)).start_shepherd(
            str(self.files.dir), SHEPHERD_START_TIMEOUT)
        record = self._shepherd_record()
        if report == launcher.UNCERTAIN and record is not None:
            report = "ok %d" % int(record["pid"])  # it did start before the launcher failed
        if report.startswith("err " + SETLIM_FAILED):  # mom_set_limits failed: no retry
            raise StartFailure(JOB_EXEC_FAIL2, report[4:])
        if not report.startswith("ok ") or record is None:
            raise StartFailure(JOB_EXEC_RETRY, "job shell did not start: %s" % report[4:])
        self._announce_start(record)

    def _announce_start(self, record: Dict[str, Any]) -> None:
        if self.events.has("start"):
            return
        pid = int(record["pid"])
        self.ctx.log.job(self.jobid, "SID is: %d" % pid, 0x0400)
        self.ctx.log.job(self.jobid, "Started, pid = %d" % pid)
        # sandbox=PRIVATE: the job's jobdir is the sandbox the mom made, sent back with the
        # start (start_exec.c marks jobdir modified for the first update; extra i07c)
        sandbox = (self._launch_record() or {}).get("sandbox")
        extra = {"jobdir": str(sandbox)} if sandbox else {}
        if record.get("pty"):  # start_exec.c: Output_Path/Error_Path name the job's pty (I02)
            extra["pty"] = str(record["pty"])
        self.events.append("start", session_id=pid, pid=pid, **extra)
        self._started_at = self.ctx.clock()
        with self.ctx.polls_lock:
            self.ctx.polls.started(self._started_at)  # start_exec.c: sample, next poll +10 s

    # ---- file staging (fake_pbs/mom/staging.py) -----------------------------------------------

    def _stage_request(self, direction: str, value: Optional[str]) -> Dict[str, Any]:
        """A copy request for the job's stagein or stageout list: run in the owner's home, or
        in the sandbox under ``sandbox=PRIVATE`` (req_cpyfile's chdir)."""
        attrs = self.job.get("attrs", {})
        home_dir = str(self.job.get("home") or "/")
        sandbox = sandbox_dir(attrs, self.jobid, home_dir)
        return {"direction": direction, "jobid": self.jobid, "owner": self._owner_name(),
                "cwd": sandbox or home_dir, "sandbox": sandbox,
                "pauses": self.ctx.pace.copy_pauses,
                "pairs": [list(pair) for pair in staging.for_subjob(staging.stage_pairs(value),
                                                                    self.jobid)]}

    def _owner_name(self) -> str:
        attrs = self.job.get("attrs", {})
        return str(attrs.get("euser") or str(attrs.get("Job_Owner", "")).split("@")[0])

    def _identity(self) -> Dict[str, Any]:
        uid, gid = self._owner()
        return {"uid": uid, "gid": gid, "user": str(self.job.get("user", ""))}

    def _write_stage_log(self, result: Dict[str, Any]) -> None:
        """The log lines of a copy request's work (fake_pbs/mom/staging.py)."""
        for mask, cls, name, text in result.get("log", []):
            self.ctx.log.write(int(mask), str(cls), str(name), str(text))

    def _log_staged(self, done: int, total: int, direction: str, began: float) -> None:
        """req_cpyfile's closing line: ``Staged N/M items in|out over H:MM:SS``."""
        took = int(time.monotonic() - began)
        self.ctx.log.job(self.jobid, "Staged %d/%d items %s over %d:%02d:%02d"
                         % (done, total, direction, took // 3600, took // 60 % 60, took % 60),
                         0x0100)

    def _stage_in(self) -> bool:
        """The stage-in PBS's server asks for before it sends the job (req_runjob.c
        svr_stagein): False when a file could not be copied, the run then ends here as
        post_stagein has it (the server puts the job in W, substate 37)."""
        value = self.job.get("attrs", {}).get("stagein")
        if not value or self.events.has("stagedin"):
            return True
        self.ctx.log.job(self.jobid, "copy file request received", 0x0080)
        began = time.monotonic()
        result = staging.run_as_owner(self._stage_request("in", value), self._identity())
        self._write_stage_log(result)
        # the bad list as req_cpyfile logs it over TPP
        Report(self.ctx.log, self.jobid, self._owner_name(), self.ctx.host).summary(
            [str(line) for line in result.get("bad", [])])
        self._log_staged(int(result.get("done", 0)), int(result.get("total", 0)), "in", began)
        if not result.get("bad"):
            self.events.append("stagedin")
            return True
        if not self.events.complete:
            self.events.append("stagein_failed", bad=list(result.get("bad", [])))
            self.events.append("release", vnodes=[self.ctx.host], final=True)
        try:
            remove_job_dir(self.files)
        finally:
            self._refusal_cleaned.set()
        return False

    # ---- refused before it was taken in -------------------------------------------------------

    @property
    def refused(self) -> bool:
        return self.events.has("rejected") or self.events.has("stagein_failed")

    def _refuse(self, refused: StartRejected) -> None:
        """Answer the job send with the hook's error: the mom keeps nothing of the job (no
        delete-job request follows, no execjob_end runs)."""
        if not self.events.complete:
            self.events.append("rejected", code=refused.code, msg=refused.message)
            self.events.append("release", vnodes=[self.ctx.host], final=True)
        # Its files go at once (the events stay in memory for the stream): a refused job that
        # ends held is never discarded, and must leave nothing behind on the mom.
        try:
            remove_job_dir(self.files)
        finally:
            self._refusal_cleaned.set()

    # ---- failure to start (exec_bail) ----------------------------------------------------------

    def _bail(self, failure: StartFailure) -> None:
        if not self.events.has("finish"):
            word = "Retry" if failure.code == JOB_EXEC_RETRY else "Failure"
            self.ctx.log.job(self.jobid, "job not started, %s %d" % (word, failure.code), 0x0001)
            if failure.abort:
                self._hook("execjob_abort", failure.code)
                self._abort_sisters()
            if not self.events.has("exception"):
                self.events.append("exception", type="exec", severity=0, note=failure.note)
            self._remove_work_files()
            # exec_bail ends the job as a (task-less) kill_job does (f04, f13).
            log = self.ctx.log
            log.job(self.jobid, "task 00000001 cput=00:00:00", 0x0100)
            log.job(self.jobid, "kill_job")
            log.job(self.jobid, "%s cput=00:00:00 mem=0kb" % self.ctx.host, 0x0100)
            staged = self.files.launch.exists()  # output files were opened (launch reject)
            self.events.append("finish", status=failure.code, resources_used={},
                               stage_out=staged)
            log.job(self.jobid, "Obit sent", 0x0100)
            if staged:
                log.job(self.jobid, "no active tasks")  # then the copy request (m05e)
                self._stage_out_when_asked(COPY_WAIT)
        if not self.events.complete:
            self.events.append("release", vnodes=[self.ctx.host] + list(self.sisters), final=True)
            self.ctx.log.job(self.jobid, "no active tasks")

    def _abort_sisters(self) -> None:
        sent = 0
        for host in self.sisters:
            try:
                sister_request(self.ctx, host, "abort", job=self.jobid)
                sent += 1
            except PbsError:
                pass
        if sent != len(self.sisters):
            self.ctx.log.job(self.jobid, "sent %d ABORT requests, should be %d"
                             % (sent, len(self.sisters)))

    # ---- while it runs -------------------------------------------------------------------------

    def _watch(self) -> None:
        """Wait for the shell's exit record; enforce walltime and kill escalation meanwhile."""
        limit = parse_duration(self.job.get("attrs", {}).get("Resource_List.walltime", ""))
        while not self.discarded:
            record = read_json(self.files.exit)
            if record is not None and not self._unseen_until_poll():
                self._seen_at_kill_delay()
                self._complete(record)
                return
            shepherd = self._shepherd_record() or {}
            if record is not None:  # pace pbs: the shell died of the kill; wait for the poll
                if not self._reaped_logged:  # the shell is reaped now; the task stays open
                    self._reaped_logged = True
                    self.ctx.log.job(self.jobid, "task 00000001 terminated", 0x0080)
                self.wake.wait(POLL_SECONDS / 10)
                self.wake.clear()
                continue
            if not self._alive(shepherd):
                record = read_json(self.files.exit)  # it may have been written just now
                if record is None:
                    self._lost("job processes lost (shepherd and job shell are gone)")
                else:
                    self._complete(record)
                return
            self._poll_update()
            tasks.note_attached_usage(self.files.dir)  # an attached session's CPU, while it runs
            self._check_walltime(shepherd, limit)
            self._check_polled_limits()
            self._check_sisters()
            self._escalate(shepherd)
            self.wake.wait(self._exit_wait(shepherd))
            self.wake.clear()

    def _exit_wait(self, shepherd: Dict[str, Any]) -> float:
        """How long to wait for news: the poll interval once the shepherd's exit wakes us
        (exitwatch.py), or where the shepherd tells the mom itself (no pidfds); briefly when
        it could not be watched (no descriptor left) and would not tell."""
        if not self._exit_watched:
            self._exit_watched = self.ctx.exits.watch(
                int(shepherd.get("shepherd_pid", 0)), shepherd.get("shepherd_ticks"), self.wake)
        if self._exit_watched or not exitwatch.SUPPORTED:
            return POLL_SECONDS
        return POLL_SECONDS / 10

    def _unseen_until_poll(self) -> bool:
        """pace pbs: a job sent TermJob is seen ended at a later resource poll once it is 10 s
        old, or at the SIGKILL after kill_delay (requests.c sets the poll back to
        $min_check_poll; mom_start.c leaves a task whose session still had processes to the
        poll; mom_mach.c cput_sum's grace; fake_pbs/pace.py)."""
        if not self.ctx.pace.mom_poll:
            return False
        kill = self._kill_record()
        if kill is None or kill.get("reason") not in _ORPHANING_KILLS:
            return False
        now = self.ctx.clock()
        shepherd = self._shepherd_record() or {}
        started = float(shepherd.get("start_time", kill["at"]))
        with self.ctx.polls_lock:
            due = self.ctx.polls.orphan_seen(float(kill["at"]), started)
        delay = float(self.job.get("kill_delay", DEFAULT_KILL_DELAY))
        return now < min(due, float(kill["at"]) + delay)

    def _seen_at_kill_delay(self) -> None:
        """pace pbs: how an orphaned task ends.  Still open at kill_delay, it gets the SIGKILL:
        ``kill_job``, ``task 00000001 force exited`` (i06d, 11 s after the walltime kill); seen
        empty at a resource poll before that: ``no active process for task`` (master g12)."""
        kill = self._kill_record()
        if (not self._reaped_logged or kill is None or self._kill_sent
                or kill.get("reason") not in _ORPHANING_KILLS):
            return
        delay = float(self.job.get("kill_delay", DEFAULT_KILL_DELAY))
        if self.ctx.clock() - float(kill["at"]) >= delay:
            self._kill_sent = True
            sid = self._session()
            if sid > 0:
                signal_session(sid, signal.SIGKILL)
            self.ctx.log.job(self.jobid, "kill_job")
            self.ctx.log.job(self.jobid, "task 00000001 force exited", 0x0080)
        else:  # the resource poll found the session empty (master g12)
            self.ctx.log.job(self.jobid, "no active process for task 00000001")

    def _await_shepherd_gone(self) -> None:
        """A shepherd still ending writes its exit record into the job directory: it must be
        gone before the directory is, or a job given this id next (after a reset) finds the
        killed run's record in its new directory and ends with its status (265)."""
        shepherd = self._shepherd_record() or {}
        pid, ticks = int(shepherd.get("shepherd_pid", 0)), shepherd.get("shepherd_ticks")
        deadline = time.monotonic() + SHEPHERD_GONE_WAIT
        while same_process_alive(pid, ticks) and time.monotonic() < deadline:
            time.sleep(0.02)

    @staticmethod
    def _alive(shepherd: Dict[str, Any]) -> bool:
        return (same_process_alive(int(shepherd.get("shepherd_pid", 0)),
                                   shepherd.get("shepherd_ticks"))
                or same_process_alive(int(shepherd.get("pid", 0)), shepherd.get("ticks")))

    def _session(self) -> int:
        return int((self._shepherd_record() or {}).get("pid", 0))

    def _poll_update(self) -> None:
        """pace pbs: each resource poll while the job runs sends the server its usage
        (mom_main.c update_jobs_status), so a running job's resources_used and ``qstat -p``'s
        percent move while it runs (k08n: 5 % of 10 min after 33 s); the first one after the
        start still marks the session id modified, so the mom logs ``SID is`` again (i06d at
        start + 10 s; k03n's jobs, ended before that poll, log it once)."""
        if self._started_at is None or not self.ctx.pace.mom_poll or self._suspended:
            return
        with self.ctx.polls_lock:
            polled = self.ctx.polls.last_poll(self.ctx.clock())
        if polled <= max(self._started_at, self._polled):
            return
        first = not self._polled
        self._polled = polled
        sid = self._session()
        if first:
            self.ctx.log.job(self.jobid, "SID is: %d" % sid, 0x0400)
        sample = session_usage(sid) if sid > 0 else {}
        used = poll_usage(self.job.get("attrs", {}), sample, round(polled - self._started_at))
        self.events.append("usage", resources_used=used)

    def _check_walltime(self, shepherd: Dict[str, Any], limit: Optional[int]) -> None:
        """The walltime limit: checked every second (pace fast), or at the mom's resource
        polls as PBS does (pace pbs: i06d's ``walltime 10 exceeded limit 3`` at the first
        poll, 10 s after the start)."""
        if limit is None or self._kill_record() is not None:
            return
        now = self.ctx.clock()
        start = float(shepherd.get("start_time", now))
        if self.ctx.pace.mom_poll:
            # walltime counts from the start's own sample on the mom's clock (start_walltime),
            # so a poll 10 s later reads 10 whatever the fractions (i06d)
            start = start if self._started_at is None else self._started_at
            with self.ctx.polls_lock:
                now = self.ctx.polls.last_poll(now)
            if now <= max(start, self._walltime_polled):
                return
            self._walltime_polled = now
            used = int(round(now - start))
        else:
            used = int(now) - int(start)
        if used <= limit:
            return
        self._kill_over_limit(shepherd, "walltime",
                              "walltime %d exceeded limit %d" % (used, limit))

    def _check_polled_limits(self) -> None:
        """cput and vmem, polled with the walltime (mom_main.c mom_over_limit; limits.py)."""
        attrs, exec_vnode = self.job.get("attrs", {}), str(self.job.get("exec_vnode") or "")
        if not limits.polled(attrs, exec_vnode) or self._kill_record() is not None:
            return
        if self.ctx.pace.mom_poll:  # pace pbs: at the mom's resource polls only
            with self.ctx.polls_lock:
                polled = self.ctx.polls.last_poll(self.ctx.clock())
            if polled <= self._limits_polled:
                return
            self._limits_polled = polled
        sid = self._session()
        sample = session_usage(sid) if sid > 0 else {}
        self._peak_cput = max(self._peak_cput, int(sample.get("cput", 0)))  # cput_sum's max
        over = limits.over_limit(attrs, exec_vnode, self.ctx.host, True,
                                 dict(sample, cput=self._peak_cput))
        if over is not None:
            self._kill_over_limit(self._shepherd_record() or {}, *over)

    def _check_sisters(self) -> None:
        """A sister lost for longer than ``$max_poll_downtime`` ends the job (sisterwatch.py);
        PBS polls the sisters of running jobs only, not of suspended ones."""
        if not self.sisters or self._suspended or self._kill_record() is not None:
            return
        now = self.ctx.clock()
        if now - self._sisters_checked < POLL_SECONDS:
            return
        self._sisters_checked = now
        host = self._sister_watch.check(now)
        if host is None:
            return
        self._sister_watch.log_bailout(host)
        self._kill_at_once(SISTER_LOST)

    def _kill_at_once(self, reason: str) -> None:
        """kill_job(pjob, SIGKILL): no SIGTERM first, no kill_delay."""
        with self._kill_lock:
            if self.files.kill.exists():
                return
            write_json(self.files.kill, {"reason": reason, "at": self.ctx.clock()})
            with self._kill_cache_lock:
                self._kill_read = False
            self._term_sent = self._kill_sent = True
        self.ctx.log.job(self.jobid, "kill_job")
        tasks.kill_all(self.files.dir)
        sid = self._session()
        if sid > 0:
            signal_session(sid, signal.SIGKILL)
        self.wake.set()

    def _kill_over_limit(self, shepherd: Dict[str, Any], reason: str, text: str) -> None:
        """mom_main.c: log the reason, tell the job on its stderr, kill it."""
        self.ctx.log.job(self.jobid, text)
        launch = self._launch_record() or {}
        message = b"=>> PBS: job killed: %s\n" % text.encode()
        if shepherd.get("pty"):  # an interactive job: its stderr is its terminal (I10)
            ptyrelay.write_terminal(str(shepherd["pty"]), message)
        else:
            stderr = str(launch.get("stderr", self.files.stderr_spool))
            append_as_owner(stderr, self.files.spools, launch, message)
        self.request_kill(reason)

    def message(self, text: str, to_stdout: bool, to_stderr: bool) -> None:
        """qmsg (requests.c message_job): append ``text``, ended by a newline, to the job's
        stdout and then its stderr file as asked (a joined stream's file takes both); an
        interactive job's files are its terminal.  A file that cannot be written is the mom's
        refusal (15041)."""
        data = (text if text.endswith("\n") else text + "\n").encode("utf-8", "replace")
        launch = self._launch_record()
        if not launch or self.done:
            raise PbsError(PBSE_MOMREJECT)
        shepherd = self._shepherd_record()
        for wanted, key in ((to_stdout, "stdout"), (to_stderr, "stderr")):
            if not wanted:
                continue
            if shepherd and shepherd.get("pty"):
                ptyrelay.write_terminal(str(shepherd["pty"]), data)
                continue
            if not append_as_owner(str(launch.get(key, "")), self.files.spools, launch, data):
                raise PbsError(PBSE_MOMREJECT)

    def request_kill(self, reason: str) -> None:
        """Record why the job is killed, then SIGTERM it; SIGKILL follows after kill_delay."""
        with self._kill_lock:
            if not self.files.kill.exists():
                write_json(self.files.kill, {"reason": reason, "at": self.ctx.clock()})
                with self._kill_cache_lock:
                    self._kill_read = False  # read it back at the next use
                if reason == TERMJOB:
                    with self.ctx.polls_lock:
                        self.ctx.polls.reset(self.ctx.clock())  # "poll ASAP" (requests.c)
            self._term_sent = False
        self._escalate(self._shepherd_record() or {})
        self.wake.set()

    def _escalate(self, shepherd: Dict[str, Any]) -> None:
        kill = self._kill_record()
        sid = int(shepherd.get("pid", 0))
        if kill is None or sid <= 0:
            return
        with self._kill_lock:
            if not self._term_sent:
                self._term_sent = True
                self.ctx.log.job(self.jobid, "kill_job")
                if self.ctx.faults.armed("bottomup"):
                    signal_session_bottom_up(sid, signal.SIGTERM, BOTTOM_UP_GAP)
                else:
                    signal_session(sid, signal.SIGTERM)
                tasks.signal_all(self.files.dir, signal.SIGTERM)
            delay = float(self.job.get("kill_delay", DEFAULT_KILL_DELAY))
            if not self._kill_sent and self.ctx.clock() - float(kill["at"]) >= delay:
                tasks.kill_all(self.files.dir)
                if signal_session(sid, signal.SIGKILL):
                    self._kill_sent = True
                    self.ctx.log.job(self.jobid, "task 00000001 force exited", 0x0080)

    def send_signal(self, name: str) -> None:
        """The ``signal`` request: TermJob, suspend, resume, or a signal name or number."""
        self.ctx.log.job(self.jobid, "signal job request received", 0x0080)
        self.ctx.log.job(self.jobid, "signal job with %s" % name, 0x0004)
        if name == TERMJOB:
            result = self._hook("execjob_preterm")
            if not result.accept:
                raise PbsError(PBSE_HOOK_REJECT, result.message or None)
            self._forward_to_sisters(name)
            self.request_kill("TermJob")
            return
        number = {SUSPEND: int(signal.SIGSTOP), RESUME: int(signal.SIGCONT),
                  ADMIN_SUSPEND: int(signal.SIGSTOP), ADMIN_RESUME: int(signal.SIGCONT)}.get(
            name, signal_number(name) or 0)
        if number <= 0:
            raise PbsError(PBSE_UNKSIG)
        sid = self._session()
        if name not in (SUSPEND, RESUME, ADMIN_SUSPEND, ADMIN_RESUME):
            self.ctx.log.job(self.jobid, "kill_job")  # a real signal goes through kill_job (k03n)
        if sid > 0:
            signal_session(sid, number)
        if name in (SUSPEND, ADMIN_SUSPEND, RESUME, ADMIN_RESUME):
            self._suspended = name in (SUSPEND, ADMIN_SUSPEND)
        if number == signal.SIGKILL:
            self._forward_to_sisters(name)
        self.wake.set()

    def _forward_to_sisters(self, name: str) -> None:
        for host in self.sisters:
            try:
                sister_request(self.ctx, host, "kill", job=self.jobid, signal=name)
            except PbsError:
                pass

    # ---- the end -------------------------------------------------------------------------------

    def _lost(self, note: str) -> None:
        """No exit record and nothing left running: a definite outcome, never a stuck job."""
        self.ctx.log.job(self.jobid, note, 0x0001)
        if not self.events.has("exception"):
            self.events.append("exception", type="exec", severity=0, note=note)
        self._complete({"status": JOB_EXEC_RERUN, "cput": 0.0, "maxrss_kb": 0,
                        "end_time": self.ctx.clock()})

    def _complete(self, record: Dict[str, Any]) -> None:
        status = int(record["status"])
        kill = self._kill_record()
        if kill is not None and kill.get("reason") == "walltime":
            status = JOB_EXEC_KILL_WALLTIME
        elif kill is not None and kill.get("reason") in limits.KILL_STATUS:
            status = limits.KILL_STATUS[str(kill["reason"])]
        elif kill is not None and kill.get("reason") == SISTER_LOST:
            status = JOB_EXEC_RERUN_SIS_FAIL
        if not self.events.has("finish"):
            self._crash_point("exit-recorded")
            self._finish(record, status)
            self._crash_point("obit-sent")
        self._stage_out_when_asked(COPY_WAIT)
        self._release_all(status)

    def _finish(self, record: Dict[str, Any], status: int) -> None:
        log, jobid = self.ctx.log, self.jobid
        sid = self._session()
        # PBS's kill_job: nothing of the job outlives it.  The shepherd (a subreaper) tells
        # when nothing of the session is left, which spares a scan of /proc (~4 ms).
        if sid > 0 and not record.get("session_empty"):
            signal_session(sid, signal.SIGKILL)
        shepherd = self._shepherd_record() or {}
        start = float(shepherd.get("start_time", record.get("end_time", 0)))
        # The job's TM tasks (pbsdsh, pbs_tmrsh, pbs_attach) end with it, here and on its
        # sisters; their CPU time and memory are the job's too (fake_pbs/mom/tm.py).
        task_cput, task_mem = tm.tasks_usage(self.ctx, self.files.dir, jobid)
        cput = float(record.get("cput", 0)) + task_cput
        used = resources_used(self.job.get("attrs", {}), cput,
                              int(record.get("maxrss_kb", 0)) + task_mem,
                              float(record.get("end_time", start)) - start)
        if not self._reaped_logged:
            log.job(jobid, "task 00000001 terminated", 0x0080)
        log.job(jobid, "Terminated")
        log.job(jobid, "task 00000001 cput=%s" % used["cput"], 0x0100)
        log.job(jobid, "kill_job")
        log.job(jobid, "%s cput=%s mem=%s" % (self.ctx.host, used["cput"], used["mem"]), 0x0100)
        self._hook("execjob_epilogue", status)
        self.events.append("finish", status=status, resources_used=used)
        log.job(jobid, "Obit sent", 0x0100)

    def request_copy(self) -> None:
        """The server's copy file request, sent once it has the obit (req_jobobit.c)."""
        self._copy_asked = True
        self._copy.set()

    def stop_waiting(self) -> None:
        """The mom is stopping: no copy request will be served, stage out at once."""
        self._stopping.set()
        self._copy.set()

    def _stage_out_when_asked(self, wait: float) -> None:
        """PBS's mom stages out on the server's copy file request that follows the obit
        (h01, i06d, k03n: ``Obit sent``, then ``copy file request received``, ``Staged``);
        after ``wait`` seconds without one (or on recovery, wait 0) it stages out anyway."""
        marker = self.files.dir / "stageout.json"
        if marker.exists() or not self.files.launch.exists():
            return  # done before a mom restart, or the job never launched: nothing to copy
        if wait > 0:
            self._copy.wait(wait)
        if self._copy_asked:
            self.ctx.log.job(self.jobid, "copy file request received", 0x0080)
        write_json(marker, {"stageout_status": self._stage_out()})
        self._crash_point("staged")

    def _stage_out(self) -> int:
        launch = self._launch_record()
        if launch is None:
            return 1
        home_dir = str(self.job.get("home") or "/")
        attrs = self.job.get("attrs", {})
        # req_jobobit.c/job_func.c: an interactive job's output was its terminal: no file
        all_streams = {} if is_interactive(attrs) else job_streams(attrs, self.files, home_dir)
        removed = self._removed_streams(attrs)
        streams = [stream for stream in deliveries(all_streams) if stream.key not in removed]
        kept = [stream.write_to for stream in all_streams.values()
                if stream.key in removed and not stream.merged and stream.deliver_to is None]
        if kept:
            staging.run_as_owner({"op": "unlink", "paths": kept}, self._identity())
        report = Report(self.ctx.log, self.jobid, self._owner_name(), self.ctx.host)
        began = time.monotonic()
        sleep = self._copy_pause if self.ctx.pace.copy_pauses else _no_pause
        paused: List[float] = []

        def pause(seconds: float) -> None:
            # The mom logs "no active tasks" while the copy child is in its first pause: the
            # tries before it come first (i05g: try=1, try=2, no active tasks, try=3 ...)
            if seconds > 0 and not paused:
                paused.append(seconds)
                self.ctx.log.job(self.jobid, "no active tasks")
            sleep(seconds)

        done, attempted = deliver(streams, launch, self.ctx.layout.undelivered,
                                  bool(launch.get("drop_privileges")), report, pause,
                                  summarize=False)
        result: Dict[str, Any] = {"done": 0, "total": 0, "bad": [], "log": []}
        request = self._stage_request("out", attrs.get("stageout"))
        if request["pairs"]:
            if done < attempted:
                # req_cpyfile: the files after a failed one are counted, not tried
                result["total"] = len(request["pairs"])
            else:
                result = staging.run_as_owner(request, self._identity())
            self._write_stage_log(result)
        report.summary(list(result.get("bad", [])))
        done += int(result.get("done", 0))
        attempted += int(result.get("total", 0))
        if attempted:
            self._log_staged(done, attempted, "out", began)
        if attrs.get("stagein"):
            # the server's delete files request for the staged-in files (req_jobobit.c
            # STAGEDEL, after the copy; process_request.c logs its arrival)
            self.ctx.log.job(self.jobid, "delete file request received", 0x0080)
            staging.run_as_owner(dict(self._stage_request("in", attrs["stagein"]),
                                      op="delete"), self._identity())
        return 1 if done == attempted else 0

    def _removed_streams(self, attrs: Dict[str, Any]) -> Set[str]:
        """``Remove_Files`` (qsub -R): after a job that ended with status 0 its named streams
        are neither delivered nor kept (job_func.c setup_cpyfiles and the mom's purge); after
        any other end they are delivered as usual."""
        finish = [event for event in self.events.snapshot() if event["ev"] == "finish"]
        if not finish or int(finish[-1].get("status", 1)) != 0:
            return set()
        return set(str(attrs.get("Remove_Files", ""))) & {"o", "e"}

    def _copy_pause(self, seconds: float) -> None:
        """sys_copy's sleep between failed copies; a stopping mom does not wait it out."""
        self._stopping.wait(seconds)

    def _release_all(self, status: int) -> None:
        released = {host for event in self.events.snapshot() if event["ev"] == "release"
                    for host in event.get("vnodes", [])}
        for host in self.sisters:
            if host in released:
                continue
            try:
                sister_request(self.ctx, host, "release", job=self.jobid, exit_status=status)
            except PbsError as err:
                self.ctx.log.job(self.jobid, "sister %s did not release: %s" % (host, err.text))
            self.events.append("release", vnodes=[host], final=False)
        self._remove_work_files()
        if not self.events.complete:
            staged = read_json(self.files.dir / "stageout.json") or {}
            status = int(staged.get("stageout_status", 1))
            self.ctx.log.job(self.jobid, "no active tasks")
            if status == 0 and not (self._launch_record() or {}).get("sandbox"):
                # post_cpyfile (requests.c): a failed stage-out rejects the copy request and
                # sends the obit again; the server's answer is a second delete job request,
                # which finds the job gone (i05g).  sandbox=PRIVATE only flags the failure.
                self._obit_resent = True
                self.ctx.log.job(self.jobid, "Obit sent", 0x0100)
            self.events.append("release", vnodes=[self.ctx.host], final=True,
                               stageout_status=status)
            self._crash_point("released")

    def _remove_work_files(self) -> None:
        shutil.rmtree(str(self.files.tmpdir), ignore_errors=True)
        launch = self._launch_record() or {}
        if launch.get("sandbox"):
            remove_as_owner(str(launch["sandbox"]), launch)

    # ---- recovery and discard ------------------------------------------------------------------

    def _recover(self) -> None:
        """Continue after a mom restart from whatever the files say."""
        if self.events.complete:
            return
        if self.events.has("finish"):
            finish = self.events.first("finish") or {}
            self._stage_out_when_asked(0.0)
            self._release_all(int(finish.get("status", 0)))
            return
        if self.events.has("exception") and not self.started:
            self._bail(StartFailure(JOB_EXEC_RETRY, "job did not start"))
            return
        if (not self.started and not self.files.launch.exists()
                and any(hookshep.in_progress(self.files.dir, event)
                        for event in ("execjob_prologue", "execjob_launch"))):
            self.ctx.log.job(self.jobid, "re-adopted hook run before the job shell started")
            self._start_from_prologue()
            return
        if not self.started and self.files.launch.exists():
            # The shepherd may be starting right now: give it a moment to record itself.
            for _ in range(30):
                if self.started:
                    break
                self.wake.wait(0.1)
        shepherd = self._shepherd_record()
        if shepherd is None:
            self._bail(StartFailure(JOB_EXEC_RETRY, "mom restarted before the job shell started"))
            return
        self.ctx.log.job(self.jobid, "re-adopted job shell, pid = %d" % int(shepherd["pid"]))
        self._announce_start(shepherd)
        self._watch()

    def _crash_point(self, point: str) -> None:
        crashpoints.reach(self.ctx.home, self.ctx.host, point)

    @property
    def discard_requested(self) -> bool:
        """The server's delete-job request was received (and stored) before a mom restart."""
        return self.files.discard.exists()

    def discard(self) -> None:
        """End-of-job cleanup (the server is done with the job): execjob_end, then files.

        The request is stored first, so that a mom killed part-way finishes the cleanup at
        its restart (``MomDaemon.recover``); the job directory goes last, renamed away in one
        step, so a crash never leaves half a job to re-adopt (docs/reliability.md).
        """
        if self.refused:
            # Never taken in: nothing to log, no execjob_end, and its files are _refuse's to
            # remove.  Removing them here too took the next run's directory when that run
            # (same id: the server retries at once) had been created in between (under load:
            # "mom internal error: ... events.jsonl", the job stuck in R).  The next start
            # discards this run first, so waiting here keeps that start behind the removal.
            # (A run recovered after a crash between the refusal and the removal has no
            # _refuse to wait for: after the bound its files go here.)
            if not self._refusal_cleaned.wait(REFUSAL_CLEANUP_WAIT):
                remove_job_dir(self.files)
            return
        self.ctx.log.job(self.jobid, "delete job request received", 0x0080)
        if self.files.dir.is_dir() and not self.discard_requested:
            # Stored by renaming the spec (no new file per job: docs/performance.md); a restart
            # finds the job under this name and finishes the cleanup (MomDaemon.recover).
            try:
                os.replace(str(self.files.spec), str(self.files.discard))
            except FileNotFoundError:
                write_json(self.files.discard, {"role": "primary", "job": self.job})
        self._crash_point("discard-received")
        self.discarded = True
        self.wake.set()
        self._copy.set()
        sid = self._session()
        if sid > 0 and not self.files.exit.exists():
            signal_session(sid, signal.SIGKILL)
        if self.running and self._runner != threading.get_ident():
            self.finished.wait(timeout=10.0)
        self._await_shepherd_gone()
        finish = self.events.first("finish")
        hookshep.run(self._site(), "execjob_end", self.job, self.files.dir,
                     [None if finish is None else int(finish.get("status", 0))])
        self._crash_point("end-hook-done")
        if not self.events.has("start") and not (finish or {}).get("stage_out"):
            self.ctx.log.job(self.jobid, "no active tasks")  # a job that never started (f04)
        self.ctx.log.job(self.jobid, "kill_job")
        self._remove_work_files()
        try:
            self.files.nodefile.unlink()
        except FileNotFoundError:
            pass
        remove_job_dir(self.files)
        if self._obit_resent:  # the delete job request answering the resent obit (i05g)
            self.ctx.log.job(self.jobid, "delete job request received", 0x0080)

    def summary(self) -> Dict[str, Any]:
        state = "done" if self.done else ("running" if self.events.has("start") else "starting")
        if self.events.has("finish") and not self.done:
            state = "exiting"
        return {"id": self.jobid, "run_count": self.run_count, "state": state,
                "session_id": self._session() or None, "sisters": list(self.sisters)}
