"""Pure pieces of the server: job ids, vnode bookkeeping, attribute order, state counters."""
from fake_pbs.model import attrs, states
from fake_pbs.server import jobids, vnodeslots


def test_job_ids_normalize_like_pbs() -> None:
    """PBS accepts ``12``, ``12.vm``, ``12.vm.domain`` for the same job (internals §3)."""
    assert jobids.normalize("12", "vm") == "12.vm"
    assert jobids.normalize("12.vm.example.com", "vm") == "12.vm"
    assert jobids.normalize("339[]", "vm") == "339[].vm"
    assert jobids.normalize("339[2].vm", "vm") == "339[2].vm"
    assert jobids.normalize("abc", "vm") is None
    assert jobids.parent_of("339[2].vm") == "339[].vm"


def test_exec_host_and_jobs_follow_cpu_slots() -> None:
    """e01: ``jobs = 15.vm/1``; i02: a 2-cpu chunk is ``vm/0*2``; b02: second job ``vm/1``."""
    table = {"vm": {"resources_available.ncpus": "2", "resources_assigned.ncpus": "0",
                    "state": "free"}}
    assert vnodeslots.assign(table, "1.vm", "(vm:ncpus=1)") == "vm/0"
    assert vnodeslots.assign(table, "2.vm", "(vm:ncpus=1)") == "vm/1"
    assert table["vm"]["jobs"] == "1.vm/0, 2.vm/1"
    assert table["vm"]["state"] == "job-busy"
    vnodeslots.release(table, "1.vm", "(vm:ncpus=1)")
    assert table["vm"]["jobs"] == "2.vm/1"
    assert table["vm"]["state"] == "free"
    assert table["vm"]["resources_assigned.ncpus"] == "1"
    vnodeslots.release(table, "2.vm", "(vm:ncpus=1)")
    assert vnodeslots.assign(table, "3.vm", "(vm:ncpus=2)") == "vm/0*2"


def test_job_attribute_order_matches_qstat_f() -> None:
    """b02: Job_Name, Job_Owner, resources_used.*, job_state ... Resource_List.* sorted."""
    job = {"substate": "42", "Resource_List.select": "1:ncpus=1", "Job_Name": "x",
           "resources_used.walltime": "00:00:00", "Resource_List.ncpus": "1",
           "job_state": "R", "_script": "secret", "Submit_Host": "vm", "schedselect": "1"}
    names = [n for n, _ in attrs.job_pairs(job, manager=False)]
    assert names == ["Job_Name", "resources_used.walltime", "job_state",
                     "Resource_List.ncpus", "Resource_List.select", "substate", "Submit_Host"]
    assert "schedselect" in [n for n, _ in attrs.job_pairs(job, manager=True)]


def test_state_count_text() -> None:
    """b13b: ``Transit:0 Queued:0 Held:6 Waiting:0 Running:1 Exiting:0 Begun:0 ``."""
    text = states.state_count({"H": 6, "R": 1})
    assert text == "Transit:0 Queued:0 Held:6 Waiting:0 Running:1 Exiting:0 Begun:0 "
