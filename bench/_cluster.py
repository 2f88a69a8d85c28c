"""A fake cluster for one benchmark run: temporary FAKE_PBS_HOME, fake_pbs/bin first on PATH.

The cluster is started with ``fake-pbs start`` (the same path users take) and always stopped on
exit.  Besides running PBS commands as subprocesses, the benchmarks talk to the server over its own
protocol through :meth:`BenchCluster.call`, on a connection private to this cluster, so that
watching states adds little to what is measured.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Dict, List, Optional, Sequence, Tuple, Type

from fake_pbs import paths, protocol

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "fake_pbs" / "bin"


def precompile() -> None:
    """Write fake_pbs's ``.pyc`` files, as installing the package does.

    Without them every command compiles its modules again when ``PYTHONDONTWRITEBYTECODE`` is
    set (this costs a command ~3 ms per module); an installed package always has them.
    """
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "fake_pbs")],
                   check=True, stdout=subprocess.DEVNULL, timeout=300)


def tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and of its reaped children, plus its live children's likewise."""
    tick = float(os.sysconf("SC_CLK_TCK"))
    try:
        with open("/proc/%d/stat" % pid, "rb") as handle:
            fields = handle.read().rsplit(b") ", 1)[1].split()
        children: List[int] = []
        for task in os.listdir("/proc/%d/task" % pid):  # a thread may have started a child
            with open("/proc/%d/task/%s/children" % (pid, task), "rb") as handle:
                children += [int(c) for c in handle.read().split()]
    except OSError:
        return 0.0
    own = sum(int(f) for f in fields[11:15]) / tick  # utime stime cutime cstime
    return own + sum(tree_cpu(child) for child in children)


def _stat_and_children(pid: int) -> Tuple[List[int], List[int]]:
    """``pid``'s utime, stime, cutime, cstime (ticks) and its live children."""
    with open("/proc/%d/stat" % pid, "rb") as handle:
        fields = handle.read().rsplit(b") ", 1)[1].split()
    children: List[int] = []
    for task in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/children" % (pid, task), "rb") as handle:
            children += [int(c) for c in handle.read().split()]
    return [int(f) for f in fields[11:15]], children


def _mom_cpu(pid: int) -> Tuple[float, float]:
    """CPU seconds of a mom with its live children (the shepherd launcher) and what they reaped,
    split in two: the mom's own work, and its launcher's children (the jobs' shepherds, forked
    by the launcher and reaped by it, each with its job shell) live or reaped."""
    tick = float(os.sysconf("SC_CLK_TCK"))
    try:
        times, children = _stat_and_children(pid)
    except OSError:
        return 0.0, 0.0
    own, launched = float(sum(times)), 0.0
    for child in children:
        try:
            child_times, grandchildren = _stat_and_children(child)
        except OSError:
            continue
        own += sum(child_times[:2])
        launched += sum(child_times[2:])
        launched += sum(tree_cpu(g) for g in grandchildren) * tick
    return own / tick, launched / tick


