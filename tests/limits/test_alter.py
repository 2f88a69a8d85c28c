"""qalter by a user: the altered Resource_List within the queue's and server's limits
(src/server/req_modify.c req_modifyjob: chk_resc_limits, then check_entity_resc_limit_max /
_queued with the altered list in place of the job's own).  Managers and operators skip them."""
from types import SimpleNamespace
from typing import Any, Dict, List

import pytest

from fake_pbs.model.errors import PBSE_ENTLIMRESC, PBSE_EXCQRESC, PbsError
from fake_pbs.server import enqueue
from fake_pbs.testing import FakeCluster


def app(queue: Dict[str, str], jobs: List[Dict[str, Any]]) -> Any:
    state = SimpleNamespace(queues={"workq": queue}, server={}, objects={},
                            live_jobs=lambda: jobs)
    return SimpleNamespace(state=state)


def job(jobid: str, ncpus: str) -> Dict[str, Any]:
    return {"_id": jobid, "queue": "workq", "_user": "u", "_group": "g", "job_state": "Q",
            "Resource_List.ncpus": ncpus}


@pytest.mark.parametrize("ncpus,ok", [("2", True), ("4", True), ("5", False)])
def test_altered_request_against_resources_max(ncpus: str, ok: bool) -> None:
    target = job("1.vm", ncpus)
    check = app({"resources_max.ncpus": "4"}, [job("1.vm", "1")])
    if ok:
        enqueue.check_altered(check, target)
    else:
        with pytest.raises(PbsError) as err:
            enqueue.check_altered(check, target)
        assert err.value.code == PBSE_EXCQRESC


@pytest.mark.parametrize("ncpus,ok", [("2", True), ("3", False)])
def test_altered_request_replaces_the_old_in_usage(ncpus: str, ok: bool) -> None:
    """The job's old request is not counted twice: 2 + 2 fits [o:PBS_ALL=4], 2 + 3 not."""
    target = job("1.vm", ncpus)
    check = app({"max_queued_res.ncpus": "[o:PBS_ALL=4]"}, [job("1.vm", "1"), job("2.vm", "2")])
    if ok:
        enqueue.check_altered(check, target)
    else:
        with pytest.raises(PbsError) as err:
            enqueue.check_altered(check, target)
        assert (err.value.code, err.value.text) == (
            PBSE_ENTLIMRESC, "would exceed limit on resource ncpus in queue workq")


def test_qalter_reapplies_defaults(pbs: FakeCluster) -> None:
    """set_resc_deflt after a modify: a new select gets default_chunk and its sums."""
    pbs.qmgr("set queue workq default_chunk.mem = 1gb")
    jobid = pbs.qsub("true", "-h")
    pbs.sh("qalter", "-l", "select=2:ncpus=1", jobid)
    shown = pbs.job(jobid)
    assert (shown["Resource_List.select"], shown["schedselect"], shown["Resource_List.mem"],
            shown["Resource_List.ncpus"]) == ("2:ncpus=1", "2:ncpus=1:mem=1gb", "2gb", "2")


def test_queue_max_array_size_for_a_user_move() -> None:
    """svr_chkque step 2a for a move that is not a manager's: PBSE_MaxArraySize (15107)."""
    from fake_pbs.model.errors import PBSE_MaxArraySize
    queue = {"enabled": "True", "max_array_size": "3"}
    state = SimpleNamespace(queues={"workq": queue}, server={}, objects={},
                            live_jobs=lambda: [])
    check = SimpleNamespace(state=state, host="vm")
    array = dict(job("1[].vm", "1"), array="True", _sj_queued="1-4")
    with pytest.raises(PbsError) as err:
        enqueue.check(check, array, "workq", new_job=False)
    assert err.value.code == PBSE_MaxArraySize


def test_qalter_select_keeps_the_defaulted_place(pbs: FakeCluster) -> None:
    """Extra case k05j: after ``qalter -l select=1:ncpus=2`` the place set by default at
    submission stays (req_modifyjob frees only a defaulted select before set_resc_deflt)."""
    jobid = pbs.qsub("true", "-h", "-l", "walltime=00:20:00")
    pbs.sh("qalter", "-l", "select=1:ncpus=2", jobid)
    shown = pbs.job(jobid)
    assert {k: v for k, v in shown.items() if k.startswith("Resource_List.")} == {
        "Resource_List.ncpus": "2", "Resource_List.nodect": "1",
        "Resource_List.place": "pack", "Resource_List.select": "1:ncpus=2",
        "Resource_List.walltime": "00:20:00"}
