"""The poll loop's per-job decisions: one bad id never fails the others, and a job missing from
qstat's output is not taken as COMPLETED unless something confirms it."""
from typing import Dict, Iterator, List, Optional, Set

import pytest
from psij import JobState

from .pbspro_testutil import transcript
from psijpbs import commands
from psijpbs.commands import CommandResult
from psijpbs.executor import PBSProJobExecutor
from psijpbs.poller import PBSProPoller
from psijpbs.qstat_output import JobReport, QstatResult, parse_qstat
from psijpbs.tracking import StatusTracker


class Files:
    """Stands in for the work directory's .ec files and the executor's cancel requests."""

    def __init__(self) -> None:
        self.ec: Dict[str, str] = {}
        self.canceled: Set[str] = set()

    def tracker(self) -> StatusTracker:
        return StatusTracker(self.ec.get, self.canceled.__contains__)


def gone(native_id: str) -> QstatResult:
    return QstatResult(unknown={native_id})


def test_gone_without_exit_code_needs_confirmation() -> None:
    """history off / purged job (qstat: Unknown Job Id, rc 153) and no .ec file: FAILED only
    when two polls in a row say so (an NFS cache may show the .ec late)."""
    files = Files()
    tracker = files.tracker()
    assert tracker.decide('5.vm', gone('5.vm')) is None
    status = tracker.decide('5.vm', gone('5.vm'))
    assert status is not None and status.state == JobState.FAILED
    assert status.message is not None and 'no longer knows' in status.message


def test_gone_with_exit_code_file_is_decided_at_once() -> None:
    """A purged job whose .ec exists ended; the .ec says how (0 COMPLETED, else FAILED)."""
    files = Files()
    files.ec['5.vm'] = '0\n'
    files.ec['6.vm'] = '2\n'
    tracker = files.tracker()
    done = tracker.decide('5.vm', gone('5.vm'))
    failed = tracker.decide('6.vm', QstatResult(finished={'6.vm'}))
    assert done is not None and done.state == JobState.COMPLETED and done.exit_code == 0
    assert failed is not None and failed.state == JobState.FAILED and failed.exit_code == 2


def test_gone_after_cancel_is_canceled() -> None:
    """psij issue #470: a job this executor canceled is CANCELED whatever PBS reports."""
    files = Files()
    files.canceled.add('5.vm')
    status = files.tracker().decide('5.vm', gone('5.vm'))
    assert status is not None and status.state == JobState.CANCELED


def test_unexplained_absence_is_not_completion() -> None:
    """OpenPBS #2672: an id simply missing from the output (no error line) gives no update for
    several polls, then counts as gone (and still needs confirmation)."""
    tracker = Files().tracker()
    empty = QstatResult()
    decisions = [tracker.decide('5.vm', empty) for _ in range(4)]
    assert decisions[:3] == [None, None, None]
    assert decisions[3] is not None and decisions[3].state == JobState.FAILED


def test_seen_again_resets_counts() -> None:
    """A job reported again (R) after an unexplained absence starts counting afresh."""
    tracker = Files().tracker()
    running = QstatResult(jobs={'5.vm': JobReport('5.vm', 'R', 42)})
    assert tracker.decide('5.vm', gone('5.vm')) is None
    status = tracker.decide('5.vm', running)
    assert status is not None and status.state == JobState.ACTIVE
    assert tracker.decide('5.vm', gone('5.vm')) is None


def test_exit_code_file_wins_over_exit_status() -> None:
    """The .ec file (the launched command's exit code) is read before PBS's Exit_status."""
    files = Files()
    files.ec['5.vm'] = '7'
    finished = QstatResult(jobs={'5.vm': JobReport('5.vm', 'F', 92, 0)})
    status = files.tracker().decide('5.vm', finished)
    assert status is not None and status.state == JobState.FAILED and status.exit_code == 7


def test_walltime_kill_wins_over_exit_code_file() -> None:
    """Transcript b08c (Exit_status -29, comment "... exceeded resource walltime"): the mom
    signals the job's children before its shell, so the shell may still write an .ec of 143
    (its child's SIGTERM); PBS's walltime account wins over it (issue 12, 1 of 9 real runs)."""
    case = transcript('b08c')
    finished = parse_qstat(int(case['exit_code']), str(case['stdout']))
    (native_id,) = finished.jobs
    files = Files()
    files.ec[native_id] = '143\n'
    status = files.tracker().decide(native_id, finished)
    assert status is not None and status.state == JobState.FAILED, status
    assert status.exit_code == -29
    assert status.message is not None and 'walltime exceeded' in status.message, status


