"""The ``bottomup`` kill order (fake_pbs/mom/faults.py): PBS's kill_task signals a job's
processes deepest first and the job shell last, so a shell may outlive its child's SIGTERM and
run on (issue 12: an ``.ec`` of 143 after a walltime kill on OpenPBS 23.06.06)."""
import signal
import subprocess
import time
from pathlib import Path
from typing import Callable

from fake_pbs.mom.procs import session_members, signal_session, signal_session_bottom_up

#: The shell records its child's exit status, then starts another child.
_SCRIPT = 'sleep 30; echo $? > "$1"; sleep 30'


def _wait_for(check: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:
        time.sleep(0.05)


def test_children_first_lets_the_shell_record_its_child(tmp_path: Path) -> None:
    """Bottom-up SIGTERM: the child dies first, the shell writes 143 in the gap before its own
    signal, then dies of it."""
    record = tmp_path / "ec"
    shell = subprocess.Popen(["/bin/sh", "-c", _SCRIPT, "sh", str(record)],
                             start_new_session=True)
    try:
        _wait_for(lambda: len(session_members(shell.pid)) >= 2)
        assert len(session_members(shell.pid)) >= 2, "the child never started"
        sent = signal_session_bottom_up(shell.pid, signal.SIGTERM, 0.5)
        assert sent == 2
        assert shell.wait(timeout=10) == -signal.SIGTERM
        assert record.read_text().strip() == "143"
    finally:
        signal_session(shell.pid, signal.SIGKILL)
        if shell.poll() is None:
            shell.kill()
            shell.wait(timeout=10)
