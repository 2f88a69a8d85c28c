"""Accounting record bodies and an array's end, as PBS writes them (extra set k14, k12).

The records are compared with the capture's lines (times and usage as in the capture), so each
test fails when a field moves, appears or goes missing.
"""
from typing import Any, Dict, List

from fake_pbs.model import states as st
from fake_pbs.server import accounting, lifecycle

Job = Dict[str, Any]

_BASE: Job = {
    "_user": "pbsuser", "_group": "pbsuser", "Job_Name": "arr", "queue": "workq",
    "ctime": "1795294720", "qtime": "1795294720", "etime": "1795294720",
    "Resource_List.ncpus": "1", "Resource_List.nodect": "1", "Resource_List.place": "pack",
    "Resource_List.select": "1:ncpus=1",
}
_RESOURCES = ("Resource_List.ncpus=1 Resource_List.nodect=1 Resource_List.place=pack "
              "Resource_List.select=1:ncpus=1 ")
_HEAD = ("user=pbsuser group=pbsuser project=_pbs_project_default jobname=arr queue=workq "
         "ctime=1795294720 qtime=1795294720 etime=1795294720 ")


def test_array_parent_q_and_s_records_carry_array_indices() -> None:
    """k14d: the parent's Q and S (at its first subjob's start) name array_indices, no host."""
    parent = dict(_BASE, array="True", array_indices_submitted="1-3", job_state=st.QUEUED)
    assert accounting.job_fields(parent, "Q") == _HEAD + "array_indices=1-3 " + _RESOURCES
    parent.update(job_state=st.BEGUN, stime="1795294720")
    assert accounting.job_fields(parent, "S") == (
        _HEAD + "start=1795294720 array_indices=1-3 " + _RESOURCES)


def test_array_parent_e_record_has_no_indices_and_no_usage() -> None:
    """k14d: the parent's E record (state F by then): session=0, Exit_status, run_count=0."""
    parent = dict(_BASE, array="True", array_indices_submitted="1-3", job_state=st.FINISHED,
                  stime="1795294720")
    assert accounting.end_fields(parent, 0, 1795294746, with_usage=False) == (
        _HEAD + "start=1795294720 " + _RESOURCES
        + "session=0 end=1795294746 Exit_status=0 run_count=0")


def test_q_record_names_dependencies_after_etime() -> None:
    """k14f: ``depend=afterok:342.vm@vm`` between etime and Resource_List (Q record only)."""
    job = dict(_BASE, Job_Name="dep_on_fail", etime="0", depend="afterok:342.vm@vm")
    assert accounting.job_fields(job, "Q") == (
        _HEAD.replace("arr", "dep_on_fail").replace("etime=1795294720", "etime=0")
        + "depend=afterok:342.vm@vm " + _RESOURCES)
    job["stime"] = "1795294770"
    assert "depend=" not in accounting.job_fields(job, "S")


def test_subjob_end_record_keeps_its_hosts_and_usage() -> None:
    """k14d: a subjob's E record: exec_host, exec_vnode, usage, run_count."""
    job = dict(_BASE, stime="1795294720", exec_host="vm/1", exec_vnode="(vm:ncpus=1)",
               _session_id="21598", run_count="1", job_state=st.EXITING,
               **{"resources_used.ncpus": "1", "resources_used.walltime": "00:00:12"})
    assert accounting.end_fields(job, 0, 1795294732) == (
        _HEAD + "start=1795294720 exec_host=vm/1 exec_vnode=(vm:ncpus=1) " + _RESOURCES
        + "session=21598 end=1795294732 Exit_status=0 resources_used.ncpus=1 "
        "resources_used.walltime=00:00:12 run_count=1")


def test_account_and_spaced_project_are_quoted() -> None:
    """accounting.c: account="..." always quoted, project quoted only when it has a space."""
    job = dict(_BASE, Account_Name="acct", project="my proj")
    assert accounting.job_fields(job, "Q").startswith(
        'user=pbsuser group=pbsuser account="acct" project="my proj" jobname=arr ')


def _child(index: int, substate: int, ran: bool, exit_status: str = "") -> Job:
    child: Job = {"array_index": str(index), "substate": str(substate), "job_state": st.EXPIRED}
    if ran:
        child["stime"] = "1"
    if exit_status:
        child["Exit_status"] = exit_status
    return child


def test_array_end_substate_follows_the_first_subjob_that_ran_and_did_not_finish() -> None:
    """k12n: subjob 1 deleted while running -> terminated; j04: one failed -> failed; subjobs
    deleted before they ran do not count (k12n's 3 and 4 show "Subjob finished")."""
    children: List[Job] = [_child(4, st.SUB_TERMINATED, False), _child(2, st.SUB_FAILED, True),
                           _child(1, st.SUB_TERMINATED, True)]
    assert lifecycle.array_end_substate({}, children) == st.SUB_TERMINATED
    assert lifecycle.array_end_substate({}, children[:2]) == st.SUB_FAILED
    assert lifecycle.array_end_substate({}, children[:1]) == st.SUB_FINISHED
    assert lifecycle.array_end_substate({"_deleted_by": ""}, []) == st.SUB_TERMINATED


def test_parent_exit_status_follows_the_last_subjob_that_ended() -> None:
    """update_sj_parent: 271 -> 1 (k12j, k12n), a later 0 -> 0 (j04), negative -> 2; a
    subjob that never ran changes nothing."""
    parent: Job = {}
    lifecycle.note_subjob_exit(parent, _child(1, st.SUB_TERMINATED, True, "271"))
    assert parent["_sub_exit"] == "1"
    lifecycle.note_subjob_exit(parent, _child(4, st.SUB_TERMINATED, False, "1"))
    assert parent["_sub_exit"] == "1"
    lifecycle.note_subjob_exit(parent, _child(5, st.SUB_FINISHED, True, "0"))
    assert parent["_sub_exit"] == "0"
    lifecycle.note_subjob_exit(parent, _child(6, st.SUB_FAILED, True, "-11"))
    assert parent["_sub_exit"] == "2"
