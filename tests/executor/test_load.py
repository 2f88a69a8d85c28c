"""The executor under load and under odd ``qstat`` behaviour, end to end on the fake cluster
or, with ``--real-pbs``, on the PBS on PATH (conftest.py).

``qstat`` is wrapped by a PATH shim (a directory before the PBS commands) that logs every call
and, on demand, hangs (as a real qstat does when the server is overloaded or its host is down)
or prints truncated output. Polling is made fast through the ``PSIJ_PBSPRO_*`` environment
variables, as a user of psij's ``get_instance('pbspro')`` would.
"""
import os
import shutil
import stat
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Callable, Iterator, List, Tuple

import pytest
from psij import Job, JobExecutor, JobSpec, JobState, JobStatus

from .pbs_site import PbsSite
from psijpbs import compat
from psijpbs.config import PBSProExecutorConfig

WAIT = timedelta(seconds=120)
#: The shim: log the call; hang while <dir>/hang exists (exec, so that the executor's timeout
#: kills the sleeping process itself); print only half of stdout while <dir>/truncate holds a
#: positive count (decremented per call); otherwise run the fake's qstat.
_SHIM = r'''#!/bin/bash
dir=$(dirname "$0")
echo "$*" >> "$dir/calls.log"
if [ -e "$dir/hang" ]; then exec sleep 30; fi
left=$(cat "$dir/truncate" 2>/dev/null || echo 0)
if [ "$left" -gt 0 ]; then
    echo $((left - 1)) > "$dir/truncate"
    out=$("$REAL_QSTAT" "$@"); rc=$?
    printf '%s' "${out:0:$((${#out} / 2))}"
    exit $rc
fi
exec "$REAL_QSTAT" "$@"
'''


class QstatShim:
    """Controls of the ``qstat`` shim and what it recorded."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory

    def calls(self) -> List[List[str]]:
        """The argument vectors of every qstat call so far."""
        log = self.dir / 'calls.log'
        return [line.split() for line in log.read_text().splitlines()] if log.exists() else []

    def hang(self, on: bool) -> None:
        flag = self.dir / 'hang'
        if on:
            flag.touch()
        elif flag.exists():
            flag.unlink()

    def truncate_next(self, count: int) -> None:
        (self.dir / 'truncate').write_text('%d\n' % count)


@pytest.fixture
def shim(pbs: PbsSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[QstatShim]:
    """A ``qstat`` shim first on PATH, and polling made fast through the environment."""
    pbs.require_jobs()
    directory = tmp_path / 'shim'
    directory.mkdir()
    script = directory / 'qstat'
    script.write_text(_SHIM)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    real_qstat = shutil.which('qstat')
    assert real_qstat is not None, 'no qstat on PATH'
    monkeypatch.setenv('REAL_QSTAT', real_qstat)
    monkeypatch.setenv('PATH', '%s%s%s' % (directory, os.pathsep, os.environ['PATH']))
    monkeypatch.setenv('PSIJ_PBSPRO_POLL_INTERVAL', '1')
    monkeypatch.setenv('PSIJ_PBSPRO_MIN_POLL_INTERVAL', '0.2')
    monkeypatch.setenv('PSIJ_PBSPRO_INITIAL_POLL_DELAY', '0.2')
    shim = QstatShim(directory)
    yield shim
    shim.hang(False)


def _executor(tmp_path: Path) -> JobExecutor:
    """A pbspro executor from psij's registry; its settings come from the environment."""
    config = PBSProExecutorConfig(work_directory=tmp_path / 'psij-work')
    return JobExecutor.get_instance('pbspro', config=config)


@pytest.fixture
def make_executor(tmp_path: Path) -> Iterator[Callable[[], JobExecutor]]:
    """Executors whose poll threads are stopped when the test ends."""
    made: List[JobExecutor] = []

    def make() -> JobExecutor:
        made.append(_executor(tmp_path))
        return made[-1]

    yield make
    for ex in made:
        poller = getattr(ex, '_poller')
        poller.done = True
        poller.note_activity()


def _record_polls(ex: JobExecutor) -> List[List[str]]:
    """Record, for each poll of the poll thread that had jobs, the ids it was tracking."""
    poller = getattr(ex, '_poller')
    inner = poller.poll
    tracked: List[List[str]] = []

    def poll() -> None:
        ids = poller.tracked_ids()
        if ids:
            tracked.append(sorted(ids))
        inner()

    poller.poll = poll
    return tracked