def test_walltime_kill_seen_exiting_wins_without_history() -> None:
    """Without job history (the real default) a finished job vanishes, but qstat showed it
    Exiting with Exit_status already set (transcripts c04b, f03): a walltime kill seen then
    still wins over an .ec of 143 once PBS no longer knows the job."""
    files = Files()
    files.ec['5.vm'] = '143\n'
    tracker = files.tracker()
    exiting = QstatResult(jobs={'5.vm': JobReport('5.vm', 'E', 51, -29)})
    running = tracker.decide('5.vm', exiting)
    assert running is not None and running.state == JobState.ACTIVE
    status = tracker.decide('5.vm', gone('5.vm'))
    assert status is not None and status.state == JobState.FAILED, status
    assert status.exit_code == -29
    assert status.message is not None and 'walltime exceeded' in status.message, status
    # Any other exit status seen while Exiting leaves the .ec in charge.
    tracker.forget('5.vm')
    files.ec['6.vm'] = '3\n'
    tracker.decide('6.vm', QstatResult(jobs={'6.vm': JobReport('6.vm', 'E', 51, 3)}))
    status = tracker.decide('6.vm', gone('6.vm'))
    assert status is not None and status.exit_code == 3 and status.message is None, status


def test_short_and_qualified_ids_match() -> None:
    """attach('12') and PBS printing '12.vm' designate the same job."""
    status = Files().tracker().decide('12', QstatResult(jobs={'12.vm': JobReport('12.vm', 'Q')}))
    assert status is not None and status.state == JobState.QUEUED


class _NoIteration(Dict[str, JobReport]):
    """Job reports that refuse to be iterated (copied): lookups only."""

    def __iter__(self) -> Iterator[str]:
        raise AssertionError('the reports were iterated (copied) to decide one job')


