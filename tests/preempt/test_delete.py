"""Preemption by deletion (``D``; OpenPBS design "Preemption via deletion", transcripts g03-g11
and master g20-g27; PTL pbs_preemption.py test_preempt_delete / test_preempt_rerunable_false).
"""
from .preemptrig import NodeSampler, PreemptRig, index_of, ran_after

VICTIM = "sleep 60"
URGENT = "sleep 2"


def test_delete_preempts_a_non_rerunnable_job(rig: PreemptRig) -> None:
    """g03/g04/g06/g08/g10/g11: preempt_order D, a ``-r n`` victim ends F/91 with Exit_status
    271 and comment ``... and terminated by Scheduler@vm``; the express job then runs; the
    scheduler logs ``Job preempted by deletion`` before ``Job run``; no oversubscription."""
    rig.setup("D")
    with NodeSampler(rig) as sampler:
        victim = rig.submit(VICTIM, "-r", "n")
        rig.wait(victim, "R")
        urgent = rig.submit(URGENT, "-q", "expressq")
        rig.wait(urgent, "R")
        done = rig.wait(victim, "F")
        rig.wait(urgent, "F")
    assert done["substate"] == "91" and done["Exit_status"] == "271"
    assert done["comment"].endswith("and terminated by Scheduler@vm"), done["comment"]
    sched = rig.log_lines("sched")
    preempted = index_of(sched, ";%s;Job preempted by deletion" % victim)
    assert 0 <= preempted < index_of(sched, ";%s;Job run" % urgent)
    server = rig.log_lines("server")
    for message in ("delete job request received", "Job sent signal TermJob on delete",
                    "Job to be deleted at request of Scheduler@vm"):
        assert index_of(server, ";%s;%s" % (victim, message)) >= 0, message
    assert ran_after(rig, victim, urgent) is None, ran_after(rig, victim, urgent)
    assert sampler.samples > 0 and sampler.violations == []


def test_rd_requeues_a_rerunnable_victim(rig: PreemptRig) -> None:
    """Master g30-g36: RD with a rerunnable victim: requeued (``Job preempted by requeuing``),
    back to Q with Exit_status -11 while the express job runs, then runs again after it."""
    rig.setup("RD")
    with NodeSampler(rig) as sampler:
        victim = rig.submit(VICTIM, "-r", "y")
        rig.wait(victim, "R")
        urgent = rig.submit(URGENT, "-q", "expressq")
        rig.wait(urgent, "R")
        back = rig.job(victim)
        assert back["job_state"] == "Q" and back["Exit_status"] == "-11", back
        assert "exec_vnode" not in back
        rig.wait(urgent, "F")
        rig.wait(victim, "R", run_count=2)
    assert index_of(rig.log_lines("sched"), victim, "Job preempted by requeuing") >= 0
    server = rig.log_lines("server")
    assert index_of(server, victim, "Job Rerun at request of Scheduler@vm") >= 0
    assert ran_after(rig, victim, urgent) is None, ran_after(rig, victim, urgent)
    assert sampler.violations == []
    rig.sh("qdel", victim)


def test_rd_deletes_a_non_rerunnable_victim(rig: PreemptRig) -> None:
    """Master g20-g27 (test_preempt_rerunable_false): RD with a ``-r n`` victim: requeue fails
    (``preemption method requeue failed for job (15038)`` and PBS's req_reject line), the
    server falls through to D; the victim ends F/91, 271."""
    rig.setup("RD")
    with NodeSampler(rig) as sampler:
        victim = rig.submit(VICTIM, "-r", "n")
        rig.wait(victim, "R")
        urgent = rig.submit(URGENT, "-q", "expressq")
        rig.wait(urgent, "R")
        done = rig.wait(victim, "F")
    assert done["Exit_status"] == "271" and done["substate"] == "91"
    server = rig.log_lines("server")
    failed = index_of(server, victim, "preemption method requeue failed for job (15038)")
    delete = index_of(server, victim, "delete job request received")
    reject = index_of(server, "req_reject;Reject reply code=15038, aux=0, type=14, "
                      "from Scheduler@vm")
    assert 0 <= failed < delete < reject, (failed, delete, reject)
    assert index_of(rig.log_lines("sched"), victim, "Job preempted by deletion") >= 0
    assert ran_after(rig, victim, urgent) is None, ran_after(rig, victim, urgent)
    assert sampler.violations == []


SLOW_END = """import time
time.sleep(3)
pbs.logmsg(pbs.LOG_DEBUG, 'slow %s done for ' + e.job.id)
"""


def _slow_hook_case(rig: PreemptRig, event: str) -> None:
    rig.setup("D")
    rig.hook("slow", event, SLOW_END % event)
    with NodeSampler(rig) as sampler:
        victim = rig.submit(VICTIM, "-r", "n")
        rig.wait(victim, "R")
        urgent = rig.submit(URGENT, "-q", "expressq")
        rig.wait(urgent, "R", timeout=40)
        rig.wait(victim, "F")
    assert ran_after(rig, victim, urgent) is None, ran_after(rig, victim, urgent)
    mom = rig.log_lines("mom")
    slow_done = index_of(mom, "slow %s done for %s" % (event, victim))
    first_urgent = index_of(mom, ";%s;" % urgent)
    assert 0 <= slow_done < first_urgent, (slow_done, first_urgent)
    assert sampler.samples > 0 and sampler.violations == []


def test_delete_waits_for_a_slow_execjob_end_hook(rig: PreemptRig) -> None:
    """Design "Preemption via deletion": the preempt request is answered only after the job's
    end-of-job processing, execjob_end included (3 s here); only then does the express job
    start, so the vnode is never oversubscribed."""
    _slow_hook_case(rig, "execjob_end")


def test_delete_waits_for_a_slow_execjob_epilogue_hook(rig: PreemptRig) -> None:
    """As above with a slow execjob_epilogue (it runs before the obit)."""
    _slow_hook_case(rig, "execjob_epilogue")
