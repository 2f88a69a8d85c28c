"""Run every benchmark and print each figure with its target (``make bench``).

``--tiny`` runs each with a very small size: the test suite uses it as a smoke test that the
benchmarks still run; its figures mean nothing.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import commands, executor_parse, scale, scheduling, throughput  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tiny", action="store_true", help="smoke-test sizes")
    args = parser.parse_args()
    tiny = args.tiny
    results = []
    print("== 1. command latency")
    results.append(commands.run(repeat=3 if tiny else 30))
    print("== 2. scheduling latency")
    results.append(scheduling.run(repeat=2 if tiny else 20))
    print("== 3. throughput")
    results.append(throughput.run(count=5 if tiny else 1000))
    print("== 4. scale")
    results.append(scale.run(sizes=[20, 40] if tiny else [10000, 20000], repeat=1 if tiny else 5))
    print("== 5. executor")
    results.append(executor_parse.run(count=100 if tiny else 10000))
    held = all(results)
    print("all targets hold" if held else "some targets MISSED")
    return 0 if held or tiny else 1


if __name__ == "__main__":
    raise SystemExit(main())
