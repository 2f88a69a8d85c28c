"""execjob_abort hooks that misbehave, and the injected host faults (reference §6.3-6.4; golden
f13 (abort hook raising) and f23 (abort hook overrunning its alarm)).

Whatever an abort hook does is logged and changes nothing: the job is requeued with the code of
the failure that started the abort, and execjob_end still runs afterwards on the primary.
"""
from typing import List, Tuple

import pytest

from .hookrig import ALL_HOSTS_SPEC, Cluster, index_of

PROLOGUE_REJECT = "e.reject('no')\n"
END_LOG = "pbs.logmsg(pbs.LOG_DEBUG, 'execjob_end ran on %s' % pbs.get_local_nodename())\n"
ABORT_LOG = "pbs.logmsg(pbs.LOG_DEBUG, 'called execjob_abort hook on %s' % " \
            "pbs.get_local_nodename())\ne.accept()\n"

# (hook body, alarm, the lines the primary mom logs: (event type, class, object, message))
MISBEHAVING: List[Tuple[str, str, str, List[Tuple[str, str, str, str]]]] = [
    ("reject", "e.reject('abort refused')\n", "30", [
        ("0100", "Hook", "abhook", "execjob_abort request rejected by 'abhook'"),
        ("0008", "Job", "{job}", "abort refused")]),
    ("raise", "raise RuntimeError('abort hook exploded')\n", "30", [
        ("0001", "Svr", "pbs_mom", "run_hook, execv of {python} resulted in nonzero exit "
                                   "status=254"),
        ("0008", "Job", "{job}", "execjob_abort hook 'abhook' encountered an exception, "
                                 "request rejected")]),
    ("alarm", "import time\ntime.sleep(20)\n", "1", [
        ("0100", "Hook", "catch_hook_alarm", "alarm call received, interrupting hook "
                                             "execution."),
        ("0008", "Job", "{job}", "alarm call while running execjob_abort hook 'abhook', "
                                 "request rejected")]),
]


@pytest.mark.parametrize("kind,body,alarm,expected", MISBEHAVING,
                         ids=[m[0] for m in MISBEHAVING])
def test_misbehaving_abort_hook_is_logged_and_changes_nothing(
        hc: Cluster, kind: str, body: str, alarm: str,
        expected: List[Tuple[str, str, str, str]]) -> None:
    """f13/f23: an abort hook that rejects, raises or overruns its alarm is logged with PBS's
    messages; the job is still requeued (-16 from the rejecting prologue) and execjob_end still
    runs after it."""
    import sys
    hc.hook("pro", "execjob_prologue", PROLOGUE_REJECT)
    hc.hook("abhook", "execjob_abort", body, alarm=alarm)
    hc.hook("end", "execjob_end", END_LOG)
    jobid = hc.submit()
    hc.runjob(jobid, "(node1:ncpus=1)")
    attrs = hc.wait(jobid, "Q", run_count=1)
    assert attrs["Exit_status"] == "-16"
    hc.wait_log("mom:node1", "execjob_end ran on node1")
    lines = hc.log_lines("mom:node1")
    fields = [tuple(line.split(";", 5)[1:]) for line in lines]
    for eventtype, cls, obj, message in expected:
        want = ("%s;pbs_mom;%s;%s;%s" % (eventtype, cls, obj, message)).format(
            job=jobid, python=sys.executable)
        assert tuple(want.split(";")) in fields, (want, lines)
    failure = index_of(lines, "job not started, Failure -16")
    end = index_of(lines, "execjob_end ran on node1")
    assert failure is not None and end is not None and failure < end


def _job_everywhere(hc: Cluster) -> str:
    hc.hook("abort", "execjob_abort", ABORT_LOG)
    hc.hook("end", "execjob_end", END_LOG)
    jobid = hc.submit("-l", "select=3:ncpus=1", "-l", "place=scatter")
    hc.runjob(jobid, ALL_HOSTS_SPEC)
    return jobid


