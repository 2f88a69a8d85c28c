"""2. Scheduling latency on an idle cluster: submit -> R and submit -> F for ``/bin/true``.

Targets: medians under 100 ms and 250 ms.  States are watched over the server's own protocol at a
2 ms period so that the watcher adds little to what it measures.
"""
import argparse
import statistics
import time
from typing import List, Tuple

from bench._cluster import BenchCluster
from bench._stats import report


def _watch(cluster: BenchCluster, timeout: float) -> Tuple[float, float]:
    import os

    os.environ["FAKE_PBS_HOME"] = cluster.env["FAKE_PBS_HOME"]
    from fake_pbs.cli import common

    start = time.perf_counter()
    job = str(common.request("queuejob", attrs={"Job_Name": "bench"},
                             script="#!/bin/sh\n/bin/true\n", cwd="/tmp", env={},
                             host="localhost")["jobid"])
    seen_r = None
    deadline = start + timeout
    while time.perf_counter() < deadline:
        record = common.request("statjob", id=job, extend="x", names=["job_state"])[0]
        state = dict(record["attrs"]).get("job_state")
        now = time.perf_counter()
        if state in ("R", "E", "F") and seen_r is None:
            seen_r = now
        if state == "F":
            return (seen_r - start) * 1000.0, (now - start) * 1000.0
        time.sleep(0.002)
    raise TimeoutError("job %s did not finish in %.0f s" % (job, timeout))


def run(repeat: int) -> bool:
    to_r: List[float] = []
    to_f: List[float] = []
    with BenchCluster() as cluster:
        for _ in range(repeat):
            r, f = _watch(cluster, 30.0)
            to_r.append(r)
            to_f.append(f)
    med_r, med_f = statistics.median(to_r), statistics.median(to_f)
    ok = report("submit -> R (median)", "%.1f ms" % med_r, "< 100 ms", med_r < 100)
    ok &= report("submit -> F (median)", "%.1f ms" % med_f, "< 250 ms", med_f < 250)
    return ok


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    raise SystemExit(0 if run(parser.parse_args().repeat) else 1)
