"""The mom's in-process output copy behaves as the ``/bin/cp`` it replaces (stage-out)."""
import os
import subprocess
from pathlib import Path

from fake_pbs.mom import delivery


def _cp_with_umask(src: str, dst: str, umask: int) -> None:
    subprocess.run([delivery.CP, "--", src, dst], check=True, umask=umask)


def _modes_and_bytes(path: Path) -> "tuple[int, bytes]":
    return os.stat(str(path)).st_mode & 0o777, path.read_bytes()


def test_new_file_gets_source_mode_less_umask(tmp_path: Path) -> None:
    """PBS stage-out: a new output file is created as ``cp`` creates it (mode & ~umask)."""
    src = tmp_path / "spool.OU"
    src.write_bytes(b"out\n" * 1000)
    os.chmod(str(src), 0o644)
    launch = {"uid": os.geteuid(), "gid": os.getegid(), "umask": 0o027}
    assert delivery.copy_as(str(src), str(tmp_path / "ours"), launch, as_owner=True)
    _cp_with_umask(str(src), str(tmp_path / "theirs"), 0o027)
    assert _modes_and_bytes(tmp_path / "ours") == _modes_and_bytes(tmp_path / "theirs")


def test_existing_file_is_truncated_and_keeps_its_mode(tmp_path: Path) -> None:
    """PBS stage-out over an existing file: contents replaced, mode kept (as ``cp`` does)."""
    src = tmp_path / "spool.ER"
    src.write_bytes(b"err\n")
    for name in ("ours", "theirs"):
        (tmp_path / name).write_bytes(b"old contents, longer than the new\n")
        os.chmod(str(tmp_path / name), 0o600)
    launch = {"uid": 12345, "gid": 12345, "umask": 0o022}
    assert delivery.copy_as(str(src), str(tmp_path / "ours"), launch, as_owner=False)
    _cp_with_umask(str(src), str(tmp_path / "theirs"), 0o022)
    assert _modes_and_bytes(tmp_path / "ours") == _modes_and_bytes(tmp_path / "theirs")


def test_missing_directory_fails(tmp_path: Path) -> None:
    """An undeliverable path (missing directory) is a failed copy, kept in undelivered/."""
    src = tmp_path / "spool.OU"
    src.write_bytes(b"x")
    launch = {"uid": os.geteuid(), "gid": os.getegid(), "umask": 0o077}
    assert not delivery.copy_as(str(src), str(tmp_path / "no" / "such"), launch, as_owner=True)
