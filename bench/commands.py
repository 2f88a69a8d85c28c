"""1. Command latency: each fake PBS command as a ratio to ``python3 -c pass`` (target <= 2x)."""
import argparse
import subprocess
from typing import Dict, Iterator, List

from bench._cluster import BenchCluster
from bench._stats import command_ms, median_ms, python_baseline_ms, report


def _qdel_ms(ids: Iterator[str], env: Dict[str, str], repeat: int) -> float:
    """Median time of ``qdel`` on fresh held jobs, one per run."""
    def once() -> None:
        subprocess.run(["qdel", next(ids)], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return median_ms(once, repeat)


def run(repeat: int) -> bool:
    ok = True
    with BenchCluster() as cluster:
        env = cluster.env
        base = python_baseline_ms(env, repeat)
        report("python3 -c pass (baseline)", "%.1f ms" % base, "-", True)
        done = cluster.run("qsub", "--", "/bin/true").strip()
        cluster.wait_all_finished([done], timeout=60)
        cases: List[List[str]] = [
            ["qsub", "-h", "--", "/bin/true"],
            ["qstat"],
            ["qstat", "-f", "-F", "json", "-x", done],
            ["pbsnodes", "-a"],
        ]
        for argv in cases:
            ms = command_ms(argv, env, repeat)
            ok &= report(" ".join(argv[:5]), "%.1f ms %.2fx" % (ms, ms / base), "<= 2x",
                         ms <= 2 * base)
        held = [cluster.run("qsub", "-h", "--", "/bin/true").strip() for _ in range(repeat)]
        ms = _qdel_ms(iter(held), env, repeat)
        ok &= report("qdel <held job>", "%.1f ms %.2fx" % (ms, ms / base), "<= 2x", ms <= 2 * base)
        for job in cluster.run("qselect").split():
            cluster.run("qdel", job, check=False)
    return ok


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=30)
    raise SystemExit(0 if run(parser.parse_args().repeat) else 1)
