"""``job_sort_formula``: the order the scheduler considers jobs in, and its threshold.

OpenPBS 23.06: job_info.cpp ``formula_evaluate`` (the job's numeric Resource_List amounts,
sizes in kb, times in seconds, a missing one 0, and the terms queue_priority, job_priority,
...; an evaluation error is 0), sort.cpp ``cmp_sort`` (within a queue, after preemption
priority, highest value first, then submission order), fifo.cpp (a value at or below the
scheduler's ``job_sort_formula_threshold`` does not run: JOB_UNDER_THRESHOLD);
server/sched_func.c ``validate_job_formula`` (15123, 15124, 15125, 15226) and decode_formula
(only who may write the server's home sets it).
"""
import pytest

from fake_pbs.model import formula
from fake_pbs.model.errors import PbsError
from fake_pbs.server import manager
from fake_pbs.server.sched.cycle import run_cycle
from tests.sched.sched_helpers import SITE_CONSUMABLES, job, node, queue

_NODES = {"n1": node(1)}


def _first(server: dict, sched: dict, jobs: list) -> str:  # type: ignore[type-arg]
    result = run_cycle(server, sched, {"workq": queue()}, _NODES, jobs, 5000.0,
                       consumables=SITE_CONSUMABLES)
    return [run.jobid for run in result.runs][0]


def test_the_highest_formula_value_runs_first() -> None:
    jobs = [job(1, ncpus="1", walltime="01:00:00"), job(2, ncpus="1", walltime="00:10:00")]
    server = {"scheduling": "True"}
    assert _first(server, {}, jobs) == "1.vm"  # no formula: submission order
    server["job_sort_formula"] = "-walltime"
    assert _first(server, {}, jobs) == "2.vm"  # the shorter job first
    jobs[0]["Priority"] = "100"
    assert _first({"scheduling": "True"}, {"job_sort_formula": "job_priority * 100 - walltime"},
                  jobs) == "1.vm"


def test_an_evaluation_error_counts_as_zero() -> None:
    jobs = [job(1, ncpus="1"), job(2, ncpus="1", walltime="00:00:10")]
    # job 1 has no walltime: 1/0 is an error, 0; job 2's value is 0.1
    assert _first({"scheduling": "True", "job_sort_formula": "1/walltime"}, {}, jobs) == "2.vm"


def test_jobs_under_the_threshold_do_not_run() -> None:
    jobs = [job(1, ncpus="1", walltime="00:00:10")]
    result = run_cycle({"scheduling": "True", "job_sort_formula": "walltime"},
                       {"job_sort_formula_threshold": "10"}, {"workq": queue()}, _NODES,
                       jobs, 5000.0, consumables=SITE_CONSUMABLES)
    assert result.runs == []
    assert result.comments["1.vm"] == \
        "Not Running: Job is under job_sort_formula threshold value"


@pytest.mark.parametrize("text, code", [("ncpus *", 15123), ("__import__('os')", 15123),
                                        ("ncpus.real", 15123), ("'a'", 15123),
                                        ("nosuch + 1", 15124), ("arch * 2", 15125)])
def test_a_formula_is_checked_when_set(text: str, code: int) -> None:
    managed = manager.Managed("vm")
    root = manager.Caller("root", "vm", True, privileged=True)
    with pytest.raises(PbsError) as err:
        manager.handle(managed, root, "manager", {
            "command": "set", "objtype": "server", "name": "",
            "attrs": [("job_sort_formula", "=", text)]})
    assert err.value.code == code
    assert "job_sort_formula" not in managed.server


def test_only_who_may_write_the_home_sets_it_and_sched_and_server_agree() -> None:
    managed = manager.Managed("vm")
    other = manager.Caller("admin", "vm", True)
    root = manager.Caller("root", "vm", True, privileged=True)
    request = {"command": "set", "objtype": "server", "name": "",
               "attrs": [("job_sort_formula", "=", "sqrt(ncpus) + mem / 1024")]}
    with pytest.raises(PbsError) as err:
        manager.handle(managed, other, "manager", request)
    assert err.value.code == 15007
    manager.handle(managed, root, "manager", request)
    with pytest.raises(PbsError) as err:
        manager.handle(managed, root, "manager", {
            "command": "set", "objtype": "sched", "name": "default",
            "attrs": [("job_sort_formula", "=", "ncpus")]})
    assert err.value.code == 15226
    # any manager may unset it (no file is read for that)
    manager.handle(managed, other, "manager", {"command": "unset", "objtype": "server",
                                               "name": "", "attrs": [("job_sort_formula",
                                                                      "", "")]})
    assert "job_sort_formula" not in managed.server


def test_job_values_read_the_request() -> None:
    values = formula.job_values({"Resource_List.mem": "2gb", "Resource_List.walltime": "1:00",
                                 "Resource_List.arch": "linux", "Priority": "7"}, 3.0,
                                {"mem": "size", "walltime": "time", "arch": "string"})
    assert (values["mem"], values["walltime"], values["job_priority"],
            values["queue_priority"]) == (2097152.0, 60.0, 7.0, 3.0)
    assert "arch" not in values
