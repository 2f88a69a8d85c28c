"""A vnode's queue, run limits and priority, set with qmgr and acted on by the scheduler.

OpenPBS 23.06: node_func.c ``node_queue_action`` (a vnode's ``queue`` names an execution queue:
15018, 15026) and ``mark_which_queues_have_nodes`` (the queue's read-only ``hasnodes``);
req_manager.c (a queue with vnodes is not deleted, 15027, nor made a routing queue, 15026);
the scheduler's ``is_ok_to_run`` / ``is_vnode_eligible`` (tests/sched/test_vnode_rules.py has
the cycle's side); sched_config lines the fake does not act on are named in the scheduler log.
"""
from typing import List

from fake_pbs import paths
from fake_pbs.testing import FakeCluster, wait_for


def _node_names(cluster: FakeCluster) -> List[str]:
    return [line for line in cluster.sh("pbsnodes", "-a").splitlines()
            if line and not line.startswith(" ")]


def test_a_vnode_queue_must_be_an_execution_queue(fake_pbs: FakeCluster) -> None:
    first = _node_names(fake_pbs)[0]
    done = fake_pbs.run(["qmgr", "-c", "set node %s queue = nosuch" % first])
    assert done.returncode == 15018 % 256 and "Unknown queue" in done.stderr, done
    fake_pbs.qmgr("create queue route queue_type = route")
    done = fake_pbs.run(["qmgr", "-c", "set node %s queue = route" % first])
    assert done.returncode == 15026 % 256 and "Incompatible type" in done.stderr, done
    assert "queue = " not in fake_pbs.sh("pbsnodes", first)


def test_a_queue_with_vnodes_shows_hasnodes_and_keeps_them(fake_pbs: FakeCluster) -> None:
    first = _node_names(fake_pbs)[0]
    fake_pbs.qmgr("create queue gpu queue_type = execution, enabled = true, started = true")
    fake_pbs.qmgr("set node %s queue = gpu" % first)
    assert "hasnodes = True" in fake_pbs.sh("qstat", "-Qf", "gpu")
    assert "queue = gpu" in fake_pbs.sh("pbsnodes", first)
    done = fake_pbs.run(["qmgr", "-c", "delete queue gpu"])
    assert done.returncode == 15027 % 256 and "Cannot delete busy object" in done.stderr, done
    done = fake_pbs.run(["qmgr", "-c", "set queue gpu queue_type = route"])
    assert done.returncode == 15026 % 256, done
    fake_pbs.qmgr("unset node %s queue" % first)
    assert "hasnodes" not in fake_pbs.sh("qstat", "-Qf", "gpu")
    fake_pbs.qmgr("delete queue gpu")


def test_jobs_run_on_their_queues_vnodes(fake_pbs: FakeCluster) -> None:
    first, second = _node_names(fake_pbs)[:2]
    fake_pbs.qmgr("create queue gpu queue_type = execution, enabled = true, started = true")
    fake_pbs.qmgr("set node %s queue = gpu" % second)
    in_gpu = fake_pbs.qsub("sleep 30", "-q", "gpu")
    in_workq = fake_pbs.qsub("sleep 30")
    fake_pbs.wait(in_gpu, "R")
    fake_pbs.wait(in_workq, "R")
    assert fake_pbs.job(in_gpu)["exec_host"].startswith(second + "/")
    assert fake_pbs.job(in_workq)["exec_host"].startswith(first + "/")


def test_a_vnode_max_running(fake_pbs: FakeCluster) -> None:
    for name in _node_names(fake_pbs):
        fake_pbs.qmgr("set node %s max_running = 1" % name)
    jobs = [fake_pbs.qsub("sleep 30") for _ in range(3)]
    fake_pbs.wait(jobs[0], "R")
    fake_pbs.wait(jobs[1], "R")
    wait_for(lambda: fake_pbs.job(jobs[2]).get("comment", "").endswith(
        "Node has reached job run limit"), 20, lambda: str(fake_pbs.job(jobs[2])))
    assert fake_pbs.job(jobs[2])["job_state"] == "Q"


def test_sched_config_lines_not_acted_on_are_logged(fake_pbs: FakeCluster) -> None:
    config = paths.sched_config(fake_pbs.home)
    before = config.read_text()
    try:
        config.write_text(before + "round_robin: True ALL\nstrict_ordering: false ALL\n")
        fake_pbs.qmgr("set sched log_events = 767")  # SCH_CONFIGURE: the file is read again
        fake_pbs.wait_log("sched", "round_robin: True ALL: not modelled by fake_pbs")
        assert not fake_pbs.messages("sched", "strict_ordering")  # PBS's stock value
    finally:
        config.write_text(before)
        fake_pbs.qmgr("set sched log_events = 767")


