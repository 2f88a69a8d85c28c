"""A one-node fake cluster set up as PBS's own preemption tests set theirs (pbs_preemption.py:
one node with ncpus=1, an ``expressq`` queue with Priority 200), on fake_pbs.testing's harness,
plus an invariant sampler.

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
from typing import Any, Dict, List, Optional

from fake_pbs import paths
from fake_pbs.model.errors import PbsError
from fake_pbs.testing import FakeCluster

SAMPLE_EVERY = 0.05
SAMPLER_LIMIT = 120.0   # a sampler never outlives this, even if a test forgets to stop it
_CHUNK = re.compile(r"\(([^:)]+):([^)]*)\)")


class PreemptRig(FakeCluster):
    """The preemption tests' cluster: server ``vm``, one host ``vm`` with ncpus=1."""

    def __init__(self, home: Path) -> None:
        super().__init__(home, "vm", [{"name": "vm", "ncpus": 1, "mem": "8gb", "ngpus": 0}])
        self.workdirs: Dict[str, Path] = {}

    def begin_test(self) -> None:
        """The session's logs carry earlier tests (whose job ids restart at 0): read from here."""
        self.mark_logs()
        self.workdirs = {}

    # -- commands -----------------------------------------------------------------------------
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
        jobid = self.qsub(body, *options, cwd=str(workdir))
        self.workdirs[jobid] = workdir
        return jobid

    def workdir(self, jobid: str) -> Path:
        """The directory the job was submitted from (its output and files land there)."""
        return self.workdirs[jobid]

    # -- state --------------------------------------------------------------------------------
    def wait(self, jobid: str, states: str = "F", timeout: float = 30.0, run_count: int = 1,
             started: bool = True) -> Dict[str, str]:
        """As :meth:`FakeCluster.wait`, but by default R means a victim that really runs (the
        mom reported its start) and Q means after a first run."""
        return super().wait(jobid, states, timeout, run_count, started)

    def mom_job_dir(self, jobid: str) -> Path:
        return paths.mom_priv(self.home, "vm") / "jobs" / jobid

    def mom_has_jobs(self) -> bool:
        """The mom still holds a job (its job directory is there)."""
        jobs = paths.mom_priv(self.home, "vm") / "jobs"
        return jobs.exists() and any(jobs.iterdir())


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
