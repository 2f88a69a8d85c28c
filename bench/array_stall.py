"""How long one user's big job array holds up everyone else's requests (issue 21, part 5).

A prober thread asks the server for the job list (``statjob`` of all jobs plus ``statsvr``, what
a plain ``qstat`` sends) on a connection of its own, back to back, while the main thread runs
``qsub -J 0-<N-1>``, ``qstat -t`` of that array and then its ``qdel``.  Printed: each command's
wall time, and the probe latencies (median, max) in each phase, quiet ones included.

    python -m bench.array_stall --size 10000
"""
import argparse
import statistics
import subprocess
import threading
import time
from typing import Dict, List, Tuple

from fake_pbs import paths, protocol
from bench._cluster import BenchCluster

SCRIPT = "#!/bin/sh\nsleep 600\n"


class Prober:
    """Times one status request after another until stopped; latencies are tagged with the
    phase that was current when each request was sent."""

    def __init__(self, home: str) -> None:
        self.socket = str(paths.server_socket(__import__("pathlib").Path(home)))
        self.phase = "idle"
        self.seen: Dict[str, List[float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=180)

    def _run(self) -> None:
        while not self._stop.is_set():
            phase = self.phase
            began = time.monotonic()
            try:
                protocol.call_once(self.socket, "statjob", 120.0, id=None, extend="")
                protocol.call_once(self.socket, "statsvr", 120.0)
            except Exception:  # a timeout is the figure: record it as its elapsed time
                pass
            self.seen.setdefault(phase, []).append(time.monotonic() - began)
            time.sleep(0.02)


def _timed(cluster: BenchCluster, argv: List[str], stdin: str = "") -> Tuple[float, str]:
    began = time.monotonic()
    done = subprocess.run(argv, input=stdin, env=cluster.env, cwd=str(cluster.work),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(argv), done.stderr))
    return time.monotonic() - began, done.stdout.strip()


def _wait_gone(cluster: BenchCluster, jobid: str, limit: float = 300.0) -> float:
    """Seconds until ``jobid`` has left the live job list (a qdel of running subjobs returns
    before they are all over)."""
    began = time.monotonic()
    while time.monotonic() - began < limit:
        live = cluster.call("statjob", id=None, extend="")
        if not any(r.get("id") == jobid for r in live):
            break
        time.sleep(0.1)
    return time.monotonic() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10000)
    args = parser.parse_args()
    with BenchCluster(hosts=["n1:ncpus=2", "n2:ncpus=2"]) as cluster:
        prober = Prober(str(cluster.home))
        prober.start()
        time.sleep(1.0)
        prober.phase = "qsub"
        qsub_s, jobid = _timed(cluster, ["qsub", "-J", "0-%d" % (args.size - 1)], SCRIPT)
        prober.phase = "between"
        time.sleep(1.0)
        prober.phase = "qstat-t"
        qstat_s, listing = _timed(cluster, ["qstat", "-t", jobid])
        prober.phase = "qdel"
        qdel_s, _ = _timed(cluster, ["qdel", jobid])
        gone_s = _wait_gone(cluster, jobid)
        prober.phase = "after"
        time.sleep(1.0)
        prober.stop()
    print("array of %d subjobs: qsub %.2f s, qstat -t %.2f s (%d lines), qdel %.2f s "
          "(+%.2f s until it left the list)" % (args.size, qsub_s, qstat_s,
                                                len(listing.splitlines()), qdel_s, gone_s))
    print("%-8s %6s %10s %10s" % ("phase", "probes", "median ms", "max ms"))
    for phase in ("idle", "qsub", "between", "qstat-t", "qdel", "after"):
        times = prober.seen.get(phase, [])
        if times:
            print("%-8s %6d %10.1f %10.1f" % (phase, len(times), 1000 * statistics.median(times),
                                              1000 * max(times)))


if __name__ == "__main__":
    main()
