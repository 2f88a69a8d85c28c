"""A crash at every step of the job end: the job ends once, with its status and its output.

The server or the mom SIGKILLs itself exactly between two steps (``fake-pbs crashpoint``,
fake_pbs/crashpoints.py), then ``fake-pbs start`` brings it back.  Whatever the step, the job
is F once, with its script's Exit_status, its shell ran once, its output file holds its one
line, the accounting has one E record and no requeue (R), and the mom ends with nothing of it.
PBS's rules (docs/reliability.md, "Ordering rule"): the server saves a job's state before it
sends DELETE_JOB to the mom, and a job whose obit it received is never requeued for a mom that
no longer knows it (issue 15: a finished job ran twice).
"""
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from fake_pbs import control, crashpoints, paths, protocol

from .rig import BIN, Rig, wait_for

HOST = "n1"


@pytest.fixture(scope="module")
def crig() -> Iterator[Rig]:
    cluster = Rig(hosts=(HOST + ":ncpus=2",))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.close()


def _accounting(rig: Rig) -> str:
    folder = rig.home / "server_priv" / "accounting"
    return "".join(p.read_text() for p in sorted(folder.iterdir())) if folder.is_dir() else ""


def _mom_has(rig: Rig, jobid: str) -> bool:
    return (paths.mom_priv(rig.home, HOST) / "jobs" / jobid).exists()


def _armed(rig: Rig, daemon: str) -> bool:
    return (rig.home / "crashpoints" / daemon).exists()


def _end_once(rig: Rig, daemon: str, point: str, exit_code: int = 3) -> str:
    """Run one job through a crash of ``daemon`` at ``point``; check it ended exactly once."""
    rig.restart_missing()  # a daemon a failed test left down
    runs = rig.work / ("runs-%s-%s" % (daemon, point))
    control.crashpoint(rig.home, daemon, point)
    jobid = rig.qsub('echo ran >> %s\necho "out $PBS_JOBID"\nexit %d' % (runs, exit_code))
    kind = "server" if daemon == "server" else "mom"
    host = "" if daemon == "server" else daemon
    wait_for(lambda: not _armed(rig, daemon), 60, lambda: "%s never reached %s" % (
        daemon, point))
    wait_for(lambda: not control.running(rig.home, kind, host), 10,
             lambda: "%s still runs after its crash at %s" % (daemon, point))
    rig.restart_missing()
    ended = rig.wait(jobid, timeout=60)
    assert ended["Exit_status"] == str(exit_code), (point, ended)
    assert ended["run_count"] == "1", (point, ended)
    assert ended["comment"].endswith(" and failed"), (point, ended)
    assert runs.read_text() == "ran\n", "the job's shell ran %d times (crash at %s)" % (
        runs.read_text().count("ran"), point)
    output = Path(rig.work / ("STDIN.o" + jobid.split(".")[0]))
    wait_for(output.exists, 20, lambda: "no output file (crash at %s)" % point)
    assert output.read_text() == "out %s\n" % jobid, point
    records = _accounting(rig)
    assert records.count(";E;%s;" % jobid) == 1, records
    assert ";R;%s;" % jobid not in records, records
    wait_for(lambda: not _mom_has(rig, jobid), 30,
             lambda: "the mom still holds %s (crash at %s)" % (jobid, point))
    return jobid


@pytest.mark.parametrize("point", crashpoints.SERVER_POINTS)
def test_server_crash_at_each_step_of_the_job_end(crig: Rig, point: str) -> None:
    _end_once(crig, "server", point)


@pytest.mark.parametrize("point", crashpoints.MOM_POINTS)
def test_mom_crash_at_each_step_of_the_job_end(crig: Rig, point: str) -> None:
    _end_once(crig, HOST, point)


def test_recorded_obit_stands_when_the_mom_forgot_the_job(crig: Rig) -> None:
    """Issue 15's failure, built on purpose: the server stored the obit, then died; the mom
    finished the run and forgot it (the delete-job request of the old order).  The restarted
    server meets ``Unknown Job Id`` on resume and keeps the stored end: F with the script's
    status, not a requeue (-20) and a second run (PBS: a job with its obit is not requeued)."""
    crig.restart_missing()
    runs = crig.work / "runs-forgotten"
    control.crashpoint(crig.home, "server", "obit-saved")
    jobid = crig.qsub('echo ran >> %s\necho "out $PBS_JOBID"\nexit 5' % runs)
    wait_for(lambda: not _armed(crig, "server"), 60, lambda: "never reached obit-saved")
    wait_for(lambda: not control.running(crig.home, "server"), 10, lambda: "server alive")
    protocol.call_once(paths.mom_socket(crig.home, HOST), "discard", 30.0, job=jobid,
                       run_count=1)
    assert not _mom_has(crig, jobid)
    crig.restart_missing()
    ended = crig.wait(jobid, timeout=60)
    assert (ended["Exit_status"], ended["run_count"]) == ("5", "1"), ended
    time.sleep(1.0)  # a wrong requeue would start the job again within this second
    assert crig.job(jobid)["job_state"] == "F"
    assert runs.read_text() == "ran\n"
    assert (crig.work / ("STDIN.o" + jobid.split(".")[0])).read_text() == "out %s\n" % jobid


def test_crashpoint_names_are_checked(crig: Rig) -> None:
    """A point the daemon does not have is refused (a typo would arm nothing, silently)."""
    with pytest.raises(control.ControlError, match="unknown crash point"):
        control.crashpoint(crig.home, "server", "staged")
    done = crig.run([sys.executable, BIN + "/fake-pbs", "crashpoint", HOST, "no-such-point"])
    assert done.returncode == 1 and "unknown crash point" in done.stderr
    assert not _armed(crig, HOST)
