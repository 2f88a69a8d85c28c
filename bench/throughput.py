"""3. Throughput: N ``/bin/true`` jobs submitted back to back until all are F.

Targets: at least 40 jobs/s with ``qsub`` on the default cluster (25x real OpenPBS's 1.6 jobs/s),
and the same N jobs through psij's ``pbspro`` executor on the fake, printed as a ratio to psij's
``local`` executor (which forks the jobs itself: the floor of what psij can do).  The submit loop
is serial, like a user's script or psij's ``submit``; the clock stops when the last job is seen F.
"""
import argparse
import os
import resource
import time
from datetime import timedelta
from typing import Dict, List

from bench._cluster import BenchCluster
from bench._stats import note, report


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def qsub_rate(cluster: BenchCluster, count: int) -> float:
    cpu = _children_cpu()
    start = time.monotonic()
    ids = [cluster.run("qsub", "--", "/bin/true").strip() for _ in range(count)]
    submitted = time.monotonic()
    cpu = _children_cpu() - cpu  # only the qsub processes: the daemons are not our children
    end = cluster.wait_all_finished(ids, timeout=max(120.0, count * 0.5), period=0.1)
    # Where the time went: the serial submit loop (wall and each qsub process's own CPU) and
    # the tail, from the last submit until the last job was seen F.
    note("qsub: submit %.1f ms/job (%.1f ms CPU per qsub process), tail %.2f s" % (
        (submitted - start) * 1000 / count, cpu * 1000 / count, end - submitted))
    return count / (end - start)


def psij_seconds(executor_name: str, count: int) -> float:
    from psij import Job, JobExecutor, JobSpec, JobState

    executor = JobExecutor.get_instance(executor_name)
    jobs: List[Job] = [Job(JobSpec(executable="/bin/true")) for _ in range(count)]
    start = time.monotonic()
    for job in jobs:
        executor.submit(job)
    submitted = time.monotonic()
    limit = timedelta(seconds=max(120.0, count * 0.5))
    for job in jobs:
        status = job.wait(timeout=limit)
        if status is None or status.state != JobState.COMPLETED:
            raise RuntimeError("psij %s job %s ended as %s" % (executor_name, job.id, status))
    end = time.monotonic()
    # Where the time went: the serial submit loop (qsub per job for pbspro) and the tail, from
    # the last submit until the last job was seen COMPLETED (the poll cadence for pbspro).
    print("    psij %s: submit %.1f ms/job, tail %.2f s" % (
        executor_name, (submitted - start) * 1000 / count, end - submitted))
    return end - start


def _in_env(env: Dict[str, str], executor_name: str, count: int) -> float:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        return psij_seconds(executor_name, count)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run(count: int, qsub_only: bool = False, psij_only: bool = False) -> bool:
    ok = True
    with BenchCluster() as cluster:
        if not psij_only:
            rate = qsub_rate(cluster, count)
            ok = report("%d x qsub /bin/true -> all F" % count, "%.1f jobs/s" % rate,
                        ">= 40 jobs/s", rate >= 40)
        if qsub_only:
            return ok
        fake = _in_env(cluster.env, "pbspro", count)
    local = psij_seconds("local", count)
    report("%d jobs through psij 'local'" % count, "%.1f jobs/s" % (count / local), "-", True)
    ok &= report("%d jobs through psij 'pbspro' (fake)" % count,
                 "%.1f jobs/s %.1fx local" % (count / fake, fake / local), ">= 40 jobs/s",
                 count / fake >= 40)
    return ok


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--qsub-only", action="store_true",
                        help="only the serial qsub figure (3a), not the psij ones")
    parser.add_argument("--psij-only", action="store_true",
                        help="only the psij figures (3b: pbspro on the fake, and local)")
    args = parser.parse_args()
    raise SystemExit(0 if run(args.jobs, args.qsub_only, args.psij_only) else 1)
