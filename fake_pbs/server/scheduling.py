"""The scheduling thread: a cycle when something changed, else every ``scheduler_iteration``.

The cycle itself is the scheduler engineer's pure ``run_cycle`` (``fake_pbs.server.sched.cycle``);
this module gathers its inputs under the model lock and applies its result: each ``Run`` starts a
job (runjob hook, vnodes charged, ``start`` sent to the mom), each comment is set on its job.
A one-second housekeeping tick releases ``-a`` jobs whose time came, purges old history and runs
the periodic hook point.
"""
import threading
import time
from typing import Any, Callable, Dict, List

from fake_pbs.model import states as st
from fake_pbs.model.errors import PbsError
from fake_pbs.server import hookpoints, lifecycle
from fake_pbs.server.app import SchedulerLike, ServerApp

CycleFn = Callable[..., Any]


def _load_cycle() -> CycleFn:
    try:
        from fake_pbs.server.sched.cycle import run_cycle
        return run_cycle
    except ImportError:
        from fake_pbs.server.placement import run_cycle as fallback
        return fallback


def public(attrs: Dict[str, Any]) -> Dict[str, str]:
    return {k: v for k, v in attrs.items() if not k.startswith("_")}


class Scheduler(SchedulerLike):
    def __init__(self, app: ServerApp) -> None:
        self.app = app
        self._wake = threading.Event()
        self._cycle = _load_cycle()
        self._thread = threading.Thread(target=self._loop, name="scheduler", daemon=True)
        self._last_cycle = 0.0
        self.cycles = 0

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
                    self.cycle()
                except Exception as err:  # keep the server alive; the log says what broke
                    self.app.sched_log.write(0x0001, "Svr", "pbs_sched",
                                             "scheduling cycle failed: %r" % (err,))

    # -- one cycle ----------------------------------------------------------------------------
    def enabled(self) -> bool:
        state = self.app.state
        return (state.server.get("scheduling", "True") == "True"
                and state.sched.get("scheduling", "True") == "True")

    def cycle(self, force: bool = False) -> None:
        """Run one scheduling cycle now (under the model lock) and apply its result."""
        app = self.app
        with app.state.lock:
            if not force and not self.enabled():
                return
            self.cycles += 1
            state = app.state
            jobs: List[Dict[str, str]] = []
            for job in state.iter_jobs():
                if job.get("job_state") in st.HISTORY_STATES:
                    continue
                entry = public(job)
                entry["id"] = job["_id"]
                jobs.append(entry)
            result = self._cycle(dict(state.server), dict(state.sched),
                                 {n: dict(q) for n, q in state.queues.items()},
                                 {n: dict(a) for n, a in state.nodes.items()}, jobs, app.now())
            for run in result.runs:
                self.apply_run(run.jobid, run.exec_vnode, run.exec_host,
                               list(getattr(run, "hosts", []) or []),
                               "Scheduler@%s" % app.host)
            for plan in getattr(result, "preempt", None) or []:
                self.preempt(plan)
            for jobid, comment in result.comments.items():
                target = state.jobs.get(jobid)
                if target is not None and target.get("comment") != comment and \
                        target.get("job_state") not in st.HISTORY_STATES:
                    target["comment"] = comment
                    state.save_job(jobid)

    def apply_run(self, jobid: str, exec_vnode: str, exec_host: str,
                  hosts: List[Dict[str, Any]], requestor: str) -> None:
        """Start ``jobid`` on ``exec_vnode`` unless the runjob hook refuses."""
        job = self.app.state.jobs.get(jobid)
        if job is None or job.get("job_state") != st.QUEUED:
            return
        try:
            hookpoints.current().runjob(self.app, job)
        except PbsError as err:
            job["comment"] = "Not Running: PBS Error: %s" % err.text
            self.app.state.save_job(jobid)
            raise
        lifecycle.begin_run(self.app, job, exec_vnode, exec_host, hosts, requestor)

    # -- preemption ---------------------------------------------------------------------------
    def preempt(self, plan: Any) -> None:
        """Move each victim out of the way by the first method that applies (S, C, R, D);
        the high-priority job starts now when every victim is already gone (suspension),
        else at the next cycle, once requeue or deletion has really freed its vnodes."""
        immediate = True
        for victim_id, methods in plan.victims:
            victim = self.app.state.jobs.get(victim_id)
            if victim is None or victim.get("job_state") != st.RUNNING:
                continue
            method = self._preempt_one(victim, list(methods))
            immediate = immediate and method == "S"
            if method is None:
                self.app.log.job(victim_id, "Job failed to be preempted", 0x0080)
                return
        if immediate:
            run = plan.run
            try:
                self.apply_run(run.jobid, run.exec_vnode, run.exec_host,
                               list(run.hosts or []), "Scheduler@%s" % self.app.host)
            except PbsError:
                pass
        else:
            self.trigger()

    def _preempt_one(self, victim: Dict[str, Any], methods: List[str]) -> Any:
        app = self.app
        words = {"S": "suspension", "C": "checkpointing", "R": "requeueing", "D": "deletion"}
        for method in methods:
            try:
                if method == "S" and app.execs is not None:
                    app.execs.signal(victim["_id"], "suspend")
                    lifecycle.suspend(app, victim, True)
                elif method == "R" and victim.get("Rerunable", "True") == "True":
                    victim["_rerun"] = True
                    lifecycle.save(app, victim)
                    if app.execs is not None:
                        app.execs.signal(victim["_id"], "SIGKILL")
                elif method == "D":
                    victim["_deleted_by"] = ""
                    lifecycle.save(app, victim)
                    if app.execs is not None:
                        app.execs.signal(victim["_id"], "SIGKILL")
                else:
                    continue
            except PbsError:
                continue
            app.sched_log.write(0x0040, "Job", victim["_id"],
                                "Job preempted by %s" % words[method])
            return method
        return None

    # -- housekeeping -------------------------------------------------------------------------
    def _housekeeping(self) -> None:
        app = self.app
        now = app.now()
        changed = False
        with app.state.lock:
            for job in app.state.iter_jobs():
                if job.get("job_state") == st.WAITING and \
                        int(job.get("Execution_Time", "0")) <= now:
                    lifecycle.set_state(job, st.QUEUED, st.SUB_QUEUED)
                    app.state.save_job(job["_id"])
                    changed = True
            self._purge_history(now)
            try:
                hookpoints.current().periodic(app, float(now))
            except PbsError:
                pass
        if changed:
            self.trigger()

    def _purge_history(self, now: int) -> None:
        keep = duration_seconds(self.app.state.server.get("job_history_duration", ""), 1209600)
        for job in self.app.state.iter_jobs():
            if job.get("job_state") in st.HISTORY_STATES and \
                    now - int(job.get("history_timestamp", now)) > keep and \
                    not job.get("array_id"):
                del self.app.state.jobs[job["_id"]]
                self.app.state.save_job(job["_id"])


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
