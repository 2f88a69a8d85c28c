"""A crash at every step of the job end: the job ends once, with its status and its output.

The server or the mom SIGKILLs itself exactly between two steps (``fake-pbs crashpoint``,
fake_pbs/crashpoints.py), then ``fake-pbs start`` brings it back.  Whatever the step, the job
is F once, with its script's Exit_status, its shell ran once, its output file holds its one
line, the accounting has one E record and no requeue (R), and the mom ends with nothing of it.
PBS's rules (docs/reliability.md, "Ordering rule"): the server saves a job's state before it
sends DELETE_JOB to the mom, and a job whose obit it received is never requeued for a mom that
no longer knows it (issue 15: a finished job ran twice).
"""
import subprocess
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


def _qsub_through_a_crash(rig: Rig, point: str, body: str) -> "subprocess.CompletedProcess[str]":
    """qsub while the server dies at ``point``; ``fake-pbs start`` while qsub waits."""
    rig.restart_missing()
    control.crashpoint(rig.home, "server", point)
    script = rig.work / ("%s.sh" % point)
    script.write_text("#!/bin/sh\n%s\n" % body)
    qsub = subprocess.Popen(["qsub", str(script)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=rig.env,
                            cwd=str(rig.work), universal_newlines=True)
    try:
        wait_for(lambda: not _armed(rig, "server"), 30, lambda: "never reached " + point)
        wait_for(lambda: not control.running(rig.home, "server"), 10, lambda: "server alive")
        rig.restart_missing()
        out, err = qsub.communicate(timeout=60)
    finally:
        if qsub.poll() is None:
            qsub.kill()
            qsub.communicate()
    return subprocess.CompletedProcess(qsub.args, qsub.returncode, out, err)


def test_qsub_prints_the_id_of_a_job_stored_before_the_reply_was_lost(crig: Rig) -> None:
    """The server stored the job and died before replying: qsub prints the job id and exits
    0, as PBS's qsub does when the commit's reply is lost (pbs_submit returns the id of the
    queue-job reply; pbsD_submit.c, qsub.c do_submit).  The job is there and runs once."""
    runs = crig.work / "runs-submit-saved"
    done = _qsub_through_a_crash(crig, "submit-saved", "echo ran >> %s\nexit 2" % runs)
    assert done.returncode == 0 and done.stderr == "", done
    jobid = done.stdout.strip()
    assert jobid.endswith(".vm"), done
    ended = crig.wait(jobid, timeout=60)
    assert (ended["Exit_status"], ended["run_count"]) == ("2", "1"), ended
    assert runs.read_text() == "ran\n"


def test_qsub_reports_end_of_file_when_the_job_was_not_stored(crig: Rig) -> None:
    """The server died before storing anything: PBS's qsub prints the DIS error text of the
    broken reply, ``qsub: End of File``, and exits PBSE_PROTOCOL 15031 % 256 = 183; no job."""
    before = set(crig.jobs())
    done = _qsub_through_a_crash(crig, "submit-received", "exit 0")
    assert (done.returncode, done.stdout, done.stderr) == (183, "", "qsub: End of File\n")
    assert set(crig.jobs()) == before


def test_a_node_down_after_the_obit_does_not_requeue_the_job(crig: Rig) -> None:
    """The mom dies after the obit (the server has it and asked for the copy) and stays down
    past node_fail_requeue: the job ends with its own status instead of a requeue and a second
    run (docs/reliability.md: a recorded obit stands).  Back up, the mom discards the run."""
    crig.restart_missing()
    qmgr = [sys.executable, BIN + "/qmgr", "-c"]
    assert crig.run(qmgr + ["set server node_fail_requeue = 2"]).returncode == 0
    try:
        runs = crig.work / "runs-node-down"
        control.crashpoint(crig.home, HOST, "staged")
        jobid = crig.qsub('echo ran >> %s\necho "out $PBS_JOBID"\nexit 6' % runs)
        wait_for(lambda: not _armed(crig, HOST), 60, lambda: "never reached staged")
        ended = crig.wait(jobid, timeout=60)  # node down after 2 s, then 2 s more
        assert (ended["Exit_status"], ended["run_count"]) == ("6", "1"), ended
        assert runs.read_text() == "ran\n"
    finally:
        crig.run(qmgr + ["unset server node_fail_requeue"])
    crig.restart_missing()
    wait_for(lambda: not _mom_has(crig, jobid), 30, lambda: "the mom kept " + jobid)
    assert (crig.work / ("STDIN.o" + jobid.split(".")[0])).read_text() == "out %s\n" % jobid
