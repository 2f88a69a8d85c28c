"""Timing helpers shared by the benchmarks: medians of repeated runs and target lines."""
import statistics
import subprocess
import sys
import time
from typing import Callable, Dict, List, Sequence


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    samples: List[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000.0


def command_ms(argv: Sequence[str], env: Dict[str, str], repeat: int) -> float:
    """Median wall time of running ``argv`` to completion."""
    def once() -> None:
        subprocess.run(list(argv), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return median_ms(once, repeat)


def python_baseline_ms(env: Dict[str, str], repeat: int) -> float:
    """``python3 -c pass``: the floor any Python command stands on."""
    return command_ms(["python3", "-c", "pass"], env, repeat)


def report(name: str, value: str, target: str, ok: bool) -> bool:
    """Print one figure with its target and whether it holds."""
    sys.stdout.write("%-52s %18s   target %-16s %s\n" % (name, value, target, "ok" if ok else "MISSED"))
    sys.stdout.flush()
    return ok
