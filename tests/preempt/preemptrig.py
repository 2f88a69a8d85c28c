"""A one-node fake cluster set up as PBS's own preemption tests set theirs (pbs_preemption.py:
one node with ncpus=1, an ``expressq`` queue with Priority 200), plus an invariant sampler.

The sampler polls the server (``statnode`` and ``statjob``, each one consistent snapshot) in a
thread while a test runs and records every moment a vnode had more cpus assigned than it has,
counted both ways: the node's ``resources_assigned.ncpus``, and the ncpus of the exec_vnode
chunks of the jobs in R or E (a suspended job holds no cpus, as in PBS).
"""
import re
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from fake_pbs import paths
from fake_pbs.model.errors import PbsError
from fake_pbs.testing import FakeCluster

POLL = 0.1
SAMPLE_EVERY = 0.05
SAMPLER_LIMIT = 120.0   # a sampler never outlives this, even if a test forgets to stop it
_LOGS = {"server": "server_logs/*", "sched": "sched_logs/*", "mom": "mom_logs/vm/*"}
_CHUNK = re.compile(r"\(([^:)]+):([^)]*)\)")


class PreemptRig:
    """Commands, waits and log reading on the test's cluster."""

    def __init__(self, cluster: FakeCluster) -> None:
        self.cluster = cluster
        self.home = cluster.home
        # The session's logs carry earlier tests (whose job ids restart at 0): read from here.
        self.marks = {daemon: len(self._all_lines(daemon)) for daemon in _LOGS}
        self.workdirs: Dict[str, Path] = {}

    # -- commands -----------------------------------------------------------------------------
    def sh(self, *argv: str) -> str:
        done = self.cluster.run(list(argv))
        assert done.returncode == 0, "%s exited %d\nstdout: %s\nstderr: %s" % (
            " ".join(argv), done.returncode, done.stdout, done.stderr)
        return done.stdout

    def qmgr(self, directive: str) -> str:
        return self.sh("qmgr", "-c", directive)

    def setup(self, order: str, ncpus: int = 1) -> None:
        """The PTL set-up: ``expressq`` (Priority 200), the node's ncpus, preempt_order."""
        self.qmgr("create queue expressq queue_type=execution,Priority=200,enabled=true,"
                  "started=true")
        if ncpus != 1:
            self.qmgr("set node vm resources_available.ncpus=%d" % ncpus)
        self.qmgr('set sched default preempt_order = "%s"' % order)

    def submit(self, body: str, *options: str) -> str:
        workdir = Path(tempfile.mkdtemp(prefix="job-", dir=str(self.home)))
        workdir.chmod(0o755)
        jobid = self.cluster.qsub(body, *options, cwd=str(workdir))
        self.workdirs[jobid] = workdir
        return jobid

    def workdir(self, jobid: str) -> Path:
        """The directory the job was submitted from (its output and files land there)."""
        return self.workdirs[jobid]

    def hook(self, name: str, events: str, body: str) -> None:
        """A site hook, through the requests ``qmgr create hook`` / ``import hook`` send."""
        self.cluster.call("manager", command="create", objtype="hook", name=name,
                          attrs=[["event", "=", events]])
        self.cluster.call("hookio", command="import", name=name,
                          content_type="application/x-python", encoding="default",
                          content="import pbs\ne = pbs.event()\n" + body)

    # -- state --------------------------------------------------------------------------------
    def attrs(self, jobid: str) -> Dict[str, str]:
        return self.cluster.job(jobid)

    def wait(self, jobid: str, states: str, timeout: float = 30.0,
             run_count: int = 1, started: bool = True) -> Dict[str, str]:
        """Poll (bounded) until the job is in one of ``states`` with at least ``run_count``;
        R with ``started`` also waits for the mom's start report (``session_id``)."""
        deadline = time.monotonic() + timeout
        seen: Dict[str, str] = {}
        while time.monotonic() < deadline:
            try:
                seen = self.attrs(jobid)
            except PbsError:
                seen = {}
            state = seen.get("job_state", "?")
            # R once the mom reported the start (session_id): a victim that really runs
            if state in states and int(seen.get("run_count", "0")) >= run_count and \
                    (state != "R" or not started or "session_id" in seen):
                return seen
            time.sleep(POLL)
        raise AssertionError("job %s not in %s within %.0f s; last seen %r"
                             % (jobid, states, timeout, seen))

    # -- logs ---------------------------------------------------------------------------------
    def _all_lines(self, daemon: str) -> List[str]:
        lines: List[str] = []
        for log in sorted(self.home.glob(_LOGS[daemon])):
            lines.extend(log.read_text(errors="replace").splitlines())
        return lines

    def log_lines(self, daemon: str) -> List[str]:
        """This test's lines of a daemon's logs (``server``, ``sched``, ``mom``), in order."""
        return self._all_lines(daemon)[self.marks.get(daemon, 0):]

    def wait_log(self, daemon: str, text: str, timeout: float = 30.0) -> List[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            lines = self.log_lines(daemon)
            if any(text in line for line in lines):
                return lines
            time.sleep(POLL)
        raise AssertionError("no %r in the %s log within %.0f s" % (text, daemon, timeout))

    def mom_job_dir(self, jobid: str) -> Path:
        return paths.mom_priv(self.home, "vm") / "jobs" / jobid

    def mom_has_jobs(self) -> bool:
        """The mom still holds a job (its job directory is there)."""
        jobs = paths.mom_priv(self.home, "vm") / "jobs"
        return jobs.exists() and any(jobs.iterdir())

    @staticmethod
    def wait_for(ready: Callable[[], bool], timeout: float, what: str = "condition") -> None:
        """Poll ``ready`` (bounded) until it holds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if ready():
                return
            time.sleep(POLL)
        raise AssertionError("%s not met within %.0f s" % (what, timeout))


def index_of(lines: List[str], *parts: str, last: bool = False) -> int:
    """Index of the first (or last) line containing every one of ``parts``; -1 when none."""
    found = [i for i, line in enumerate(lines) if all(part in line for part in parts)]
    if not found:
        return -1
    return found[-1] if last else found[0]


def job_ncpus(exec_vnode: str) -> Dict[str, int]:
    """``(vm:ncpus=1)+(vm:ncpus=1:mem=1gb)`` -> ``{"vm": 2}``."""
    totals: Dict[str, int] = {}
    for name, resources in _CHUNK.findall(exec_vnode):
        for item in resources.split(":"):
            key, _, value = item.partition("=")
            if key == "ncpus" and value.isdigit():
                totals[name] = totals.get(name, 0) + int(value)
    return totals


class NodeSampler:
    """Samples node and job state in a thread; ``violations`` lists every oversubscription."""

    def __init__(self, cluster: FakeCluster) -> None:
        self.cluster = cluster
        self.samples = 0
        self.violations: List[str] = []
        self.states_seen: Dict[str, str] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="node-sampler", daemon=True)

    def __enter__(self) -> "NodeSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(10.0)
        # One last look: a test stops the sampler right after its own wait saw the final
        # state, which the sampler's last (earlier) sample may have missed.
        try:
            self.sample()
        except (PbsError, OSError, ValueError):
            pass

    def _loop(self) -> None:
        deadline = time.monotonic() + SAMPLER_LIMIT
        while not self._stop.is_set() and time.monotonic() < deadline:
            try:
                self.sample()
            except (PbsError, OSError, ValueError):
                pass  # the cluster may be resetting; the next sample will tell
            self._stop.wait(SAMPLE_EVERY)

    def sample(self) -> None:
        nodes = self.cluster.call("statnode", name=None, vnodes=True)
        available: Dict[str, int] = {}
        for record in nodes:
            attrs = dict(record["attrs"])
            total = int(attrs.get("resources_available.ncpus", "0") or 0)
            available[record["name"]] = total
            assigned = int(attrs.get("resources_assigned.ncpus", "0") or 0)
            if assigned > total:
                self.violations.append("node %s: resources_assigned.ncpus %d > %d"
                                       % (record["name"], assigned, total))
        jobs = self.cluster.call("statjob", id=None, extend="")
        held: Dict[str, int] = {}
        holders: Dict[str, List[str]] = {}
        for record in jobs:
            attrs = dict(record["attrs"])
            seen = self.states_seen.get(record["id"], "")
            letter = attrs.get("job_state", "?")
            if not seen.endswith(letter):
                self.states_seen[record["id"]] = seen + letter  # e.g. "QRSR"
            if attrs.get("job_state") not in ("R", "E"):
                continue
            for name, ncpus in job_ncpus(attrs.get("exec_vnode", "")).items():
                held[name] = held.get(name, 0) + ncpus
                holders.setdefault(name, []).append(record["id"])
        for name, ncpus in held.items():
            if ncpus > available.get(name, 0):
                self.violations.append("vnode %s: jobs %s hold %d ncpus > %d available" % (
                    name, ",".join(holders[name]), ncpus, available.get(name, 0)))
        self.samples += 1


def ran_after(rig: PreemptRig, victim: str, express: str) -> Optional[str]:
    """Why the logs do not show ``express`` starting after ``victim``'s end processing, or None.

    Server log: the victim's obit and end come before the express job's ``Job Run``.  Mom log
    (one mom, one total order): the end of the victim's end-of-job request (``delete job
    request received``, execjob_end, then ``kill_job``) comes before the express job's first
    line.
    """
    rig.wait_log("mom", ";%s;" % express)  # the mom may log a moment after the server
    server = rig.log_lines("server")
    obit = index_of(server, victim, "Obit received")
    run = index_of(server, express, "Job Run at request of")
    if obit < 0 or run < 0 or not obit < run:
        return "server log: obit of %s at %d, run of %s at %d" % (victim, obit, express, run)
    mom = rig.log_lines("mom")
    discard = index_of(mom, ";%s;delete job request received" % victim)
    victim_last = -1
    if discard >= 0:
        tail = index_of(mom[discard:], ";%s;kill_job" % victim)
        victim_last = discard + tail if tail >= 0 else -1
    express_first = index_of(mom, ";%s;" % express)
    if victim_last < 0 or express_first < 0 or not victim_last < express_first:
        return "mom log: last line of %s at %d, first of %s at %d" % (
            victim, victim_last, express, express_first)
    return None
