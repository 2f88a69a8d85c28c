"""The shepherd's wait for a job shell's short-lived leftovers (fake_pbs/mom/shepherd.py,
``_descendants_left``): PBS's kill_job leaves nothing of a job's session behind, and a helper
that ends on its own moments after the shell (psij's launcher logs through a process
substitution that ends at EOF) must not make the mom scan /proc for it."""
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Runs in a child interpreter: _descendants_left reaps any child of its caller.
_PROBE = textwrap.dedent("""
    import os, signal, sys, time
    from fake_pbs.mom.shepherd import _descendants_left
    seconds, linger = float(sys.argv[1]), float(sys.argv[2])
    child = os.fork()
    if child == 0:
        time.sleep(seconds)
        os._exit(0)
    left = _descendants_left(linger)
    if left:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
    print("left" if left else "empty")
""")


def _probe(child_seconds: float, linger: float) -> str:
    done = subprocess.run([sys.executable, "-c", _PROBE, str(child_seconds), str(linger)],
                          cwd=str(REPO), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_helper_ending_within_the_linger_counts_as_an_empty_session() -> None:
    """A leftover that exits by itself while the shepherd lingers is reaped: empty session
    (the mom skips its /proc scan)."""
    assert _probe(0.05, 30.0) == "empty"


def test_a_process_still_running_after_the_linger_is_reported() -> None:
    """A leftover still alive after the linger: the session is not empty, so the mom scans
    the session and kills it (PBS kill_job; test_launcher pins the kill end to end)."""
    assert _probe(60.0, 0.05) == "left"
