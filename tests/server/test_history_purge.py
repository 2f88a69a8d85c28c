"""job_history_duration purge (PBS forgets history jobs older than it), from the job index's
expiry-ordered history instead of a walk over every job."""
from typing import Any, Dict, List

from fake_pbs.server.jobindex import JobIndex
from fake_pbs.server.sched.loop import Scheduler


class _State:
    def __init__(self) -> None:
        self.server: Dict[str, str] = {"job_history_duration": "00:01:40"}  # 100 s
        self.jobs: Dict[str, Dict[str, str]] = {}
        self.saved: List[str] = []
        self.index = JobIndex()  # jobs are added without a save: it rebuilds from the table

    def save_job(self, jobid: str) -> None:
        self.saved.append(jobid)
        self.index.saved(jobid, self.jobs.get(jobid))


class _App:
    def __init__(self) -> None:
        self.state = _State()


def _finished(state: _State, jobid: str, stamp: int) -> None:
    state.jobs[jobid] = {"_id": jobid, "job_state": "F", "history_timestamp": str(stamp)}


def _scheduler() -> Any:
    sched: Any = Scheduler.__new__(Scheduler)
    sched.app = _App()
    return sched


def test_jobs_expire_exactly_when_their_duration_has_passed() -> None:
    """A history job goes once now - history_timestamp > job_history_duration, not before."""
    sched = _scheduler()
    state = sched.app.state
    _finished(state, "1.s", 1000)
    sched._purge_history(1050)
    _finished(state, "2.s", 1060)  # finishes after the scan that found only job 1
    sched._purge_history(1100)
    assert set(state.jobs) == {"1.s", "2.s"}
    sched._purge_history(1101)
    assert set(state.jobs) == {"2.s"} and state.saved == ["1.s"]
    sched._purge_history(1160)
    assert set(state.jobs) == {"2.s"}
    sched._purge_history(1161)
    assert not state.jobs


def test_a_shorter_duration_applies_at_once() -> None:
    """qmgr -c 'set server job_history_duration' takes effect on the next housekeeping pass."""
    sched = _scheduler()
    state = sched.app.state
    _finished(state, "1.s", 1000)
    sched._purge_history(1010)
    assert "1.s" in state.jobs
    state.server["job_history_duration"] = "5"
    sched._purge_history(1011)
    assert not state.jobs


def test_expiry_follows_timestamps_not_table_order() -> None:
    """Jobs finish out of submission order: each goes when its own duration has passed."""
    sched = _scheduler()
    state = sched.app.state
    for jobid, stamp in (("1.s", 1050), ("2.s", 1000), ("3.s", 1020)):
        _finished(state, jobid, stamp)
        state.save_job(jobid)
    sched._purge_history(1101)
    assert set(state.jobs) == {"1.s", "3.s"}
    sched._purge_history(1121)
    assert set(state.jobs) == {"1.s"}
    state.jobs["1.s"]["history_timestamp"] = "1200"  # changed since filed: filed again
    sched._purge_history(1151)
    assert set(state.jobs) == {"1.s"}
    sched._purge_history(1301)
    assert not state.jobs