def test_deciding_reported_jobs_copies_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each poll decides every tracked id: reported ids are looked up, never found by copying
    or scanning the reports (a copy per id made a poll of 5,000 tracked jobs take seconds)."""
    from psijpbs import qstat_output

    def no_scan(wanted: str, reported: str) -> bool:
        raise AssertionError('scanned for %s although it was reported as such' % wanted)

    monkeypatch.setattr(qstat_output, 'same_job', no_scan)
    ids = ['%d.vm' % n for n in range(50)]
    reports = _NoIteration({i: JobReport(i, 'F', exit_status=0) for i in ids})
    result = QstatResult(jobs=reports)
    files = Files()
    files.ec.update({i: '0\n' for i in ids})
    tracker = files.tracker()
    states = {tracker.decide(i, result).state for i in ids}  # type: ignore[union-attr]
    assert states == {JobState.COMPLETED}


class ScriptedPBS:
    """Replaces command execution: answers each command from a list of canned results."""

    def __init__(self, answers: List[CommandResult]) -> None:
        self.answers = answers
        self.calls: List[List[str]] = []

    def __call__(self, command: List[str], timeout: float, retries: int,
                 codes: Optional[object] = None, first_pause: float = 0.5) -> CommandResult:
        self.calls.append(command)
        return self.answers.pop(0)


def _answer(name: str) -> CommandResult:
    case = transcript(name)
    return CommandResult([], int(case['exit_code']), str(case['stdout']), str(case['stderr']))


def test_poll_keeps_good_job_when_another_is_unknown(executor: PBSProJobExecutor,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """b21: one qstat for 16.vm and 999.vm exits 153; 16.vm gets its final state, 999.vm none
    yet (unknown once, no .ec)."""
    pbs = ScriptedPBS([_answer('b21')])
    monkeypatch.setattr(commands, 'run_with_retries', pbs)
    statuses = executor._poll_statuses(['16.vm', '999.vm'])
    assert pbs.calls == [['qstat', '-f', '-F', 'json', '-x', '16.vm', '999.vm']]
    assert statuses['16.vm'].state == JobState.FAILED
    assert statuses['16.vm'].exit_code == 3
    assert '999.vm' not in statuses


def test_poll_requeries_ids_a_buggy_server_left_out(executor: PBSProJobExecutor,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """openpbs-master b22 (OpenPBS #2672): two ids asked, one printed: the other is asked for
    alone, and both get their state."""
    second = _answer('b07b')
    pbs = ScriptedPBS([_answer('master_b22'), second])
    monkeypatch.setattr(commands, 'run_with_retries', pbs)
    statuses = executor._poll_statuses(['8.vm', '16.vm'])
    assert pbs.calls[1] == ['qstat', '-f', '-F', 'json', '-x', '16.vm']
    assert set(statuses) == {'8.vm', '16.vm'}
    assert statuses['16.vm'].exit_code == 3


def test_poll_drops_x_when_history_is_off(executor: PBSProJobExecutor,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """qstat -x on a server without job history: 'PBS is not configured to maintain job
    history' (rc 0); the poll is repeated without -x, and later polls go without it."""
    header = '{\n    "timestamp":1,\n    "pbs_version":"23.06.06",\n    "pbs_server":"vm"\n}'
    refused = CommandResult([], 0, header,
                            'qstat: PBS is not configured to maintain job history 13.vm\n')
    pbs = ScriptedPBS([refused, _answer('b03_')])
    monkeypatch.setattr(commands, 'run_with_retries', pbs)
    statuses = executor._poll_statuses(['13.vm'])
    assert statuses['13.vm'].state == JobState.ACTIVE
    assert pbs.calls[1] == ['qstat', '-f', '-F', 'json', '13.vm']
    assert executor.get_status_command(['13.vm']) == ['qstat', '-f', '-F', 'json', '13.vm']


def test_poll_failure_as_a_whole_raises(executor: PBSProJobExecutor,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """qstat that cannot reach the server says nothing about any job: a poll error (counted by
    the poll thread), not a verdict on the jobs."""
    pbs = ScriptedPBS([CommandResult([], 162, '', 'qstat: cannot connect to server vm '
                                                  '(errno=111)\n')])
    monkeypatch.setattr(commands, 'run_with_retries', pbs)
    with pytest.raises(RuntimeError):
        executor._poll_statuses(['13.vm'])


def test_poll_schedule_backs_off_with_age() -> None:
    """Young jobs are polled at the minimum interval (a short job's end is seen within about a
    second), older ones less and less often, up to the configured maximum."""
    from psijpbs.poller import poll_interval
    assert poll_interval(0.0, 0.5, 30) == 0.5
    assert poll_interval(20.0, 0.5, 30) == 4.0
    assert poll_interval(3600.0, 0.5, 30) == 30


def _unstarted_poller(executor: PBSProJobExecutor) -> PBSProPoller:
    """A poller of ``executor`` whose thread never runs: its schedule is examined alone."""
    return PBSProPoller('schedule under test', executor._pbs_config, executor)


def test_first_poll_waits_the_initial_delay(executor: PBSProJobExecutor) -> None:
    """After a submission (activity) the next poll is due initial_queue_polling_delay later,
    then one interval after each poll ended."""
    poller = _unstarted_poller(executor)
    config = executor._pbs_config
    poller._activity = poller._pending_since = 100.0
    poller._last_poll_end = 50.0
    assert poller._next_due(100.0) == 100.0 + config.initial_queue_polling_delay
    poller._pending_since = None
    poller._last_poll_end = 101.0
    assert poller._next_due(101.0) == 101.0 + config.min_queue_polling_interval


def test_submission_stream_does_not_postpone_polls(executor: PBSProJobExecutor) -> None:
    """A burst of submissions (one every few ms for many seconds) still gets a poll
    max(initial delay, min interval) after its first submission, so statuses keep flowing and
    each poll names only the jobs not yet final (before, every submission pushed the poll back
    and the first poll of a 1,000-job burst named all 1,000 ids)."""
    poller = _unstarted_poller(executor)
    config = executor._pbs_config
    poller._last_poll_end = 50.0
    poller._pending_since = 100.0
    poller._activity = 100.45
    first = 100.0 + max(config.initial_queue_polling_delay, config.min_queue_polling_interval)
    assert poller._next_due(100.45) == first
    # After the burst ends, the last submission's own delay applies.
    poller._pending_since = poller._activity = 200.0
    poller._last_poll_end = 199.0
    assert poller._next_due(200.0) == 200.0 + config.initial_queue_polling_delay


def test_slow_qstat_is_not_polled_back_to_back(executor: PBSProJobExecutor) -> None:
    """A poll that took long (a loaded real server: qstat ~200 ms and more) spaces the next one
    by COST_FACTOR times its duration, whatever the activity."""
    from psijpbs.poller import COST_FACTOR
    poller = _unstarted_poller(executor)
    poller._pending_since = poller._activity = 100.0
    poller._last_poll_end = 100.0
    poller._last_poll_cost = 3.0
    assert poller._next_due(100.0) == 100.0 + COST_FACTOR * 3.0


def test_only_the_first_submission_of_a_burst_wakes_the_poll_thread(
        executor: PBSProJobExecutor) -> None:
    """Waking the poll thread at every submission costs a thread switch per job; only the
    first activity after a poll can bring the next poll forward."""
    poller = _unstarted_poller(executor)
    poller._pending_since = None
    poller._wake.clear()
    poller.note_activity()
    assert poller._wake.is_set() and poller._pending_since is not None
    first = poller._pending_since
    poller._wake.clear()
    poller.note_activity()
    assert not poller._wake.is_set() and poller._pending_since == first


def test_idle_poll_thread_forgets_stale_activity(executor: PBSProJobExecutor) -> None:
    """Activity noted while the last job ended (a cancel racing with its end) must not leave
    a pending mark behind once nothing is tracked: the next submission would then not wake
    the idle thread, and its first poll would wait a whole queue_polling_interval (30 s)."""
    import time
    poller = executor._poller
    poller._pending_since = 1.0
    poller._wake.set()
    deadline = time.monotonic() + 30
    while poller._pending_since is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert poller._pending_since is None
