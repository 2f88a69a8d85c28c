"""``-W sandbox=PRIVATE``: the job's ``jobdir`` is the mom's sandbox directory.

Extra i07c_sandbox_output: ``qstat -f -x`` of the finished job shows ``jobdir =
/home/pbsuser/pbs.418.vm.x8z`` (start_exec.c marks jobdir modified for the mom's first update),
not the owner's home that a job without a sandbox shows.
"""
from types import SimpleNamespace
from typing import Any

from fake_pbs import pace
from fake_pbs.server import lifecycle


def _app() -> Any:
    return SimpleNamespace(pace=pace.PROFILES[pace.FAST], now=lambda: 100, execs=None,
                           state=SimpleNamespace(save_job=lambda jobid: None))


def test_start_event_sets_the_sandbox_jobdir() -> None:
    job = {"_id": "418.vm", "run_count": "1", "job_state": "R", "substate": "41",
           "jobdir": "/home/pbsuser"}
    lifecycle._on_start(_app(), job, {"session_id": 7, "jobdir": "/home/pbsuser/pbs.418.vm.x8z"})
    assert job["jobdir"] == "/home/pbsuser/pbs.418.vm.x8z"


def test_without_a_sandbox_jobdir_stays_the_home() -> None:
    job = {"_id": "419.vm", "run_count": "1", "job_state": "R", "substate": "41",
           "jobdir": "/home/pbsuser"}
    lifecycle._on_start(_app(), job, {"session_id": 8})
    assert job["jobdir"] == "/home/pbsuser"
