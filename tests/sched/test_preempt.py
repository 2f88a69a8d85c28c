"""preempt_order/preempt_prio validation, methods by walltime remaining, and victim choice."""
from typing import List

import pytest

from fake_pbs.model.errors import PBSE_BADATVAL, PbsError
from fake_pbs.model.preempt import OrderStep, check_preempt_queue_prio, check_preempt_sort, \
    methods_for, parse_preempt_order, parse_preempt_prio, usable_methods
from .sched_helpers import cycle, job, node, queue, running

_EXPRESS = {"workq": queue(0), "express": queue(200)}


@pytest.mark.parametrize("text", ["SCR", "D", "RD", "SCRD", "SCRD 50 R", "SCR 50 D",
                                  "SCR 80 SC 50 S", "S 50 R", "SCR 50"])
def test_valid_orders(text: str) -> None:
    """Transcripts d08c/d08d/d08f/d08h (D, RD, "SCR 50 D", "SCRD 50 R") and PTL
    pbs_preempt_params ("SCR 80 SC 50 S") are accepted."""
    parse_preempt_order(text)


@pytest.mark.parametrize("text", ["X", "DD", "50 S", "scr", "abc", "123abc", "abc123",
                                  "SCR 80 PQR", "PQR", "SCR SC", "80 SC", "SCR 80 70", "",
                                  "SCR 5x S"])
def test_invalid_orders_are_15014(text: str) -> None:
    """Transcripts d08e (X), d08l (DD), d08m ("50 S"), d08n (scr) and the PTL list
    (reference §9.3): Illegal attribute or resource value, 15014."""
    with pytest.raises(PbsError) as info:
        parse_preempt_order(text)
    assert info.value.code == PBSE_BADATVAL
    assert info.value.text == "Illegal attribute or resource value"


def test_order_steps() -> None:
    assert parse_preempt_order("SCR 80 SC 50 S") == [
        OrderStep("SCR", 80), OrderStep("SC", 50), OrderStep("S", -1)]


def test_preempt_prio() -> None:
    """PTL pbs_preempt_params: valid list; 'nrmal_jobs' rejected with 15014."""
    assert parse_preempt_prio("express_queue, normal_jobs, express_queue+fairshare, fairshare") \
        == [["express_queue"], ["normal_jobs"], ["express_queue", "fairshare"], ["fairshare"]]
    with pytest.raises(PbsError):
        parse_preempt_prio("express_queue, nrmal_jobs")


def test_preempt_sort_and_queue_prio() -> None:
    """preempt_sort only accepts min_time_since_start; preempt_queue_prio is a number."""
    assert check_preempt_sort("min_time_since_start") == "min_time_since_start"
    with pytest.raises(PbsError):
        check_preempt_sort("max_time")
    assert check_preempt_queue_prio("150") == 150
    with pytest.raises(PbsError):
        check_preempt_queue_prio("high")


@pytest.mark.parametrize("order,used,expected", [
    ("SCR 80 SC 50 S", 0, "SCR"), ("SCR 80 SC 50 S", 30, "SC"), ("SCR 80 SC 50 S", 60, "S"),
    ("R 50 S", 10, "R"), ("R 50 S", 60, "S"), ("S 50 R", 60, "R"), ("SCRD", 99, "SCRD"),
])
def test_methods_by_percentage_of_walltime_left(order: str, used: int, expected: str) -> None:
    """Reference §7.1: the percentage is of requested time remaining (walltime 100 s here)."""
    victim = {"Resource_List.walltime": "00:01:40", "stime": "1000"}
    assert methods_for(victim, parse_preempt_order(order), 1000 + used) == expected


def test_methods_without_walltime_use_the_first_group() -> None:
    assert methods_for({"stime": "0"}, parse_preempt_order("R 50 S"), 10 ** 6) == "R"


@pytest.mark.parametrize("attrs,checkpoint,expected", [
    ({}, True, ["S", "C", "R", "D"]),
    ({"Checkpoint": "n"}, True, ["S", "R", "D"]),
    ({}, False, ["S", "R", "D"]),
    ({"Rerunable": "False"}, True, ["S", "C", "D"]),
])
def test_usable_methods(attrs: dict, checkpoint: bool,  # type: ignore[type-arg]
                        expected: List[str]) -> None:
    """Reference §7.2: S always, C if Checkpoint != n and a checkpoint action exists, R if
    Rerunable, D always (test_preempt_rerunable_false / test_preempt_checkpoint_false)."""
    assert usable_methods(attrs, "SCRD", checkpoint) == expected


