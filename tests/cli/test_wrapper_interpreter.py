"""Which interpreter ``fake_pbs/bin``'s commands start (issue 16, docs/performance.md, "The
command start-up path"): ``$FAKE_PBS_PYTHON``, else the one recorded by the cluster in
``<home>/interpreter`` when that file is trustworthy, else ``python3`` on PATH, which may be a
shim (pyenv's is a shell script running ``pyenv exec``, ~65 ms a command).  Not a PBS
behaviour: the wrappers stand in for PBS's compiled commands, which start in ~3 ms."""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from fake_pbs import control, paths

# The session's commands: a public copy when other users cannot enter the checkout
# (tests/public_tree.py), since one test runs them as nobody.
BIN = paths.bin_dir()
COMMANDS = ["pbsnodes", "qalter", "qdel", "qdisable", "qenable", "qhold", "qmgr", "qmove", "qmsg",
            "qorder", "qrerun", "qrls", "qrun", "qselect", "qsig", "qstart", "qstat", "qstop",
            "qsub", "qterm", "tracejob",
            "pbs_attach", "pbs_tmrsh", "pbsdsh",  # in-job TM commands (docs/multinode.md)
            "pbs_rsub", "pbs_rstat", "pbs_rdel", "pbs_ralter"]
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (chown to another user)")


def _logging_python(path: Path, log: Path) -> Path:
    """An executable that notes its call in ``log``, then runs the real interpreter (a shim)."""
    path.write_text('#!/bin/sh\necho "%s" >> "%s"\nexec "%s" "$@"\n'
                    % (path.name, log, sys.executable))
    path.chmod(0o755)
    return path


@pytest.fixture
def rig(tmp_path: Path) -> Tuple[Path, Dict[str, str], Path]:
    """A cluster home (not started), an environment whose ``python3`` is a logging shim, the
    log, and a second logging interpreter ``recorded`` in the same directory."""
    home = tmp_path / "home"
    home.mkdir()
    shims = tmp_path / "shims"
    shims.mkdir()
    log = tmp_path / "calls"
    _logging_python(shims / "python3", log)
    _logging_python(tmp_path / "recorded", log)
    env = {k: v for k, v in os.environ.items() if k != "FAKE_PBS_PYTHON"}
    env.update(FAKE_PBS_HOME=str(home), PATH="%s:%s" % (shims, os.environ.get("PATH", "")))
    return home, env, log


def _version(env: Dict[str, str], command: str = "qstat") -> None:
    done = subprocess.run([str(BIN / command), "--version"], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "pbs_version = 23.06.06\n", "")


def _calls(log: Path) -> List[str]:
    return log.read_text().split() if log.exists() else []


def test_one_implementation() -> None:
    """Issue 14/16: one wrapper; every other name is a symbolic link to it."""
    names = sorted(p.name for p in BIN.iterdir())
    assert names == sorted(COMMANDS + ["fake-pbs"])
    for name in COMMANDS:
        assert os.readlink(str(BIN / name)) == "fake-pbs"


def test_record_holds_this_interpreter(tmp_path: Path) -> None:
    control.record_interpreter(tmp_path)
    record = tmp_path / "interpreter"
    assert record.read_text() == sys.executable + "\n"
    assert record.stat().st_mode & 0o777 == 0o644
    assert record.stat().st_uid == os.geteuid()


def test_recorded_interpreter_skips_the_shim(rig: Tuple[Path, Dict[str, str], Path]) -> None:
    home, env, log = rig
    (home / "interpreter").write_text("%s\n" % (home.parent / "recorded"))
    _version(env)
    assert _calls(log) == ["recorded"]


def test_fake_pbs_python_wins(rig: Tuple[Path, Dict[str, str], Path]) -> None:
    home, env, log = rig
    (home / "interpreter").write_text("%s\n" % (home.parent / "recorded"))
    _version(dict(env, FAKE_PBS_PYTHON=sys.executable))
    assert _calls(log) == []


