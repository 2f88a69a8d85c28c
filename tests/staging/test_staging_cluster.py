"""Stage-in and stage-out through a running cluster (one cluster, reset per test).

OpenPBS: src/server/req_runjob.c ``svr_stagein`` / ``post_stagein`` (R substate 15 while the
mom stages in; a failure: W, substate 37, Execution_Time now + PBS_STAGEFAIL_WAIT, exec_host
cleared), src/server/svr_jobfunc.c ``svr_evaljobstate`` (queued with a stagein list: substate
11), src/server/req_jobobit.c ``on_job_exit`` (stage-out after the output, Stageout_status 0
when the mom could not copy; the staged-in files deleted afterwards), src/resmom/requests.c
``req_cpyfile`` and src/resmom/stage_func.c (the copies, their log lines).
"""
import time
from pathlib import Path
from typing import List

from fake_pbs.testing import FakeCluster


def _mom(cluster: FakeCluster, jobid: str) -> List[str]:
    mark = ";%s;" % jobid
    return [ln.split(";", 5)[-1] for ln in cluster.log_lines("mom") if mark in ln]


def test_stage_in_then_out_and_the_staged_in_file_goes(fake_pbs: FakeCluster,
                                                       tmp_path: Path) -> None:
    """The job reads its staged-in file and writes one that is staged out; afterwards the
    staged-in copy is deleted (DelFiles), the staged-out source removed (copy_file), and a
    queued job with a stagein list shows substate 11 (svr_evaljobstate)."""
    tmp_path.chmod(0o777)
    (tmp_path / "input.txt").write_text("data\n")
    work = tmp_path / "work"
    work.mkdir()
    jobid = fake_pbs.qsub("cd %s; cat in.txt > result.txt" % work, "-h",
                          "-W", "stagein=%s/in.txt@vm:%s/input.txt" % (work, tmp_path),
                          "-W", "stageout=%s/result.txt@vm:%s/back.txt" % (work, tmp_path),
                          cwd=str(tmp_path))
    fake_pbs.sh("qrls", jobid)
    attrs = fake_pbs.wait(jobid)
    assert (attrs["Exit_status"], attrs["Stageout_status"]) == ("0", "1")
    assert (tmp_path / "back.txt").read_text() == "data\n"
    assert not (work / "in.txt").exists() and not (work / "result.txt").exists()
    mom = _mom(fake_pbs, jobid)
    staged_in = mom.index("Staged 1/1 items in over 0:00:00")
    assert mom[staged_in - 1] == "copy file request received"  # process_request.c
    staged_out = mom.index("Staged 3/3 items out over 0:00:00")  # stdout, stderr, result.txt
    assert mom[staged_out + 1] == "delete file request received"  # then the DelFiles request


def test_queued_job_with_stagein_is_substate_11(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """svr_evaljobstate: a queued job with files to stage in is Q, substate 11, whether the
    list came with qsub or with qalter (req_modify.c re-evaluates the state)."""
    fake_pbs.qmgr("set server scheduling = False")
    jobid = fake_pbs.qsub("true", "-W", "stagein=x@vm:%s/x" % tmp_path, cwd=str(tmp_path))
    attrs = fake_pbs.job(jobid)
    assert (attrs["job_state"], attrs["substate"]) == ("Q", "11")
    later = fake_pbs.qsub("true", cwd=str(tmp_path))
    assert fake_pbs.job(later)["substate"] == "10"
    fake_pbs.sh("qalter", "-W", "stagein=x@vm:%s/x" % tmp_path, later)
    assert fake_pbs.job(later)["substate"] == "11"


def test_failed_stage_in_leaves_the_job_waiting(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """post_stagein: a missing source puts the job in W, substate 37, with Execution_Time
    1800 s ahead; its vnodes are freed, exec_host/exec_vnode cleared and the run not counted;
    the mom logs the failed copy (``Unable to copy file ... from ...``)."""
    before = int(time.time())
    jobid = fake_pbs.qsub("true", "-W", "stagein=x@vm:%s/missing" % tmp_path,
                          cwd=str(tmp_path))
    attrs = fake_pbs.wait(jobid, states="W")
    assert attrs["substate"] == "37"
    assert before + 1800 <= int(attrs["Execution_Time"]) <= int(time.time()) + 1800
    for name in ("exec_host", "exec_vnode", "run_count", "stime"):
        assert name not in attrs, name
    mom = _mom(fake_pbs, jobid)
    assert "Unable to copy file x from %s/missing" % tmp_path in mom
    assert "Staged 0/1 items in over 0:00:00" in mom
    assert fake_pbs.sh("pbsnodes", "-a").count("jobs = ") == 0


def test_failed_stage_out_keeps_the_job_and_sets_stageout_status_0(fake_pbs: FakeCluster,
                                                                   tmp_path: Path) -> None:
    """copy_file / on_job_exit: a stage-out source that is not there fails; the job still
    ends F with its exit status, Stageout_status 0, and the mom's ``Job files not copied``
    block names the file."""
    tmp_path.chmod(0o777)
    jobid = fake_pbs.qsub("true", "-W", "stageout=%s/nothing@vm:%s/dst" % (tmp_path, tmp_path),
                          cwd=str(tmp_path))
    attrs = fake_pbs.wait(jobid)
    assert (attrs["Exit_status"], attrs["Stageout_status"]) == ("0", "0")
    mom = _mom(fake_pbs, jobid)
    assert "Unable to copy file %s/nothing to vm:%s/dst" % (tmp_path, tmp_path) in mom
    assert "Staged 2/3 items out over 0:00:00" in mom


def test_sandbox_private_stages_into_and_out_of_the_sandbox(fake_pbs: FakeCluster,
                                                            tmp_path: Path) -> None:
    """req_cpyfile under sandbox=PRIVATE: relative names are the sandbox's (PBS_JOBDIR), made
    by the stage-in (mkjobdir), and a staged-out file in it goes with the sandbox."""
    tmp_path.chmod(0o777)
    (tmp_path / "in").write_text("a\n")
    jobid = fake_pbs.qsub("cat in > out; pwd", "-W", "sandbox=PRIVATE",
                          "-W", "stagein=in@vm:%s/in" % tmp_path,
                          "-W", "stageout=out@vm:%s/out" % tmp_path, cwd=str(tmp_path))
    attrs = fake_pbs.wait(jobid)
    assert attrs["Stageout_status"] == "1"
    assert (tmp_path / "out").read_text() == "a\n"
    assert not Path(attrs["jobdir"]).exists()
