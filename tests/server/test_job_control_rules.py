"""Job control requests against one fake cluster: holds, qrerun, qsig, qrun (extra set k01-k06).

Each test names the transcript case (shared/fidelity/openpbs-23.06.06-extra) whose rule it pins.
"""
import time

import pytest

from fake_pbs.model.errors import PBSE_BADSTATE, PBSE_NORERUN, PbsError
from fake_pbs.testing import FakeCluster


def _running(fake_pbs: FakeCluster, *options: str) -> str:
    jobid = fake_pbs.qsub("sleep 300", *options)
    fake_pbs.wait(jobid, "R", started=True)
    return jobid


def test_qhold_of_a_running_job_notes_the_hold(fake_pbs: FakeCluster) -> None:
    """k01d/k01e: qhold of a running job: rc 0, it stays R/42 with Hold_Types u, and the
    comment says who held it (req_holdjob sets it in every state)."""
    jobid = _running(fake_pbs)
    assert fake_pbs.run(["qhold", jobid]).returncode == 0
    attrs = fake_pbs.job(jobid)
    assert (attrs["job_state"], attrs["substate"], attrs["Hold_Types"]) == ("R", "42", "u")
    assert attrs["comment"].startswith("Job held by ")
    fake_pbs.run(["qdel", jobid])


def test_qrerun_checks_rerunable_before_the_state(fake_pbs: FakeCluster) -> None:
    """k04f/k04j (req_rerunjob2): a job that is not rerunnable is 190 whatever its state;
    a rerunnable one that is not running is 168."""
    not_rerunnable = fake_pbs.qsub("true", "-h", "-r", "n")
    with pytest.raises(PbsError) as err:
        fake_pbs.call("rerunjob", id=not_rerunnable)
    assert err.value.code == PBSE_NORERUN
    held = fake_pbs.qsub("true", "-h")
    with pytest.raises(PbsError) as err:
        fake_pbs.call("rerunjob", id=held)
    assert err.value.code == PBSE_BADSTATE


def test_qrerun_returns_once_the_job_is_requeued(fake_pbs: FakeCluster) -> None:
    """k04b/k04c/k04l: qrerun replies once the run's resources are released, so right after
    it the job is on its second run (or queued for it) with Exit_status -11; the server
    logs ``Job Rerun at request of`` and the obit of substate 60."""
    jobid = _running(fake_pbs)
    fake_pbs.mark_logs()
    assert fake_pbs.run(["qrerun", jobid]).returncode == 0
    attrs = fake_pbs.job(jobid)
    assert attrs["job_state"] in ("Q", "R") and attrs["Exit_status"] == "-11"
    assert attrs["job_state"] == "Q" or attrs["run_count"] == "2"
    attrs = fake_pbs.wait(jobid, "R", run_count=2)
    assert attrs["Exit_status"] == "-11"
    messages = fake_pbs.messages("server", ";Job;%s;" % jobid)
    assert any(m.startswith("Job Rerun at request of ") for m in messages)
    assert any(m.startswith("Obit received") and m.endswith("substate:60") for m in messages)
    fake_pbs.run(["qdel", jobid])


def test_forced_qrerun_discards_the_run(fake_pbs: FakeCluster) -> None:
    """k04h/k04i/k04l: ``qrerun -W force`` of a ``-r n`` job: rc 0 at once; the server logs
    the discard and the requeue on the mom's answer (no obit line), and the job runs again."""
    jobid = _running(fake_pbs, "-r", "n")
    fake_pbs.mark_logs()
    assert fake_pbs.run(["qrerun", "-W", "force", jobid]).returncode == 0
    fake_pbs.wait(jobid, "R", run_count=2)
    fake_pbs.wait_log("server", "Job requeued, discard response received")
    messages = fake_pbs.messages("server", ";Job;%s;" % jobid)
    assert "Discard running job, Force rerun " in messages
    assert not any(m.startswith("Obit received") for m in messages)
    assert not any(m.startswith("Job Rerun at request of") for m in messages)
    time.sleep(0.1)
    fake_pbs.run(["qdel", jobid])
