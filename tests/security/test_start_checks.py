"""``fake-pbs start`` refuses an unsafe home or run directory, and other users' verbs fail in
one line (issue 10).

PBS's daemons refuse to start from a PBS_HOME that is not owned by root or that others may
write (chk_file_sec on each path component).  A cluster started by root from a directory that
another user created, or could replace, would give that user its sockets and its files.
"""
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from fake_pbs import control, paths
from ..reliability.rig import BIN, USER_PYTHON, Rig, need_users, sweep


@pytest.fixture
def scratch() -> Iterator[Path]:
    need_users()
    place = Path(tempfile.mkdtemp(prefix="fpsec", dir="/tmp"))
    try:
        yield place
    finally:
        sweep(place)
        shutil.rmtree(str(place), ignore_errors=True)


def _give(path: Path, user: str) -> None:
    entry = pwd.getpwnam(user)
    os.chown(str(path), entry.pw_uid, entry.pw_gid)


def _start(home: Path) -> "subprocess.CompletedProcess[str]":
    env = dict(os.environ, FAKE_PBS_HOME=str(home))
    try:
        return subprocess.run([sys.executable, BIN + "/fake-pbs", "start", "--server-name",
                               "vm", "--host", "n1:ncpus=1"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=90)
    finally:
        if paths.config_file(home).exists():
            control.stop(home, now=True)


def _refused(done: "subprocess.CompletedProcess[str]", words: str) -> None:
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert done.stderr.startswith("fake-pbs: refusing ") and words in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_home_made_by_another_user_is_refused(scratch: Path) -> None:
    """A home pbsuser created first (with their own run directory in it) is not taken over."""
    home = scratch / "home"
    home.mkdir(mode=0o755)
    (home / "run").mkdir(mode=0o755)
    for path in (home, home / "run"):
        _give(path, "pbsuser")
    _refused(_start(home), "owned by uid %d" % pwd.getpwnam("pbsuser").pw_uid)
    assert not (home / "run" / "server.sock").exists()


def test_home_writable_by_others_is_refused(scratch: Path) -> None:
    home = scratch / "home"
    home.mkdir()
    home.chmod(0o777)
    _refused(_start(home), "writable by others")


def test_home_under_another_users_directory_is_refused(scratch: Path) -> None:
    """pbsuser owns the parent, so could rename the home away and put their own in its place."""
    parent = scratch / "theirs"
    parent.mkdir(mode=0o755)
    _give(parent, "pbsuser")
    _refused(_start(parent / "home"), "belongs to uid")


def test_socket_directory_under_tmp_is_never_taken_over(scratch: Path) -> None:
    """A home too long for socket paths puts its sockets in /tmp/fake-pbs-<digest>: a user who
    creates that directory (or a link by that name) first gets a refusal, not the sockets."""
    home = scratch / ("h" * 90)
    run = Path(paths.run_dir_path(home))
    assert str(run).startswith("/tmp/fake-pbs-")
    theirs = scratch / "theirs"
    theirs.mkdir()
    _give(theirs, "pbsuser")
    try:
        run.mkdir(mode=0o777)
        _give(run, "pbsuser")
        _refused(_start(home), "owned by uid")
        run.rmdir()
        run.symlink_to(theirs)
        _refused(_start(home), "not a directory")
        assert not list(theirs.iterdir())
    finally:
        if run.is_symlink():
            run.unlink()
        else:
            shutil.rmtree(str(run), ignore_errors=True)


def test_other_users_get_one_line_errors(rig: Rig) -> None:
    """pbsuser's ``fake-pbs`` verbs on root's cluster: exit 1, one line, no traceback, and the
    cluster keeps running."""
    for verb in (["stop"], ["stop", "--now"], ["kill", "server"], ["kill", "mom", "n1"],
                 ["fault", "n1", "fork"], ["restart"], ["start"]):
        done = rig.run([USER_PYTHON, BIN + "/fake-pbs"] + verb, user="pbsuser")
        assert done.returncode == 1, (verb, done.returncode, done.stderr)
        assert done.stderr.startswith("fake-pbs: ") and done.stderr.count("\n") == 1, \
            (verb, done.stderr)
        assert "Traceback" not in done.stderr
    assert control.server_answers(rig.home)
    assert control.mom_answers(rig.home, "n1")


def test_autostart_by_another_user_fails_cleanly(rig: Rig) -> None:
    """With root's cluster stopped, pbsuser's qstat (autostart on) cannot start it in root's
    home: a short error, no traceback, nothing of pbsuser's left in the home."""
    control.stop(rig.home)
    env = dict(rig.env, FAKE_PBS_AUTOSTART="1")
    done = rig.run(["qstat"], user="pbsuser", env=env)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and done.stderr.count("\n") <= 2, done.stderr
    assert done.stderr.startswith("fake-pbs: cannot start the cluster: refusing ")
    assert re.search(r"\nqstat: cannot connect to server \(errno=\d+\)\n$", done.stderr)
    uid = pwd.getpwnam("pbsuser").pw_uid
    assert not [p for p in rig.home.rglob("*") if p.lstat().st_uid == uid]