def test_express_job_preempts_the_running_one() -> None:
    """PTL pbs_preemption / transcripts g08-g09: 1 cpu, low job running, express job (queue
    Priority 200 >= preempt_queue_prio 150) queued -> the low job is the victim with the
    default order SCR (checkpoint not configured -> S then R)."""
    jobs = [running(1, "(vm:ncpus=1)", "vm/0", stime=100, walltime="00:00:40"),
            job(2, queue_name="express")]
    result = cycle({"vm": node(1)}, jobs, queues=_EXPRESS, now=110)
    assert result.runs == []
    [wanted] = result.preempt
    assert wanted.victims == [("1.vm", ["S", "R"])]
    assert (wanted.run.jobid, wanted.run.exec_vnode, wanted.run.exec_host) == \
        ("2.vm", "(vm:ncpus=1)", "vm/0")


def test_delete_order() -> None:
    """test_preempt_delete: preempt_order D -> the victim is deleted."""
    jobs = [running(1, "(vm:ncpus=1)", "vm/0"), job(2, queue_name="express")]
    result = cycle({"vm": node(1)}, jobs, queues=_EXPRESS, sched={"preempt_order": "D"})
    assert result.preempt[0].victims == [("1.vm", ["D"])]


def test_rerunable_false_falls_to_delete() -> None:
    """test_preempt_rerunable_false: Rerunable=n with order RD -> only D applies."""
    victim = running(1, "(vm:ncpus=1)", "vm/0")
    victim["Rerunable"] = "False"
    result = cycle({"vm": node(1)}, [victim, job(2, queue_name="express")], queues=_EXPRESS,
                   sched={"preempt_order": "RD"})
    assert result.preempt[0].victims == [("1.vm", ["D"])]


def test_job_without_usable_method_is_not_a_victim() -> None:
    """Reference §7.2: -r n jobs are skipped under order R (no usable method)."""
    victim = running(1, "(vm:ncpus=1)", "vm/0")
    victim["Rerunable"] = "False"
    result = cycle({"vm": node(1)}, [victim, job(2, queue_name="express")], queues=_EXPRESS,
                   sched={"preempt_order": "R"})
    assert result.preempt == []
    assert result.comments == {"2.vm": "Not Running: Not enough free nodes available"}


def test_most_recently_started_first_and_only_as_many_as_needed() -> None:
    """preempt_sort min_time_since_start: newest victims first, no more than needed."""
    jobs = [running(1, "(vm:ncpus=1)", "vm/0", stime=100),
            running(2, "(vm:ncpus=1)", "vm/1", stime=300),
            running(3, "(vm:ncpus=1)", "vm/2", stime=200),
            job(4, queue_name="express", ncpus="2")]
    result = cycle({"vm": node(3)}, jobs, queues=_EXPRESS)
    assert [victim for victim, _ in result.preempt[0].victims] == ["2.vm", "3.vm"]
    assert result.preempt[0].run.exec_host == "vm/1*2"


def test_multi_chunk_job_takes_victims_on_several_hosts() -> None:
    """A scatter job needing two hosts preempts one job on each."""
    nodes = {"a": node(1), "b": node(1), "c": node(1)}
    jobs = [running(1, "(a:ncpus=1)", "a/0", stime=100), running(2, "(b:ncpus=1)", "b/0",
                                                                 stime=200),
            running(3, "(c:ncpus=1)", "c/0", stime=300),
            job(4, queue_name="express", select="2:ncpus=1", place="scatter")]
    result = cycle(nodes, jobs, queues=_EXPRESS)
    assert [victim for victim, _ in result.preempt[0].victims] == ["3.vm", "2.vm"]
    assert result.preempt[0].run.exec_vnode == "(b:ncpus=1)+(c:ncpus=1)"


