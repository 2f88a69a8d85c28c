"""``resources_assigned`` of queues and the server (extra set k08p, k08q, k10, k10c).

PBS totals the server-assigned members of running jobs' Resource_List, gives a suspended job's
back, and keeps an attribute it once set at 0 (k08p: ``mpiprocs=0`` long after i02's job).
"""
from typing import Any, Dict, List

from fake_pbs.model import states as st
from fake_pbs.server import assigned

Job = Dict[str, Any]


def _job(state: str, **resources: str) -> Job:
    job: Job = {"job_state": state, "Resource_List.ncpus": "1", "Resource_List.nodect": "1",
                "Resource_List.place": "pack", "Resource_List.select": "1:ncpus=1"}
    job.update({"Resource_List." + k: v for k, v in resources.items()})
    return job


def test_suspended_jobs_give_their_resources_back() -> None:
    """k08p: workq runs 389 and 390 and holds 393 suspended: ncpus=2 nodect=2, mpiprocs 0."""
    queue: Dict[str, str] = {}
    assert assigned.remember(queue, assigned.job_names(_job(st.RUNNING, mpiprocs="2")))
    jobs: List[Job] = [_job(st.RUNNING), _job(st.RUNNING), _job(st.SUSPENDED),
                       _job(st.QUEUED), _job(st.HELD)]
    assert assigned.totals(queue, jobs) == {
        "resources_assigned.mpiprocs": "0", "resources_assigned.ncpus": "2",
        "resources_assigned.nodect": "2"}


def test_a_queue_that_never_ran_a_job_has_none() -> None:
    """k10c: q2 holds a queued and a held job and shows no resources_assigned."""
    assert assigned.totals({}, [_job(st.QUEUED), _job(st.HELD)]) == {}


def test_sizes_are_totalled_in_kb_and_kept_at_zero() -> None:
    """A mem job's total in kb; once it is over, mem stays at 0kb (set once, never unset)."""
    server: Dict[str, str] = {}
    job = _job(st.RUNNING, mem="1gb")
    assigned.remember(server, assigned.job_names(job))
    assert assigned.totals(server, [job])["resources_assigned.mem"] == "1048576kb"
    job["job_state"] = st.FINISHED
    assert assigned.totals(server, [job]) == {
        "resources_assigned.mem": "0kb", "resources_assigned.ncpus": "0",
        "resources_assigned.nodect": "0"}
    assert not assigned.remember(server, ["ncpus"])


def test_only_server_assigned_resources_and_no_array_parent() -> None:
    """place/select/walltime are not totalled; an array parent holds nothing itself."""
    parent = dict(_job(st.BEGUN), array="True")
    assert assigned.job_names(_job(st.RUNNING, walltime="00:10:00")) == ["ncpus", "nodect"]
    assert assigned.totals({"_assigned": "ncpus"}, [parent]) == {"resources_assigned.ncpus": "0"}
