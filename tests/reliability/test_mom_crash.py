"""kill -9 of a mom while its jobs run, then restart: nothing is lost (issue 6).

The restarted mom re-adopts the live job shells (they run under detached shepherds), collects
those that ended meanwhile, and gives a definite outcome to a job whose processes are truly gone:
requeued when rerunnable, else failed with the reason in its comment (DESIGN.md "Process
model"; the Flux perilog restart problem, seed 003).
"""
import os
import signal
import time
from pathlib import Path

from fake_pbs import paths
from fake_pbs.mom.durable import read_json

from .rig import Rig, wait_for


def _job_dir(rig: Rig, host: str, jobid: str) -> Path:
    return paths.mom_priv(rig.home, host) / "jobs" / jobid


def _kill_job_processes(rig: Rig, host: str, jobid: str) -> None:
    record = read_json(_job_dir(rig, host, jobid) / "shepherd.json") or {}
    os.kill(int(record["shepherd_pid"]), signal.SIGKILL)
    os.killpg(int(record["pid"]), signal.SIGKILL)


def test_running_job_is_readopted_and_ends_with_its_status(rig: Rig) -> None:
    """Mom killed mid-job, restarted: the same run finishes with the script's exit code."""
    flag = rig.work / "flag"
    jobid = rig.qsub("while [ ! -f %s ]; do sleep 0.05; done\nexit 6" % flag, "-l", "host=n1")
    rig.wait(jobid, "R")
    rig.kill("mom", "n1")
    rig.restart_missing()
    flag.touch()
    attrs = rig.wait(jobid)
    assert attrs["Exit_status"] == "6" and attrs["run_count"] == "1"


def test_job_that_ended_while_its_mom_was_down_is_collected(rig: Rig) -> None:
    """The shell ends while no mom runs; its exit record waits on disk and is collected."""
    flag = rig.work / "flag"
    jobid = rig.qsub("while [ ! -f %s ]; do sleep 0.05; done\nexit 2" % flag, "-l", "host=n1")
    rig.wait(jobid, "R")
    rig.kill("mom", "n1")
    flag.touch()
    wait_for(lambda: (_job_dir(rig, "n1", jobid) / "exit.json").exists(), 20,
             lambda: "the shepherd did not record the exit")
    rig.restart_missing()
    attrs = rig.wait(jobid)
    assert attrs["Exit_status"] == "2" and attrs["run_count"] == "1"


def test_lost_rerunnable_job_is_requeued_and_runs_again(rig: Rig) -> None:
    """Shepherd and shell killed while the mom is down: the job is requeued (-11, rerunnable)
    and its second run finishes, never stuck in R."""
    marker = rig.work / "ran-once"
    jobid = rig.qsub("if [ -f %s ]; then exit 0; fi\ntouch %s\nsleep 300" % (marker, marker),
                     "-l", "host=n1")
    rig.wait(jobid, "R")
    wait_for(marker.exists, 20, lambda: "first run did not start")
    rig.kill("mom", "n1")
    _kill_job_processes(rig, "n1", jobid)
    rig.restart_missing()
    attrs = rig.wait(jobid)
    assert attrs["Exit_status"] == "0" and attrs["run_count"] == "2"


def test_lost_job_that_cannot_rerun_fails_with_a_reason(rig: Rig) -> None:
    """The same loss for a ``-r n`` job: it ends F, Exit_status -11, and says why."""
    jobid = rig.qsub("sleep 300", "-r", "n", "-l", "host=n1")
    rig.wait(jobid, "R")
    time.sleep(0.3)
    rig.kill("mom", "n1")
    _kill_job_processes(rig, "n1", jobid)
    rig.restart_missing()
    attrs = rig.wait(jobid)
    assert attrs["Exit_status"] == "-11"
    assert "lost" in attrs["comment"], attrs["comment"]
