"""The compile cache of the C helpers (fake_pbs/cbuild.py; docs/performance.md): one compile per
source and compiler serves every cluster of a user, through a cache that is trusted only as a
cluster's home is, and each cluster's copy of the runner's client carries its own socket."""
import os
import shutil
import stat
import time
from pathlib import Path
from typing import List

import pytest

from fake_pbs import cbuild, paths
from fake_pbs.runner import build as runclient


def _compiler(folder: Path) -> Path:
    """A "compiler" that notes each call and writes a fixed output (the word after -o)."""
    script = folder / "fakecc"
    script.write_text('#!/bin/sh\necho x >> "%s/calls"\nwhile [ "$1" != -o ]; do shift; done\n'
                      'printf "output" > "$2"\n' % folder)
    script.chmod(0o755)
    return script


def _calls(folder: Path) -> int:
    calls = folder / "calls"
    return len(calls.read_text().splitlines()) if calls.exists() else 0


def _home(tmp_path: Path, name: str) -> Path:
    home = tmp_path / name
    home.mkdir(mode=0o700)
    return home


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    monkeypatch.setattr(cbuild, "cache_dir", lambda: folder)
    return folder


def test_second_cluster_copies_the_first_ones_compile(tmp_path: Path, cache: Path) -> None:
    cc = _compiler(tmp_path)
    attempts = [[str(cc), "-o", cbuild.OUTPUT]]
    first, second = _home(tmp_path, "a"), _home(tmp_path, "b")
    assert cbuild.build(first, "tool", "d1", attempts) == (True, "")
    assert cbuild.build(second, "tool", "d1", attempts) == (True, "")
    assert _calls(tmp_path) == 1
    for home in (first, second):
        info = (home / "tool").stat()
        assert (home / "tool").read_bytes() == b"output" and stat.S_IMODE(info.st_mode) == 0o755
        assert (home / "tool.sha256").read_text() == "d1\n"
    assert stat.S_IMODE((cache / "d1").stat().st_mode) == 0o600
    assert cbuild.build(first, "tool", "d2", attempts) == (True, "")  # another source
    assert _calls(tmp_path) == 2
    assert not [p for p in list(first.iterdir()) + list(cache.iterdir()) if ".tmp" in p.name]


def test_an_untrusted_cached_file_is_compiled_again(tmp_path: Path, cache: Path) -> None:
    cc = _compiler(tmp_path)
    (cache / "d1").write_bytes(b"planted")
    (cache / "d1").chmod(0o666)  # others could have written it
    assert cbuild.build(_home(tmp_path, "a"), "tool", "d1", [[str(cc), "-o", cbuild.OUTPUT]])
    assert _calls(tmp_path) == 1 and (tmp_path / "a" / "tool").read_bytes() == b"output"
    link = cache / "d2"
    link.symlink_to(cache / "d1")
    assert cbuild.cached("d2") is None


def test_a_failed_compile_leaves_no_file(tmp_path: Path, cache: Path) -> None:
    home = _home(tmp_path, "a")
    (home / "tool").write_bytes(b"stale")
    done, why = cbuild.build(home, "tool", "d1", [["/bin/sh", "-c", "echo broken >&2; exit 1"]])
    assert (done, why) == (False, "broken")
    assert not (home / "tool").exists() and list(cache.iterdir()) == []


def test_outputs_unused_for_a_month_are_pruned(tmp_path: Path, cache: Path) -> None:
    old, used = cache / "old", cache / "used"
    for path in (old, used):
        path.write_bytes(b"x")
        path.chmod(0o600)
        past = time.time() - cbuild.CACHE_KEEP_SECONDS - 60
        os.utime(str(path), (past, past))
    assert cbuild.cached("used") == b"x"  # a use keeps it
    cbuild.store("new", b"y")
    assert sorted(p.name for p in cache.iterdir()) == ["new", "used"]


def test_cache_is_private_and_refused_under_a_folder_others_may_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache lives under the password database's home of this user (mode 0700), and is
    not used where another user could swap its folders (the rule for a cluster's home)."""
    import pwd
    from types import SimpleNamespace
    home = tmp_path / "user"
    home.mkdir(mode=0o755)
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: SimpleNamespace(pw_dir=str(home)))
    tmp_path.chmod(0o755)
    folder = cbuild.cache_dir()
    assert folder == home / ".cache" / "fake-pbs" / "build"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(folder.parent.stat().st_mode) == 0o700
    folder.chmod(0o755)  # no longer private
    assert cbuild.cache_dir() is None
    folder.chmod(0o700)
    tmp_path.chmod(0o777)  # a parent anyone may write, not sticky
    try:
        assert cbuild.cache_dir() is None
    finally:
        tmp_path.chmod(0o755)


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_each_clusters_client_has_its_own_socket(tmp_path: Path, cache: Path) -> None:
    """One compile of runclient.c for two clusters; each copy holds its cluster's socket path
    in the slot, and the copies differ only there."""
    homes = [_home(tmp_path, "a"), _home(tmp_path, "b")]
    clients = [runclient.build(home) for home in homes]
    assert None not in clients and len(list(cache.iterdir())) == 1
    images: List[bytes] = [Path(str(c)).read_bytes() for c in clients]
    assert runclient.SLOT_MARK not in images[0] and runclient.SLOT_MARK not in images[1]
    sockets = [os.fsencode(paths.runner_socket_path(str(h))) for h in homes]
    at = images[0].find(sockets[0] + b"\0")
    assert at >= 0 and images[1].find(sockets[1] + b"\0") == at
    assert (images[0][:at] + images[0][at + runclient.SLOT_SIZE:]
            == images[1][:at] + images[1][at + runclient.SLOT_SIZE:])


def test_fill_refuses_a_client_without_one_slot_or_a_path_too_long() -> None:
    slot = runclient.SLOT_MARK.ljust(runclient.SLOT_SIZE, b"\0")
    good = b"head" + slot + b"tail"
    assert runclient.fill_socket(good, b"/s") == b"head/s" + b"\0" * 106 + b"tail"
    assert runclient.fill_socket(b"no slot", b"/s") is None
    assert runclient.fill_socket(good + slot, b"/s") is None
    assert runclient.fill_socket(good, b"/" * runclient.SLOT_SIZE) is None
    assert runclient.fill_socket(good.replace(b"\0\0tail", b"xxtail"), b"/s") is None
