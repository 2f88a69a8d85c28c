"""The scheduling thread: a cycle when something changed, else every ``scheduler_iteration``.

The cycle itself is the pure ``run_cycle`` (``fake_pbs.server.sched.cycle``);
this module gathers its inputs under the model lock and applies its result: each ``Run`` starts a
job (runjob hook, vnodes charged, ``start`` sent to the mom), each comment is set on its job.
A one-second housekeeping tick releases ``-a`` jobs whose time came, purges old history and runs
the periodic hook point.
"""
import threading
import time
from typing import Any, Dict, List, Optional, Set, Tuple

from fake_pbs.model import sched_config
from fake_pbs.model import states as st
from fake_pbs.model.errors import PbsError
from fake_pbs.server import assigned, hookpoints, lifecycle, preemption, reqlog, routing, subjobs
from fake_pbs.server.app import SchedulerLike, ServerApp
from fake_pbs.server.logs import DEBUG, JOB, SCHED
from fake_pbs.server.resv import confirm as resv_confirm, records as resv_records
from fake_pbs.server.resv import timeline as resv_timeline
from fake_pbs.server.sched.cycle import run_cycle
from fake_pbs.server.sched.resources import consumables_of, pooled_of

# A cycle that preempted runs the pure cycle again over the jobs it has not considered yet
# (PBS's scheduler goes on with the updated universe); bounded so that a cycle always ends.
_MAX_PASSES = 20
# States of a job that holds vnodes (its end is a SCH_SCHEDULE_TERM for the next cycle).
_HOLDING_STATES = frozenset((st.RUNNING, st.EXITING, st.SUSPENDED))
#: Queued subjobs of one array a cycle considers (the first by index; the rest wait their turn
#: in later cycles, as each cycle starts more).
SUBJOBS_PER_CYCLE = 100
#: the scheduler's log line for a sched_config line the fake takes no action on
UNMODELLED = "%s: not modelled by fake_pbs, ignored (docs/differences.md)"


def scheduling_enabled(app: ServerApp) -> bool:
    """``scheduling`` is True on both the server and the scheduler object."""
    state = app.state
    return (state.server.get("scheduling", "True") == "True"
            and state.sched.get("scheduling", "True") == "True")


def public(attrs: Dict[str, Any]) -> Dict[str, str]:
    return {k: v for k, v in attrs.items() if not k.startswith("_")}