def test_job_sort_formula_orders_the_queue(fake_pbs: FakeCluster) -> None:
    """sort.cpp cmp_sort: the highest job_sort_formula value first (tests/sched/
    test_job_sort_formula.py pins the rules); qmgr refuses a bad formula (15123)."""
    done = fake_pbs.run(["qmgr", "-c", "set server job_sort_formula = \"walltime *\""])
    assert done.returncode == 15123 % 256 and "Invalid Formula Format" in done.stderr, done
    fake_pbs.qmgr('set server job_sort_formula = "-walltime / 60"')
    assert "job_sort_formula = -walltime / 60" in fake_pbs.qmgr("list server job_sort_formula")
    fake_pbs.qmgr("set server scheduling = false")
    whole = ("-l", "select=2:ncpus=8", "-l", "place=scatter")
    long_job = fake_pbs.qsub("sleep 30", *whole, "-l", "walltime=01:00:00")
    short_job = fake_pbs.qsub("sleep 30", *whole, "-l", "walltime=00:10:00")
    fake_pbs.qmgr("set server scheduling = true")
    fake_pbs.wait(short_job, "R")
    assert fake_pbs.job(long_job)["job_state"] == "Q"


def test_a_server_license_pool(fake_pbs: FakeCluster) -> None:
    """A site resource with flag q, on the scheduler's resources line, as a server pool
    (check.cpp INSUFFICIENT_SERVER_RESOURCE; tests/sched/test_resource_pools.py)."""
    config = paths.sched_config(fake_pbs.home)
    before = config.read_text()
    try:
        fake_pbs.qmgr("create resource lic type=long, flag=q")
        config.write_text(before.replace('resources: "', 'resources: "lic, '))
        fake_pbs.qmgr("set server resources_available.lic = 1")  # also a SCH_CONFIGURE
        fake_pbs.qmgr("set sched log_events = 767")
        first = fake_pbs.qsub("sleep 30", "-l", "lic=1")
        fake_pbs.wait(first, "R")
        second = fake_pbs.qsub("sleep 30", "-l", "lic=1")
        wanted = "Not Running: Insufficient amount of server resource: lic (R: 1 A: 0 T: 1)"
        wait_for(lambda: fake_pbs.job(second).get("comment") == wanted, 20,
                 lambda: str(fake_pbs.job(second)))
        assert "resources_assigned.lic = 1" in fake_pbs.sh("qstat", "-Bf")
    finally:
        config.write_text(before)
        fake_pbs.qmgr("set sched log_events = 767")


def test_preempt_targets_are_checked_at_qsub_and_qalter(fake_pbs: FakeCluster) -> None:
    """resc_attr.c preempt_targets_action (tests/sched/test_preempt_targets.py pins the
    scheduler's side)."""
    done = fake_pbs.run(["qsub", "-l", "preempt_targets=queue=nosuch", "--", "/bin/true"])
    assert done.returncode == 15018 % 256 and "Unknown queue" in done.stderr, done
    jobid = fake_pbs.qsub("true", "-h", "-l", 'preempt_targets="queue=workq,'
                          'Resource_List.ncpus=2"')
    assert fake_pbs.job(jobid)["Resource_List.preempt_targets"] == \
        "queue=workq,Resource_List.ncpus=2"
    done = fake_pbs.run(["qalter", "-l", "preempt_targets=Resource_List.nosuch=1", jobid])
    assert done.returncode == 15035 % 256, done
    fake_pbs.sh("qalter", "-l", "preempt_targets=none", jobid)
    assert fake_pbs.job(jobid)["Resource_List.preempt_targets"] == "none"


def test_the_schedulers_log_events_filters_its_log(fake_pbs: FakeCluster) -> None:
    """The scheduler logs what its log_events lets through (767 by default): without 0x0080
    (PBSEVENT_DEBUG) no "Considering job to run" line; with it, one per job considered."""
    fake_pbs.qmgr("set sched log_events = %d" % (767 & ~0x0080))
    quiet = fake_pbs.qsub("true")
    fake_pbs.wait(quiet)
    assert not fake_pbs.messages("sched", "Considering job to run")
    fake_pbs.qmgr("set sched log_events = 767")
    loud = fake_pbs.qsub("true")
    fake_pbs.wait(loud)
    fake_pbs.wait_log("sched", "Considering job to run")
