"""A command whose reader has gone dies of SIGPIPE without a word, as PBS's C commands do
(``qsub job.sh | head -0``): no Python traceback on stderr, wait status SIGPIPE."""
import os
import signal
import subprocess
import sys
from pathlib import Path

BIN = Path(__file__).resolve().parents[2] / "fake_pbs" / "bin"


def test_closed_stdout_kills_the_command_quietly() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, str(BIN / "qstat"), "--version"],
                              stdout=write_end, stderr=subprocess.PIPE, timeout=30)
    finally:
        os.close(write_end)
    assert done.returncode == -signal.SIGPIPE
    assert done.stderr == b""
