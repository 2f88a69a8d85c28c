"""1. Command latency: each fake PBS command as a ratio to ``python3 -c pass`` (target <= 2x).

The baseline is ``python3`` as the benchmark's PATH resolves it, because the commands start through
that same ``python3``; what it resolves to is printed, and so is the bare interpreter behind it
(``<interpreter> -c pass``), the stricter floor.  ``qsub`` submits held jobs (``-h``) so that no job
runs while commands are timed; ``qdel`` deletes one of them per run.
"""
import argparse
from typing import Callable, Dict, List

from bench._cluster import BenchCluster
from bench._stats import (BASELINE, baseline_description, note, report, round_robin_ms,
                          run_quiet)


def run(repeat: int) -> bool:
    ok = True
    with BenchCluster() as cluster:
        env = cluster.env
        resolved, interpreter = baseline_description(env)
        done = cluster.run("qsub", "--", "/bin/true").strip()
        cluster.wait_all_finished([done], timeout=60)
        held = [cluster.run("qsub", "-h", "--", "/bin/true").strip() for _ in range(repeat)]
        victims = iter(held)

        def qdel() -> None:
            run_quiet(["qdel", next(victims)], env)

        def command(argv: List[str]) -> Callable[[], None]:
            return lambda: run_quiet(argv, env)

        cases: Dict[str, Callable[[], None]] = {
            "python3 -c pass": command(list(BASELINE)),
            "interpreter -c pass": command([interpreter, "-c", "pass"]),
            "qsub -h -- /bin/true": command(["qsub", "-h", "--", "/bin/true"]),
            "qstat": command(["qstat"]),
            "qstat -f -F json -x <id>": command(["qstat", "-f", "-F", "json", "-x", done]),
            "qdel <held id>": qdel,
            "pbsnodes -a": command(["pbsnodes", "-a"]),
        }
        medians = round_robin_ms(cases, repeat)
        base = medians.pop("python3 -c pass")
        bare = medians.pop("interpreter -c pass")
        report("python3 -c pass (baseline)", "%.1f ms" % base, "-", True)
        note("python3 on PATH: %s -> %s" % (resolved, interpreter))
        report("%s -c pass (bare)" % interpreter.rsplit("/", 1)[-1], "%.1f ms" % bare, "-", True)
        for name, ms in medians.items():
            ok &= report(name, "%.1f ms %.2fx (%.2fx bare)" % (ms, ms / base, ms / bare),
                         "<= 2x", ms <= 2 * base)
        leftover = cluster.call("selectjob", criteria=[], extend="")
        for job in leftover:
            cluster.call("deljob", id=job, force=False, purge=False, suppress_mail=None)
    return ok


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=30)
    raise SystemExit(0 if run(parser.parse_args().repeat) else 1)
