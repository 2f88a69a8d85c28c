"""Invariants over random job mixes (hypothesis, bounded)."""
from typing import Dict, List, Tuple

from hypothesis import given, settings
from hypothesis import strategies as st

from fake_pbs.model.nodes import parse_exec_host, parse_exec_vnode
from .sched_helpers import cycle, job, node

_SELECTS = st.sampled_from([
    "1:ncpus=1", "1:ncpus=2", "2:ncpus=1", "1:ncpus=3:mem=1gb", "3:ncpus=1:mem=512mb",
    "1:ncpus=1:ngpus=1", "2:ncpus=2", "1:ncpus=4", "1:ncpus=0",
])
_PLACES = st.sampled_from(["free", "pack", "scatter", "vscatter", "excl", "scatter:excl"])


@settings(max_examples=60, deadline=None)
@given(cpus=st.lists(st.integers(0, 4), min_size=1, max_size=4),
       requests=st.lists(st.tuples(_SELECTS, _PLACES), max_size=12))
def test_assigned_never_exceeds_available(cpus: List[int],
                                          requests: List[Tuple[str, str]]) -> None:
    """PBS never oversubscribes a vnode: over every placement of a cycle, ncpus, mem and ngpus
    assigned stay within resources_available, and cpu slot indices are never shared."""
    nodes = {"n%d" % index: node(count, mem="2gb", ngpus=1) for index, count in enumerate(cpus)}
    jobs = [job(seq, select=select, place=place) for seq, (select, place) in enumerate(requests)]
    result = cycle(nodes, jobs)
    used: Dict[str, Dict[str, int]] = {name: {"ncpus": 0, "mem": 0, "ngpus": 0} for name in nodes}
    slots: Dict[str, List[int]] = {name: [] for name in nodes}
    for run in result.runs:
        hosts = parse_exec_host(run.exec_host)
        for chunk, chunk_slots in zip(parse_exec_vnode(run.exec_vnode), hosts):
            name = chunk["vnode"]
            used[name]["ncpus"] += int(chunk.get("ncpus", "0"))
            used[name]["ngpus"] += int(chunk.get("ngpus", "0"))
            used[name]["mem"] += int(chunk.get("mem", "0kb")[:-2])
            slots[name].extend(chunk_slots if int(chunk.get("ncpus", "0")) else [])
    for name, count in zip(nodes, cpus):
        assert used[name]["ncpus"] <= count
        assert used[name]["ngpus"] <= 1
        assert used[name]["mem"] <= 2 * 1024 * 1024
        assert len(slots[name]) == len(set(slots[name]))
        assert all(0 <= slot < count for slot in slots[name])
    ran = {run.jobid for run in result.runs}
    assert ran.isdisjoint(result.comments)
    assert ran | set(result.comments) == {entry["id"] for entry in jobs}
