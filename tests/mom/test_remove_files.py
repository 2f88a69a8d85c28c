"""``qsub -R o|e|oe`` (Remove_Files): after a job that ended with status 0 the named output
files are neither delivered nor kept; after any other end they are delivered as usual.

OpenPBS 23.06 server/job_func.c: ``setup_cpyfiles`` copies no stream named in Remove_Files
when Exit_status is JOB_EXEC_OK, and the mom's purge unlinks the stream's file (a kept or
directly written one included).
"""
from pathlib import Path

from fake_pbs.testing import FakeCluster


def test_remove_files_after_a_successful_job_only(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    ok = fake_pbs.qsub("echo out; echo err >&2", "-R", "oe", "-o", str(tmp_path / "ok.out"),
                       "-e", str(tmp_path / "ok.err"))
    bad = fake_pbs.qsub("echo out; echo err >&2; exit 3", "-R", "oe",
                        "-o", str(tmp_path / "bad.out"), "-e", str(tmp_path / "bad.err"))
    fake_pbs.wait(ok)
    fake_pbs.wait(bad)
    assert fake_pbs.job(ok)["Remove_Files"] == "oe"
    assert not (tmp_path / "ok.out").exists() and not (tmp_path / "ok.err").exists()
    assert (tmp_path / "bad.out").read_text() == "out\n"
    assert (tmp_path / "bad.err").read_text() == "err\n"


def test_remove_files_takes_a_directly_written_stream(fake_pbs: FakeCluster,
                                                      tmp_path: Path) -> None:
    jobid = fake_pbs.qsub("echo out; echo err >&2", "-k", "oed", "-R", "o",
                          "-o", str(tmp_path / "d.out"), "-e", str(tmp_path / "d.err"))
    fake_pbs.wait(jobid)
    assert not (tmp_path / "d.out").exists()
    assert (tmp_path / "d.err").read_text() == "err\n"


def test_remove_files_of_a_joined_stream(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """-j oe puts stderr in stdout's file: removing o removes both, removing e nothing."""
    gone = fake_pbs.qsub("echo out; echo err >&2", "-j", "oe", "-R", "o",
                         "-o", str(tmp_path / "j1.out"))
    kept = fake_pbs.qsub("echo out; echo err >&2", "-j", "oe", "-R", "e",
                         "-o", str(tmp_path / "j2.out"))
    fake_pbs.wait(gone)
    fake_pbs.wait(kept)
    assert not (tmp_path / "j1.out").exists()
    assert (tmp_path / "j2.out").read_text() == "out\nerr\n"
