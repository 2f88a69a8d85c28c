"""3. Throughput: N ``/bin/true`` jobs submitted back to back until all are F.

Targets: ``qsub`` on the default cluster at least 100 jobs/s (62x real OpenPBS's 1.6 jobs/s),
and the same N jobs through psij's ``pbspro`` executor on the fake within 2x the time of psij's
``local`` executor (which forks the jobs itself: the floor of what psij can do).  The submit loop
is serial, like a user's script or psij's ``submit``; the clock stops when the last job is seen F.

Each fake figure is taken twice, on a fresh cluster each (``--python``): with ``python3`` on
PATH a shim (a bash script that execs the interpreter, as pyenv's, asdf's and conda's do; it
counts its calls: the commands must make none) and with ``python3`` the interpreter itself.
Besides wall time each run prints the CPU per job of every kind of process (user + system,
from ``wait4`` and ``/proc``; meaningful on a loaded machine, where wall time is not):

* ``qsub`` / ``qstat``: the command processes (interpreter start included), each ``wait4``-ed;
  with the command runner (fake_pbs/runner/) that is the sh wrapper and the C client only;
* ``runner``: the command runner and the children it forked to run the commands;
* ``executor``: the benchmark process itself (psij, the executor, its poll thread);
* ``server``, ``mom`` (with its shepherd launcher), ``jobs`` (each job's shepherd and job
  shell, reaped by :mod:`bench._reaper`).
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from datetime import timedelta
from typing import Dict, Iterator, List, Optional, Tuple

from bench._cluster import BenchCluster
from bench._stats import note, report

QSUB_TARGET = 100.0  # jobs/s
PSIJ_RATIO_TARGET = 2.0  # psij pbspro on the fake / psij local, in time for the same jobs


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# -- python3 on PATH: a shim or the interpreter -------------------------------------------------
@contextmanager
def python_dirs() -> Iterator[Dict[str, Tuple[str, str]]]:
    """``{"shim": (dir, calls file), "no shim": (dir, "")}``: directories whose ``python3`` is
    a counting bash shim, or a link to this interpreter."""
    top = tempfile.mkdtemp(prefix="fpbs-bench-python-")
    try:
        os.mkdir(os.path.join(top, "shim"))
        os.mkdir(os.path.join(top, "real"))
        calls = os.path.join(top, "shim-calls")
        shim = os.path.join(top, "shim", "python3")
        with open(shim, "w") as handle:
            handle.write('#!/usr/bin/env bash\n# like pyenv\'s shim: a shell script that execs '
                         'the interpreter\necho >> "%s"\nexec "%s" "$@"\n'
                         % (calls, sys.executable))
        os.chmod(shim, 0o755)
        os.symlink(sys.executable, os.path.join(top, "real", "python3"))
        yield {"shim": (os.path.dirname(shim), calls), "no shim": (os.path.join(top, "real"), "")}
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _count_lines(path: str) -> int:
    try:
        with open(path, "rb") as handle:
            return handle.read().count(b"\n")
    except OSError:
        return 0


# -- CPU of the command processes ----------------------------------------------------------------
class CommandCPU:
    """Runs psijpbs's commands itself, ``wait4``-ing each one for its own CPU, by command."""

    def __init__(self) -> None:
        self.cpu: Dict[str, float] = {}
        self.calls: Dict[str, int] = {}

    def run_once(self, command: List[str], timeout: float) -> object:
        from psijpbs.commands import CommandResult

        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
        out, err = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]
        name = os.path.basename(command[0])
        self.cpu[name] = self.cpu.get(name, 0.0) + usage.ru_utime + usage.ru_stime
        self.calls[name] = self.calls.get(name, 0) + 1
        return CommandResult(command, proc.returncode, out.decode(errors="replace"),
                             err.decode(errors="replace"))

    @contextmanager
    def patched(self) -> Iterator["CommandCPU"]:
        from psijpbs import commands

        saved = commands.run_once
        commands.run_once = self.run_once  # type: ignore[assignment]
        try:
            yield self
        finally:
            commands.run_once = saved


class Breakdown:
    """CPU per job of each kind of process over one measured stretch of a cluster's life."""

    def __init__(self, cluster: BenchCluster) -> None:
        self.cluster = cluster
        self.daemons = cluster.daemons_cpu()
        self.jobs = cluster.jobs_cpu()
        self.own = _self_cpu()

    def line(self, count: int, commands: Dict[str, float], calls: Dict[str, int],
             own: str = "executor") -> str:
        """``own``: what this process's CPU is (psij and the executor, or the bench's polls)."""
        daemons = self.cluster.daemons_cpu()
        reaped, jobs_cpu = self.cluster.jobs_cpu()
        parts: List[Tuple[str, float]] = [
            (name, commands[name]) for name in sorted(commands)]
        if own not in commands:
            parts.append((own, _self_cpu() - self.own))
        parts += [(kind, daemons.get(kind, 0.0) - self.daemons.get(kind, 0.0))
                  for kind in ("runner", "server", "mom")]
        # A job's shepherd is reaped by its mom's launcher (counted in ``launched``), or, once
        # the launcher is gone, by bench._reaper.
        parts.append(("jobs", jobs_cpu - self.jobs[1]
                      + daemons.get("launched", 0.0) - self.daemons.get("launched", 0.0)))
        total = sum(cpu for _, cpu in parts)
        words = ["%s %.2f" % (name, cpu * 1000 / count) for name, cpu in parts]
        extra = ", ".join("%d %s" % (calls[n], n) for n in sorted(calls))
        return "CPU ms/job: %s; total %.2f (%s; %d processes reaped by the bench)" % (
            ", ".join(words), total * 1000 / count, extra, reaped - self.jobs[0])


