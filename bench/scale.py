"""4. Scale: ``qstat`` with 10,000 and 20,000 finished jobs in history, and the server's peak RSS.

Targets: one-id queries stay flat (within 1.2x of the near-empty server), all-jobs JSON under 1 s
at 10,000, peak RSS under 200 MB, and 20,000 costs at most 2.2x 10,000.

Two ways to fill the history (``--fill``): ``real`` runs every history job, real ``/bin/true``
jobs queued over the server protocol (no qsub start-up) in batches so that the queue never holds
more than a few hundred jobs at once (10-20 minutes for 20,000 here); ``clone`` (the default)
runs ``--real`` jobs that way and makes the rest copies of their finished records, written with
the server's own store while the cluster is stopped (``bench/_clonefill.py``), in seconds.
"""
import argparse
import time
from typing import Dict, List

from bench._clonefill import clone_history
from bench._cluster import BenchCluster
from bench._stats import command_ms, note, report, round_robin_ms, run_quiet

_BATCH = 500
ONE = "qstat -f -F json -x <id>"
ALL_JSON = "qstat -f -F json -x (all)"
REF = "  same, 1-job reference server"


def _server_rss_peak_mb(cluster: BenchCluster) -> float:
    with open("/proc/%d/status" % cluster.server_pid(), "r") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def _fill(cluster: BenchCluster, count: int) -> None:
    """Run ``count`` more /bin/true jobs to the end (state F)."""
    left = count
    while left > 0:
        batch = [cluster.submit(name="fill") for _ in range(min(_BATCH, left))]
        cluster.wait_all_finished(batch, timeout=max(300.0, len(batch) * 1.0), period=0.25)
        left -= len(batch)


def _measure(cluster: BenchCluster, reference: BenchCluster, one: str, ref_one: str,
             repeat: int) -> Dict[str, float]:
    """Medians of the three queries; the one-id query is timed round-robin with the same query
    on the reference cluster (one job in history), so that their ratio does not depend on how
    busy the machine was at either moment."""
    env = cluster.env
    timed = round_robin_ms({
        ONE: lambda: run_quiet(["qstat", "-f", "-F", "json", "-x", one], env),
        REF: lambda: run_quiet(["qstat", "-f", "-F", "json", "-x", ref_one], reference.env),
    }, max(repeat, 30))
    timed["qstat -x"] = command_ms(["qstat", "-x"], env, repeat)
    timed[ALL_JSON] = command_ms(["qstat", "-f", "-F", "json", "-x"], env, repeat)
    return timed


def _probe(cluster: BenchCluster) -> str:
    job = cluster.run("qsub", "--", "/bin/true").strip()
    cluster.wait_all_finished([job], timeout=60)
    return job


def run(sizes: List[int], repeat: int, fill: str = "clone", real: int = 200) -> bool:
    ok = True
    with BenchCluster() as reference, BenchCluster() as cluster:
        ref_one = _probe(reference)
        probe = _probe(cluster)
        figures: Dict[int, Dict[str, float]] = {}
        have = 1
        for size in sizes:
            start = time.monotonic()
            if fill == "real":
                _fill(cluster, size - have)
            else:
                _fill(cluster, max(0, min(real, size) - have))
                if size > real:
                    clone_history(cluster, size)
            have = size
            note("history filled to %d jobs (%s) in %.0f s"
                 % (size, fill, time.monotonic() - start))
            figures[size] = _measure(cluster, reference, probe, ref_one, repeat)
            for name in ("qstat -x", ONE, REF, ALL_JSON):
                report("%s @%d" % (name, size), "%.1f ms" % figures[size][name], "-", True)
            ratio = figures[size][ONE] / figures[size][REF]
            ok &= report("  one id @%d vs 1-job server" % size, "%.2fx" % ratio, "<= 1.2x",
                         ratio <= 1.2)
        first = sizes[0]
        if first >= 10000:
            all_ms = figures[first][ALL_JSON]
            ok &= report("all-jobs JSON @%d" % first, "%.0f ms" % all_ms, "< 1000 ms",
                         all_ms < 1000)
        if len(sizes) > 1:
            ratio = figures[sizes[-1]][ALL_JSON] / figures[sizes[0]][ALL_JSON]
            ok &= report("all-jobs JSON @%d / @%d" % (sizes[-1], sizes[0]), "%.2fx" % ratio,
                         "<= 2.2x", ratio <= 2.2)
        rss = _server_rss_peak_mb(cluster)
        ok &= report("server peak RSS (VmHWM)", "%.0f MB" % rss, "< 200 MB", rss < 200)
    return ok


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10000,20000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--fill", choices=("clone", "real"), default="clone",
                        help="how history is filled (see the module doc)")
    parser.add_argument("--real", type=int, default=200,
                        help="with --fill clone: real jobs run before copies are made")
    args = parser.parse_args()
    raise SystemExit(0 if run([int(s) for s in args.sizes.split(",")], args.repeat, args.fill,
                              args.real) else 1)