class BenchCluster:
    """Starts a cluster on enter and always stops it on exit."""

    def __init__(self, hosts: Sequence[str] = (), python_dir: str = "",
                 account: bool = False) -> None:
        """``python_dir``: a directory put on PATH right after ``fake_pbs/bin`` (its
        ``python3``, a shim or the interpreter itself, is what PATH gives the commands);
        ``account``: start the cluster under :mod:`bench._reaper` (see :meth:`jobs_cpu`)."""
        self.hosts = list(hosts)
        self.home = Path(tempfile.mkdtemp(prefix="fpbs-bench-"))
        self._reaper: Optional["subprocess.Popen[str]"] = None
        self._account = account
        # Jobs are submitted from here, so their output files land inside the cluster's home
        # and go with it (not in the caller's directory or /tmp).
        self.work = self.home / "work"
        self.work.mkdir()
        self.env: Dict[str, str] = dict(os.environ)
        self.env["FAKE_PBS_HOME"] = str(self.home)
        self.env["PATH"] = os.pathsep.join(
            [str(BIN)] + ([python_dir] if python_dir else []) + [self.env.get("PATH", "")])
        self.env["FAKE_PBS_AUTOSTART"] = "0"
        if python_dir:  # what PATH gives, and the interpreter the cluster records
            self.env.pop("FAKE_PBS_PYTHON", None)
        self._channel: Optional[protocol.LineChannel] = None

    def __enter__(self) -> "BenchCluster":
        precompile()
        args: List[str] = [str(BIN / "fake-pbs"), "start"]
        for host in self.hosts:
            args += ["--host", host]
        try:
            if self._account:
                self._start_accounted(args)
            else:
                subprocess.run(args, env=self.env, check=True, stdout=subprocess.DEVNULL)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.stop()

    def stop(self) -> None:
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        subprocess.run([str(BIN / "fake-pbs"), "stop"], env=self.env, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        if self._reaper is not None:
            self._reaper.terminate()
            self._reaper.wait(timeout=60)
            self._reaper = None
        shutil.rmtree(self.home, ignore_errors=True)

    # -- CPU accounting (account=True) -------------------------------------------------------------
    def _start_accounted(self, args: List[str]) -> None:
        self._reaper = subprocess.Popen(
            [sys.executable, "-m", "bench._reaper", str(self.home / "reaped.json"), "--"] + args,
            env=self.env, cwd=str(REPO), stdout=subprocess.PIPE, text=True)
        assert self._reaper.stdout is not None
        line = self._reaper.stdout.readline()
        if line.strip() != "started 0":
            raise RuntimeError("fake-pbs start under bench._reaper: %r" % line)

    def jobs_cpu(self) -> Tuple[int, float]:
        """Processes reaped so far by bench._reaper that were no daemon (a job's shepherd, with
        its job shell, that outlived its mom's launcher) and their CPU seconds; the launchers
        reap the others (``daemons_cpu``'s ``launched``)."""
        try:
            with open(str(self.home / "reaped.json")) as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            return 0, 0.0
        return int(data["reaped"]), float(data["cpu"])

    def daemons_cpu(self) -> Dict[str, float]:
        """CPU seconds so far (user + system) of the server and of the command runner (its
        workers run the commands), each with its live children and whatever it reaped, of the
        moms (each with its shepherd launcher) and, as ``launched``, of the shepherds the
        launchers forked, live or reaped, with their job shells (they are jobs' CPU)."""
        with open(str(paths.run_dir(self.home) / "daemons.json"), "r") as handle:
            pids = json.load(handle)
        spent: Dict[str, float] = {"server": 0.0, "mom": 0.0, "launched": 0.0}
        for key, pid in pids.items():
            if key in ("server", "runner"):
                spent[key] = spent.get(key, 0.0) + tree_cpu(int(pid))
                continue
            own, launched = _mom_cpu(int(pid))
            spent["mom"] += own
            spent["launched"] += launched
        return spent

    def runner_pid(self) -> int:
        """The command runner's pid (0: none), whose children run the commands' work."""
        with open(str(paths.run_dir(self.home) / "daemons.json"), "r") as handle:
            return int(json.load(handle).get("runner", 0))

    def drop_channel(self) -> None:
        """Forget this cluster's own connection (after its server was stopped)."""
        if self._channel is not None:
            self._channel.close()
            self._channel = None

    # -- the server's protocol ------------------------------------------------------------------
    def call(self, op: str, **args: Any) -> Any:
        """One request on this cluster's own connection (opened on first use)."""
        if self._channel is None:
            self._channel = protocol.connect(paths.server_socket(self.home), timeout=120.0)
        return protocol.call(self._channel, op, **args)

    def submit(self, script: str = "/bin/true\n", name: str = "bench") -> str:
        """Queue one job over the protocol (no qsub process); return its id."""
        data = self.call("queuejob", attrs={"Job_Name": name}, script=script,
                         cwd=str(self.work), env={"PATH": "/usr/bin:/bin", "HOME": str(self.work)},
                         host="localhost")
        return str(data["jobid"])

    def server_pid(self) -> int:
        """The server's pid, from the control's pid file (``<run_dir>/daemons.json``)."""
        with open(str(paths.run_dir(self.home) / "daemons.json"), "r") as handle:
            return int(json.load(handle)["server"])

    # -- commands ---------------------------------------------------------------------------------
    def run(self, *argv: str, check: bool = True) -> str:
        """Run a PBS command of this cluster and return its stdout."""
        done = subprocess.run(list(argv), env=self.env, check=check, text=True,
                              cwd=str(self.work), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=600)
        return done.stdout

    def wait_all_finished(self, ids: Sequence[str], timeout: float,
                          period: float = 0.05) -> float:
        """Poll until every id is in state F; return when that was first seen.

        One ``statjob`` per id, oldest first, and a sweep stops at the first job not yet F: a
        status of every job each time would cost the server O(history) per poll and slow down
        what is being measured.
        """
        deadline = time.monotonic() + timeout
        pending: List[str] = list(ids)
        done = 0
        while time.monotonic() < deadline:
            while done < len(pending) and self.state(pending[done]) == "F":
                done += 1
            if done == len(pending):
                return time.monotonic()
            time.sleep(period)
        left = pending[done:]
        raise TimeoutError("%d of %d jobs not finished after %.0f s (e.g. %s); see %s"
                           % (len(left), len(ids), timeout, left[:3],
                              self.home / "daemon_logs"))

    def state(self, job: str) -> str:
        """One job's state letter (history included)."""
        record = self.call("statjob", id=job, extend="x", names=["job_state"])[0]
        return str(dict(record["attrs"]).get("job_state", ""))
