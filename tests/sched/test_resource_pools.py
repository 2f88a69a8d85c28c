"""The server's and a queue's ``resources_available`` as pools a job draws from.

OpenPBS 23.06 scheduler check.cpp ``is_ok_to_run``: INSUFFICIENT_QUEUE_RESOURCE, then
INSUFFICIENT_SERVER_RESOURCE (not for a reservation's job), "Can Never Run" when the request
exceeds the pool's total; the running jobs' amounts of the resources the server totals count
as assigned, and each job started in the cycle adds its own (update_server_on_run).
"""
from fake_pbs.model.pools import Pools
from fake_pbs.server.sched.cycle import run_cycle
from tests.sched.sched_helpers import SITE_CONSUMABLES, job, node, queue, running

_NODES = {"n1": node(16, mem="64gb")}
_SITE = SITE_CONSUMABLES + ("lic",)


def test_a_server_license_pool_limits_the_running_jobs() -> None:
    server = {"scheduling": "True", "resources_available.lic": "3"}
    held = running(1, "(n1:ncpus=1)", "n1/0", ncpus="1", lic="2")
    jobs = [held, job(2, ncpus="1", lic="1"), job(3, ncpus="1", lic="1"),
            job(4, ncpus="1", lic="5")]
    result = run_cycle(server, {}, {"workq": queue()}, _NODES, jobs, 5000.0,
                       consumables=_SITE, totalled=("ncpus", "mem", "lic"))
    assert [run.jobid for run in result.runs] == ["2.vm"]
    assert result.comments["3.vm"] == (
        "Not Running: Insufficient amount of server resource: lic (R: 1 A: 0 T: 3)")
    assert result.comments["4.vm"] == (
        "Can Never Run: Insufficient amount of server resource: lic (R: 5 A: 3 T: 3)")


def test_a_resource_the_server_does_not_total_limits_one_cycle_only() -> None:
    """Without flag q the server keeps no resources_assigned for it: a running job's amount
    is not counted, only what the cycle itself starts."""
    server = {"scheduling": "True", "resources_available.lic": "1"}
    jobs = [running(1, "(n1:ncpus=1)", "n1/0", ncpus="1", lic="1"),
            job(2, ncpus="1", lic="1"), job(3, ncpus="1", lic="1")]
    result = run_cycle(server, {}, {"workq": queue()}, _NODES, jobs, 5000.0,
                       consumables=_SITE, totalled=("ncpus", "mem"))
    assert [run.jobid for run in result.runs] == ["2.vm"]
    assert "server resource: lic" in result.comments["3.vm"]


def test_a_queue_pool_comes_first_and_sizes_print_as_pbs_prints_them() -> None:
    workq = queue()
    workq["resources_available.mem"] = "4gb"
    queues = {"workq": workq, "big": queue()}
    jobs = [job(1, mem="3gb"), job(2, mem="2gb"), job(3, queue_name="big", mem="8gb")]
    result = run_cycle({"scheduling": "True"}, {}, queues, _NODES, jobs, 5000.0,
                       consumables=_SITE)
    assert sorted(run.jobid for run in result.runs) == ["1.vm", "3.vm"]
    assert result.comments["2.vm"] == (
        "Not Running: Insufficient amount of queue resource: mem (R: 2gb A: 1gb T: 4gb)")


def test_no_pool_no_limit() -> None:
    pools = Pools({}, {"workq": queue()}, [], _SITE, ("ncpus",))
    assert not pools.active and pools.short(job(1, ncpus="99"), False) is None