def test_fork_fault_on_primary_retries_with_abort_everywhere(hc: Cluster) -> None:
    """exec_bail after a fork failure (reference §6.4): ``job not started, Retry -3``, abort
    hooks on the primary, ABORT_JOB to both sisters (abort hooks there, no end), requeue -3."""
    hc.fault("node1", "fork")
    jobid = _job_everywhere(hc)
    attrs = hc.wait(jobid, "Q", run_count=1)
    assert attrs["Exit_status"] == "-3"
    hc.wait_log("mom:node1", "execjob_end ran on node1")
    primary = hc.messages("mom:node1")
    retry = index_of(primary, "job not started, Retry -3")
    abort = index_of(primary, "called execjob_abort hook on node1")
    end = index_of(primary, "execjob_end ran on node1")
    assert retry is not None and abort is not None and end is not None, primary
    assert retry < abort < end
    for sister in ("node2", "node3"):
        assert "ABORT_JOB received" in hc.messages("mom:" + sister, jobid)
        assert hc.messages("mom:" + sister, "called execjob_abort hook on " + sister)
        assert not hc.messages("mom:" + sister, "execjob_end ran")


def test_jobdir_fault_on_primary_retries(hc: Cluster) -> None:
    """The primary cannot create the job's directory: exec_bail with JOB_EXEC_RETRY (-3), abort
    hooks on every mom, requeue."""
    hc.fault("node1", "jobdir")
    jobid = _job_everywhere(hc)
    attrs = hc.wait(jobid, "Q", run_count=1)
    assert attrs["Exit_status"] == "-3"
    for host in ("node1", "node2", "node3"):
        assert hc.wait_log("mom:" + host, "called execjob_abort hook on " + host)


def test_jobdir_fault_on_sister_fails_its_join(hc: Cluster) -> None:
    """A sister that cannot create the job's directory fails the join after execjob_begin: it
    runs execjob_abort itself (mom_comm.c join errors), the primary logs job_start_error with
    PBSE_SYSTEM (15010) and retries the job (-3)."""
    hc.fault("node2", "jobdir")
    jobid = _job_everywhere(hc)
    attrs = hc.wait(jobid, "Q", run_count=1)
    assert attrs["Exit_status"] == "-3"
    assert hc.messages("mom:node1", "job_start_error 15010 from node node2 could not JOIN_JOB "
                                    "successfully")
    assert hc.messages("mom:node2", "called execjob_abort hook on node2")
    assert hc.messages("mom:node1", "called execjob_abort hook on node1")


def test_comm_fault_on_sister_is_a_join_error(hc: Cluster) -> None:
    """A sister that does not answer the join (lost communication) is PBSE_SISCOMM: the primary
    logs job_start_error 15059 and the job is requeued with -30 (JOB_EXEC_JOINJOB); the silent
    sister ran no hook for the job."""
    hc.fault("node3", "comm")
    jobid = _job_everywhere(hc)
    attrs = hc.wait(jobid, "Q", run_count=1)
    assert attrs["Exit_status"] == "-30"
    assert hc.messages("mom:node1", "job_start_error 15059 from node node3 could not JOIN_JOB "
                                    "successfully")
    assert not hc.messages("mom:node3", "called execjob_abort hook")
    assert hc.messages("mom:node2", "called execjob_abort hook on node2")


def test_fault_command_arms_and_clears(hc: Cluster) -> None:
    """``fake-pbs fault HOST FAULT`` arms a fault on that mom and prints what is armed; ``fake-pbs
    fault clear`` disarms every host; an unknown fault is refused with the list of faults."""
    assert hc.sh("fake-pbs", "fault", "node2", "fork") == "node2: fork\n"
    hc.fault("node2", "join")
    hc.fault("node3", "comm")
    hc.sh("fake-pbs", "fault", "clear")
    assert hc.mom_faults("node2") == [] and hc.mom_faults("node3") == []
    hc.fault("node2", "jobdir")
    hc.fault("node3", "jobdir")
    hc.sh("fake-pbs", "fault", "clear", "node2")
    assert hc.mom_faults("node2") == [] and hc.mom_faults("node3") == ["jobdir"]
    bad = hc.run(["fake-pbs", "fault", "node2", "disk"])
    assert bad.returncode == 1
    assert "unknown fault 'disk'" in bad.stderr and "fork, join, jobdir, comm" in bad.stderr