@pytest.mark.parametrize("content", ["", "/no/such/python\n", "relative-python\n", "/\n"])
def test_bad_or_vanished_record_falls_back(rig: Tuple[Path, Dict[str, str], Path],
                                           content: str) -> None:
    """An interpreter removed since the cluster started (or a record naming none): the
    command still runs, through ``python3`` on PATH."""
    home, env, log = rig
    (home / "interpreter").write_text(content)
    _version(env)
    assert _calls(log) == ["python3"]


def test_no_record_and_a_symlinked_record(rig: Tuple[Path, Dict[str, str], Path]) -> None:
    home, env, log = rig
    _version(env)
    (home / "other").write_text("%s\n" % (home.parent / "recorded"))
    (home / "interpreter").symlink_to(home / "other")
    _version(env)
    assert _calls(log) == ["python3", "python3"]


@root_only
def test_record_of_another_user_is_not_trusted(rig: Tuple[Path, Dict[str, str], Path]) -> None:
    """A record another user wrote never chooses what root runs."""
    home, env, log = rig
    record = home / "interpreter"
    record.write_text("%s\n" % (home.parent / "recorded"))
    os.chown(str(record), 65534, -1)
    _version(env)
    os.chown(str(record), 0, -1)
    _version(env)
    assert _calls(log) == ["python3", "recorded"]


@root_only
@pytest.mark.skipif(not os.access("/usr/bin/python3", os.X_OK), reason="no /usr/bin/python3")
def test_root_record_trusted_by_users_unless_writable_by_others() -> None:
    """In a root-started cluster other users' commands take root's record (0644), not one that
    anyone could have rewritten (group- or world-writable)."""
    top = Path(tempfile.mkdtemp(prefix="fpbs-i16-"))
    try:
        top.chmod(0o755)
        log = top / "calls"
        log.write_text("")
        log.chmod(0o666)
        for name in ("python3", "recorded"):
            script = top / name
            script.write_text('#!/bin/sh\necho %s >> %s\nexec /usr/bin/python3 "$@"\n'
                              % (name, log))
            script.chmod(0o755)
        record = top / "interpreter"
        record.write_text("%s\n" % (top / "recorded"))
        for mode in (0o644, 0o664, 0o666):
            record.chmod(mode)
            done = subprocess.run(
                ["runuser", "-u", "nobody", "--", "env", "FAKE_PBS_HOME=%s" % top,
                 "PATH=%s:/usr/bin:/bin" % top, str(BIN / "qstat"), "--version"],
                stdout=subprocess.PIPE, text=True, timeout=60)
            assert done.stdout == "pbs_version = 23.06.06\n"
        assert log.read_text().split() == ["recorded", "python3", "python3"]
    finally:
        shutil.rmtree(str(top))


def test_env_prints_the_interpreter(rig: Tuple[Path, Dict[str, str], Path]) -> None:
    home, env, log = rig
    done = subprocess.run([str(BIN / "fake-pbs"), "env"], env=env, stdout=subprocess.PIPE,
                          text=True, timeout=60, check=True)
    lines = done.stdout.splitlines()
    assert lines[1:] == ['export FAKE_PBS_HOME="%s"' % home,
                         'export FAKE_PBS_PYTHON="%s"' % sys.executable]


def test_started_through_a_link_of_another_name(tmp_path: Path) -> None:
    """A user's own link (``~/bin/myqstat -> .../qstat``) is followed to the command's name."""
    link = tmp_path / "myqstat"
    link.symlink_to(BIN / "qstat")
    _version(dict(os.environ, FAKE_PBS_PYTHON=sys.executable), str(link))


def test_started_by_a_name_of_none_of_ours(tmp_path: Path) -> None:
    """A copy under a name that is no command says which names it answers to."""
    copy = tmp_path / "qstatx"
    copy.write_bytes((BIN / "fake-pbs").read_bytes())
    copy.chmod(0o755)
    done = subprocess.run([str(copy), "--version"], stderr=subprocess.PIPE, text=True,
                          env=dict(os.environ, FAKE_PBS_PYTHON=sys.executable), timeout=60)
    assert done.returncode == 2
    assert "start this file as one of: fake-pbs pbsnodes qalter" in done.stderr
