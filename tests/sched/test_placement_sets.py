"""Placement sets: a job's chunks on vnodes that share a value of a grouping resource.

OpenPBS 23.06 scheduler: node_partition.cpp (one set per value of each key resource, vnodes
without it in ``<res>=""`` unless ``only_explicit_psets``), sort.cpp ``cmp_placement_sets``
(smallest total ncpus first), node_info.cpp ``eval_selspec`` (the first set that fits now;
"Placement set ... has too few free resources" when one could later; over all vnodes, or
"can't fit in the largest placement set, and can't span psets" with ``do_not_span_psets``,
when none ever could), check.cpp (the job's ``place=group=<res>`` replaces the server's
``node_group_key`` under ``node_group_enable``, a queue's key replaces the server's).
"""
from typing import Dict, List, Optional

from fake_pbs.server.sched.cycle import CycleResult, run_cycle
from tests.sched.sched_helpers import SITE_CONSUMABLES, job, node, queue, running

Attrs = Dict[str, str]


def _nodes() -> Dict[str, Attrs]:
    return {"a1": node(4, extra={"resources_available.switch": "s1"}),
            "b1": node(4, extra={"resources_available.switch": "s2"}),
            "b2": node(4, extra={"resources_available.switch": "s2"}),
            "c1": node(4)}


def _cycle(jobs: List[Attrs], server: Optional[Attrs] = None,
           sched: Optional[Attrs] = None, queues: Optional[Dict[str, Attrs]] = None,
           nodes: Optional[Dict[str, Attrs]] = None) -> CycleResult:
    return run_cycle(dict({"scheduling": "True"}, **(server or {})), sched or {},
                     queues or {"workq": queue()}, nodes or _nodes(), jobs, 5000.0,
                     consumables=SITE_CONSUMABLES)


def _hosts(result: CycleResult, jobid: str) -> List[str]:
    [run] = [run for run in result.runs if run.jobid == jobid]
    return [part.split(":")[0].strip("(") for part in run.exec_vnode.split("+")]


def test_place_group_keeps_a_job_within_one_value() -> None:
    # 6 cpus: s1 (4) is too small, s2 (8) holds it; without grouping a1 would be first
    free = _cycle([job(1, select="6:ncpus=1")])
    assert _hosts(free, "1.vm")[0] == "a1"
    grouped = _cycle([job(1, select="6:ncpus=1", place="free:group=switch")])
    assert set(_hosts(grouped, "1.vm")) == {"b1", "b2"}


def test_the_smallest_set_that_fits_comes_first() -> None:
    # 2 cpus fit in switch="" (c1, 4 cpus), s1 (4) and s2 (8): the first of the 4-cpu sets
    result = _cycle([job(1, select="2:ncpus=1", place="free:group=switch")])
    assert set(_hosts(result, "1.vm")) == {"a1"}


def test_a_busy_set_makes_the_job_wait_and_a_too_big_one_spans_or_never_runs() -> None:
    busy = [running(9, "(b1:ncpus=4)+(b2:ncpus=4)", "b1/0*4+b2/0*4", ncpus="8")]
    result = _cycle(busy + [job(1, select="6:ncpus=1", place="free:group=switch")])
    assert result.runs == []
    assert result.comments["1.vm"] == \
        "Not Running: Placement set switch=s1 has too few free resources"
    # no set holds 10 cpus: placed over all vnodes, unless spanning is off
    spans = _cycle([job(2, select="10:ncpus=1", place="free:group=switch")])
    assert len(set(_hosts(spans, "2.vm"))) > 2
    never = _cycle([job(2, select="10:ncpus=1", place="free:group=switch")],
                   sched={"do_not_span_psets": "True"})
    assert never.comments["2.vm"] == \
        "Can Never Run: can't fit in the largest placement set, and can't span psets"


def test_server_node_grouping_and_a_queue_key() -> None:
    server = {"node_group_enable": "True", "node_group_key": "switch"}
    result = _cycle([job(1, select="6:ncpus=1")], server=server)
    assert set(_hosts(result, "1.vm")) == {"b1", "b2"}
    off = _cycle([job(1, select="6:ncpus=1")], server={"node_group_key": "switch"})
    assert _hosts(off, "1.vm")[0] == "a1"  # node_group_enable false: no grouping
    rack_nodes = _nodes()
    rack_nodes["a1"]["resources_available.rack"] = "r1"
    rack_nodes["c1"]["resources_available.rack"] = "r1"
    queues = {"workq": queue(node_group_key="rack")}
    result = _cycle([job(1, select="6:ncpus=1")], server=server, queues=queues,
                    nodes=rack_nodes)
    assert set(_hosts(result, "1.vm")) == {"a1", "c1"}


def test_only_explicit_psets_leaves_out_vnodes_without_the_resource() -> None:
    result = _cycle([job(1, select="2:ncpus=1", place="free:group=switch")],
                    sched={"only_explicit_psets": "True"},
                    nodes={"c1": node(4), "b1": node(4, extra={
                        "resources_available.switch": "s2"})})
    assert _hosts(result, "1.vm") == ["b1", "b1"]
