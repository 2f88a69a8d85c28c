"""The public copy of fake_pbs for checkouts other users cannot enter (tests/public_tree.py).
Not a PBS behaviour: where the test suite runs other users' commands from."""
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

from . import public_tree


def test_a_closed_directory_on_the_way_closes_the_path(tmp_path: Path) -> None:
    inner = tmp_path / "clone" / "fake_pbs" / "bin"
    inner.mkdir(parents=True)
    for directory in (tmp_path, tmp_path / "clone", tmp_path / "clone" / "fake_pbs", inner):
        directory.chmod(0o755)
    if public_tree.others_can_enter(tmp_path.parent):
        assert public_tree.others_can_enter(inner)
    (tmp_path / "clone").chmod(0o700)
    assert not public_tree.others_can_enter(inner)


def test_the_copy_is_open_to_everyone_and_runs_its_commands() -> None:
    root = public_tree._copy()
    try:
        assert stat.S_IMODE(root.stat().st_mode) == 0o755
        qstat = root / "fake_pbs" / "bin" / "qstat"
        assert os.readlink(str(qstat)) == "fake-pbs"  # the links stay links
        for directory, _dirs, files in os.walk(str(root)):
            assert stat.S_IMODE(os.stat(directory).st_mode) == 0o755
            for name in files:
                mode = stat.S_IMODE(os.lstat(os.path.join(directory, name)).st_mode)
                assert mode & 0o004, os.path.join(directory, name)  # readable by others
        assert (root / "tests" / "runwire.py").is_file()
        done = subprocess.run([sys.executable, "-S", str(qstat), "--version"],
                              stdout=subprocess.PIPE, universal_newlines=True, timeout=60,
                              env=dict(os.environ, FAKE_PBS_PYTHON=sys.executable))
        assert done.stdout == "pbs_version = 23.06.06\n"
    finally:
        shutil.rmtree(str(root))