class Scheduler(SchedulerLike):
    def __init__(self, app: ServerApp) -> None:
        self.app = app
        self._wake = threading.Event()
        self._cycle = run_cycle
        self._thread = threading.Thread(target=self._loop, name="scheduler", daemon=True)
        self._last_cycle = 0.0
        self.cycles = 0
        # The jobs that held vnodes when the last cycle began: one gone since means the server
        # sends SCH_SCHEDULE_TERM ("Scheduler sent command 2"), else SCH_SCHEDULE_NEW.
        self._running: Set[str] = set()
        # Cycles never overlap: a preemption waits for its victims without the model lock.
        self._cycle_lock = threading.Lock()
        # Why the server refused a run the scheduler asked for (a runjob hook), by job: a qrun
        # waiting for its cycle reports it (m03d).
        self.run_failures: Dict[str, PbsError] = {}
        self._plan_broken = False  # a run of the current pass was refused
        # Array parents whose table's comments the current pass changed (saved at its end).
        self._commented: Set[str] = set()
        self._rows_left = False  # an array has queued rows the current pass did not consider
        # sched_config, read at start and at each SCH_CONFIGURE only.
        self._config = self._read_config()

    def _read_config(self) -> sched_config.SchedConfig:
        """sched_config as the scheduler takes it; each line the fake does not act on is
        named in the scheduler's log (docs/differences.md)."""
        text = self.app.read_sched_config()
        custom = self.app.state.objects.get("resource")
        config = sched_config.parse(
            text, consumables_of(sched_config.scheduled(text), custom))
        for line in config.unmodelled:
            self.app.sched_log.write(SCHED, "Sched", "sched_config", UNMODELLED % line)
        return config

    def reconfigure(self) -> None:
        """SCH_CONFIGURE (a ``set sched``, a resource created or deleted): re-read
        sched_config; no cycle (fifo.cpp ``schedule``)."""
        self._config = self._read_config()
        self.app.sched_log.write(SCHED, "Sched", "reconfigure", "Scheduler is reconfiguring")

    def consumables(self) -> Tuple[str, ...]:
        return consumables_of(self._config.resources, self.app.state.objects.get("resource"))

    def start(self) -> None:
        self._thread.start()

    def trigger(self) -> None:
        self._wake.set()

    def join(self, timeout: float) -> None:
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _iteration(self) -> float:
        try:
            return max(1.0, float(self.app.state.sched.get(
                "scheduler_iteration", self.app.state.server.get("scheduler_iteration", "600"))))
        except ValueError:
            return 600.0

    def _loop(self) -> None:
        while not self.app.stopping.is_set():
            woke = self._wake.wait(1.0)
            if self.app.stopping.is_set():
                return
            self._housekeeping()
            due = time.monotonic() - self._last_cycle >= self._iteration()
            if woke or due:
                self._wake.clear()
                self._last_cycle = time.monotonic()
                try:
                    self.cycle(command=None if woke else reqlog.SCH_SCHEDULE_TIME)
                except Exception as err:  # keep the server alive; the log says what broke
                    self.app.sched_log.write(0x0001, "Svr", "pbs_sched",
                                             "scheduling cycle failed: %r" % (err,))

    # -- one cycle ----------------------------------------------------------------------------
    def enabled(self) -> bool:
        return scheduling_enabled(self.app)

    def cycle(self, force: bool = False, command: Optional[int] = None,
              qrun: Optional[str] = None) -> None:
        """Run one scheduling cycle now and apply its result.

        Call it without the model lock: a preemption waits (without the lock) until its
        victims are out of the way before the high-priority job starts.  ``command``: the
        svr_sched_cmd the server log names (default: TERM when a job ended since the last
        cycle, else NEW).  ``qrun``: a job a manager asked to run; the cycle considers it first
        and may preempt for it (k06: "Received qrun request" in the scheduler's log).
        """
        app = self.app
        with self._cycle_lock:
            with app.state.lock:
                if not app.draining.is_set():
                    routing.route_all(app)  # the server's route queues (server/routing.py)
                if (not force and not self.enabled()) or app.draining.is_set():
                    return
                self.cycles += 1
                self._log_cycle_start(command)
                app.sched_log.write(DEBUG, "Req", "", "Starting Scheduling Cycle")
                if qrun is not None:
                    app.sched_log.write(JOB, "Job", qrun, "Received qrun request")
                resv_confirm.confirm_pending(app)  # check_new_reservations, first
            considered: Set[str] = set()
            try:
                for _ in range(_MAX_PASSES):
                    if not self._pass(considered, qrun):
                        break
            finally:
                with app.state.lock:
                    app.sched_log.write(DEBUG, "Req", "", "Leaving Scheduling Cycle")

    def _log_cycle_start(self, command: Optional[int]) -> None:
        """The server's log of a cycle it starts: the command sent, the scheduler's queries."""
        app = self.app
        # Live jobs only (the job index): a history job never holds resources.
        running = {job["_id"] for job in app.state.live_jobs()
                   if job.get("job_state") in _HOLDING_STATES}
        if command is None:
            ended = any(jobid not in running for jobid in self._running)
            command = reqlog.SCH_SCHEDULE_TERM if ended else reqlog.SCH_SCHEDULE_NEW
        self._running = running
        reqlog.cycle_started(app.log, app.server_name, app.host, command)

    def _inputs(self, considered: Set[str]) -> List[Dict[str, str]]:
        jobs: List[Dict[str, str]] = []
        # The job index's live jobs, in table order: a cycle costs O(live), not O(history).
        app = self.app
        for job in app.state.live_jobs():
            if job.get("job_state") == st.QUEUED and job.get("array_id") in app.state.jobs:
                continue  # considered with its array's rows, in index order (below)
            for record in [job] + self._next_subjobs(job):
                entry = public(record)
                entry["id"] = record["_id"]
                entry["egroup"] = str(record.get("_group", ""))  # for the run limits
                if "_qrank" in record:
                    entry["qrank"] = str(record["_qrank"])  # a qorder's swap
                if record["_id"] in considered and entry.get("job_state") not in ("R", "E"):
                    entry["job_state"] = "considered"  # once per cycle, as PBS considers a job
                jobs.append(entry)
        return jobs

    def _next_subjobs(self, job: Dict[str, Any]) -> List[Dict[str, Any]]:
        """An array's queued subjobs by index, as PBS runs them: those that are records and
        the first rows of its table (subjobs.py), as the records they become when run.  A
        cycle considers at most :data:`SUBJOBS_PER_CYCLE` rows, so its cost does not grow with
        the array."""
        if job.get("array") != "True":
            return []
        stored = [c for c in self.app.state.subjobs(job["_id"])
                  if c.get("job_state") == st.QUEUED]
        rows: List[Dict[str, Any]] = []
        if job.get(subjobs.QUEUED):
            indices = subjobs.first_queued(job, SUBJOBS_PER_CYCLE + 1)
            if len(indices) > SUBJOBS_PER_CYCLE:
                self._rows_left = True
            base = subjobs.copied(job)
            rows = [subjobs.record(job, index, self.app.server_name, base=base)
                    for index in indices[:SUBJOBS_PER_CYCLE]]
        return sorted(stored + rows, key=lambda c: int(c.get("array_index", "0")))

    def _pass(self, considered: Set[str], qrun: Optional[str] = None) -> bool:
        """Apply one pure cycle in order; True when a preemption happened (go on after it)."""
        app = self.app
        state = app.state
        with state.lock:
            self._plan_broken = False
            result = self._cycle(dict(state.server), dict(state.sched),
                                 {n: dict(q) for n, q in state.queues.items()},
                                 {n: dict(a) for n, a in state.nodes.items()},
                                 self._inputs(considered), app.now(), qrun=qrun,
                                 consumables=self.consumables(),
                                 node_sort=self._config.node_sort,
                                 preemptive=self._config.preemptive,
                                 totalled=assigned.totalled(state.objects.get("resource")),
                                 pooled=pooled_of(self._config.resources,
                                                  state.objects.get("resource")),
                                 resvs=[public(r) for r in resv_records.all_resvs(app)])
            runs = {run.jobid: run for run in result.runs}
            plans = {plan.run.jobid: plan for plan in result.preempt}
            steps = result.considered
            pending: Optional[Any] = None
            for step in steps:
                considered.add(step.jobid)
                app.sched_log.write(DEBUG, "Job", step.jobid, "Considering job to run")
                if step.outcome == "run" and step.jobid in runs:
                    self._run(runs[step.jobid])
                elif step.outcome == "resume":
                    self._resume(step.jobid)
                elif step.outcome == "preempt" and step.jobid in plans:
                    plan = plans[step.jobid]
                    reqlog.scheduler_request(app.log, app.host, reqlog.PREEMPT_JOBS)
                    pending = (plan, preemption.begin(app, [v for v, _ in plan.victims],
                                                      "Scheduler@%s" % app.host))
                    break
                elif step.outcome == "fail":
                    reason = step.detail.replace("Not Running: ", "", 1)
                    app.sched_log.write(SCHED, "Job", step.jobid, reason)
                    self._comment(step.jobid, step.detail)
            stepped = {step.jobid for step in steps}
            for jobid, text in result.comments.items():
                if jobid not in stepped:  # not considered: a stopped queue's jobs
                    self._comment(jobid, text)
            for parent in sorted(self._commented):
                if parent in state.jobs:
                    state.save_job(parent)
            self._commented.clear()
            if self._rows_left and runs:
                # an array had more queued rows than a cycle considers and jobs started:
                # another cycle considers the next ones (idle cpus do not wait for an end)
                self.trigger()
            self._rows_left = False
        if pending is None:
            return False
        plan, request = pending
        replies = preemption.wait(app, request)
        with state.lock:
            for victim_id, _ in plan.victims:
                letter = replies.get(victim_id, preemption.FAILED)
                word = preemption.SCHED_WORDS.get(letter)
                app.sched_log.write(SCHED, "Job", victim_id, "Job preempted by %s" % word
                                    if word else "Job failed to be preempted")
            if all(letter != preemption.FAILED for letter in replies.values()):
                self._run(plan.run)
        return True

    def _comment(self, jobid: str, comment: str) -> None:
        target = self.app.state.jobs.get(jobid)
        if target is None:  # a row of its array's table keeps its comment there
            parent = subjobs.note_comment(self.app.state.jobs, jobid, comment)
            if parent is not None:
                self._modified(jobid)
                self._commented.add(parent)  # saved once at the end of the pass
            return
        if target.get("comment") != comment and \
                target.get("job_state") not in st.HISTORY_STATES:
            target["comment"] = comment
            self._modified(jobid)
            self.app.state.save_job(jobid)

    def _modified(self, jobid: str) -> None:
        """The scheduler alters a job's comment through the server, which logs it (k06i:
        392.vm, 393.vm once considered; 390.vm, 393.vm once preempted; m03f)."""
        self.app.log.job(jobid, "Job Modified at request of Scheduler@%s" % self.app.host)

    def _run(self, run: Any) -> None:
        """Start a job the cycle placed; the scheduler logs ``Job run`` when it started."""
        reqlog.scheduler_request(self.app.log, self.app.host, reqlog.ASYRUN_JOB)
        # The cycle's exec_host slots assumed its earlier runs happened; once one was refused,
        # the server numbers the slots itself, as PBS's always does (m05c: vm/0, not vm/1).
        exec_host = "" if self._plan_broken else run.exec_host
        try:
            self.apply_run(run.jobid, run.exec_vnode, exec_host,
                           list(getattr(run, "hosts", []) or []), "Scheduler@%s" % self.app.host)
        except PbsError as err:
            # a runjob hook refused it (m03f: "Failed to run: <reject text> (15136)"); a qrun
            # waiting for this cycle answers with the same words (m03d)
            self.app.sched_log.write(SCHED, "Job", run.jobid, failed_to_run(err))
            self.run_failures[run.jobid] = err
            self._plan_broken = True
            return
        job = self.app.state.jobs.get(run.jobid)
        if job is not None and job.get("job_state") == st.RUNNING:
            self.app.sched_log.write(SCHED, "Job", run.jobid, "Job run")

    def _resume(self, jobid: str) -> None:
        job = self.app.state.jobs.get(jobid)
        if job is None or job.get("job_state") != st.SUSPENDED:
            return
        reqlog.scheduler_request(self.app.log, self.app.host, reqlog.SIGNAL_JOB)
        try:
            preemption.resume(self.app, job, "Scheduler@%s" % self.app.host)
        except PbsError:
            return
        self.app.sched_log.write(SCHED, "Job", jobid, "Job run")
        # the scheduler's own comment for a job it runs; it differs after a preemption's
        # "Not Running: ..." (k06i: 390.vm Job Modified after its resume)
        self._comment(jobid, lifecycle.run_comment(self.app.now(), job.get("exec_vnode", "")))

    def apply_run(self, jobid: str, exec_vnode: str, exec_host: str,
                  hosts: List[Dict[str, Any]], requestor: str) -> None:
        """Start ``jobid`` on ``exec_vnode`` unless the runjob hook refuses."""
        job = self.app.state.jobs.get(jobid) or subjobs.materialize_id(self.app, jobid)
        if job is None or job.get("job_state") != st.QUEUED:
            return
        try:
            hookpoints.current().runjob(self.app, job)
        except PbsError as err:
            comment = "Not Running: PBS Error: %s" % err.text
            if job.get("comment") != comment:
                job["comment"] = comment
                if requestor.startswith("Scheduler@"):
                    # the scheduler's comment is a modify request of its own (m03f)
                    self.app.log.job(jobid, "Job Modified at request of %s" % requestor)
            self.app.state.save_job(jobid)
            raise
        lifecycle.begin_run(self.app, job, exec_vnode, exec_host, hosts, requestor)

    # -- housekeeping -------------------------------------------------------------------------
    def _housekeeping(self) -> None:
        app = self.app
        now = app.now()
        changed = False
        with app.state.lock:
            # The live jobs only (the job index's list), not the history.
            ready = [job for job in app.state.live_jobs()
                     if job.get("job_state") == st.WAITING
                     and int(job.get("Execution_Time", "0")) <= now]
            for job in ready:
                lifecycle.set_state(job, st.QUEUED, st.SUB_QUEUED)
                app.state.save_job(job["_id"])
                changed = True
            self._purge_history(now)
            # reservation windows begin and end (Time4resv / Time4resvFinish)
            changed = resv_timeline.tick(app, now) or changed
            try:
                hookpoints.current().periodic(app, float(now))
            except PbsError:
                pass
        if changed:
            self.trigger()

    def _purge_history(self, now: int) -> None:
        """Forget history jobs older than job_history_duration.

        The job index keeps history in expiry order (docs/performance.md, hotspot 6), so each
        pass costs what expired, not a walk over 10,000-20,000 finished jobs; a shorter
        duration set by qmgr applies on the next pass.
        """
        keep = duration_seconds(self.app.state.server.get("job_history_duration", ""), 1209600)
        for jobid in self.app.state.index.expired(self.app.state.jobs, now, keep):
            del self.app.state.jobs[jobid]
            self.app.state.save_job(jobid)


def duration_seconds(text: str, default: int) -> int:
    """``[[HH:]MM:]SS`` as seconds (job_history_duration, default two weeks)."""
    if not text:
        return default
    total = 0
    try:
        for part in text.split(":"):
            total = total * 60 + int(part)
    except ValueError:
        return default
    return total


def failed_to_run(err: PbsError) -> str:
    """The scheduler's words for a run the server refused (m03f's scheduler log; qrun prints
    them too, m03d)."""
    return "Failed to run: %s (%d)" % (err.text, err.code)
