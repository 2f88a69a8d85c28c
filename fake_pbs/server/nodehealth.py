"""Node health: a mom that stops answering makes its node ``down``; its jobs follow PBS's rule.

PBS marks a node ``down`` (comment ``node down: communication closed``) when it loses its mom,
and once the node has been down for ``node_fail_requeue`` seconds (default 310; 0 or less:
never) it requeues the jobs whose primary execution host it is, or ends those that may not
rerun.  The scheduler places nothing on a ``down`` node.  When the mom answers again the node
is ``free`` once more (the exec client resumes the streams of the jobs still running there).

The fake polls each mom of ``cluster.json`` with a ``status`` request every ``PERIOD`` seconds
and calls it lost after ``node_down_after`` seconds (cluster.json, default 2) of silence.
"""
import threading
import time
from typing import Any, Dict, List, Optional, Set

from fake_pbs import paths, protocol
from fake_pbs.model import states as st
from fake_pbs.server import lifecycle
from fake_pbs.server.app import ServerApp

PERIOD = 1.0
PING_TIMEOUT = 2.0
DOWN_COMMENT = "node down: communication closed"
DOWN = "down"
LOST_RUN = -11


def primary_host(job: Dict[str, Any]) -> str:
    return str(job.get("exec_host", "")).split("/")[0].split("+")[0]


def mom_answers(app: ServerApp, host: str) -> bool:
    return mom_pid(app, host) is not None


def mom_pid(app: ServerApp, host: str) -> Optional[int]:
    """The pid of ``host``'s mom when it answers its status request, else None."""
    try:
        reply = protocol.call_once(paths.mom_socket(app.home, host), "status", PING_TIMEOUT)
    except Exception:
        return None
    return int((reply or {}).get("pid") or 0)


def _flags(node: Dict[str, Any]) -> List[str]:
    return [f for f in str(node.get("state", "free")).split(",") if f]


