"""The mom's exit watch (fake_pbs/mom/exitwatch.py): a job's watcher is woken when its shepherd
process ends (docs/internals.md §5: the mom learns the job shell ended from the shepherd), at
once when it has ended already, and never for another process that reuses the pid."""
import subprocess
import sys
import threading

import pytest

from fake_pbs.mom import exitwatch
from fake_pbs.mom.procs import start_ticks

pytestmark = pytest.mark.skipif(not exitwatch.SUPPORTED, reason="no pidfds here")


def _sleeper(seconds: float) -> "subprocess.Popen[bytes]":
    return subprocess.Popen([sys.executable, "-S", "-c", "import time; time.sleep(%s)" % seconds])


def test_the_watcher_is_woken_when_the_process_ends() -> None:
    proc = _sleeper(0.3)
    try:
        wake = threading.Event()
        assert exitwatch.ExitWatch().watch(proc.pid, start_ticks(proc.pid), wake)
        assert not wake.is_set()
        assert wake.wait(10.0)
    finally:
        proc.kill()
        proc.wait()


def test_a_process_gone_or_replaced_wakes_at_once() -> None:
    proc = _sleeper(0)
    ticks = start_ticks(proc.pid)
    proc.wait()
    wake = threading.Event()
    assert exitwatch.ExitWatch().watch(proc.pid, ticks, wake)
    assert wake.is_set()
    other = _sleeper(5)
    try:
        wake = threading.Event()
        # The same pid with other start ticks is another process: not the one recorded.
        assert exitwatch.ExitWatch().watch(other.pid, (start_ticks(other.pid) or 0) + 1, wake)
        assert wake.is_set()
    finally:
        other.kill()
        other.wait()
