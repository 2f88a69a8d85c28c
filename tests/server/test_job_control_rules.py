"""Job control requests against one fake cluster: holds, qrerun, qsig, qrun (extra set k01-k06).

Each test names the transcript case (shared/fidelity/openpbs-23.06.06-extra) whose rule it pins.
"""
import time
from types import SimpleNamespace
from typing import Any, List, Tuple, cast

import pytest

from fake_pbs.model.errors import (PBSE_BADSTATE, PBSE_NORERUN, PBSE_PERM, PBSE_UNKSIG,
                                   PBSE_WRONG_RESUME, PbsError)
from fake_pbs.server.handlers.common import require_owner
from fake_pbs.server.handlers.registry import Caller, Context
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
    the discard and the requeue on the mom's answer (no obit line), and the job runs again
    without an Exit_status."""
    jobid = _running(fake_pbs, "-r", "n")
    fake_pbs.mark_logs()
    assert fake_pbs.run(["qrerun", "-W", "force", jobid]).returncode == 0
    attrs = fake_pbs.wait(jobid, "R", run_count=2)
    assert "Exit_status" not in attrs  # k04i: force_reque sets none
    fake_pbs.wait_log("server", "Job requeued, discard response received")
    messages = fake_pbs.messages("server", ";Job;%s;" % jobid)
    assert "Discard running job, Force rerun " in messages
    assert not any(m.startswith("Obit received") for m in messages)
    assert not any(m.startswith("Job Rerun at request of") for m in messages)
    time.sleep(0.1)
    fake_pbs.run(["qdel", jobid])


def test_refused_owner_check_is_logged_with_the_request_type() -> None:
    """k05m/k06i (svr_chk_owner.c msg_permlog): a non-owner's qalter is refused (159) and the
    server logs ``Unauthorized Request, request type: 11, Object: Job, Name: <id>, request
    from: <user>@<host>`` (event 0x0020)."""
    logged: List[Tuple[str, str, int]] = []
    log = SimpleNamespace(job=lambda jobid, text, event=0: logged.append((jobid, text, event)))
    ctx = Context(cast(Any, SimpleNamespace(log=log)),
                  Caller(1002, 1002, 1, "pbsuser2", "vm", manager=False))
    ctx.op = "alterjob"
    with pytest.raises(PbsError) as err:
        require_owner(ctx, {"_id": "392.vm", "_uid": 1001})
    assert err.value.code == PBSE_PERM
    assert logged == [("392.vm", "Unauthorized Request, request type: 11, Object: Job, Name: "
                       "392.vm, request from: pbsuser2@vm", 0x0020)]
    logged.clear()
    require_owner(ctx, {"_id": "392.vm", "_uid": 1002})
    assert logged == []


def test_qalter_and_the_scheduler_log_job_modified(fake_pbs: FakeCluster) -> None:
    """k06i, m03f: each accepted qalter logs ``Job Modified at request of <user>@<host>``;
    the scheduler's comment on a job it cannot run logs ``... of Scheduler@<host>`` once."""
    fake_pbs.mark_logs()
    jobid = fake_pbs.qsub("true", "-l", "select=1:ncpus=64")
    fake_pbs.wait_log("server", "Job Modified at request of Scheduler@")
    assert fake_pbs.job(jobid)["comment"].startswith("Can Never Run: ")
    assert fake_pbs.run(["qalter", "-N", "renamed", jobid]).returncode == 0
    assert fake_pbs.run(["qalter", "-N", "1 bad", jobid]).returncode == 2
    fake_pbs.call("schedule")
    messages = fake_pbs.messages("server", ";Job;%s;" % jobid)
    modified = [m for m in messages if m.startswith("Job Modified at request of ")]
    assert len(modified) == 2
    assert modified[0].startswith("Job Modified at request of Scheduler@")
    assert not modified[1].startswith("Job Modified at request of Scheduler@")
    fake_pbs.run(["qdel", jobid])


def test_qsig_rules(fake_pbs: FakeCluster) -> None:
    """k03b/k03n: an unknown name reaches the mom, which refuses it (15013, ``Execution server
    rejected request``); k03p-k03u: suspend S/43; suspending again 168; a manager's resume
    hands the job to the scheduler, which resumes it (``resume job by Scheduler@``); resuming
    a running job 168; k03v: admin-suspend puts the vnode in maintenance, a plain resume is
    refused (15177) and admin-resume frees it."""
    jobid = _running(fake_pbs, "-l", "select=1:ncpus=1")
    node = fake_pbs.job(jobid)["exec_host"].split("/")[0]
    fake_pbs.mark_logs()
    with pytest.raises(PbsError) as err:
        fake_pbs.call("sigjob", id=jobid, signal="SIGFOO")
    assert err.value.code == PBSE_UNKSIG
    fake_pbs.wait_log("mom", "signal job with SIGFOO")
    assert "Execution server rejected request" in fake_pbs.messages("server", ";Req;")
    fake_pbs.call("sigjob", id=jobid, signal="suspend")
    attrs = fake_pbs.job(jobid)
    assert (attrs["job_state"], attrs["substate"]) == ("S", "43")
    for again in ("suspend", "admin-resume"):
        with pytest.raises(PbsError) as err:
            fake_pbs.call("sigjob", id=jobid, signal=again)
        assert err.value.code == (PBSE_BADSTATE if again == "suspend" else PBSE_WRONG_RESUME)
    fake_pbs.call("sigjob", id=jobid, signal="resume")
    fake_pbs.wait(jobid, "R")
    fake_pbs.wait_log("server", "job signaled with resume by Scheduler@")
    with pytest.raises(PbsError) as err:
        fake_pbs.call("sigjob", id=jobid, signal="resume")
    assert err.value.code == PBSE_BADSTATE
    fake_pbs.call("sigjob", id=jobid, signal="admin-suspend")
    assert "maintenance" in fake_pbs.sh("pbsnodes", node)
    with pytest.raises(PbsError) as err:
        fake_pbs.call("sigjob", id=jobid, signal="resume")
    assert err.value.code == PBSE_WRONG_RESUME
    fake_pbs.call("sigjob", id=jobid, signal="admin-resume")
    assert fake_pbs.job(jobid)["job_state"] == "R"
    assert "maintenance" not in fake_pbs.sh("pbsnodes", node)
    fake_pbs.run(["qdel", jobid])


def test_qrun_preempts_by_suspension_without_an_extra_cycle(fake_pbs: FakeCluster) -> None:
    """k06c/k06d/k06h: qrun of a job the full cluster cannot take: the scheduler suspends a
    running job for it and runs it; the victim is considered once more in that cycle, and
    its suspension starts no cycle of its own."""
    first = _running(fake_pbs, "-l", "select=1:ncpus=8")
    second = _running(fake_pbs, "-l", "select=1:ncpus=8")
    waiting = fake_pbs.qsub("sleep 300", "-l", "select=1:ncpus=8")
    fake_pbs.mark_logs()
    assert fake_pbs.run(["qrun", waiting]).returncode == 0
    assert fake_pbs.job(waiting)["job_state"] == "R"
    victims = [j for j in (first, second) if fake_pbs.job(j)["job_state"] == "S"]
    assert len(victims) == 1
    time.sleep(1.0)
    lines = fake_pbs.messages("sched", ";%s;" % victims[0])
    assert lines.count("Job preempted by suspension") == 1
    assert lines.count("Considering job to run") == 1
    for jobid in (first, second, waiting):
        fake_pbs.run(["qdel", jobid])
