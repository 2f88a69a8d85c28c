"""fake_pbs.leanos gives exactly what the os/posixpath functions it stands in for give (the
commands use it instead of importing os: docs/performance.md, "The command start-up path")."""
import os
import posixpath
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_pbs import leanos

REPO = Path(__file__).resolve().parent.parent.parent
path_texts = st.lists(st.sampled_from(["", "/", "//", "///", ".", "..", "a", "b.c", "~", "~root",
                                       "~nosuchuser", "x y", "\udcff"]),
                      max_size=7).map("/".join)


@settings(max_examples=400, deadline=None)
@given(path_texts, st.lists(path_texts, max_size=3))
def test_join_is_posixpath_join(first: str, rest: "list[str]") -> None:
    """leanos.join == os.path.join."""
    assert leanos.join(first, *rest) == posixpath.join(first, *rest)


@settings(max_examples=400, deadline=None)
@given(path_texts)
def test_normpath_and_abspath_are_posixpath(path: str) -> None:
    """leanos.normpath (native and the pre-3.11 fallback) and abspath match posixpath."""
    assert leanos.normpath(path) == posixpath.normpath(path)
    assert leanos._normpath(path) == posixpath.normpath(path)
    assert leanos.abspath(path) == posixpath.abspath(path)


@settings(max_examples=200, deadline=None)
@given(path_texts, st.sampled_from([None, "", "/", "/home/u/", "/root"]))
def test_expanduser_is_posixpath_expanduser(path: str, home: "str | None") -> None:
    """leanos.expanduser == os.path.expanduser, with $HOME set, empty, or unset."""
    saved = os.environ.get("HOME")
    try:
        if home is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = home
        assert leanos.expanduser(path) == posixpath.expanduser(path)
    finally:
        if saved is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = saved


def test_isdir(tmp_path: Path) -> None:
    """leanos.isdir == os.path.isdir on a directory, a file, a missing path and a NUL;
    leanos.is_regular == stat.S_ISREG."""
    (tmp_path / "f").write_text("")
    for probe in (str(tmp_path), str(tmp_path / "f"), str(tmp_path / "missing"), "a\0b"):
        assert leanos.isdir(probe) == os.path.isdir(probe)
    for probe in (str(tmp_path), str(tmp_path / "f"), "/dev/null"):
        mode = os.stat(probe).st_mode
        assert leanos.is_regular(mode) == stat.S_ISREG(mode)


def test_environ_follows_os_environ_when_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """With os loaded (daemons, tests) the environment is the live os.environ."""
    monkeypatch.setenv("LEANOS_PROBE", "x\udcff")
    assert leanos.getenv("LEANOS_PROBE") == "x\udcff"
    assert leanos.environ() is os.environ


def test_environ_snapshot_without_os_is_os_environ() -> None:
    """A process that never imports os (a command under -S) gets the same environment,
    undecodable bytes included, as os.environ would give it."""
    code = ("import sys; sys.path.insert(0, %r); from fake_pbs import leanos; "
            "lean = dict(leanos.environ()); assert 'os' not in sys.modules; import os; "
            "print(lean == dict(os.environ) and lean['LEANOS_B'] == 'a\\udcffb')" % str(REPO))
    env = {k.encode(): v.encode() for k, v in os.environ.items()}
    env[b"LEANOS_B"] = b"a\xffb"
    done = subprocess.run([sys.executable, "-S", "-c", code], env=env, stdout=subprocess.PIPE,
                          text=True, timeout=60, check=True)
    assert done.stdout.strip() == "True"


@pytest.mark.parametrize("command", ["qsub", "qstat", "qdel", "pbsnodes", "qselect", "qalter",
                                     "qhold", "qrls", "qsig", "qmove", "qrerun", "qrun"])
def test_commands_start_without_os(command: str) -> None:
    """A command started through its bin wrapper (``--version``: every import, no server) loads
    neither os nor _collections_abc (~1 ms of each run; docs/performance.md)."""
    wrapper = str(REPO / "fake_pbs" / "bin" / command)
    done = subprocess.run([sys.executable, "-S", "-X", "importtime", wrapper, "--version"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "fake_pbs.cli." + command in loaded  # the probe sees the command's imports
    assert loaded & {"os", "_collections_abc", "posixpath"} == set()


def test_wrapper_through_a_symlink_and_a_relative_path(tmp_path: Path) -> None:
    """A wrapper reached through a symbolic link, or by a relative path, still finds its
    repository (the os.path.realpath fallback)."""
    link = tmp_path / "qstat"
    link.symlink_to(REPO / "fake_pbs" / "bin" / "qstat")
    for argv, cwd in (([str(link), "--version"], None),
                      ([sys.executable, "-S", "fake_pbs/bin/qstat", "--version"], str(REPO))):
        done = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, text=True, timeout=60,
                              env=dict(os.environ, FAKE_PBS_PYTHON=sys.executable))
        assert (done.returncode, done.stdout) == (0, "pbs_version = 23.06.06\n")
