"""The Exit_status table (openpbs-behaviour.md §3.1; transcripts b04, b07b, b08c, b05b, c04c,
f12)."""
from typing import Optional

import pytest
from psij import JobState

from psijpbs.exit_status import outcome_of_exit_status
from psijpbs.qstat_output import JobReport
from psijpbs.states import final_status


@pytest.mark.parametrize('exit_status, state, exit_code, words', [
    (0, JobState.COMPLETED, 0, None),
    (1, JobState.FAILED, 1, None),
    (255, JobState.FAILED, 255, None),
    (271, JobState.FAILED, 143, 'signal 15 (SIGTERM'),
    (265, JobState.FAILED, 137, 'signal 9 (SIGKILL'),
    (-29, JobState.FAILED, -29, 'walltime exceeded'),
    (-27, JobState.FAILED, -27, 'memory limit exceeded'),
    (-16, JobState.FAILED, -16, 'hook rejected'),
    (-17, JobState.FAILED, -17, 'hook rejected the job and PBS deleted it'),
    (-11, JobState.FAILED, -11, 'requeued'),
    (-99, JobState.FAILED, -99, 'internal code -99'),
])
def test_exit_status_table(exit_status: int, state: JobState, exit_code: int,
                           words: Optional[str]) -> None:
    """0 COMPLETED; 1..255 FAILED with the code; 256+N killed by signal N; negative JOB_EXEC_*
    codes FAILED with a message saying what PBS did."""
    outcome = outcome_of_exit_status(exit_status)
    assert outcome.state == state
    assert outcome.exit_code == exit_code
    if words is None:
        assert outcome.message is None
    else:
        assert outcome.message is not None and words in outcome.message


def test_signal_kill_not_requested_is_failed() -> None:
    """A job killed by a signal outside PBS (Exit_status 265, substate 93) is FAILED."""
    status = final_status(JobReport('1.vm', 'F', 93, 265), None, False)
    assert status.state == JobState.FAILED
    assert status.message is not None and 'SIGKILL' in status.message


def test_hook_deletion_is_not_a_cancellation() -> None:
    """-17 (hook rejection, job deleted) ends in substate 91 like a qdel, but is FAILED."""
    status = final_status(JobReport('1.vm', 'F', 91, -17), None, False)
    assert status.state == JobState.FAILED


def test_finished_without_exit_status_is_failed() -> None:
    """A dependent job deleted because its dependency failed: F, substate 92, no comment, no
    Exit_status (extra transcripts j05) -> FAILED, not COMPLETED."""
    status = final_status(JobReport('1.vm', 'F', 92, None), None, False)
    assert status.state == JobState.FAILED


def test_cancel_requested_wins() -> None:
    """Our own qdel: CANCELED even though the shell's .ec or Exit_status says otherwise."""
    status = final_status(JobReport('1.vm', 'F', 91, 271), '143', True)
    assert status.state == JobState.CANCELED
    assert status.metadata is not None and status.metadata['pbs_exit_status'] == 271
