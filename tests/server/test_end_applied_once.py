"""A run ends once: its cpus are freed once, and the mom's events after the server ended it
are stale (release set b08c, b22, b22e replayed by an ordinary user).

The replay's user manages its cluster, so its ``qdel -W force 14.vm`` (c04) ends the run on
the server at once; the mom's own end of that run came later and was applied again, freeing
14.vm's cpu a second time.  The node then showed one cpu assigned fewer than its jobs held,
16.vm and 17.vm ran together and 17.vm got ``exec_host = vm/2`` on the 2-cpu node, where PBS
ran it on vm/0 once 16.vm had ended.  PBS: set_resc_assigned releases a job's resources only
while JOB_SVFLG_RescAssn says they are assigned, deallocate_job_from_node frees only the jobs
a vnode still holds, and job_obit drops an obit for a job neither running nor exiting.
"""
import json
from pathlib import Path
from typing import Any, Dict

from fake_pbs import paths
from fake_pbs.model import states as st
from fake_pbs.server import lifecycle, vnodeslots
from fake_pbs.server.app import ServerApp


def _node() -> Dict[str, Dict[str, Any]]:
    return {"vm": {"resources_available.ncpus": "2", "resources_assigned.ncpus": "0",
                   "state": "free"}}


def test_a_second_release_of_the_same_run_frees_nothing() -> None:
    """b08c/b22e: with 15.vm on vm/1, 14.vm released twice leaves one cpu assigned, so the
    next two jobs get vm/0 and then no free slot (the scheduler keeps the second queued)."""
    table = _node()
    assert vnodeslots.assign(table, "14.vm", "(vm:ncpus=1)") == "vm/0"
    assert vnodeslots.assign(table, "15.vm", "(vm:ncpus=1)") == "vm/1"
    vnodeslots.release(table, "14.vm", "(vm:ncpus=1)")
    vnodeslots.release(table, "14.vm", "(vm:ncpus=1)")
    assert (table["vm"]["resources_assigned.ncpus"], table["vm"]["jobs"]) == ("1", "15.vm/1")
    assert vnodeslots.assign(table, "16.vm", "(vm:ncpus=1)") == "vm/0"
    assert table["vm"]["resources_assigned.ncpus"] == "2"
    assert table["vm"]["state"] == "job-busy"


def test_a_suspended_job_that_ends_gives_back_nothing_more() -> None:
    """k03: a suspended job's cpus are free already; its end frees no other job's."""
    table = _node()
    vnodeslots.assign(table, "1.vm", "(vm:ncpus=1)")
    vnodeslots.assign(table, "2.vm", "(vm:ncpus=1)")
    vnodeslots.release(table, "1.vm", "(vm:ncpus=1)")  # suspended
    vnodeslots.release(table, "1.vm", "(vm:ncpus=1)")  # then deleted: its end
    assert table["vm"]["resources_assigned.ncpus"] == "1"
    assert vnodeslots.assign(table, "1.vm", "(vm:ncpus=1)") == "vm/0"  # a resume charges again
    assert table["vm"]["resources_assigned.ncpus"] == "2"


def test_two_chunks_on_one_node_are_charged_and_freed_together() -> None:
    table = _node()
    assert vnodeslots.assign(table, "1.vm", "(vm:ncpus=1)+(vm:ncpus=1)") == "vm/0+vm/1"
    assert table["vm"]["resources_assigned.ncpus"] == "2"
    vnodeslots.release(table, "1.vm", "(vm:ncpus=1)+(vm:ncpus=1)")
    vnodeslots.release(table, "1.vm", "(vm:ncpus=1)+(vm:ncpus=1)")
    assert table["vm"]["resources_assigned.ncpus"] == "0" and "jobs" not in table["vm"]


def _app(tmp_path: Path) -> ServerApp:
    config: Dict[str, Any] = {"server_name": "vm", "hosts": [{"name": "vm", "ncpus": 2}]}
    (tmp_path / "server_priv").mkdir()
    paths.config_file(tmp_path).write_text(json.dumps(config))
    app = ServerApp(tmp_path)
    app.bootstrap()
    return app


def _running(app: ServerApp, jobid: str) -> Dict[str, Any]:
    job: Dict[str, Any] = {"_id": jobid, "job_state": "Q", "substate": "10", "queue": "workq",
                           "Resource_List.ncpus": "1", "comment": ""}
    app.state.jobs[jobid] = job
    lifecycle.begin_run(app, job, "(vm:ncpus=1)", "", None, "Scheduler@vm")
    return job


def test_the_moms_end_of_a_force_deleted_run_is_stale(tmp_path: Path) -> None:
    """c04 as the cluster's manager, then b08c/b22e: 14.vm ends on the server at the request
    (history, its cpu freed); the mom's finish and final release of that run change nothing,
    neither the job nor the node (one E record, 15.vm's cpu still assigned)."""
    app = _app(tmp_path)
    forced = _running(app, "14.vm")
    kept = _running(app, "15.vm")
    assert (forced["exec_host"], kept["exec_host"]) == ("vm/0", "vm/1")
    forced["_deleted_by"] = "psijci@vm"
    forced["_exit"] = 265
    lifecycle.end_forced(app, forced)
    assert (forced["job_state"], forced["substate"], forced["Exit_status"]) == (
        st.FINISHED, str(st.SUB_TERMINATED), "265")
    node = app.state.nodes["vm"]
    assert (node["resources_assigned.ncpus"], node["jobs"]) == ("1", "15.vm/1")
    before = dict(forced)
    for event in ({"ev": "finish", "seq": 5, "status": 265, "resources_used": {}},
                  {"ev": "release", "seq": 6, "final": True, "stageout_status": 1}):
        assert lifecycle.apply_event(app, dict(event, job="14.vm", run_count=1)) is True
    assert forced == before
    assert (node["resources_assigned.ncpus"], node["jobs"]) == ("1", "15.vm/1")
    assert vnodeslots.assign(app.state.nodes, "16.vm", "(vm:ncpus=1)") == "vm/0"
