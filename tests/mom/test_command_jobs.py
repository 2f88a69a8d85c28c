"""A ``qsub -- PROGRAM`` job whose program cannot be exec'd ends as PBS ends it: the mom's
child execve()s the program as given (no PATH search; src/resmom/start_exec.c
``finish_exec``), and when that fails writes ``pbs_mom, exec of PROGRAM failed with error:
STRERROR`` on the job's stderr and exits 254: the job ran (run_count 1), finished F with
Exit_status 254, never requeued or held (transcripts j14b/j14d show the same for a job shell
that cannot be exec'd)."""
from pathlib import Path

from fake_pbs.testing import FakeCluster


def test_missing_program_ends_254_with_the_moms_line(fake_pbs: FakeCluster,
                                                     tmp_path: Path) -> None:
    tmp_path.chmod(0o777)
    missing = fake_pbs.run(["qsub", "-e", "%s/missing.err" % tmp_path, "--",
                            "/nonexistent/cmd", "arg"], cwd=str(tmp_path)).stdout.strip()
    relative = fake_pbs.run(["qsub", "-e", "%s/relative.err" % tmp_path, "--", "sleep", "0"],
                            cwd=str(tmp_path)).stdout.strip()
    for jobid, name, program in ((missing, "missing", "/nonexistent/cmd"),
                                 (relative, "relative", "sleep")):
        attrs = fake_pbs.wait(jobid)
        assert (attrs["Exit_status"], attrs["run_count"], attrs["substate"]) == \
            ("254", "1", "93"), attrs
        assert (tmp_path / (name + ".err")).read_text() == \
            "pbs_mom, exec of %s failed with error: No such file or directory\n" % program
