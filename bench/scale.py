"""4. Scale: ``qstat`` with 10,000 and 20,000 finished jobs in history, and the server's peak RSS.

Targets: one-id queries stay flat (within 1.2x of the empty server), all-jobs JSON under 1 s at
10,000, peak RSS under 200 MB, and 20,000 costs at most 2.2x 10,000.  History is filled with real
``/bin/true`` jobs submitted over the server protocol from several connections at once.
"""
import argparse
import os
import threading
import time
from pathlib import Path
from typing import Dict, List

from bench._cluster import BenchCluster
from bench._stats import command_ms, report


def _server_rss_peak_mb(home: Path) -> float:
    pid = int((home / "run" / "server.pid").read_text().split()[0])
    for line in Path("/proc/%d/status" % pid).read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def _fill(cluster: BenchCluster, count: int, workers: int = 4) -> List[str]:
    os.environ["FAKE_PBS_HOME"] = cluster.env["FAKE_PBS_HOME"]
    from fake_pbs import paths, protocol

    ids: List[str] = []
    lock = threading.Lock()

    def submit(n: int) -> None:
        channel = protocol.connect(paths.server_socket(paths.cluster_home()))
        try:
            for _ in range(n):
                data = protocol.call(channel, "queuejob", attrs={"Job_Name": "fill"},
                                     script="/bin/true\n", cwd="/tmp", env={}, host="localhost")
                with lock:
                    ids.append(str(data["jobid"]))
        finally:
            channel.close()

    threads = [threading.Thread(target=submit, args=(count // workers,)) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cluster.wait_all_finished(ids, timeout=max(300.0, count * 0.2))
    return ids


def _measure(cluster: BenchCluster, one: str, repeat: int) -> Dict[str, float]:
    env = cluster.env
    return {
        "qstat -x": command_ms(["qstat", "-x"], env, repeat),
        "qstat -f -F json -x <id>": command_ms(["qstat", "-f", "-F", "json", "-x", one], env, repeat),
        "qstat -f -F json -x (all)": command_ms(["qstat", "-f", "-F", "json", "-x"], env, repeat),
    }


def run(sizes: List[int], repeat: int) -> bool:
    ok = True
    with BenchCluster() as cluster:
        probe = cluster.run("qsub", "--", "/bin/true").strip()
        cluster.wait_all_finished([probe], timeout=60)
        empty = _measure(cluster, probe, repeat)
        report("qstat -f -F json -x <id> (1 job)", "%.1f ms" % empty["qstat -f -F json -x <id>"],
               "-", True)
        figures: Dict[int, Dict[str, float]] = {}
        have = 1
        for size in sizes:
            start = time.monotonic()
            _fill(cluster, size - have)
            have = size
            report("fill history to %d jobs" % size, "%.0f s" % (time.monotonic() - start), "-", True)
            figures[size] = _measure(cluster, probe, repeat)
            for name, ms in figures[size].items():
                report("%s @%d" % (name, size), "%.1f ms" % ms, "-", True)
            one = figures[size]["qstat -f -F json -x <id>"]
            ok &= report("  one id vs empty @%d" % size,
                         "%.2fx" % (one / empty["qstat -f -F json -x <id>"]), "<= 1.2x",
                         one <= 1.2 * empty["qstat -f -F json -x <id>"])
        first = sizes[0]
        if first >= 10000:
            all_ms = figures[first]["qstat -f -F json -x (all)"]
            ok &= report("all-jobs JSON @%d" % first, "%.0f ms" % all_ms, "< 1000 ms", all_ms < 1000)
        if len(sizes) > 1:
            a, b = figures[sizes[0]], figures[sizes[-1]]
            ratio = b["qstat -f -F json -x (all)"] / a["qstat -f -F json -x (all)"]
            ok &= report("all-jobs JSON @%d / @%d" % (sizes[-1], sizes[0]), "%.2fx" % ratio,
                         "<= 2.2x", ratio <= 2.2)
        rss = _server_rss_peak_mb(Path(cluster.env["FAKE_PBS_HOME"]))
        ok &= report("server peak RSS", "%.0f MB" % rss, "< 200 MB", rss < 200)
    return ok


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10000,20000")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    raise SystemExit(0 if run([int(s) for s in args.sizes.split(",")], args.repeat) else 1)
