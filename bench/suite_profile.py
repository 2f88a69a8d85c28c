"""Where a parallel test run's time goes: a pytest plugin for the xdist controller.

    .venv/bin/pytest --executors=pbspro -p bench.suite_profile

At the end of the run it prints, for each xdist worker, its busy time (setup, call and teardown
of its tests summed) and its span (first start to last stop), and the test time summed per
directory under ``tests/`` and per unit (a file, or a replay chain: tests/scheduling.py), longest
first.  The longest worker's span is the run's critical path (docs/testing.md); the load average
at the start and the end is printed with it, since on a shared machine the absolute times are
mostly other load.  Without xdist everything is one "worker", ``main``.
"""
import os
from collections import defaultdict
from typing import DefaultDict, Dict, List, Tuple

import pytest

from tests.scheduling import unit_of

_busy: DefaultDict[str, float] = defaultdict(float)
_span: Dict[str, Tuple[float, float]] = {}
_by_dir: DefaultDict[str, float] = defaultdict(float)
_by_unit: DefaultDict[str, float] = defaultdict(float)
_tests_by_dir: DefaultDict[str, set] = defaultdict(set)  # type: ignore[type-arg]
_load_at_start = ""


def _load() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def pytest_sessionstart(session: pytest.Session) -> None:
    global _load_at_start
    _load_at_start = _load()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return  # in a worker: its controller counts
    node = getattr(report, "node", None)  # xdist's controller sets the worker here
    worker = node.gateway.id if node is not None else "main"
    _busy[worker] += report.duration
    start, stop = getattr(report, "start", 0.0), getattr(report, "stop", 0.0)
    if start:
        first, last = _span.get(worker, (start, stop))
        _span[worker] = (min(first, start), max(last, stop))
    path = report.nodeid.split("::", 1)[0]
    parts = path.split("/")
    directory = parts[1] if len(parts) > 2 and parts[0] == "tests" else "(top)"
    _by_dir[directory] += report.duration
    _tests_by_dir[directory].add(report.nodeid)
    _by_unit[unit_of(report.nodeid)] += report.duration


def pytest_terminal_summary(terminalreporter: "pytest.TerminalReporter") -> None:
    if os.environ.get("PYTEST_XDIST_WORKER") or not _busy:
        return
    write = terminalreporter.write_line
    terminalreporter.section("suite profile (bench/suite_profile.py)")
    write("load average at start: %s, at end: %s" % (_load_at_start, _load()))
    rows: List[Tuple[str, float, float]] = []
    for worker, busy in _busy.items():
        first, last = _span.get(worker, (0.0, 0.0))
        rows.append((worker, busy, last - first))
    for worker, busy, span in sorted(rows, key=lambda r: -r[2]):
        write("worker %-6s busy %7.1f s  span %7.1f s" % (worker, busy, span))
    write("per directory (summed test time, tests):")
    for directory, seconds in sorted(_by_dir.items(), key=lambda kv: -kv[1]):
        write("  %-14s %7.1f s  %5d" % (directory, seconds, len(_tests_by_dir[directory])))
    write("  %-14s %7.1f s  %5d" % ("all", sum(_by_dir.values()),
                                    sum(len(t) for t in _tests_by_dir.values())))
    write("longest units (a file, or a replay chain):")
    for unit, seconds in sorted(_by_unit.items(), key=lambda kv: -kv[1])[:40]:
        write("  %7.1f s  %s" % (seconds, unit))
