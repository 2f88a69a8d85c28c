"""preempt_order ranges: ``"R 50 S"`` uses R while more than 50 % of the victim's walltime is
left and S below that (reference §7.1; PTL test_preempt_order_requeue_first and
test_preempt_order_requeue_second), and validation of the settings (d08*, pbs_preempt_params)."""
import time

from .preemptrig import NodeSampler, PreemptRig, index_of


def test_range_before_the_threshold_requeues(rig: PreemptRig) -> None:
    """``"R 50 S"``, victim walltime 60 s preempted at once: 100 % left -> requeued."""
    rig.setup("R 50 S")
    with NodeSampler(rig) as sampler:
        victim = rig.submit("sleep 30", "-l", "walltime=60")
        rig.wait(victim, "R")
        urgent = rig.submit("sleep 1", "-q", "expressq")
        rig.wait(urgent, "R")
        assert rig.job(victim)["job_state"] == "Q"
    assert index_of(rig.log_lines("sched"), victim, "Job preempted by requeuing") >= 0
    assert sampler.violations == []
    rig.sh("qdel", victim)


def test_range_after_the_threshold_suspends(rig: PreemptRig) -> None:
    """``"R 50 S"``, victim walltime 6 s preempted after 4 s: under 50 % left -> suspended."""
    rig.setup("R 50 S")
    with NodeSampler(rig) as sampler:
        victim = rig.submit("sleep 30", "-l", "walltime=6")
        started = rig.wait(victim, "R")
        time.sleep(max(0.0, int(started["stime"]) + 4 - time.time()))
        urgent = rig.submit("sleep 1", "-q", "expressq")
        rig.wait(urgent, "R")
        assert rig.job(victim)["job_state"] == "S"
    assert index_of(rig.log_lines("sched"), victim, "Job preempted by suspension") >= 0
    assert sampler.violations == []
    rig.sh("qdel", victim)


def test_invalid_settings_are_rejected(rig: PreemptRig) -> None:
    """d08e/d08l and PTL pbs_preempt_params: bad preempt_order / preempt_prio / preempt_sort
    values exit 166 with ``Illegal attribute or resource value``; the defaults stay."""
    for directive in ("set sched preempt_order = X", "set sched preempt_order = DD",
                      'set sched preempt_order = "SCR 80 70"',
                      'set sched preempt_prio = "express_queue, nrmal_jobs"',
                      "set sched preempt_sort = max_time"):
        done = rig.run(["qmgr", "-c", directive])
        assert done.returncode == 166, (directive, done.stderr)
        assert "Illegal attribute or resource value" in done.stderr
    listing = rig.qmgr("list sched default")
    assert "preempt_order = SCR\n" in listing and "preempt_sort = min_time_since_start" \
        in listing