def _wait_all(jobs: List[Job], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    for job in jobs:
        job.wait(timeout=timedelta(seconds=max(0.1, deadline - time.monotonic())))


def _outcome(status: JobStatus) -> Tuple[JobState, object]:
    return status.state, status.exit_code


def test_200_jobs_at_once_one_qstat_per_poll(shim: QstatShim,
                                             make_executor: Callable[[], JobExecutor]) -> None:
    """200 jobs submitted at once (8 threads) through one executor all reach their own final
    state (exit 0 -> COMPLETED, exit 3 -> FAILED with code 3), leaving no .ec/.out file. Every
    poll is ONE ``qstat -f -F json -x <ids...>`` for all tracked jobs (PBS's qstat takes many
    ids and reports each one separately: transcript b22d ``qstat -f -F json -x 8.vm 16.vm
    9.vm``), never one qstat per job."""
    ex = make_executor()
    polls = _record_polls(ex)
    specs = [JobSpec('/bin/bash', ['-c', 'exit %d' % (3 if i % 4 == 3 else 0)])
             for i in range(200)]
    jobs = [Job(spec) for spec in specs]
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(ex.submit, jobs))
    _wait_all(jobs, 240)
    expected = [(JobState.FAILED, 3) if i % 4 == 3 else (JobState.COMPLETED, 0)
                for i in range(200)]
    assert [_outcome(job.status) for job in jobs] == expected
    calls = shim.calls()
    assert all(call[:4] == ['-f', '-F', 'json', '-x'] for call in calls), calls[:3]
    # Each poll is one qstat naming every job tracked when the poll began (and jobs submitted
    # while it began, which a concurrent submit may add).
    assert len(calls) == len(polls)
    assert all(set(before) <= set(call[4:]) for before, call in zip(polls, calls))
    assert len(calls) < len(jobs) and max(len(ids) for ids in polls) > 1
    work = Path(getattr(ex, 'work_directory'))
    assert sorted(p.name for p in work.glob('*') if p.suffix in ('.ec', '.out')) == []


def test_bogus_attached_ids_among_good_jobs(shim: QstatShim,
                                            make_executor: Callable[[], JobExecutor],
                                            pbs: PbsSite) -> None:
    """Attached ids PBS never had, polled in the same qstat as good jobs: qstat reports the
    good ones on stdout and, on stderr, ``qstat: Unknown Job Id <id>`` with rc 153 (transcript
    b21 ``qstat -f -F json -x 16.vm 999.vm``) or, for an id naming another server,
    ``qstat: illegally formed job identifier: <id>`` with rc 1 (transcript b18). Only the bogus
    jobs become FAILED; the good ones complete."""
    ex = make_executor()
    good = [Job(JobSpec('/bin/sleep', ['1'])) for _ in range(5)]
    for job in good:
        ex.submit(job)
    unknown, foreign = Job(), Job()
    ex.attach(unknown, '987654.' + pbs.server_name)
    ex.attach(foreign, '999.othersrv')
    _wait_all(good + [unknown, foreign], 60)
    assert [job.status.state for job in good] == [JobState.COMPLETED] * 5
    assert unknown.status.state == JobState.FAILED, unknown.status
    assert foreign.status.state == JobState.FAILED, foreign.status
    assert any(len(call) > 6 and unknown.native_id in call and foreign.native_id in call
               for call in shim.calls())


def test_hanging_qstat_fails_no_job(shim: QstatShim, make_executor: Callable[[], JobExecutor],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """qstat hanging (server overloaded or unreachable; PSI/J's own base class has no timeout
    and would block forever) is cut by the command timeout and counts as a failed poll; fewer
    failed polls in a row than PSIJ_PBSPRO_POLL_ERROR_THRESHOLD mark no job FAILED, and the
    jobs that ended meanwhile get their true final states once qstat answers again."""
    monkeypatch.setenv('PSIJ_PBSPRO_COMMAND_TIMEOUT', '1')
    monkeypatch.setenv('PSIJ_PBSPRO_COMMAND_RETRIES', '0')
    monkeypatch.setenv('PSIJ_PBSPRO_POLL_ERROR_THRESHOLD', '20')
    ex = make_executor()
    shim.hang(True)
    ok = Job(JobSpec('/bin/true'))
    bad = Job(JobSpec('/bin/bash', ['-c', 'exit 5']))
    running = Job(JobSpec('/bin/sleep', ['8']))
    for job in (ok, bad, running):
        ex.submit(job)
    deadline = time.monotonic() + 30
    while len(shim.calls()) < 3 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(shim.calls()) >= 3, 'the poll thread should have tried qstat several times'
    # No job is final without qstat; with psij's status channel (psij > 0.9.11) the scripts
    # themselves may have reported ACTIVE meanwhile.
    seen = {job.status.state for job in (ok, bad, running)}
    assert seen <= ({JobState.QUEUED} if compat.STATUS_UPDATER_CLASS is None
                    else {JobState.QUEUED, JobState.ACTIVE}), seen
    shim.hang(False)
    _wait_all([ok, bad, running], 60)
    assert _outcome(ok.status) == (JobState.COMPLETED, 0)
    assert _outcome(bad.status) == (JobState.FAILED, 5)
    assert _outcome(running.status) == (JobState.COMPLETED, 0)


def test_truncated_qstat_output_fails_no_job(shim: QstatShim,
                                             make_executor: Callable[[], JobExecutor]) -> None:
    """qstat output cut in the middle (a broken pipe, a killed qstat, an overfull disk): the
    jobs it does not clearly report are not taken as finished (PSI/J's base class would call a
    job missing from the output COMPLETED); they get their true states from the next polls."""
    ex = make_executor()
    shim.truncate_next(3)
    jobs = [Job(JobSpec('/bin/bash', ['-c', 'sleep 1; exit %d' % code])) for code in (0, 4)]
    for job in jobs:
        ex.submit(job)
    _wait_all(jobs, 60)
    assert [_outcome(job.status) for job in jobs] == [(JobState.COMPLETED, 0),
                                                      (JobState.FAILED, 4)]
    assert (shim.dir / 'truncate').read_text().strip() == '0'
