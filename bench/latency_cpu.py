"""CPU time of one fake PBS command process (user + system, from ``wait4``), not wall time.

Wall time on a shared 2-core machine moves with everyone else's load; the CPU a command process
itself burns moves much less, so this is the figure to compare before/after a start-up change.
Each case runs round-robin with the baseline ``python3 -S -c pass`` (the floor every command
pays), on a cluster of its own; ``qsub`` submits held jobs so nothing runs meanwhile.
When the cluster's command runner (fake_pbs/runner/) runs the commands, the command process
is only the sh wrapper and the C client: the ``runner`` column adds the runner's CPU over
the case's runs (its children's included; from /proc in clock ticks, hence a mean), and
``total`` is the median plus that mean.

    python -m bench.latency_cpu --repeat 60
    python -m bench.latency_cpu --compare <other checkout>   # the same cases from both trees

``--compare`` alternates this tree's ``fake_pbs/bin`` with another checkout's run by run, against
the same server (the wire format is shared), which is how docs/performance.md's before/after
figures were taken.
"""
import argparse
import os
import statistics
from typing import Dict, List, Optional, Sequence

from bench._cluster import BIN, BenchCluster, tree_cpu

CASES = (
    ("qsub -h -- /bin/true", ["qsub", "-h", "--", "/bin/true"]),
    ("qsub -h script", ["qsub", "-h", "job.sh"]),
    ("qstat", ["qstat"]),
    ("qstat -f -F json -x <id>", ["qstat", "-f", "-F", "json", "-x", "{done}"]),
    ("qdel <held id>", ["qdel", "{held}"]),
    ("pbsnodes -a", ["pbsnodes", "-a"]),
)
SCRIPT = "#!/bin/sh\n#PBS -N bench\n#PBS -l walltime=00:01:00\n/bin/true\n"


def runner_ms(pid: int) -> float:
    """CPU so far of the command runner ``pid`` with its workers, live or reaped (0 for none),
    in ms; clock ticks (10 ms), so only a sum over many commands is meaningful."""
    if not pid:
        return 0.0
    return tree_cpu(pid) * 1000.0


def cpu_ms(argv: Sequence[str], env: Dict[str, str], cwd: str) -> float:
    """Run ``argv`` to completion, output discarded; its user + system CPU in ms."""
    null = os.open(os.devnull, os.O_RDWR)
    try:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                os.chdir(cwd)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                os.execvpe(argv[0], list(argv), env)
            finally:
                os._exit(127)
    finally:
        os.close(null)
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("%s failed: status %d" % (" ".join(argv), status))
    return (usage.ru_utime + usage.ru_stime) * 1000.0


def _argv(words: Sequence[str], bin_dir: str, fill: Dict[str, str]) -> List[str]:
    argv = [w.format(**fill) for w in words]
    if argv[0] in ("qsub", "qstat", "qdel", "pbsnodes"):
        argv[0] = os.path.join(bin_dir, argv[0])
    return argv


def run(repeat: int, compare: Optional[str]) -> None:
    trees = {"": str(BIN)}
    if compare:
        trees[" (other)"] = os.path.join(os.path.abspath(compare), "fake_pbs", "bin")
    with BenchCluster() as cluster:
        env = cluster.env
        work = str(cluster.work)
        with open(os.path.join(work, "job.sh"), "w") as handle:
            handle.write(SCRIPT)
        done = cluster.run("qsub", "--", "/bin/true").strip()
        cluster.wait_all_finished([done], timeout=60)
        held = iter([cluster.run("qsub", "-h", "--", "/bin/true").strip()
                     for _ in range(repeat * len(trees))])
        samples: Dict[str, List[float]] = {"python3 -S -c pass": []}
        in_runner: Dict[str, float] = {}
        runner = cluster.runner_pid()
        for _ in range(repeat):
            samples["python3 -S -c pass"].append(
                cpu_ms(["python3", "-S", "-c", "pass"], env, work))
            for suffix, bin_dir in trees.items():
                for name, words in CASES:
                    fill = {"done": done, "held": next(held) if "{held}" in words else ""}
                    before = runner_ms(runner)
                    samples.setdefault(name + suffix, []).append(
                        cpu_ms(_argv(words, bin_dir, fill), env, work))
                    in_runner[name + suffix] = (in_runner.get(name + suffix, 0.0)
                                                + runner_ms(runner) - before)
        for job in cluster.call("selectjob", criteria=[], extend=""):
            cluster.call("deljob", id=job, force=False, purge=False, suppress_mail=None)
    print("%-30s %9s %9s %9s %9s  (CPU ms per command, %d rounds)"
          % ("case", "median", "min", "runner", "total", repeat))
    for name, values in samples.items():
        spent = in_runner.get(name, 0.0) / repeat
        middle = statistics.median(values)
        print("%-30s %9.2f %9.2f %9.2f %9.2f" % (name, middle, min(values), spent, middle + spent))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--compare", help="another checkout whose fake_pbs/bin to alternate with")
    args = parser.parse_args()
    run(args.repeat, args.compare)
