"""A vnode's own rules in the node search: its queue, run limits, no_multinode_jobs, Priority.

OpenPBS 23.06 scheduler: ``is_vnode_eligible`` (node_info.cpp) checks ``max_running``,
``max_user_run`` and ``max_group_run`` (not for a qrun'd job) and ``no_multinode_jobs``, with
job_info.cpp's texts; ``is_ok_to_run`` (check.cpp) gives a job of a queue with vnodes those
vnodes only, any other job the vnodes of no queue; ``node_sort_key`` (sort.cpp
``multi_node_sort``) orders the search, ties in the server's order.
"""
from typing import List, Sequence

from fake_pbs.model.sched_config import NodeSortKey, parse
from fake_pbs.server.sched.cycle import Run, run_cycle
from tests.sched.sched_helpers import SITE_CONSUMABLES, job, node, queue, running

_SERVER = {"scheduling": "True"}


def _hosts(runs: Sequence[Run]) -> List[str]:
    return [run.exec_vnode.split(":")[0].strip("(") for run in runs]


def test_a_queue_with_vnodes_runs_only_there_and_other_queues_never_do() -> None:
    nodes = {"n1": node(4, extra={"queue": "gpu"}), "n2": node(4)}
    queues = {"workq": queue(), "gpu": queue()}
    jobs = [job(1, queue_name="gpu", ncpus="1"), job(2, ncpus="1"), job(3, ncpus="1")]
    result = run_cycle(_SERVER, {}, queues, nodes, jobs, 5000.0, consumables=SITE_CONSUMABLES)
    assert {run.jobid: run.exec_vnode for run in result.runs} == {
        "1.vm": "(n1:ncpus=1)", "2.vm": "(n2:ncpus=1)", "3.vm": "(n2:ncpus=1)"}
    # a job too big for the queue's vnode never runs on the others
    jobs = [job(4, queue_name="gpu", ncpus="6")]
    result = run_cycle(_SERVER, {}, queues, nodes, jobs, 5000.0, consumables=SITE_CONSUMABLES)
    assert result.runs == []
    assert result.comments["4.vm"].startswith("Can Never Run: Insufficient amount of resource")


def test_max_running_and_max_user_run_of_a_vnode() -> None:
    nodes = {"n1": node(8, extra={"max_running": "2"}),
             "n2": node(8, extra={"max_user_run": "1"})}
    held = running(1, "(n1:ncpus=1)", "n1/0", ncpus="1")
    held["euser"] = "alice"
    jobs = [held] + [job(seq, ncpus="1") for seq in (2, 3, 4)]
    for queued in jobs[1:]:
        queued["euser"] = "alice"
    result = run_cycle(_SERVER, {}, {"workq": queue()}, nodes, jobs, 5000.0,
                       consumables=SITE_CONSUMABLES)
    # n1 takes one more job (two in all), n2 one of alice's; the third waits
    assert {run.jobid: run.exec_vnode for run in result.runs} == {
        "2.vm": "(n1:ncpus=1)", "3.vm": "(n2:ncpus=1)"}
    assert result.comments["4.vm"] == "Not Running: Node has reached user run limit"


def test_max_group_run_and_a_qrun_job_passes_the_limits() -> None:
    nodes = {"n1": node(8, extra={"max_group_run": "1"})}
    held = running(1, "(n1:ncpus=1)", "n1/0", ncpus="1")
    held["egroup"] = "staff"
    queued = job(2, ncpus="1")
    queued["egroup"] = "staff"
    result = run_cycle(_SERVER, {}, {"workq": queue()}, nodes, [held, queued], 5000.0,
                       consumables=SITE_CONSUMABLES)
    assert result.comments["2.vm"] == "Not Running: Node has reached group run limit"
    result = run_cycle(_SERVER, {}, {"workq": queue()}, nodes, [held, queued], 5000.0,
                       qrun="2.vm", consumables=SITE_CONSUMABLES)
    assert [run.jobid for run in result.runs] == ["2.vm"]


