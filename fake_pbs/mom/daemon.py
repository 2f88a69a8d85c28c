"""The mom daemon: one per fake host, a Unix socket, a thread per connection.

Requests (docs/internals.md §5; one JSON line each, see fake_pbs.protocol):

- server -> mom: ``start`` {job} and ``resume`` {job, run_count, after_seq} answer with the job's
  event stream (``{"ev": ...}`` lines up to ``release`` final); a refusal is one plain error reply
  (``{"ok": false, ...}``: 15009 a different run of the job is still active, 15001 unknown job on
  resume). ``signal`` {job, signal}, ``discard`` {job}, ``copy`` {job, run_count} (stage out
  now), ``hookfile`` {name, delete} (logged only), ``status`` {}, ``fault`` {fault},
  ``shutdown`` {} are request/reply.
- mom -> mom (sisters): ``join`` {job}, ``abort`` {job}, ``kill`` {job, signal},
  ``release`` {job, exit_status}.
- TM tasks (fake_pbs/mom/tm.py): ``tm_spawn`` {job, node, argv} (server -> primary),
  ``task_start`` {job, launch} and ``task_usage`` {job} (primary -> sister), ``task_wait``
  {job, task, wait} and ``task_kill`` {job, task, signal} (server -> the task's mom).
- shepherd -> mom: ``shepherd_exit`` {job} (a hint; the mom polls as well), only where the mom
  cannot watch the shepherd's exit itself (fake_pbs/mom/exitwatch.py).

Only root and the user running the mom may connect (SO_PEERCRED).
"""
import os
import shutil
import socket
import stat
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from fake_pbs.model.errors import (PBSE_BADCRED, PBSE_IVALREQ, PBSE_JOBEXIST, PBSE_UNKJOBID,
                                   PBSE_UNKREQ, PbsError, detail)
from fake_pbs.mom import hookpoints, hookshep, hostnames, launcher
from fake_pbs.mom.context import MomContext
from fake_pbs.mom.durable import UntrustedRecord, read_json
from fake_pbs.mom.faults import SLOW_START
from fake_pbs.mom.job import MomJob
from fake_pbs.mom.sisters import DropConnection, SisterJobs
from fake_pbs.mom.tm import TM_OPS, TaskManager
from fake_pbs.protocol import LineChannel, Message, ok
from fake_pbs.unixaccept import accept
from fake_pbs.verified_connect import peer_uid
from fake_pbs.workers import Workers

STREAM_POLL = 1.0
DRAIN_SECONDS = 10.0  # bound on a phased stop (fake-pbs stop waits 15 s before SIGKILL)
DISCARD_WAIT = 60.0  # bound on waiting for the previous run's cleanup (execjob_end alarm)
ARRIVAL_WAIT = 30.0  # bound on waiting for a job being taken in


def _same_run(held: Dict[str, Any], spec: Dict[str, Any]) -> bool:
    """Whether a start is for the run this mom holds: same run_count, and same run key when
    both have one (job ids come back after a reset, run keys do not)."""
    if int(held.get("run_count", 1)) != int(spec.get("run_count", 1)):
        return False
    return not (held.get("run_key") and spec.get("run_key")) or \
        held.get("run_key") == spec.get("run_key")


def _same_job(held: Dict[str, Any], spec: Dict[str, Any]) -> bool:
    """Whether a start is for the job this mom holds (another run of it: a requeue), rather
    than for a new job given its id after a reset: the server, which names the runs, is done
    with that one, so it is discarded (killed, staged out) to make room."""
    if not (held.get("run_key") and spec.get("run_key")):
        return True
    return str(held["run_key"]).rsplit("#", 1)[-1] == str(spec["run_key"]).rsplit("#", 1)[-1]


QUARANTINE = ".bad-"  # prefix of a job directory moved aside by recovery


def job_record(jobdir: Path, entry: str) -> Optional[Dict[str, Any]]:
    """The spec record of a job directory found at start-up, or None when it has none yet.

    Believed only when the directory is this mom's own (a real directory of its user that no
    one else may write), the record passes durable.untrusted, and the job id it names is the
    directory's own name: a record naming another id would have the mom act on paths of that
    id's choosing.  Anything else raises ValueError or OSError."""
    info = os.lstat(str(jobdir))
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise UntrustedRecord("%s: not a directory of the mom's own" % jobdir)
    # A job whose discard had begun keeps its spec as discard.json (MomJob.discard).
    record = read_json(jobdir / "spec.json") or read_json(jobdir / "discard.json")
    if record is None:
        return None
    job = record.get("job")
    if not isinstance(job, dict) or str(job.get("id")) != entry:
        raise UntrustedRecord("%s: the record names job %r" % (
            jobdir, job.get("id") if isinstance(job, dict) else None))
    if record.get("role") not in ("primary", "sister"):
        raise UntrustedRecord("%s: unknown role %r" % (jobdir, record.get("role")))
    return record