class NodeHealth:
    """The monitoring thread (``start``/``join``) and its pure-ish steps (``observe``,
    ``expire``) that tests may call directly."""

    def __init__(self, app: ServerApp) -> None:
        self.app = app
        self.down_after = float(app.config.get("node_down_after", 2.0))
        self._silent_since: Dict[str, float] = {}
        self._reconciled: Set[str] = set()
        self._pids: Dict[str, int] = {}
        self._thread = threading.Thread(target=self._loop, name="nodehealth", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def join(self, timeout: float) -> None:
        if self._thread.is_alive():
            self._thread.join(timeout)

    def hosts(self) -> List[str]:
        return [str(h["name"]) for h in self.app.config.get("hosts", [])]

    def check_round(self) -> None:
        """Poll every mom once (the server runs one round before it schedules anything)."""
        try:
            for host in self.hosts():
                pid = mom_pid(self.app, host)
                if pid is not None and self._pids.setdefault(host, pid) != pid:
                    # A mom restarted between two polls: a delete-job request sent while it
                    # was down was lost, so reconcile again (the discard is sent again).
                    self._pids[host] = pid
                    self._reconciled.discard(host)
                self.observe(host, pid is not None, time.monotonic())
            self.expire()
        except Exception as err:  # the monitor must outlive any one bad round
            self.app.log.server("node health check failed: %r" % (err,))

    def _loop(self) -> None:
        while not self.app.stopping.wait(PERIOD):
            self.check_round()

    # -- steps ------------------------------------------------------------------------------------
    def observe(self, host: str, answered: bool, now: float) -> None:
        """Record one poll of ``host``'s mom; mark the node down or up when that changes."""
        if answered:
            self._silent_since.pop(host, None)
            if host not in self._reconciled:
                # Before the node takes new work: a new run would meet the stale one.
                self._reconciled.add(host)
                self.reconcile(host)
            self._mark_up(host)
            return
        self._reconciled.discard(host)
        since = self._silent_since.setdefault(host, now)
        if now - since >= self.down_after:
            self._mark_down(host)

    def reconcile(self, host: str) -> None:
        """Discard the runs a mom still holds that the server is done with: the run of a job
        requeued or ended while its node was down (the shell may still run there), or one
        whose discard was lost in a server crash."""
        execs = self.app.execs
        if execs is None:
            return
        try:
            held = execs.request(host, "status").get("jobs") or []  # type: ignore[attr-defined]
        except Exception:
            return
        stale = []
        with self.app.state.lock:
            for entry in held:
                jobid, run_count = str(entry.get("id")), int(entry.get("run_count", 0))
                job = self.app.state.jobs.get(jobid)
                current = (job is not None and primary_host(job) == host
                           and job.get("run_count") == str(run_count)
                           and job.get("job_state") in (st.RUNNING, st.EXITING, st.SUSPENDED))
                if not current:
                    stale.append((jobid, run_count))
        for jobid, run_count in stale:
            self.app.log.job(jobid, "discarding stale run %d on %s" % (run_count, host), 0x0080)
            try:
                execs.request(host, "discard", job=jobid,  # type: ignore[attr-defined]
                              run_count=run_count)
            except Exception:
                pass

    def _mark_down(self, host: str) -> None:
        app = self.app
        with app.state.lock:
            node = app.state.nodes.get(host)
            if node is None or DOWN in _flags(node):
                return
            flags = [f for f in _flags(node) if f != "free"]
            node["state"] = ",".join([DOWN] + flags)
            node["comment"] = DOWN_COMMENT
            node["last_state_change_time"] = str(app.now())
            node["_down_since"] = str(app.now())
            app.state.save_node(host)
        app.log.write(0x0004, "Node", host, "node down: communication closed")

    def _mark_up(self, host: str) -> None:
        app = self.app
        with app.state.lock:
            node = app.state.nodes.get(host)
            if node is None or node.get("_down_since") is None:
                return  # not ours to lift (a node created down by qmgr, say)
            flags = [f for f in _flags(node) if f not in (DOWN, "state-unknown")]
            node["state"] = ",".join(flags) or "free"
            if node.get("comment") == DOWN_COMMENT:
                del node["comment"]
            node["last_state_change_time"] = str(app.now())
            del node["_down_since"]
            app.state.save_node(host)
        app.log.write(0x0004, "Node", host, "node up")
        app.trigger_schedule()

    def requeue_after(self) -> Optional[int]:
        """``node_fail_requeue`` in seconds, or None when jobs wait for their mom forever."""
        try:
            value = int(float(self.app.state.server.get("node_fail_requeue", "310")))
        except ValueError:
            value = 310
        return value if value > 0 else None

    def expire(self) -> None:
        """Requeue (rerunnable) or end the jobs of nodes down longer than node_fail_requeue."""
        app = self.app
        limit = self.requeue_after()
        if limit is None:
            return
        with app.state.lock:
            now = app.now()
            expired = {name for name, node in app.state.nodes.items()
                       if node.get("_down_since") is not None
                       and now - int(node["_down_since"]) >= limit}
            if not expired:
                return
            for job in app.state.iter_jobs():
                host = primary_host(job)
                if job.get("job_state") not in (st.RUNNING, st.EXITING, st.SUSPENDED) or \
                        host not in expired:
                    continue
                self._node_failed(job, host)

    def _node_failed(self, job: Dict[str, Any], host: str) -> None:
        """PBS's discard_job path for a job whose primary host is gone (node_manager.c)."""
        app = self.app
        if "_obit" in job:
            # The obit is in: the job ran to its end, and a requeue would run it again (issue
            # 15).  It ends with its own status; its mom discards the run (staging out first)
            # when it answers again (reconcile).
            lifecycle.complete(app, job)
            return
        if job.get("Rerunable", "True") == "True":
            app.log.job(job["_id"], "Job requeued, execution node %s down" % host, 0x0008)
        job["_exit"] = LOST_RUN
        job["_exception"] = "execution node %s down" % host
        lifecycle.complete(app, job)
