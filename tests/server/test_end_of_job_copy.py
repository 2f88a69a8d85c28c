"""The server's copy file request after the obit (req_jobobit.c on_job_exit), end to end.

Transcripts h01_tracejob_exit3 and extra i06d_wt_mom / k03n_qsig_mom: the mom stages the output
out when the server, having the obit, asks for it: ``Obit sent``, ``copy file request
received``, ``Staged 2/2 items out over 0:00:00``, ``no active tasks``, ``delete job request
received``, ``kill_job``.
"""
import time
from pathlib import Path
from typing import List

from fake_pbs.testing import FakeCluster

_ORDER = ["Obit sent", "copy file request received", "Staged 2/2 items out over 0:00:00",
          "no active tasks", "delete job request received", "kill_job"]


def _mom_lines(cluster: FakeCluster, jobid: str) -> List[str]:
    """This test's mom log lines about ``jobid`` (ids restart at 0 after each reset: the
    session's logs hold earlier jobs of the same id)."""
    mark = ";pbs_mom;Job;%s;" % jobid
    return [ln.split(mark, 1)[1] for ln in cluster.log_lines("mom") if mark in ln]


def test_output_is_staged_on_the_servers_copy_request(fake_pbs: FakeCluster,
                                                      tmp_path: Path) -> None:
    """h01: the copy happens after the obit and before the delete job request; the output is
    in place once the job is F (Stageout_status 1)."""
    tmp_path.chmod(0o777)
    jobid = fake_pbs.qsub("echo out; exit 3", cwd=str(tmp_path))
    attrs = fake_pbs.wait(jobid)
    assert attrs["Exit_status"] == "3" and attrs["Stageout_status"] == "1"
    assert (tmp_path / ("job.sh.o" + jobid.split(".")[0])).read_text() == "out\n"
    tail: List[str] = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the delete job request is sent in the background
        lines = _mom_lines(fake_pbs, jobid)
        tail = lines[lines.index("Obit sent"):] if "Obit sent" in lines else []
        if tail[-2:] == _ORDER[-2:]:
            break
        time.sleep(0.05)
    assert tail == _ORDER


def test_undelivered_output_is_stageout_status_0(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """Extra i05g/i05w: `-e sub/rel.err` into a missing directory: the job ends Exit 0 with
    Stageout_status 0 (the mom's report, not a fixed 1), the server logs `Post job file
    processing error` and the obit that follows the failed stage-out."""
    tmp_path.chmod(0o777)
    jobid = fake_pbs.qsub("echo out; echo err >&2", "-e", "sub/rel.err", cwd=str(tmp_path))
    attrs = fake_pbs.wait(jobid)
    assert (attrs["Exit_status"], attrs["Stageout_status"]) == ("0", "0")
    server = [ln for ln in fake_pbs.log_lines("server") if ";Job;%s;" % jobid in ln]
    assert any(";000d;" in ln and "Post job file processing error; job %s on host" % jobid in ln
               for ln in server)
    assert any("state:E substate:53" in ln for ln in server)
    mom = _mom_lines(fake_pbs, jobid)
    assert "Job files not copied:---->>>>" in mom and "Staged 1/2 items out over 0:00:00" in mom


def test_failed_stage_out_resends_the_obit(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """Extra i05g_rel_missing_dir_mom: `no active tasks` comes while the copy child is in its
    first pause (after try=2); after the failed stage-out the mom rejects the copy request and
    sends the obit again (requests.c post_cpyfile), and the server's answer to it is a second
    delete job request, after the job is gone."""
    tmp_path.chmod(0o777)
    jobid = fake_pbs.qsub("echo out; echo err >&2", "-e", "sub/rel.err", cwd=str(tmp_path))
    fake_pbs.wait(jobid)
    want = ["Staged 1/2 items out over 0:00:00", "no active tasks", "Obit sent",
            "delete job request received", "kill_job", "delete job request received"]
    tail: List[str] = []
    lines: List[str] = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the delete job request is sent in the background
        lines = _mom_lines(fake_pbs, jobid)
        staged = [i for i, ln in enumerate(lines) if ln.startswith("Staged ")]
        tail = lines[staged[0]:] if staged else []
        if tail == want:
            break
        time.sleep(0.05)
    assert tail == want, lines
    copy = lines.index("copy file request received")
    assert lines[copy + 1:copy + 3] == ["no active tasks", "Job files not copied:---->>>>"], (
        "\n".join(lines))