class MomDaemon:
    def __init__(self, ctx: MomContext) -> None:
        self.ctx = ctx
        self.jobs: Dict[str, MomJob] = {}
        self.sisters = SisterJobs(ctx)
        self.lock = threading.Lock()
        # Jobs whose end-of-job cleanup runs now: a new run of the same job waits for it, as
        # both use the same job directory.
        self.discarding: Dict[str, threading.Event] = {}
        # Jobs being taken in (a start received, the job not registered yet): a restarted
        # server's resume for one waits until it is in, rather than finding no such job and
        # losing the run (a loaded host).  Signals do not wait: the server holds them.
        self.arriving: Dict[str, threading.Event] = {}
        self.stopping = threading.Event()
        self.listener: Optional[socket.socket] = None
        self.workers = Workers("mom-conn")  # one connection each, threads reused
        self.tm = TaskManager(ctx, self._primary_spec, self.sisters.jobs.get)

    # ---- life ----------------------------------------------------------------------------------

    def bind(self) -> None:
        path = self.ctx.layout.socket
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        os.chmod(str(path), 0o600)
        listener.listen(128)
        listener.settimeout(0.5)
        self.listener = listener

    def recover(self) -> None:
        """Re-adopt every job found on disk: live shepherds, finished ones, lost ones.

        Each job directory is checked before anything of it is believed (job_record); one
        that fails is moved aside and logged, never the end of the restart."""
        jobs_dir = self.ctx.layout.jobs
        for entry in sorted(os.listdir(str(jobs_dir))):
            if entry.startswith(".gone-"):
                shutil.rmtree(str(jobs_dir / entry), ignore_errors=True)  # discarded already
                continue
            if entry.startswith(QUARANTINE):
                continue  # kept as evidence for the administrator
            try:
                self._adopt(entry)
            except (OSError, ValueError, TypeError, KeyError) as exc:
                self._quarantine(entry, exc)

    def _quarantine(self, entry: str, why: Exception) -> None:
        """Move a job directory that cannot be trusted out of the way (PBS's mom leaves a
        suspect file in place as evidence and logs it: start_exec.c log_suspect_file)."""
        jobs_dir = self.ctx.layout.jobs
        aside = "%s%s-%d" % (QUARANTINE, entry, os.getpid())
        try:
            os.replace(str(jobs_dir / entry), str(jobs_dir / aside))
        except OSError:
            aside = entry
        self.ctx.log.write(0x0020 | 0x0001, "Job", entry,
                           "job record not trusted, moved aside to %s: %s" % (aside, why))

    def _adopt(self, entry: str) -> None:
        record = job_record(self.ctx.layout.jobs / entry, entry)
        if record is None:
            return
        job = record["job"]
        if record.get("role") == "sister":
            self.sisters.adopt(entry, job)
            return
        momjob = MomJob(self.ctx, job)
        self.jobs[momjob.jobid] = momjob
        self._count_jobs()
        if momjob.discard_requested or (
                momjob.done and hookshep.in_progress(momjob.files.dir, "execjob_end")):
            # Killed mid-discard: the server's end is saved, it will not ask again.
            threading.Thread(target=self._discard, args=(momjob.jobid, momjob.run_count),
                             name="discard-" + momjob.jobid, daemon=True).start()
            return
        momjob.run(recovering=True)

    def serve_forever(self) -> None:
        assert self.listener is not None
        self.ctx.log.server("Is up")
        if not hostnames.trusted(self.ctx.home):
            self.ctx.log.server(hostnames.NO_COMPILER if shutil.which("cc") is None else
                                hostnames.NOT_BUILT, 0x0002)
        hookpoints.exechost_startup(self.ctx.site(False))
        drain_until: Optional[float] = None
        while True:
            if self.stopping.is_set():
                # Phased stop: refuse new starts, keep serving the rest (sisters, signals)
                # until the in-flight starts, epilogues and cleanups are over, or the bound.
                drain_until = drain_until or time.monotonic() + DRAIN_SECONDS
                if not self.in_flight() or time.monotonic() >= drain_until:
                    break
            try:
                conn = accept(self.listener)
            except socket.timeout:
                continue
            except OSError:
                if self.stopping.is_set():
                    break
                raise
            conn.settimeout(None)
            self.workers.spawn(self._connection, conn)
        self.listener.close()
        try:
            self.ctx.layout.socket.unlink()
        except FileNotFoundError:
            pass
        # The shepherd launcher would end at our exit anyway (EOF); ending it here means no
        # process of this mom is left once ``fake-pbs stop`` sees the mom gone.
        launcher.shared(str(self.ctx.layout.jobs)).close()
        self.ctx.log.server("Is down")

    def stop(self) -> None:
        self.stopping.set()
        with self.lock:
            jobs = list(self.jobs.values())
        for job in jobs:
            job.stop_waiting()  # a job awaiting the copy request stages out now

    def in_flight(self) -> List[str]:
        """Jobs this mom is busy with beyond watching a running shell: set-up and prologue,
        epilogue and stage-out, end-of-job cleanup (execjob_end)."""
        with self.lock:
            jobs = list(self.jobs.values())
            busy = list(self.discarding)
        for job in jobs:
            if not job.working or job.done:
                continue
            if not job.events.has("start") or job.files.exit.exists():
                busy.append(job.jobid)
        return busy

    # ---- one connection ------------------------------------------------------------------------

    def _connection(self, conn: socket.socket) -> None:
        channel = LineChannel(conn)
        try:
            uid = peer_uid(conn)
            if uid not in (0, os.geteuid()):
                channel.send(PbsError(PBSE_BADCRED).to_wire())
                return
            for msg in channel.messages():
                op = str(msg.get("op", ""))
                if op in ("start", "resume"):
                    self._stream(channel, msg)
                    continue
                try:
                    reply = ok(self._dispatch(op, msg))
                except PbsError as err:
                    reply = err.to_wire()
                except (KeyError, TypeError, ValueError) as exc:
                    reply = PbsError(PBSE_IVALREQ, detail(PBSE_IVALREQ, str(exc), ": ")).to_wire()
                channel.send(reply)
        except (DropConnection, OSError, ValueError):
            pass
        finally:
            channel.close()

    def _dispatch(self, op: str, msg: Message) -> Any:
        if op in TM_OPS:  # TM tasks: fake_pbs/mom/tm.py
            return self.tm.handle(op, msg)
        if op == "signal":
            self._job(msg).send_signal(str(msg["signal"]))
            return None
        if op == "message":
            self._job(msg).message(str(msg["text"]), bool(msg.get("stdout")),
                                   bool(msg.get("stderr")))
            return None
        if op == "discard":
            return self._discard(str(msg["job"]), msg.get("run_count"), msg.get("run_key"))
        if op == "copy":
            target = self._job(msg)
            if int(msg.get("run_count", target.run_count)) == target.run_count:
                target.request_copy()
            return None
        if op == "status":
            with self.lock:
                jobs = [job.summary() for job in self.jobs.values()]
            return {"host": self.ctx.host, "pid": os.getpid(), "jobs": jobs,
                    "sister_jobs": sorted(self.sisters.jobs), "faults": self.ctx.faults.listing()}
        if op == "fault":
            try:
                return {"faults": self.ctx.faults.arm(str(msg.get("fault", "")))}
            except ValueError:
                raise PbsError(PBSE_IVALREQ, "unknown fault %r" % msg.get("fault"))
        if op == "shepherd_exit":
            job = self.jobs.get(str(msg.get("job")))
            if job is not None:
                job.wake.set()
            return None
        if op == "hookfile":
            # The hooks themselves are read from the server's store; the request is logged as
            # PBS's mom logs it (process_request.c, m04f/m05e/m06d).
            self.ctx.log.write(0x0080, "Hook", str(msg.get("name", "")), "%s hook-related file "
                               "request received" % ("delete" if msg.get("delete") else "copy"))
            return None
        if op == "shutdown":
            self.stop()
            return None
        if op == "join":
            self.sisters.join(dict(msg["job"]))
            return None
        if op == "abort":
            self.sisters.abort(str(msg["job"]))
            return None
        if op == "poll":  # the primary's IM_POLL_JOB (sisterwatch.py): this mom is up
            return {"held": str(msg.get("job")) in self.sisters.jobs}
        if op == "kill":
            self.sisters.kill(str(msg["job"]), str(msg.get("signal", "")))
            return None
        if op == "release":
            self.sisters.release(str(msg["job"]), int(msg.get("exit_status", 0)))
            return None
        raise PbsError(PBSE_UNKREQ)

    def _job(self, msg: Message, wait_arrival: bool = False) -> MomJob:
        jobid = str(msg.get("job"))
        with self.lock:
            job = self.jobs.get(jobid)
            arrival = self.arriving.get(jobid) if job is None and wait_arrival else None
        if arrival is not None:
            arrival.wait(ARRIVAL_WAIT)
            with self.lock:
                job = self.jobs.get(jobid)
        if job is None:
            raise PbsError(PBSE_UNKJOBID)
        return job

    def _primary_spec(self, jobid: str) -> Optional[Dict[str, Any]]:
        """The start message's job object of a job this mom runs as primary, or None."""
        with self.lock:
            job = self.jobs.get(jobid)
        return None if job is None or job.done else job.job

    def _count_jobs(self) -> None:
        """Tell the poll clock how many jobs the mom holds (an idle mom's polls sample
        nothing: fake_pbs/pace.py).  Called with ``self.lock`` held, or during recovery."""
        with self.ctx.polls_lock:
            self.ctx.polls.set_jobs(self.ctx.clock(), len(self.jobs))

    def _discard(self, jobid: str, run_count: Any = None, run_key: Any = None) -> None:
        with self.lock:
            job = self.jobs.get(jobid)
            if job is not None and run_count is not None and int(run_count) != job.run_count:
                return  # a late discard of an earlier run: the current run is not its
            if job is not None and run_key and job.job.get("run_key") not in (None, run_key):
                return  # a late discard of the job that had this id before a reset
            job = self.jobs.pop(jobid, None)
            self._count_jobs()
            done = threading.Event()
            if job is not None:
                self.discarding[jobid] = done
        if job is not None:
            try:
                job.discard()
            finally:
                with self.lock:
                    self.discarding.pop(jobid, None)
                done.set()

    # ---- the event stream ----------------------------------------------------------------------

    def _stream(self, channel: LineChannel, msg: Message) -> None:
        try:
            job, after = self._stream_target(msg)
        except PbsError as err:
            channel.send(err.to_wire())
            return
        while not self.stopping.is_set():
            for event in job.events.wait_after(after, STREAM_POLL):
                channel.send(event)
                after = int(event["seq"])
                if event.get("ev") == "release" and event.get("final"):
                    return

    def _stream_target(self, msg: Message) -> Tuple[MomJob, int]:
        if msg["op"] == "resume":
            job = self._job(msg, wait_arrival=True)
            if int(msg.get("run_count", job.run_count)) != job.run_count:
                raise PbsError(PBSE_UNKJOBID)
            return job, int(msg.get("after_seq", 0))
        spec = dict(msg["job"])
        jobid = str(spec["id"])
        if self.stopping.is_set():
            raise PbsError(PBSE_IVALREQ, "mom is shutting down")
        # A run of this id being cleaned up, or another start of it still arriving (it may be
        # discarding the run before it): wait for that rather than refuse at once, which had
        # the server burn its 20 start attempts within a second (CI: held after 21 runs).
        deadline = time.monotonic() + DISCARD_WAIT
        while time.monotonic() < deadline:
            with self.lock:
                pending = self.discarding.get(jobid) or self.arriving.get(jobid)
            if pending is None:
                break
            pending.wait(max(0.0, deadline - time.monotonic()))
        with self.lock:
            existing = self.jobs.get(jobid)
            if existing is not None and _same_run(existing.job, spec):
                return existing, 0  # the same start again (server restart): replay from the top
            if existing is not None and not existing.done and _same_job(existing.job, spec):
                raise PbsError(PBSE_JOBEXIST)
            if jobid in self.arriving:
                raise PbsError(PBSE_JOBEXIST)
            if existing is not None:
                del self.jobs[jobid]
            arrival = self.arriving[jobid] = threading.Event()
        try:
            if existing is not None:
                existing.discard()
            if self.ctx.faults.armed("slow"):
                time.sleep(SLOW_START)
            job = MomJob.create(self.ctx, spec)
            with self.lock:
                self.jobs[jobid] = job
                self._count_jobs()
        finally:
            with self.lock:
                self.arriving.pop(jobid, None)
            arrival.set()
        job.run()
        return job, 0