def test_no_multinode_jobs_keeps_multi_chunk_jobs_off_the_vnode() -> None:
    nodes = {"n1": node(8, extra={"no_multinode_jobs": "True"}), "n2": node(8)}
    jobs = [job(1, select="2:ncpus=1", place="scatter"), job(2, select="2:ncpus=1"),
            job(3, ncpus="1")]
    result = run_cycle(_SERVER, {}, {"workq": queue()}, nodes, jobs, 5000.0,
                       consumables=SITE_CONSUMABLES)
    runs = {run.jobid: run.exec_vnode for run in result.runs}
    assert "1.vm" not in runs  # scatter needs two hosts and n1 takes no multi-node job
    assert result.comments["1.vm"] == "Not Running: Node can't satisfy a multi-node job"
    assert runs["2.vm"] == "(n2:ncpus=1)+(n2:ncpus=1)"
    assert runs["3.vm"] == "(n1:ncpus=1)"  # a one-chunk job is welcome


def test_node_sort_key_orders_the_search() -> None:
    nodes = {"n1": node(2), "n2": node(2, extra={"Priority": "10"}),
             "n3": node(4, extra={"Priority": "10"})}
    jobs = [job(1, ncpus="1")]
    stock = parse(None).node_sort
    result = run_cycle(_SERVER, {}, {"workq": queue()}, nodes, jobs, 5000.0,
                       consumables=SITE_CONSUMABLES, node_sort=stock)
    assert _hosts(result.runs) == ["n2"]  # highest Priority first, ties in the server's order
    result = run_cycle(_SERVER, {}, {"workq": queue()}, nodes, jobs, 5000.0,
                       consumables=SITE_CONSUMABLES,
                       node_sort=(NodeSortKey("ncpus", True),))
    assert _hosts(result.runs) == ["n3"]
    result = run_cycle(_SERVER, {}, {"workq": queue()}, nodes, jobs, 5000.0,
                       consumables=SITE_CONSUMABLES)
    assert _hosts(result.runs) == ["n1"]  # no node_sort_key line: the server's order


def test_node_sort_by_unused_is_remade_as_jobs_start() -> None:
    nodes = {"n1": node(4), "n2": node(4)}
    jobs = [job(seq, ncpus="2") for seq in (1, 2, 3)]
    result = run_cycle(_SERVER, {}, {"workq": queue()}, nodes, jobs, 5000.0,
                       consumables=SITE_CONSUMABLES,
                       node_sort=(NodeSortKey("ncpus", True, "unused"),))
    assert _hosts(result.runs) == ["n1", "n2", "n1"]


def test_preemptive_sched_false_preempts_nothing() -> None:
    nodes = {"n1": node(1)}
    queues = {"workq": queue(), "express": queue(priority=200)}
    jobs = [running(1, "(n1:ncpus=1)", "n1/0", ncpus="1"),
            job(2, queue_name="express", ncpus="1")]
    assert run_cycle(_SERVER, {}, queues, nodes, jobs, 5000.0,
                     consumables=SITE_CONSUMABLES).preempt
    assert not run_cycle(_SERVER, {}, queues, nodes, jobs, 5000.0,
                         consumables=SITE_CONSUMABLES, preemptive=False).preempt


def test_sched_config_names_what_it_does_not_act_on() -> None:
    config = parse('resources: "ncpus, mem"\nround_robin: True ALL\nby_queue: True prime\n'
                   'node_sort_key: "ncpus LOW unused" ALL\nnode_sort_key: "color HIGH"\n'
                   'preemptive_sched: false ALL\nno_such_key: 1\n', ("ncpus", "mem"))
    assert config.node_sort == (NodeSortKey("ncpus", False, "unused"),)
    assert not config.preemptive
    assert config.unmodelled == ("line 2: round_robin: True ALL",
                                 'line 5: node_sort_key: "color HIGH"', "line 7: no_such_key: 1")
