"""``preempt_targets``: a high-priority job preempts only the running jobs it names.

OpenPBS 23.06: job_info.cpp ``find_and_preempt_jobs`` (``none``: no preemption; targets:
``preempt_job_set_filter``, a job's queue or a resource's requested value) while the
scheduler's ``preempt_targets_enable`` is true (its default, fifo.cpp); server/resc_attr.c
``preempt_targets_action`` checks the request (15014, 15018, 15035).
"""
import pytest

from fake_pbs.model import preempt_targets
from fake_pbs.model.errors import PbsError
from .sched_helpers import cycle, job, node, queue, running

_QUEUES = {"workq": queue(0), "scratch": queue(0), "express": queue(200)}
_NODES = {"vm": node(2)}


def _victims(targets: str, enable: str = "True") -> list:  # type: ignore[type-arg]
    older = running(1, "(vm:ncpus=1)", "vm/0", stime=100)
    newer = running(2, "(vm:ncpus=1)", "vm/1", stime=200, software="abaqus")
    newer["queue"] = "scratch"
    urgent = job(3, queue_name="express")
    if targets:
        urgent["Resource_List.preempt_targets"] = targets
    result = cycle(_NODES, [older, newer, urgent], queues=_QUEUES,
                   sched={"preempt_targets_enable": enable})
    return [victim for plan in result.preempt for victim, _ in plan.victims]


def test_targets_limit_the_victims() -> None:
    assert _victims("") == ["2.vm"]  # no targets: the newest job goes
    assert _victims("queue=workq") == ["1.vm"]
    assert _victims("Resource_List.software=abaqus") == ["2.vm"]
    assert _victims("queue=workq,Resource_List.software=abaqus") == ["2.vm"]
    assert _victims("Resource_List.software=nastran") == []
    assert _victims("none") == []
    assert _victims("none", enable="False") == ["2.vm"]  # targets ignored when disabled


@pytest.mark.parametrize("value, code", [
    ("queue=nosuch", 15018), ("Resource_List.nosuch=1", 15035), ("queue.workq", 15014),
    ("Resource_List.ncpus", 15014), ("node=vm", 15014), ("none,queue=workq", 15014)])
def test_the_server_checks_the_request(value: str, code: int) -> None:
    with pytest.raises(PbsError) as err:
        preempt_targets.check(value, lambda q: q == "workq", lambda r: r == "ncpus")
    assert err.value.code == code
    preempt_targets.check("queue=workq,Resource_List.ncpus=2", lambda q: q == "workq",
                          lambda r: r == "ncpus")
    preempt_targets.check("NONE", lambda q: False, lambda r: False)


def test_a_job_that_may_not_preempt_does_not_stop_the_next_one() -> None:
    """Jobs with the same request fail the same way within a cycle, but not when one names
    preempt_targets=none: the next may still preempt."""
    victim = running(1, "(vm:ncpus=2)", "vm/0*2", ncpus="2")
    shy, bold = job(2, queue_name="express"), job(3, queue_name="express")
    shy["Resource_List.preempt_targets"] = "none"
    result = cycle(_NODES, [victim, shy, bold], queues=_QUEUES)
    assert [plan.run.jobid for plan in result.preempt] == ["3.vm"]
