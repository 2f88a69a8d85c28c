"""Job sequence numbers (fake_pbs/server/state.py ``next_seq``): PBS hands out the next number,
wraps after ``max_job_sequence_id`` and skips numbers still held by a job (queued or in
history), across a server restart too (reference: server attribute max_job_sequence_id)."""
from pathlib import Path

from fake_pbs.server.state import ServerState
from fake_pbs.server.store import Store


def _state(path: Path, top: int) -> ServerState:
    state = ServerState(Store(path))
    state.load()
    state.server["max_job_sequence_id"] = str(top)
    return state


def _add(state: ServerState, seq: int) -> None:
    jobid = "%d.vm" % seq
    state.jobs[jobid] = {"_id": jobid, "_seq": seq, "job_state": "Q"}
    state.save_job(jobid)


def test_numbers_follow_wrap_and_skip_those_in_use(tmp_path: Path) -> None:
    """0, 1, 2, 3, then wrap to 0: numbers of jobs still known are skipped."""
    state = _state(tmp_path / "db.sqlite", 3)
    for expected in range(4):
        seq = state.next_seq()
        assert seq == expected
        if seq in (0, 2):
            _add(state, seq)
    assert state.next_seq() == 1   # 0 is held by a job
    assert state.next_seq() == 3   # 2 too
    assert state.next_seq() == 1   # wrapped again: 0 and 2 still held


def test_numbers_in_use_are_skipped_after_a_restart(tmp_path: Path) -> None:
    """A restarted server knows the numbers of the jobs it loaded, even ahead of its counter."""
    path = tmp_path / "db.sqlite"
    first = _state(path, 9)
    for seq in (0, 5, 6):
        _add(first, seq)
    first.store.put_meta("next_seq", "4")  # as if the counter had wrapped since
    first.store.close()
    second = _state(path, 9)
    assert [second.next_seq() for _ in range(4)] == [4, 7, 8, 9]
    assert second.next_seq() == 1  # wrapped: 0 is held


def test_first_number_of_a_new_install_survives_a_restart(tmp_path: Path) -> None:
    """cluster.json's ``first_job_seq`` (fake-only; the fidelity replay numbers jobs from its
    capture's first number, 323 in the extra set) starts a fresh server's numbering."""
    path = tmp_path / "db.sqlite"
    state = _state(path, 9999999)
    state.start_numbering(323)
    assert state.next_seq() == 323
    again = _state(path, 9999999)
    assert again.next_seq() == 324
