"""How the server applies a mom hook's requests (the ``update`` exec event): reference §6.2
(node_manager.c: ``hook request rerun|delete <jobid>``, Exit_status -18/-19) and §3.1
(req_jobobit.c: the hook action wins at the obit unless the mom reported -16/-17)."""
from typing import Any, Dict, List, Tuple

from fake_pbs.server import hookpoints


class _Log:
    def __init__(self) -> None:
        self.lines: List[Tuple[int, str, str, str]] = []

    def write(self, event: int, cls: str, obj: str, message: str) -> None:
        self.lines.append((event, cls, obj, message))


class _State:
    def __init__(self) -> None:
        self.saved: List[str] = []

    def save_job(self, jobid: str) -> None:
        self.saved.append(jobid)


class _Server:
    host = "vm"

    def __init__(self) -> None:
        self.log = _Log()
        self.state = _State()


def _job() -> Dict[str, Any]:
    return {"_id": "3.vm", "exec_host": "node1/0+node2/0", "job_state": "R",
            "comment": "old"}


def test_delete_request_is_logged_and_wins_at_obit() -> None:
    """§6.2: job.delete() -> ``hook request delete 3.vm`` (0002, Node, the mom's host); at the
    obit the mom's -30 join error becomes -19 (the job is deleted, not requeued)."""
    server, job = _Server(), _job()
    hookpoints.mom_update(server, job, {"hook_event": "execjob_begin", "attrs": {},
                                        "rerun": False, "delete": True})
    assert server.log.lines == [(0x0002, "Node", "node1", "hook request delete 3.vm")]
    assert server.state.saved == ["3.vm"]
    assert hookpoints.obit_status(job, -30) == -19
    assert hookpoints.obit_status(job, -30) == -30, "the action is used once"


def test_rerun_then_delete_keeps_delete() -> None:
    """§6.3: delete takes precedence over rerun, whichever came first."""
    server, job = _Server(), _job()
    hookpoints.mom_update(server, job, {"delete": True})
    hookpoints.mom_update(server, job, {"rerun": True})
    assert hookpoints.obit_status(job, 0) == -19
    job = _job()
    hookpoints.mom_update(server, job, {"rerun": True})
    assert server.log.lines[-1][3] == "hook request rerun 3.vm"
    assert hookpoints.obit_status(job, 0) == -18


def test_mom_hook_rejection_beats_the_action() -> None:
    """§3.1: a mom-reported hook rejection (-16/-17) keeps its own code."""
    for mom_code in (-16, -17):
        job = _job()
        hookpoints.mom_update(_Server(), job, {"delete": True})
        assert hookpoints.obit_status(job, mom_code) == mom_code


def test_attribute_changes_apply_except_server_owned() -> None:
    """A mom hook's job attribute changes reach the job; the server's own ones do not."""
    server, job = _Server(), _job()
    hookpoints.mom_update(server, job, {"attrs": {"comment": "set by hook",
                                                  "Resource_List.walltime": "00:10:00",
                                                  "job_state": "F", "_uid": "0"}})
    assert job["comment"] == "set by hook"
    assert job["Resource_List.walltime"] == "00:10:00"
    assert job["job_state"] == "R" and "_uid" not in job
    assert server.log.lines == []
