"""Every execjob_abort path, as PBS's pbs_hook_execjob_abort.py exercises them (reference §6.4,
§9.1): three moms, ``select=3:ncpus=1 -l place=scatter``, node1 primary, faults injected per host.

The order and the "sister runs abort only" rule are read from the mom logs, as PTL does.
"""
from .hookrig import Cluster, index_of

SCATTER = ("-l", "select=3:ncpus=1", "-l", "place=scatter")
ABORT_LOG = "pbs.logmsg(pbs.LOG_DEBUG, 'called execjob_abort hook on %s' % " \
            "pbs.get_local_nodename())\ne.accept()\n"
END_REJECT = "pbs.logmsg(pbs.LOG_DEBUG, 'execjob_end ran on %s' % pbs.get_local_nodename())\n" \
             "e.reject('end hook rejected')\n"
BEGIN_DELETE = "pbs.logmsg(pbs.LOG_DEBUG, 'called execjob_begin hook with job.delete()')\n" \
               "e.job.delete()\ne.accept()\n"


def _abort_and_end_hooks(hc: Cluster) -> None:
    hc.hook("abort", "execjob_abort", ABORT_LOG)
    hc.hook("end", "execjob_end", END_REJECT)


def test_sister_join_failure_aborts_before_end_and_requeues(hc: Cluster) -> None:
    """§9.1 test_execjob_abort_sis_joinjob_requeue: node3 fails to join; the primary logs
    ``job_start_error ... could not JOIN_JOB successfully``, runs execjob_abort before
    execjob_end; node2 (joined) runs abort but not end; node3 runs abort; the job returns to Q
    with Exit_status -30 (JOB_EXEC_JOINJOB) and the server logs the join error."""
    _abort_and_end_hooks(hc)
    hc.fault("node3", "join")
    jobid = hc.submit(*SCATTER)
    hc.run_everywhere(jobid)
    attrs = hc.wait(jobid, "Q", run_count=1)
    assert attrs["Exit_status"] == "-30"
    assert attrs["run_count"] == "1"
    hc.wait_log("mom:node1", "end hook rejected")
    primary = hc.messages("mom:node1")
    start_error = index_of(primary, "job_start_error 15059 from node node3 could not JOIN_JOB "
                                    "successfully")
    abort = index_of(primary, "called execjob_abort hook on node1")
    end = index_of(primary, "end hook rejected")
    assert start_error is not None and abort is not None and end is not None, primary
    assert start_error < abort < end
    assert "job not started, Failure -30" in primary
    assert hc.messages("mom:node2", "called execjob_abort hook on node2")
    assert "ABORT_JOB received" in hc.messages("mom:node2", jobid)
    assert not hc.messages("mom:node2", "execjob_end ran"), "a sister runs abort, never end"
    assert hc.messages("mom:node3", "called execjob_abort hook on node3")
    assert not hc.messages("mom:node3", "execjob_end ran")
    assert hc.messages("server", "Mom rejected job due to join job error")


def test_begin_hook_delete_then_join_failure_deletes_the_job(hc: Cluster) -> None:
    """§9.1 test_execjob_abort_sis_joinjob_exit: an execjob_begin hook calls e.job.delete() and
    accepts; node3 then fails to join.  The begin message precedes the abort message on the
    primary, the server logs ``hook request delete`` and the job is deleted (Exit_status -19,
    reference §6.4 "that wins") instead of being requeued."""
    hc.hook("begin", "execjob_begin", BEGIN_DELETE)
    hc.hook("abort", "execjob_abort", ABORT_LOG)
    hc.fault("node3", "join")
    jobid = hc.submit(*SCATTER)
    hc.run_everywhere(jobid)
    attrs = hc.wait(jobid, "F", run_count=1)
    assert attrs["Exit_status"] == "-19"
    primary = hc.messages("mom:node1")
    begin = index_of(primary, "called execjob_begin hook with job.delete()")
    abort = index_of(primary, "called execjob_abort hook on node1")
    assert begin is not None and abort is not None and begin < abort, primary
    assert hc.messages("server", "hook request delete %s" % jobid)
    assert hc.messages("server", "a hook requested for job to be deleted")


def test_prologue_exception_on_primary_holds_after_too_many_attempts(hc: Cluster) -> None:
    """§9.1 test_execjob_abort_ms_prologue (and golden f03): a prologue raising on the primary
    with ``-W run_count=18``: every attempt ends in -22 (JOB_EXEC_HOOKERROR), the abort hooks run
    on every mom, and after the 21st run the job is held: H, Hold_Types s, comment ``job held,
    too many failed attempts to run``."""
    hc.hook("prologue", "execjob_prologue",
            "if e.job.in_ms_mom():\n    raise NameError('prologue on the primary')\n")
    hc.hook("abort", "execjob_abort", ABORT_LOG)
    hc.set_server("scheduling", "True")
    jobid = hc.submit("-W", "run_count=18", *SCATTER)
    attrs = hc.wait(jobid, "H", run_count=1, timeout=60)
    assert attrs["run_count"] == "21"
    assert attrs["Hold_Types"] == "s"
    assert attrs["comment"] == "job held, too many failed attempts to run"
    assert attrs["Exit_status"] == "-22"
    assert hc.messages("mom:node1", "Job;%s;execjob_prologue hook 'prologue' encountered an "
                                    "exception, request rejected" % jobid)
    for host in ("node1", "node2", "node3"):
        assert len(hc.messages("mom:" + host, "called execjob_abort hook on " + host)) == 3


def test_launch_hook_exception_deletes_the_job_after_abort(hc: Cluster) -> None:
    """§9.1 test_execjob_abort_exit_job_launch_reject: a launch hook raising on the primary is
    logged ``Job;<id>;execjob_launch hook 'launch' encountered an exception, request rejected``,
    every mom runs execjob_abort, and the job ends (-17, JOB_EXEC_FAILHOOK_DELETE)."""
    hc.hook("launch", "execjob_launch",
            "if e.job.in_ms_mom():\n    raise ValueError('launch refused')\n")
    hc.hook("abort", "execjob_abort", ABORT_LOG)
    jobid = hc.submit(*SCATTER)
    hc.run_everywhere(jobid)
    attrs = hc.wait(jobid, "F", run_count=1)
    assert attrs["Exit_status"] == "-17"
    assert hc.messages("mom:node1", "Job;%s;execjob_launch hook 'launch' encountered an "
                                    "exception, request rejected" % jobid)
    for host in ("node1", "node2", "node3"):
        assert hc.messages("mom:" + host, "called execjob_abort hook on " + host), host
    assert hc.messages("server", "hook rejected request, requiring job to be deleted")
