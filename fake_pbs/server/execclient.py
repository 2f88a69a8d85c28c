"""The server side of the exec protocol (docs/internals.md §5): start, follow, resume, signal.

One thread per running job follows the primary mom's event stream and applies each event under
the model lock.  When the stream breaks (mom restart) the thread reconnects and sends ``resume``
with the last sequence number it applied; events are idempotent, so nothing is lost or doubled.
A job whose ``start`` could never be delivered is requeued; one whose mom stays away longer than
``node_fail_requeue`` seconds is requeued as PBS does for a failed node.
"""
import pwd
import grp
import threading
import time
from typing import Any, Dict, List, Optional, Set

from fake_pbs import crashpoints, paths, protocol
from fake_pbs.model.errors import PBSE_NORELYMOM, PBSE_PROTOCOL, PBSE_UNKJOBID, PbsError
from fake_pbs.model.states import HISTORY_STATES
from fake_pbs.server import lifecycle
from fake_pbs.server.app import ExecLike, ServerApp
from fake_pbs.server.logs import ERROR
from fake_pbs.workers import Workers

_RETRY_PAUSE = 0.2
_START_ATTEMPTS = 25          # about five seconds for a mom that is still starting
_CONNECT_TIMEOUT = 10.0
_IDLE_PER_HOST = 2            # connections kept open to each mom for requests
TERMJOB = "TermJob"


def primary_host(job: Dict[str, Any]) -> str:
    exec_host = str(job.get("exec_host", ""))
    return exec_host.split("/")[0].split("+")[0]