# -- the measurements ----------------------------------------------------------------------------
def settle() -> None:
    """Write back what earlier runs left dirty before a measured run starts, so that no run pays
    for the one before it: on ext4 without a journal (this machine's file system) every new
    file scans past the inodes deleted in the last 30 s whose inode table blocks are not yet
    written back (``recently_deleted``), and 1,000 jobs delete ~12,000 (docs/performance.md).
    A run still pays for its own."""
    os.sync()


def qsub_rate(cluster: BenchCluster, count: int) -> float:
    settle()
    breakdown = Breakdown(cluster)
    cpu = _children_cpu()
    start = time.monotonic()
    ids = [cluster.run("qsub", "--", "/bin/true").strip() for _ in range(count)]
    submitted = time.monotonic()
    cpu = _children_cpu() - cpu  # only the qsub processes: the daemons are not our children
    end = cluster.wait_all_finished(ids, timeout=max(120.0, count * 0.5), period=0.1)
    # Where the time went: the serial submit loop (wall and each qsub process's own CPU) and
    # the tail, from the last submit until the last job was seen F.
    note("qsub: submit %.1f ms/job, tail %.2f s" % (
        (submitted - start) * 1000 / count, end - submitted))
    note(breakdown.line(count, {"qsub": cpu}, {"qsub": count}, own="bench polls"))
    return count / (end - start)


def psij_seconds(executor_name: str, count: int,
                 cluster: Optional[BenchCluster] = None) -> float:
    from psij import Job, JobExecutor, JobSpec, JobState

    executor = JobExecutor.get_instance(executor_name)
    jobs: List[Job] = [Job(JobSpec(executable="/bin/true")) for _ in range(count)]
    measure = CommandCPU()
    settle()
    breakdown = Breakdown(cluster) if cluster is not None else None
    own = _self_cpu()
    with measure.patched():
        start = time.monotonic()
        for job in jobs:
            executor.submit(job)
        submitted = time.monotonic()
        limit = timedelta(seconds=max(120.0, count * 0.5))
        for job in jobs:
            status = job.wait(timeout=limit)
            if status is None or status.state != JobState.COMPLETED:
                raise RuntimeError("psij %s job %s ended as %s"
                                   % (executor_name, job.id, status))
        end = time.monotonic()
    # Where the time went: the serial submit loop (qsub per job for pbspro) and the tail, from
    # the last submit until the last job was seen COMPLETED (the poll cadence for pbspro).
    note("psij %s: submit %.1f ms/job, tail %.2f s" % (
        executor_name, (submitted - start) * 1000 / count, end - submitted))
    if breakdown is not None:
        spent = dict(measure.cpu, executor=_self_cpu() - own)
        note(breakdown.line(count, spent, measure.calls))
    else:
        note("CPU ms/job: psij itself %.2f" % (
            (_self_cpu() - own + 0.0) * 1000 / count))
    return end - start


def _in_env(env: Dict[str, str], cluster: BenchCluster, count: int) -> float:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        return psij_seconds("pbspro", count, cluster)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run(count: int, qsub_only: bool = False, psij_only: bool = False,
        pythons: str = "both") -> bool:
    ok = True
    local: Optional[float] = None
    if not qsub_only:
        children = _children_cpu()
        local = psij_seconds("local", count)
        note("CPU ms/job of the local jobs (/bin/true, reaped by psij): %.2f" % (
            (_children_cpu() - children) * 1000 / count))
        report("%d jobs through psij 'local'" % count, "%.1f jobs/s" % (count / local), "-",
               True)
    with python_dirs() as dirs:
        for label, (python_dir, calls) in dirs.items():
            if pythons not in ("both", label.replace(" ", "-")):
                continue
            what = "a bash shim" if calls else "the interpreter itself"
            print("  -- python3 on PATH: %s" % what, flush=True)
            with BenchCluster(python_dir=python_dir, account=True) as cluster:
                before = _count_lines(calls)
                if not psij_only:
                    rate = qsub_rate(cluster, count)
                    ok &= report("%d x qsub /bin/true -> all F (%s)" % (count, label),
                                 "%.1f jobs/s" % rate, ">= %g jobs/s" % QSUB_TARGET,
                                 rate >= QSUB_TARGET)
                if local is not None:
                    fake = _in_env(cluster.env, cluster, count)
                    ratio = fake / local
                    ok &= report("%d jobs through psij 'pbspro' (fake, %s)" % (count, label),
                                 "%.1f jobs/s, %.2fx local" % (count / fake, ratio),
                                 "<= %gx local" % PSIJ_RATIO_TARGET, ratio <= PSIJ_RATIO_TARGET)
                if calls:
                    shimmed = _count_lines(calls) - before
                    ok &= report("commands started through the python3 shim (%s)" % label,
                                 str(shimmed), "0", shimmed == 0)
    return ok


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--qsub-only", action="store_true",
                        help="only the serial qsub figure (3a), not the psij ones")
    parser.add_argument("--psij-only", action="store_true",
                        help="only the psij figures (3b: pbspro on the fake, and local)")
    parser.add_argument("--python", choices=("both", "shim", "no-shim"), default="both",
                        help="python3 on PATH for the fake's runs: a shim, the interpreter "
                             "itself, or one run of each (default)")
    args = parser.parse_args()
    raise SystemExit(0 if run(args.jobs, args.qsub_only, args.psij_only, args.python) else 1)
