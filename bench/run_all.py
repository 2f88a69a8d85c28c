"""Run every benchmark and print each figure with its target (``make bench``).

``--tiny`` runs each with a very small size: the test suite uses it as a smoke test that the
benchmarks still run; its figures mean nothing.  ``--only`` picks benchmarks by number.
"""
import argparse
import sys
import time
from pathlib import Path
from typing import Callable, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import commands, executor_parse, scale, scheduling, throughput  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tiny", action="store_true", help="smoke-test sizes")
    parser.add_argument("--only", default="12345", help="benchmarks to run, e.g. 13 (default all)")
    args = parser.parse_args()
    tiny = args.tiny
    steps: List[Tuple[str, str, Callable[[], bool]]] = [
        ("1", "command latency", lambda: commands.run(repeat=3 if tiny else 30)),
        ("2", "scheduling latency", lambda: scheduling.run(repeat=2 if tiny else 20)),
        ("3", "throughput", lambda: throughput.run(count=5 if tiny else 1000)),
        ("4", "scale", lambda: scale.run(sizes=[20, 40] if tiny else [10000, 20000],
                                         repeat=1 if tiny else 5)),
        ("5", "executor", lambda: executor_parse.run(count=100 if tiny else 10000)),
    ]
    results: List[bool] = []
    for number, title, step in steps:
        if number not in args.only:
            continue
        start = time.monotonic()
        print("== %s. %s" % (number, title), flush=True)
        results.append(step())
        print("   (%.0f s)" % (time.monotonic() - start), flush=True)
    held = all(results)
    print("all targets hold" if held else "some targets MISSED")
    return 0 if held or tiny else 1


if __name__ == "__main__":
    raise SystemExit(main())
