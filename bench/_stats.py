"""Timing helpers shared by the benchmarks: medians of repeated runs, the baseline, target lines.

Commands and their baseline are timed round-robin (one run of each per round), so that a burst of
load on the machine weighs on all of them alike instead of on whichever ran during it.
"""
import os
import shutil
import statistics
import subprocess
import sys
import time
from typing import Callable, Dict, List, Mapping, Sequence, Tuple

BASELINE = ("python3", "-c", "pass")


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    samples: List[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000.0


def run_quiet(argv: Sequence[str], env: Dict[str, str]) -> None:
    """Run ``argv`` with output discarded, from the cluster's work directory when it has one."""
    home = env.get("FAKE_PBS_HOME")
    work = os.path.join(home, "work") if home else None
    subprocess.run(list(argv), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   cwd=work if work and os.path.isdir(work) else None, timeout=600)


def command_ms(argv: Sequence[str], env: Dict[str, str], repeat: int) -> float:
    """Median wall time of running ``argv`` to completion."""
    return median_ms(lambda: run_quiet(argv, env), repeat)


def round_robin_ms(cases: Mapping[str, Callable[[], object]], repeat: int) -> Dict[str, float]:
    """Median wall time of each case, the cases interleaved run by run."""
    samples: Dict[str, List[float]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, fn in cases.items():
            start = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(s) * 1000.0 for name, s in samples.items()}


def baseline_description(env: Dict[str, str]) -> Tuple[str, str]:
    """(what ``python3`` resolves to on the benchmark's PATH, the interpreter it runs).

    The first may be a wrapper (a pyenv shim, say) whose cost the baseline honestly includes: the
    fake commands start through the same ``python3``.
    """
    found = shutil.which("python3", path=env.get("PATH", os.defpath)) or "python3 (not found)"
    done = subprocess.run(["python3", "-c", "import sys; print(sys.executable)"], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          timeout=60)
    return found, done.stdout.strip() or "?"


def report(name: str, value: str, target: str, ok: bool) -> bool:
    """Print one figure with its target and whether it holds."""
    sys.stdout.write("%-48s %22s   target %-14s %s\n"
                     % (name, value, target, "ok" if ok else "MISSED"))
    sys.stdout.flush()
    return ok


def note(text: str) -> None:
    sys.stdout.write("   %s\n" % text)
    sys.stdout.flush()