class ExecClient(ExecLike):
    def __init__(self, app: ServerApp) -> None:
        self.app = app
        self._following: Set[str] = set()  # the run keys (lifecycle.run_key) followed now
        self._followers = Workers("exec")  # a follower per run, threads reused
        self._guard = threading.Lock()
        self._workers = Workers("discard")  # the delete-job requests, threads reused
        self._idle: Dict[str, List[protocol.LineChannel]] = {}  # per host, for request()

    # -- following jobs -----------------------------------------------------------------------
    def start(self, jobid: str) -> None:
        """Send the job to its primary mom and follow its events (in a thread)."""
        self._spawn(jobid)

    def resume_all(self) -> None:
        """After a server restart: follow again every job that was running."""
        with self.app.state.lock:
            for job in [j for j in self.app.state.jobs.values()
                        if j.get("job_state") == "E"
                        and j.get("substate") == str(lifecycle.SUB_STAGEOUT)]:
                lifecycle.end_e_phase(self.app, job)  # pace pbs: the obit was in already
            active = [j["_id"] for j in self.app.state.jobs.values()
                      if j.get("job_state") in ("R", "E", "S") and j.get("exec_host")]
        for jobid in active:
            self._spawn(jobid)

    def _spawn(self, jobid: str) -> None:
        # One follower per run: the thread of the previous run may still be finishing its
        # final event when the requeued job is sent again.
        with self.app.state.lock:
            job = self.app.state.jobs.get(jobid)
            key = lifecycle.run_key(job) if job else jobid
        with self._guard:
            if key in self._following:
                return
            self._following.add(key)
        try:
            self._followers.spawn(self._follow_run, jobid, key)
        except BaseException:
            with self._guard:
                self._following.discard(key)
            raise

    def _follow_run(self, jobid: str, key: str) -> None:
        try:
            self._follow(jobid, key)
        finally:
            with self._guard:
                self._following.discard(key)

    def _snapshot(self, jobid: str) -> Optional[Dict[str, Any]]:
        with self.app.state.lock:
            job = self.app.state.jobs.get(jobid)
            if job is None or job.get("job_state") not in ("R", "E", "S"):
                return None
            return dict(job)

    def _follow(self, jobid: str, key: str) -> None:
        failures = 0
        lost_since: Optional[float] = None
        while not self.app.stopping.is_set():
            job = self._snapshot(jobid)
            if job is None or lifecycle.run_key(job) != key:
                return  # the run ended: it ran again, or the id now names another job
            host = primary_host(job)
            try:
                channel = protocol.connect(paths.mom_socket(self.app.home, host),
                                           timeout=_CONNECT_TIMEOUT)
            except OSError:
                failures += 1
                if not job.get("_sent") and failures >= _START_ATTEMPTS:
                    self._lost(jobid, job, "could not reach mom %s" % host)
                    return
                # A mom that stays away: its node goes down and node_fail_requeue applies
                # (nodehealth.py); until then keep trying, the run may well resume.
                lost_since = lost_since or time.monotonic()
                time.sleep(_RETRY_PAUSE)
                continue
            try:
                channel.sock.settimeout(None)
                done = self._stream(channel, jobid, job)
            except (OSError, ValueError):
                done = False
            finally:
                channel.close()
            if done:
                return
            lost_since = lost_since or time.monotonic()
            time.sleep(_RETRY_PAUSE)

    def _stream(self, channel: protocol.LineChannel, jobid: str, job: Dict[str, Any]) -> bool:
        if job.get("_sent"):
            channel.send({"op": "resume", "job": jobid, "run_count": int(job["run_count"]),
                          "after_seq": int(job.get("_last_seq", 0))})
            if "_obit" in job and job.get("_started"):
                # The obit was stored before a server restart: ask for the stage-out again
                # rather than leave the mom waiting out its COPY_WAIT.
                self._copy_files(jobid, job)
        else:
            channel.send({"op": "start", "job": self._start_spec(job)})
            with self.app.state.lock:
                live = self.app.state.jobs.get(jobid)
                if live is not None and lifecycle.run_key(live) == lifecycle.run_key(job):
                    live["_sent"] = True
                    self.app.state.save_job(jobid)
        started = bool(job.get("_started"))
        for message in channel.messages():
            if "ev" not in message:
                if message.get("ok") is False:
                    self._rejected(jobid, job, message)
                    return True
                continue
            started = started or message.get("ev") == "start"
            if message.get("ev") == "finish" and started and self.app.pace.obit_latency > 0:
                # pace pbs: a job that ran obits ~1 s after the mom's "Obit sent" (h01); a
                # failed start does not (f21-f24: 20 attempts of a 3 s hook in 67 s)
                time.sleep(self.app.pace.obit_latency)
            if message.get("ev") == "finish":
                crashpoints.reach(self.app.home, "server", "obit-received")
            elif message.get("ev") == "release" and message.get("final"):
                crashpoints.reach(self.app.home, "server", "release-received")
            with self.app.state.lock:
                live = self.app.state.jobs.get(jobid)
                if live is None or lifecycle.run_key(live) != lifecycle.run_key(job):
                    return True  # a stale stream: its job is gone and the id reused
                if lifecycle.apply_event(self.app, message):
                    return True
            if message.get("ev") == "finish" and (started or message.get("stage_out")):
                crashpoints.reach(self.app.home, "server", "obit-saved")
                self._copy_files(jobid, job)
        return False

    def _copy_files(self, jobid: str, job: Dict[str, Any]) -> None:
        """The obit is in: ask the mom to stage out (req_jobobit.c's copy file request; the
        mom's output goes out now, h01).  A mom that misses it stages out on its own."""
        try:
            self.request(primary_host(job), "copy", job=jobid, run_count=int(job["run_count"]))
        except PbsError:
            return
        crashpoints.reach(self.app.home, "server", "copy-sent")

    def _rejected(self, jobid: str, job: Dict[str, Any], reply: Dict[str, Any]) -> None:
        """The mom refused start/resume: the run is lost; requeue it (node failure path)."""
        self.app.log.job(jobid, "send of job to %s failed error = %s" % (
            primary_host(job), reply.get("code")), ERROR)
        self._lost(jobid, job, str(reply.get("msg", "")))

    def _lost(self, jobid: str, job: Dict[str, Any], why: str) -> None:
        with self.app.state.lock:
            live = self.app.state.jobs.get(jobid)
            if live is None or lifecycle.run_key(live) != lifecycle.run_key(job) or (
                    live.get("job_state") in HISTORY_STATES):
                return  # gone, run again, or ended on the server meanwhile (a forced delete)
            if "_obit" in live:
                # The obit is stored and the mom no longer has the run: it was released and
                # its output staged (a mom forgets a run only on the delete-job request,
                # which stages out first).  The recorded end stands; PBS never requeues a
                # job whose obit it has (req_jobobit.c) - a guess of -20 here ran a
                # finished job twice (issue 15).
                self.app.log.job(jobid, "run %s ended on %s, its obit recorded" % (
                    live.get("run_count"), primary_host(live)), 0x0080)
                lifecycle.complete(self.app, live)
                return
            self.app.log.job(jobid, "Unable to Run Job, %s" % why, ERROR)
            live["_exit"] = -3 if not live.get("_started") else -20
            lifecycle.complete(self.app, live)

    def _start_spec(self, job: Dict[str, Any]) -> Dict[str, Any]:
        uid = int(job.get("_uid", 0))
        gid = int(job.get("_gid", 0))
        user = str(job.get("_user", ""))
        try:
            home = pwd.getpwuid(uid).pw_dir
        except KeyError:
            home = "/"
        attrs = {k: v for k, v in job.items() if not k.startswith("_")}
        return {"id": job["_id"], "run_count": int(job["run_count"]),
                "run_key": lifecycle.run_key(job), "attrs": attrs,
                "script": job.get("_script", ""), "exec_vnode": job.get("exec_vnode", ""),
                "hosts": job.get("_hosts") or lifecycle.hosts_from_vnode(
                    str(job.get("exec_vnode", ""))),
                "uid": uid, "gid": gid, "user": user, "group": _group_name(gid), "home": home,
                "kill_delay": _kill_delay(job, self.app.state.queues.get(
                    str(job.get("queue", "")), {}))}

    # -- plain requests -----------------------------------------------------------------------
    def request(self, host: str, op: str, **args: Any) -> Any:
        """One request to the mom of ``host`` and its ``data``, on a connection kept from an
        earlier request when there is one (a job's copy and delete-job requests were two
        connections, accepts and threads in each daemon: docs/performance.md)."""
        channel = self._idle_channel(host)
        if channel is not None:
            try:
                channel.send(dict(args, op=op))
            except OSError:
                channel.close()  # the mom closed it (restarted): nothing was delivered
                channel = None
            if channel is not None:
                return self._reply(host, channel)
        try:
            channel = protocol.connect(paths.mom_socket(self.app.home, host),
                                       timeout=_CONNECT_TIMEOUT)
        except OSError:
            raise PbsError(PBSE_NORELYMOM, "No reply from MOM")
        try:
            channel.send(dict(args, op=op))
        except OSError:
            channel.close()
            raise PbsError(PBSE_NORELYMOM, "No reply from MOM")
        return self._reply(host, channel)

    def _reply(self, host: str, channel: protocol.LineChannel) -> Any:
        """The reply to the request just sent on ``channel``; the channel is kept for the next
        request after a whole reply, closed otherwise."""
        try:
            reply = channel.receive()
        except (OSError, ValueError):
            reply = None
        if reply is None:
            channel.close()
            raise PbsError(PBSE_NORELYMOM, "No reply from MOM")
        self._keep(host, channel)
        if not reply.get("ok"):
            raise PbsError(int(reply.get("code", PBSE_PROTOCOL)), reply.get("msg"))
        return reply.get("data")

    def _idle_channel(self, host: str) -> Optional[protocol.LineChannel]:
        with self._guard:
            kept = self._idle.get(host)
            return kept.pop() if kept else None

    def _keep(self, host: str, channel: protocol.LineChannel) -> None:
        with self._guard:
            kept = self._idle.setdefault(host, [])
            if len(kept) < _IDLE_PER_HOST:
                kept.append(channel)
                return
        channel.close()

    def signal(self, jobid: str, signal: str) -> None:
        """Send ``signal`` to the job's primary mom (call with the model lock held).

        Until the mom reports the run started, a signal is also held for the start (applied
        by ``lifecycle``): the mom may not have the job yet (the start is in flight, so it
        answers Unknown Job Id), or have no process to stop or kill yet.  A TermJob the mom
        took is not repeated: the mom keeps it for the job's processes.  Without this, on a
        slow machine a requeue sent just after the run began ended the job here while the
        mom went on to run it (an orphan holding its cpus; CI saw it).
        """
        with self.app.state.lock:
            job = self.app.state.jobs.get(jobid)
            host = primary_host(job) if job else ""
            try:
                self.request(host, "signal", job=jobid, signal=signal)
            except PbsError as err:
                if job is None or job.get("_started") or err.code != PBSE_UNKJOBID:
                    raise
                lifecycle.hold_signal(job, signal)
                return
            if job is not None and not job.get("_started") and signal != TERMJOB:
                lifecycle.hold_signal(job, signal)

    def message(self, jobid: str, text: str, stdout: bool, stderr: bool) -> None:
        """qmsg's message for the job's primary mom to append to its output files (call with
        the model lock held)."""
        job = self.app.state.jobs.get(jobid)
        self.request(primary_host(job) if job else "", "message", job=jobid, text=text,
                     stdout=stdout, stderr=stderr)

    def discard(self, jobid: str, host: str, run_count: int, run_key: str) -> None:
        """The delete-job request for run ``run_count`` (a late one must not end the requeued
        job's next run, nor a new job given the same id after a reset), in the background.
        Called once the job's end is saved: the mom then forgets the run; if the request is
        lost, the next reconcile sends it again (nodehealth.py)."""
        def send() -> None:
            try:
                self.request(host, "discard", job=jobid, run_count=run_count, run_key=run_key)
            except PbsError:
                return
            crashpoints.reach(self.app.home, "server", "discard-sent")
        self._workers.spawn(send)


def _kill_delay(job: Dict[str, Any], queue: Dict[str, Any]) -> int:
    """Seconds between TermJob's SIGTERM and SIGKILL: the queue's kill_delay, else 10."""
    try:
        return int(queue.get("kill_delay") or 10)
    except (TypeError, ValueError):
        return 10


def _group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)
