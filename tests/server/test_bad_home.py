"""A cluster home this user cannot use is reported in one line, never with a traceback.

Issue 11: an unwritable or foreign ``FAKE_PBS_HOME`` gave a raw PermissionError traceback from
``fake-pbs`` and from every autostarting command.  The commands keep PBS's form for a server that
cannot be reached (``qstat: <message>``, exit PBSE_NOSERVER % 256 = 186); ``fake-pbs`` exits 1.
"""
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator, List

import pytest

from fake_pbs import paths

BIN = str(paths.bin_dir())
NOSERVER_EXIT = 15034 % 256


@pytest.fixture
def scratch() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="fpbad-"))
    try:
        yield path
    finally:
        for sub in path.rglob("*"):
            if sub.is_dir():
                sub.chmod(0o700)
        shutil.rmtree(str(path), ignore_errors=True)


def _run(home: Path, argv: List[str]) -> "subprocess.CompletedProcess[str]":
    env = dict(os.environ, FAKE_PBS_HOME=str(home), FAKE_PBS_AUTOSTART="1")
    return subprocess.run([BIN + "/" + argv[0]] + argv[1:], env=env, cwd="/",
                          capture_output=True, text=True, timeout=60, check=False)


def _assert_one_line(home: Path, reason: str) -> None:
    for argv, prefix, code in ((["fake-pbs", "start"], "fake-pbs", 1),
                               (["fake-pbs", "stop"], "fake-pbs", 1),
                               (["qsub", "--", "/bin/true"], "qsub", NOSERVER_EXIT),
                               (["qstat"], "qstat", NOSERVER_EXIT)):
        done = _run(home, argv)
        assert done.returncode == code, (argv, done.stderr)
        assert done.stdout == ""
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.startswith(
            "%s: cannot use the cluster home %s: %s" % (prefix, home, reason)), done.stderr
        assert "FAKE_PBS_HOME must name a directory" in done.stderr


def test_home_under_a_file_is_one_line(scratch: Path) -> None:
    """A home whose parent is a plain file (any user, root included)."""
    (scratch / "file").write_text("")
    _assert_one_line(scratch / "file" / "home", "Not a directory")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write any directory")
def test_unwritable_home_is_one_line(scratch: Path) -> None:
    """A home inside a directory this user may not write (someone else's, or read-only)."""
    locked = scratch / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    _assert_one_line(locked / "home", "Permission denied")