def test_unneeded_victims_are_spared() -> None:
    """A victim on a node the job cannot use anyway (host=) is not preempted."""
    nodes = {"a": node(1), "b": node(1)}
    jobs = [running(1, "(a:ncpus=1)", "a/0", stime=100),
            running(2, "(b:ncpus=1)", "b/0", stime=300),
            job(3, queue_name="express", select="1:ncpus=1:host=a")]
    result = cycle(nodes, jobs, queues=_EXPRESS)
    assert result.preempt[0].victims == [("1.vm", ["S", "R"])]


def test_same_level_is_not_preempted() -> None:
    """Only lower preempt priority jobs are victims: normal jobs do not preempt normal jobs."""
    jobs = [running(1, "(vm:ncpus=1)", "vm/0"), job(2)]
    result = cycle({"vm": node(1)}, jobs)
    assert result.preempt == []


def test_pending_victims_are_not_chosen_again() -> None:
    """Victims already being preempted carry preempt_pending and are skipped."""
    victim = running(1, "(vm:ncpus=1)", "vm/0")
    victim["preempt_pending"] = "1"
    result = cycle({"vm": node(1)}, [victim, job(2, queue_name="express")], queues=_EXPRESS)
    assert result.preempt == []


def test_preempted_resources_are_kept_for_the_high_job() -> None:
    """Lower jobs queued after the express job cannot take what its victims free."""
    jobs = [running(1, "(vm:ncpus=1)", "vm/0"), job(2, queue_name="express"), job(3)]
    result = cycle({"vm": node(1)}, jobs, queues=_EXPRESS)
    assert result.runs == [] and len(result.preempt) == 1
    assert result.comments == {"3.vm": "Not Running: Not enough free nodes available"}


def test_preemption_off() -> None:
    """preemptive_sched false: no victims."""
    jobs = [running(1, "(vm:ncpus=1)", "vm/0"), job(2, queue_name="express")]
    result = cycle({"vm": node(1)}, jobs, queues=_EXPRESS, sched={"preemptive_sched": "False"})
    assert result.preempt == []


def test_a_higher_express_queue_preempts_a_lower_one() -> None:
    """job_info.cpp set_preempt_prio: an express level adds the queue's Priority, so a job of
    an express queue of Priority 200 preempts one of an express queue of Priority 160 (both
    over preempt_queue_prio 150), and not the other way round."""
    queues = {"workq": queue(0), "high": queue(200), "low": queue(160)}
    victim = running(1, "(vm:ncpus=1)", "vm/0")
    victim["queue"] = "low"
    result = cycle({"vm": node(1)}, [victim, job(2, queue_name="high")], queues=queues)
    assert [plan.victims for plan in result.preempt] == [[("1.vm", ["S", "R"])]]
    victim["queue"] = "high"
    result = cycle({"vm": node(1)}, [victim, job(2, queue_name="low")], queues=queues)
    assert result.preempt == []


def test_a_user_over_a_queue_soft_limit_is_preempted_by_normal_jobs() -> None:
    """limits.cpp check_soft_limits and job_info.cpp set_preempt_prio: with preempt_prio
    "express_queue, normal_jobs, queue_softlimits", the running jobs of a user past the
    queue's max_run_soft ([u:PBS_GENERIC=1]) rank below normal jobs, so another user's queued
    job preempts one of them (the newest); within the soft limit, nobody is preempted."""
    workq = queue(0)
    workq["max_run_soft"] = "[u:PBS_GENERIC=1]"
    queues = {"workq": workq}
    sched = {"preempt_prio": "express_queue, normal_jobs, queue_softlimits"}
    first = running(1, "(vm:ncpus=1)", "vm/0", stime=100)
    second = running(2, "(vm:ncpus=1)", "vm/1", stime=200)
    for held in (first, second):
        held["euser"] = "alice"
    other = job(3)
    other["euser"] = "bob"
    result = cycle({"vm": node(2)}, [first, second, other], queues=queues, sched=sched)
    assert [plan.victims for plan in result.preempt] == [[("2.vm", ["S", "R"])]]
    result = cycle({"vm": node(1)}, [first, other], queues=queues, sched=sched)
    assert result.preempt == []  # alice has one job: not over the limit
    # the default preempt_prio does not rank by soft limits
    result = cycle({"vm": node(2)}, [first, second, other], queues=queues)
    assert result.preempt == []
