"""PSI/J's ``reservation_id`` with the ``pbspro`` executor, end to end on the fake cluster.

The job goes to the reservation's queue (``qsub -q R875``: R10, the queue PBS names after the
reservation, R07) and runs there once the window begins (R22c: ``reserve_ID``); a reservation
that does not exist fails the submit with qsub's ``Unknown queue``.
"""
import time
from datetime import timedelta
from pathlib import Path

import pytest
from psij import Job, JobAttributes, JobSpec, JobState, SubmitException

from fake_pbs.testing import FakeCluster
from psijpbs.config import PBSProExecutorConfig
from psijpbs.executor import PBSProJobExecutor


def _executor(tmp_path: Path) -> PBSProJobExecutor:
    config = PBSProExecutorConfig(work_directory=tmp_path / 'work', queue_polling_interval=1,
                                  min_queue_polling_interval=0.2,
                                  initial_queue_polling_delay=0.2)
    return PBSProJobExecutor(config=config)


def test_job_runs_in_its_reservation(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    start = int(time.time()) + 3
    when = [time.strftime('%Y%m%d%H%M.%S', time.localtime(t)) for t in (start, start + 120)]
    resv = fake_pbs.sh('pbs_rsub', '-R', when[0], '-E', when[1]).split()[0]
    out = tmp_path / 'out.txt'
    spec = JobSpec('/bin/echo', ['inside'], stdout_path=out,
                   attributes=JobAttributes(reservation_id=resv, queue_name='workq'))
    job = Job(spec)
    _executor(tmp_path).submit(job)
    status = job.wait(timeout=timedelta(seconds=60))
    assert status is not None and status.state == JobState.COMPLETED, status
    assert out.read_text() == 'inside\n'
    record = fake_pbs.job(str(job.native_id))
    assert (record['queue'], record['reserve_ID']) == (resv.split('.')[0], resv)
    assert int(record['stime']) >= start
    fake_pbs.sh('pbs_rdel', resv)


def test_unknown_reservation_fails_the_submit(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    spec = JobSpec('/bin/true', attributes=JobAttributes(reservation_id='R99999.vm'))
    with pytest.raises(SubmitException) as failure:
        _executor(tmp_path).submit(Job(spec))
    assert 'Unknown queue' in str(failure.value)
