"""3. Throughput: N ``/bin/true`` jobs submitted back to back with ``qsub`` until all are F.

Target: at least 40 jobs/s on the default cluster (25x real OpenPBS's 1.6 jobs/s), and the same N
jobs through psij's ``pbspro`` executor on the fake, as a ratio to psij's ``local`` executor.
"""
import argparse
import os
import time
from datetime import timedelta
from typing import List

from bench._cluster import BenchCluster
from bench._stats import report


def qsub_rate(cluster: BenchCluster, count: int) -> float:
    start = time.monotonic()
    ids = [cluster.run("qsub", "--", "/bin/true").strip() for _ in range(count)]
    end = cluster.wait_all_finished(ids, timeout=max(120.0, count * 0.5))
    return count / (end - start)


def psij_seconds(executor_name: str, count: int) -> float:
    from psij import Job, JobExecutor, JobSpec

    executor = JobExecutor.get_instance(executor_name)
    jobs: List[Job] = [Job(JobSpec(executable="/bin/true")) for _ in range(count)]
    start = time.monotonic()
    for job in jobs:
        executor.submit(job)
    for job in jobs:
        job.wait(timeout=timedelta(seconds=max(120.0, count * 0.5)))
    return time.monotonic() - start


def run(count: int) -> bool:
    with BenchCluster() as cluster:
        rate = qsub_rate(cluster, count)
        ok = report("%d x qsub /bin/true -> all F" % count, "%.1f jobs/s" % rate, ">= 40 jobs/s",
                    rate >= 40)
        saved = dict(os.environ)
        os.environ.update(cluster.env)
        try:
            fake = psij_seconds("pbspro", count)
        finally:
            os.environ.clear()
            os.environ.update(saved)
    local = psij_seconds("local", count)
    report("%d jobs through psij 'local'" % count, "%.1f jobs/s" % (count / local), "-", True)
    ok &= report("%d jobs through psij 'pbspro' on the fake" % count,
                 "%.1f jobs/s %.1fx" % (count / fake, fake / local), ">= 40 jobs/s",
                 count / fake >= 40)
    return ok


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=1000)
    raise SystemExit(0 if run(parser.parse_args().jobs) else 1)
