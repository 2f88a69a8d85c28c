"""The mom's in-process output copy behaves as the ``/bin/cp`` it replaces (stage-out)."""
import os
import subprocess
from pathlib import Path
from typing import List

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


class _Log:
    def __init__(self) -> None:
        self.lines: "list[tuple[int, str, str, str]]" = []

    def write(self, event: int, klass: str, obj: str, msg: str) -> None:
        self.lines.append((event, klass, obj, msg))

    def job(self, jobid: str, msg: str, event: int) -> None:
        self.write(event, "Job", jobid, msg)


def test_failed_copy_is_tried_four_times_with_sys_copy_pauses(tmp_path: Path) -> None:
    """Extra i05g: `-e sub/rel.err` into a missing directory: four `command: /bin/cp -rp ...
    status=1, try=N` lines, pauses of 11 s after try 2 and 21 s after try 4 (the job stays
    in E ~32 s), then PBS's give-up lines, the file kept in undelivered/, 1 of 2 delivered."""
    from fake_pbs.mom.streams import Stream
    out, err = tmp_path / "336.vm.OU", tmp_path / "336.vm.ER"
    out.write_bytes(b"out\n")
    err.write_bytes(b"err\n")
    dst = str(tmp_path / "g_rel" / "sub" / "rel.err")
    (tmp_path / "g_rel").mkdir()
    streams = [Stream("o", str(out), str(tmp_path / "g_rel" / "rel.out"), False),
               Stream("e", str(err), dst, False)]
    launch = {"uid": os.geteuid(), "gid": os.getegid(), "umask": 0o077}
    log = _Log()
    pauses: List[float] = []
    report = delivery.Report(log, "336.vm", "pbsuser", "vm")
    done = delivery.deliver(streams, launch, tmp_path / "undelivered", True, report,
                            pauses.append)
    assert done == (1, 2)
    assert [p for p in pauses if p] == [11.0, 21.0] and len(pauses) == 4
    tries = [line[3] for line in log.lines if line[2] == "sys_copy"]
    assert tries == ["command: /bin/cp -rp %s %s status=1, try=%d" % (err, dst, n)
                     for n in (1, 2, 3, 4)]
    cp_error = "/bin/cp: cannot create regular file '%s': No such file or directory" % dst
    kept = str(tmp_path / "undelivered" / "336.vm.ER")
    assert [line[3] for line in log.lines if line[1] == "Job"] == [
        "Job files not copied:---->>>>",
        "Unable to copy file %s to vm:%s" % (err, dst), ">>> error from copy", cp_error,
        ">>> end error output", "Output retained on that host in: %s" % kept, "---->>>>"]
    assert (0x0001, "Fil", "copy_file", "Job 336.vm: sys_copy failed, return value=1") \
        in log.lines
    assert (tmp_path / "undelivered" / "336.vm.ER").read_bytes() == b"err\n"
    assert delivery.copy_file(str(err), dst, launch, True).error == cp_error
