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
    """fake-pbs: one line.  The commands: fake-pbs's line, then PBS's own for a server that
    cannot be reached (docs/security.md), and no traceback."""
    for argv, code in ((["fake-pbs", "start"], 1), (["fake-pbs", "stop"], 1),
                       (["qsub", "--", "/bin/true"], NOSERVER_EXIT), (["qstat"], NOSERVER_EXIT)):
        done = _run(home, argv)
        assert done.returncode == code, (argv, done.stderr)
        assert done.stdout == "" and "Traceback" not in done.stderr, done.stderr
        lines = done.stderr.splitlines()
        prefix = "fake-pbs: " if argv[0] == "fake-pbs" else "fake-pbs: cannot start the cluster: "
        assert lines[0].startswith(prefix), done.stderr
        assert "cannot use the cluster home %s: %s" % (home, reason) in lines[0], lines[0]
        if argv[0] == "fake-pbs":
            assert len(lines) == 1, done.stderr
        else:
            assert len(lines) == 2 and lines[1].startswith(
                "%s: cannot connect to server (errno=" % argv[0]), done.stderr


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
