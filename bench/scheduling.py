"""2. Scheduling latency on an idle cluster: submit -> R and submit -> F for ``/bin/true``.

Targets: medians under 100 ms and 250 ms.  Jobs are queued and watched over the server's own
protocol (no command start-up in the figure) at a 2 ms period, so the watcher adds little.
"R" is the first time the job is seen running or past it (R, E or F): a job that starts and ends
between two looks is counted as started when it is first seen.
"""
import argparse
import statistics
import time
from typing import List, Tuple

from bench._cluster import BenchCluster
from bench._stats import report

_PERIOD = 0.002


def _watch(cluster: BenchCluster, timeout: float) -> Tuple[float, float]:
    start = time.perf_counter()
    job = cluster.submit(script="#!/bin/sh\n/bin/true\n")
    seen_r = None
    deadline = start + timeout
    while time.perf_counter() < deadline:
        state = cluster.state(job)
        now = time.perf_counter()
        if state in ("R", "E", "F") and seen_r is None:
            seen_r = now
        if state == "F" and seen_r is not None:
            return (seen_r - start) * 1000.0, (now - start) * 1000.0
        time.sleep(_PERIOD)
    raise TimeoutError("job %s did not finish in %.0f s; see %s"
                       % (job, timeout, cluster.home / "daemon_logs"))


def run(repeat: int) -> bool:
    to_r: List[float] = []
    to_f: List[float] = []
    with BenchCluster() as cluster:
        _watch(cluster, 60.0)  # warm-up: first job pays for the moms' first connection
        for _ in range(repeat):
            r, f = _watch(cluster, 30.0)
            to_r.append(r)
            to_f.append(f)
    med_r, med_f = statistics.median(to_r), statistics.median(to_f)
    ok = report("submit -> R (median of %d)" % repeat, "%.1f ms" % med_r, "< 100 ms", med_r < 100)
    ok &= report("submit -> F (median of %d)" % repeat, "%.1f ms" % med_f, "< 250 ms",
                 med_f < 250)
    return ok


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    raise SystemExit(0 if run(parser.parse_args().repeat) else 1)
