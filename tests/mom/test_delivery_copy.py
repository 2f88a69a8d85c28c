"""The mom's in-process output copy behaves as the ``/bin/cp`` it replaces (stage-out)."""
import os
import stat
import subprocess
from pathlib import Path
from typing import Any, List

import pytest

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
    assert not err.exists()  # moved, not copied (stage_func.c renames it)
    err.write_bytes(b"err\n")
    assert delivery.copy_file(str(err), dst, launch, True).error == cp_error


def _failing_stream(tmp_path: Path, name: str) -> "tuple[Path, Any]":
    from fake_pbs.mom.streams import Stream
    spool = tmp_path / "jobs" / name
    spool.parent.mkdir(exist_ok=True)
    spool.write_bytes(b"secret output\n")
    return spool, Stream("o", str(spool), str(tmp_path / "no" / "such" / "out"), False)


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_kept_output_stays_the_owners_and_replaces_a_planted_link(tmp_path: Path) -> None:
    """i05v (ls of PBS's undelivered/: ``-rw------- pbsuser pbsuser 336.vm.ER``) and
    stage_func.c: the spool file is renamed into undelivered/, so it keeps its owner and mode;
    a link another user planted under its name in the sticky, world-writable directory is
    replaced, never followed."""
    spool, stream = _failing_stream(tmp_path, "7.vm.OU")
    os.chown(str(spool), 12345, 12345)
    os.chmod(str(spool), 0o600)
    undelivered = tmp_path / "undelivered"
    undelivered.mkdir(mode=0o1777)
    victim = tmp_path / "victim"
    victim.write_bytes(b"root's file\n")
    (undelivered / "7.vm.OU").symlink_to(victim)
    launch = {"uid": 12345, "gid": 12345, "umask": 0o077}
    assert delivery.deliver([stream], launch, undelivered, True) == (0, 1)
    kept = os.lstat(str(undelivered / "7.vm.OU"))
    assert stat.S_ISREG(kept.st_mode) and stat.S_IMODE(kept.st_mode) == 0o600
    assert (kept.st_uid, kept.st_gid) == (12345, 12345)
    assert (undelivered / "7.vm.OU").read_bytes() == b"secret output\n"
    assert victim.read_bytes() == b"root's file\n"


def test_a_failed_move_is_logged_and_retains_nothing(tmp_path: Path) -> None:
    """stage_func.c: when the rename into undelivered/ fails (here a directory is in the way),
    log_err writes ``Unable to rename SRC to DST`` and the report has no ``Output retained``
    line."""
    spool, stream = _failing_stream(tmp_path, "8.vm.OU")
    undelivered = tmp_path / "undelivered"
    (undelivered / "8.vm.OU" / "inside").mkdir(parents=True)
    launch = {"uid": os.geteuid(), "gid": os.getegid(), "umask": 0o077}
    log = _Log()
    report = delivery.Report(log, "8.vm", "pbsuser", "vm")
    assert delivery.deliver([stream], launch, undelivered, True, report) == (0, 1)
    kept = str(undelivered / "8.vm.OU")
    errno_text = [line for line in log.lines if line[1] == "Svr"]
    assert len(errno_text) == 1 and errno_text[0][3].endswith(
        "in req_cpyfile, Unable to rename %s to %s" % (spool, kept)), log.lines
    job_lines = [line[3] for line in log.lines if line[1] == "Job"]
    assert job_lines[-2] == ">>> end error output" and job_lines[-1] == "---->>>>"
    assert not any(line.startswith("Output retained") for line in job_lines)
